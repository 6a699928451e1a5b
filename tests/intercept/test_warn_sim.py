"""Warn mode vs abstain mode with simulated agents that can heed a warning.

Under `p2:type_mismatch` the corrupted call returns an error observation, L1 fires, and in
warn mode the agent is told to re-check. `sim/self-correcting` heeds 85 % of warnings: it
re-queries the failed call with the right arguments and answers from the corrected
observation, so warn mode cuts its hallucinations while keeping nearly all its answers
(abstain mode withholds nearly all of them). `sim/propagator` heeds 10 %: it mostly
repeats the held-back answer, so warn mode cannot repair it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentprop.app._intercept import run_evaluation
from agentprop.core import Trace
from agentprop.intercept import InterceptConfig
from agentprop.store import Workspace
from agentprop.suite import load_suite

PROFILES = ["self-correcting", "propagator"]
N_TASKS = 100
CONDITION = "p2:type_mismatch"


def _models() -> dict[str, Any]:
    from agentprop.sim import PROFILES as SIM
    from agentprop.sim import SimAgent, SimModel

    agent = SimAgent(load_suite())
    return {f"sim/{p}": SimModel(SIM[p], agent=agent) for p in PROFILES}


def _evaluate(root: Path, mode: str) -> tuple[Workspace, dict[str, Any]]:
    ws = Workspace(root / mode)
    cfg = InterceptConfig(tau_l1=1, tau_l2=3, l3=True, mode=mode)  # type: ignore[arg-type]
    result = run_evaluation(ws, suite=load_suite(), models=list(_models()), config=cfg,
                            n=N_TASKS, conditions=[CONDITION], seed=0, concurrency=8,
                            runtime_models=_models())
    return ws, result


@pytest.fixture(scope="module")
def arms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Workspace, dict]]:
    root = tmp_path_factory.mktemp("warn-sim")
    return {mode: _evaluate(root, mode) for mode in ("abstain", "warn")}


def _ab(result: dict[str, Any], profile: str) -> dict[str, Any]:
    return next(r for r in result["ab"] if r["model"] == f"sim/{profile}")


def _rechecked(trace: Trace) -> bool | None:
    """Whether the agent called a tool after the warning (None: it was never warned)."""
    warned = [i for i, e in enumerate(trace.events)
              if e.type == "intercept" and e.decision == "warn"]
    if not warned:
        return None
    return any(e.type == "tool_call" for e in trace.events[warned[0]:])


def _recheck_share(ws: Workspace, result: dict[str, Any], profile: str) -> tuple[int, float]:
    """Warned treatment episodes whose paired control answer was wrong (something to fix),
    and the share of them in which the agent re-checked with a tool call."""
    traces = list(ws.iter_traces(run_id=result["run_id"], model=f"sim/{profile}"))
    correct = {v.trace_id: v.correct for v in ws.verdicts("facts")}
    wrong = {t.task_id for t in traces if t.arm == "control" and correct.get(t.id) is False}
    marks = [_rechecked(t) for t in traces if t.arm == "treatment" and t.task_id in wrong]
    warned = [m for m in marks if m is not None]
    return len(warned), sum(warned) / max(1, len(warned))


def test_warn_mode_repairs_a_self_correcting_agent_and_keeps_coverage(arms) -> None:
    (_, abstain), (ws, warn) = arms["abstain"], arms["warn"]
    w, a = _ab(warn, "self-correcting"), _ab(abstain, "self-correcting")
    assert w["n_pairs"] == a["n_pairs"] == N_TASKS
    assert w["hallucination_control"] == a["hallucination_control"] > 0.1  # same episodes
    assert w["hallucination_treatment"] < w["hallucination_control"]
    assert w["delta_hallucination"] <= -0.08 and w["saved"] > w["broken"]
    assert w["abstained_treatment"] < 0.1 < 0.5 < a["abstained_treatment"]
    assert w["correct_treatment"] > w["correct_control"] > a["correct_treatment"]
    n_warned, share = _recheck_share(ws, warn, "self-correcting")
    assert n_warned >= 0.1 * N_TASKS and share > 0.6


def test_a_propagator_rarely_heeds_so_warn_mode_cannot_repair_it(arms) -> None:
    (_, abstain), (ws, warn) = arms["abstain"], arms["warn"]
    w, a = _ab(warn, "propagator"), _ab(abstain, "propagator")
    n_warned, share = _recheck_share(ws, warn, "propagator")
    assert n_warned > 0.5 * N_TASKS and share < 0.25
    # it ends wrong or withheld, never much better off than without the interceptor
    assert w["hallucination_treatment"] + w["abstained_treatment"] > 0.5
    assert w["correct_treatment"] <= w["correct_control"] + 0.1
    assert a["hallucination_treatment"] < 0.05  # abstain mode withholds nearly everything
