"""The issue's Done criteria on a fresh workspace: the four sim profiles under
p2:semantic_wrong and baseline, judged by facts, analysed with `agentprop analyze --json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.experiment._execute import compute_simulation_check
from agentprop.sim import PROFILES
from agentprop.store import Workspace

RUNNER = CliRunner()
MODELS = ["sim/tool-averse", "sim/propagator", "sim/self-correcting", "sim/balanced"]


def _ok(*args: str) -> str:
    res = RUNNER.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    ws = tmp_path_factory.mktemp("stop") / "W"
    models = [a for m in MODELS for a in ("-m", m)]
    _ok("run", *models, "-c", "p2:semantic_wrong", "-c", "baseline", "-n", "150",
        "--split", "test", "-w", str(ws), "--json")
    _ok("judge", "-w", str(ws), "-j", "facts", "--json")
    return ws, json.loads(_ok("analyze", "-w", str(ws), "--json", "--resamples", "500"))


def test_self_correcting_notices_more_than_the_propagator(analysed) -> None:  # type: ignore[no-untyped-def]
    _, n = analysed
    sc, pr = n["propagation.noticed[sim/self-correcting]"], n["propagation.noticed[sim/propagator]"]
    assert sc["value"] > pr["value"] and sc["ci"][0] > pr["ci"][1]  # CIs do not overlap


def test_every_model_has_false_alarms_stopping_and_our_spearman(analysed) -> None:  # type: ignore[no-untyped-def]
    _, n = analysed
    assert isinstance(n["rejection_recovery.spearman_rho_ours"]["value"], float)
    assert n["rejection_recovery.spearman_rho_ours"]["n"] == len(MODELS)
    for m in MODELS:
        assert n[f"propagation.noticed_false_alarm[{m}]"]["n"] > 0
        assert n[f"propagation.noticed_delta[{m}]"]["n"] > 0
        assert n[f"stopping.propagated[{m}]"]["value"] is not None
        shares = [n[f"stopping.{o}[{m}]"]["value"] for o in (
            "no_tool_call", "not_applied", "noticed_recovered", "unnoticed_recovered",
            "noticed_not_recovered", "propagated")]
        assert sum(shares) == pytest.approx(1.0)
        # our runtime applies every corruption: 1 by construction, and the paper's
        # rejection is 0 — so its Spearman is undefined while ours is a number
        assert n[f"propagation.p_S1[{m}]"]["value"] == 1.0
    assert n["rejection_recovery.spearman_rho"]["value"] is None


def test_simulation_check_covers_noticing_and_false_alarms(analysed) -> None:  # type: ignore[no-untyped-def]
    ws, _ = analysed
    with Workspace(ws) as w:
        rows = compute_simulation_check(w)
    by = {(r["model"], r["metric"]): r for r in rows}
    for m in MODELS:
        truth = PROFILES[m.split("/")[1]].true_rates()
        for metric, key in (("noticed_rate", "noticed_given_S2"),
                            ("false_alarm_rate", "false_alarm")):
            r = by[(m, metric)]
            assert r["true"] == pytest.approx(truth[key]) and r["n"] > 0
            assert r["covered"], r
    assert all(r["covered"] for r in rows)
