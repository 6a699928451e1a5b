"""`judge --noticed llm:MODEL` stores a classifier's readings (resumable, transient
failures not stored); `stages --noticed llm:MODEL` reads them; bad values fail with one
line. On a small simulated workspace with the simulated classifiers (`sim-noticed`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    w = tmp_path_factory.mktemp("noticed-llm") / "w"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "-n", "2", "-d", "weather",
                              "-c", "baseline", "-c", "p2:semantic_wrong", "-c", "out:stale",
                              "-w", str(w)])
    assert res.exit_code == 0, res.output
    return w


@pytest.fixture(scope="module")
def rules(ws: Path) -> dict:
    """`stages --json` with the text rules (the default)."""
    return _stages(ws)


def _stored(w: Path, classifier: str) -> int:
    with sqlite3.connect(w / "agentprop.sqlite") as c:
        return int(c.execute("SELECT count(*) FROM noticed_readings WHERE classifier=?",
                             (classifier,)).fetchone()[0])


def _judge(w: Path, model: str) -> dict:
    res = runner.invoke(app, ["judge", "-w", str(w), "--noticed", f"llm:{model}", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["noticed"]


def _stages(w: Path, *extra: str) -> dict:
    res = runner.invoke(app, ["stages", "-w", str(w), "--json", "--n-boot", "100", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_judge_then_stages_with_the_classifier(ws: Path, rules: dict) -> None:
    first = _judge(ws, "sim-noticed/exact")
    assert first["asked"] > 0 and first["failed"] == 0
    n = _stored(ws, "llm:sim-noticed/exact")
    assert n == first["asked"]
    # resumable: nothing is asked again; a reading removed is asked again, alone
    assert _judge(ws, "sim-noticed/exact")["asked"] == 0
    with sqlite3.connect(ws / "agentprop.sqlite") as c:
        c.execute("DELETE FROM noticed_readings WHERE rowid = (SELECT min(rowid) FROM "
                  "noticed_readings)")
    again = _judge(ws, "sim-noticed/exact")
    assert (again["asked"], again["reused"]) == (1, n - 1)
    # the exact profile answers what the rules read: the same rates
    llm = _stages(ws, "--noticed", "llm:sim-noticed/exact")
    assert (rules["noticed"], llm["noticed"]) == ("rules", "llm:sim-noticed/exact")
    assert llm["noticed_unscored"] == 0
    assert [g["noticed"] for g in llm["groups"]] == [g["noticed"] for g in rules["groups"]]


def test_unscored_readings_leave_noticed_undefined(ws: Path, rules: dict) -> None:
    _judge(ws, "sim-noticed/garbage")
    out = _stages(ws, "--noticed", "llm:sim-noticed/garbage")
    assert out["noticed_unscored"] > 0
    # undefined, never "not noticed": fewer traces in the denominator, none counted as no
    for g, r in zip(out["groups"], rules["groups"], strict=True):
        assert g["noticed_share_n"] <= r["noticed_share_n"]


def test_transient_failures_are_not_stored(ws: Path) -> None:
    res = runner.invoke(app, ["judge", "-w", str(ws), "--noticed",
                              "llm:sim-noticed/unreachable"])
    assert res.exit_code == 1
    assert "rerun the same" in res.stderr
    assert _stored(ws, "llm:sim-noticed/unreachable") == 0


@pytest.mark.parametrize(("args", "says"), [
    (["stages", "--noticed", "rulez"], "did you mean 'rules'"),
    (["stages", "--noticed", "llm:sim-noticed/exakt"], "did you mean 'llm:sim-noticed/exact'"),
    (["analyze", "--noticed", "llm:sim-noticed/noisy"], "run `agentprop judge"),
    (["judge", "--noticed", "rules"], "nothing to store"),
])
def test_bad_noticed_values_fail_with_one_line(ws: Path, args: list[str], says: str) -> None:
    res = runner.invoke(app, [*args, "-w", str(ws)])
    assert res.exit_code == 2, res.output
    assert says in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 3 and "Traceback" not in res.output


def test_model_options_reach_the_classifier_model(ws: Path) -> None:
    """`judge -o KEY=VALUE` configures the judge and classifier models (a local model's
    n_ctx, a server's base_url): here the classifier goes to the URL given, and a dead
    one is named in one line before anything is stored."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    res = runner.invoke(app, ["judge", "-w", str(ws), "--noticed", "llm:openai/x",
                              "-o", f"base_url={url}", "-o", "max_attempts=1"])
    assert res.exit_code == 2, res.output
    assert url in res.stderr and "Traceback" not in res.output
    assert _stored(ws, "llm:openai/x") == 0
