"""`agentprop suite`: stats JSON, clear one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app

runner = CliRunner()


def test_stats_json_shape(tmp_path: Path) -> None:
    res = runner.invoke(app, ["suite", "stats", "--json"])
    assert res.exit_code == 0, res.output
    st = json.loads(res.stdout)
    assert st["total"] == 2300
    assert st["by_domain"]["weather"] == 674 and st["by_domain"]["retail"] == 300
    assert len(st["checksum"]) == 64
    assert set(st) >= {"checksum", "total", "by_domain", "by_difficulty", "by_split"}


def test_bad_inputs_give_one_line_and_nonzero_exit(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    cases = [
        ["suite", "show", "nope_0001"],
        ["suite", "stats", "--suite", str(bad)],
        ["suite", "stats", "--suite", str(tmp_path / "missing.jsonl")],
        ["suite", "build", "--seed", "minus-one", "--out", str(tmp_path / "x.jsonl")],
        ["suite", "build", "--seed", "-5", "--out", str(tmp_path / "x.jsonl")],
    ]
    for args in cases:
        res = runner.invoke(app, args)
        assert res.exit_code != 0, args
        assert "Traceback" not in res.output
        assert len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
    assert not (tmp_path / "x.jsonl").exists()


def test_show_renders_gold_plan_and_reference(tmp_path: Path) -> None:
    res = runner.invoke(app, ["suite", "show", "medical_0001"])
    assert res.exit_code == 0, res.output
    assert "gold plan" in res.stdout and "reference" in res.stdout


def test_export_to_a_folder_fails_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "folder"
    out.mkdir()
    res = runner.invoke(app, ["suite", "export", "--out", str(out)])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]  # no .tmp left behind
