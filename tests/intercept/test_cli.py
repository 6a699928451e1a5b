"""`agentprop intercept sweep|evaluate`: outputs, stored meta, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import Verdict
from agentprop.store import Workspace

from .test_sweep import TRACES

RUNNER = CliRunner()


def _workspace(path: Path, *, judged: bool) -> None:
    with Workspace(path) as ws:
        ws.put_traces([t for t, _ in TRACES])
        if judged:
            ws.put_verdicts(Verdict(trace_id=t.id, judge="facts", correct=ok) for t, ok in TRACES)


def test_sweep_without_verdicts_says_to_judge_first(tmp_path: Path) -> None:
    _workspace(tmp_path / "w", judged=False)
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(tmp_path / "w")])
    assert res.exit_code == 2
    assert "agentprop judge" in res.output and "Traceback" not in res.output
    with Workspace(tmp_path / "w") as ws:
        assert ws.get_meta("interceptor_config") is None


def test_sweep_saves_best_config_and_table(tmp_path: Path) -> None:
    _workspace(tmp_path / "w", judged=True)
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(tmp_path / "w"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["best_label"] == "tau_l1=1,tau_l2=3,l3=on" and len(out["rows"]) == 12
    with Workspace(tmp_path / "w") as ws:
        assert ws.get_meta("interceptor_config")["tau_l2"] == 3
        rows = ws.get_meta("interceptor_sweep")
        assert len(rows) == 12 and sum(r["best"] for r in rows) == 1
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(tmp_path / "w")])
    assert res.exit_code == 0 and "best" in res.output


def test_sweep_of_a_split_with_no_traces(tmp_path: Path) -> None:
    _workspace(tmp_path / "w", judged=True)
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(tmp_path / "w"),
                              "--split", "test"])
    assert res.exit_code == 2 and "no un-intercepted traces" in res.output


def test_sweep_with_a_judge_that_has_no_verdicts(tmp_path: Path) -> None:
    _workspace(tmp_path / "w", judged=True)
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(tmp_path / "w"),
                              "--judge", "heuristic"])
    assert res.exit_code == 2 and "judge 'heuristic' has no verdicts" in res.output
    assert "facts" in res.output  # the judges that do have verdicts are listed
    with Workspace(tmp_path / "w") as ws:
        assert ws.get_meta("interceptor_config") is None


def test_evaluate_bad_input_leaves_nothing_behind(tmp_path: Path) -> None:
    ws = tmp_path / "new"
    for args in (["--config", "tau_l1=0"], ["--config", "l3=maybe"], ["--mode", "loud"],
                 ["--condition", "p9:nonsense", "--config", "tau_l1=1"],
                 ["--config", "best"]):
        res = RUNNER.invoke(app, ["intercept", "evaluate", "-w", str(ws), "-m",
                                  "sim/propagator", *args])
        assert res.exit_code != 0, args
        assert "Traceback" not in res.output
        assert not ws.exists(), args
