"""`experiment run` on a small TOML study in-process: runs, judges, simulation check, resume."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace

SMALL = """\
name = "small"
report = false
judges = ["heuristic", "facts"]
primary_judge = "facts"

[[models]]
id = "sim/propagator"

[[models]]
id = "sim/self-correcting"

[[runs]]
name = "core"
models = ["sim/propagator", "sim/self-correcting"]
domains = ["calendar", "weather"]
n = 6
conditions = ["baseline", "p2:semantic_wrong"]
"""


def test_small_study_runs_and_resumes(tmp_path: Path) -> None:
    cfg = tmp_path / "small.toml"
    cfg.write_text(SMALL, encoding="utf-8")
    ws = tmp_path / "ws"
    args = ["experiment", "run", str(cfg), "--workspace", str(ws), "--json"]

    first = CliRunner().invoke(app, args, catch_exceptions=False)
    assert first.exit_code == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["units"] == 2 * 6 * 2 == out["completed"] == out["traces"]
    assert out["skipped"] == 0 and out["errors"] == 0
    assert out["report"] is None and not (ws / "report").exists()
    assert out["simulation_check_total"] == 2 * 6  # six known rates per profile

    with Workspace(ws, create=False) as w:
        assert w.count_traces() == 24
        assert set(w.judges()) >= {"heuristic", "facts"}
        assert len(w.verdicts("facts")) == 24
        rows = w.get_meta("simulation_check")
        assert w.get_meta("experiment")["name"] == "small"
    assert {r["model"] for r in rows} == {"sim/propagator", "sim/self-correcting"}
    assert all(r["judge"] == "facts" for r in rows)

    second = CliRunner().invoke(app, args, catch_exceptions=False)
    assert second.exit_code == 0, second.stderr
    again = json.loads(second.stdout)
    assert again["skipped"] == 24 and again["completed"] == 0 and again["traces"] == 24
