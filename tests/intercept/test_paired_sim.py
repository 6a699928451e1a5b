"""The paired evaluation end to end with simulated agents (runner, injector, facts judge).

`sim/propagator` uses tools and carries bad observations into its answers; `sim/tool-averse`
answers 90 % of tasks without any tool call, and `sim/no-tool` (the tool-averse profile
with p_no_tool = 1) never calls one. The interceptor watches tool interaction only, so it
cuts the propagator's hallucinations significantly, leaves every no-tool answer untouched,
and so does nothing for an agent that answers without tools (docs/interceptor.md).
The condition is `p2:type_mismatch`: the corruption is visible as an error observation,
like the paper's out-of-schema injections.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from agentprop.app._intercept import META_EVAL, plan_evaluation, run_evaluation
from agentprop.intercept import InterceptConfig, replay
from agentprop.store import Workspace
from agentprop.suite import load_suite

MODELS = ["sim/propagator", "sim/tool-averse", "sim/no-tool"]
N_TASKS = 100
CONDITION = "p2:type_mismatch"
CFG = InterceptConfig(tau_l1=1, tau_l2=3, l3=True)


def _models() -> dict[str, Any]:
    from agentprop.sim import PROFILES, SimAgent, SimModel

    agent = SimAgent(load_suite())
    no_tool = PROFILES["tool-averse"].model_copy(update={"name": "no-tool", "p_no_tool": 1.0})
    return {
        "sim/propagator": SimModel(PROFILES["propagator"], agent=agent),
        "sim/tool-averse": SimModel(PROFILES["tool-averse"], agent=agent),
        "sim/no-tool": SimModel(no_tool, agent=agent),
    }


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, dict[str, Any]]:
    path: Path = tmp_path_factory.mktemp("intercept-ws")
    ws = Workspace(path)
    result = run_evaluation(ws, suite=load_suite(), models=MODELS, config=CFG, n=N_TASKS,
                            conditions=[CONDITION], seed=0, concurrency=8,
                            runtime_models=_models())
    return ws, result


def _ab(result: dict[str, Any], model: str) -> dict[str, Any]:
    return next(r for r in result["ab"] if r["model"] == model)


def test_plan_pairs_every_task_and_alternates_arms() -> None:
    plan = plan_evaluation(load_suite(), models=MODELS, config=CFG, n=40,
                           conditions=[CONDITION], seed=3)
    arms: dict[tuple[str, str], list[str]] = defaultdict(list)
    for u in plan.units:
        arms[(u.model, u.task_id)].append(u.arm)
        assert u.seed == 3
    assert len(arms) == len(MODELS) * len(plan.tasks)
    assert all(sorted(a) == ["control", "treatment"] for a in arms.values())
    sequence = [u.arm for u in plan.units]
    assert all(a != b for a, b in itertools.pairwise(sequence))


def test_both_arms_stored_paired_and_started_interleaved(
    evaluated: tuple[Workspace, dict[str, Any]],
) -> None:
    ws, result = evaluated
    traces = list(ws.iter_traces(run_id=result["run_id"]))
    by_key: dict[tuple[str, str, int], set[str]] = defaultdict(set)
    for t in traces:
        by_key[(t.model, t.task_id, t.seed)].add(t.arm)
    assert len(by_key) == len(MODELS) * N_TASKS
    assert all(arms == {"control", "treatment"} for arms in by_key.values())
    # start order: the two arms of a task start next to each other, arms alternate
    started = sorted(traces, key=lambda t: t.started_at)
    arms = [t.arm for t in started]
    flips = sum(a != b for a, b in itertools.pairwise(arms))
    assert flips >= 0.9 * (len(arms) - 1)
    position = {t.id: i for i, t in enumerate(started)}
    pairs: dict[tuple[str, str], list[int]] = defaultdict(list)
    for t in started:
        pairs[(t.model, t.task_id)].append(position[t.id])
    assert max(abs(a - b) for a, b in pairs.values()) <= 8  # within the concurrency window


def test_propagator_hallucinates_significantly_less_with_the_interceptor(
    evaluated: tuple[Workspace, dict[str, Any]],
) -> None:
    _, result = evaluated
    a = _ab(result, "sim/propagator")
    assert a["n_pairs"] == N_TASKS and a["broken"] == 0
    assert a["delta_hallucination"] < -0.2 and a["delta_ci_high"] < 0
    assert a["mcnemar_p"] < 1e-3 and a["ztest_p"] < 0.05
    rep = next(r for r in result["replay"] if r["model"] == "sim/propagator")
    # sim agents are deterministic: abstaining changes nothing before the final answer, so
    # the two-arm estimate equals the exact replay estimate
    assert rep["delta_hallucination"] == pytest.approx(a["delta_hallucination"])


def test_no_tool_answers_are_never_intercepted(
    evaluated: tuple[Workspace, dict[str, Any]],
) -> None:
    ws, result = evaluated
    none = _ab(result, "sim/no-tool")
    assert none["n_pairs"] == N_TASKS and none["hallucination_control"] > 0.5
    assert none["delta_hallucination"] == 0 and none["saved"] == 0
    # no discordant pair: McNemar is undefined (null), not p = 1; equal rates: z p = 1
    assert none["mcnemar_p"] is None and none["ztest_p"] == 1.0
    # sim/tool-averse: only its tool-using share can be helped; its no-tool answers never
    no_tool = [t for t in ws.iter_traces(run_id=result["run_id"], model="sim/tool-averse",
                                         arm="treatment")
               if not any(e.type == "tool_result" for e in t.events)]
    assert len(no_tool) > 0.3 * N_TASKS
    assert not any(t.final is not None and t.final.abstained for t in no_tool)
    prop, averse = _ab(result, "sim/propagator"), _ab(result, "sim/tool-averse")
    assert prop["delta_hallucination"] < averse["delta_hallucination"] <= 0


def test_online_treatment_matches_offline_replay_of_control(
    evaluated: tuple[Workspace, dict[str, Any]],
) -> None:
    ws, result = evaluated
    suite = load_suite()
    traces = list(ws.iter_traces(run_id=result["run_id"]))
    ctl = {(t.model, t.task_id): t for t in traces if t.arm == "control"}
    for t in traces:
        if t.arm != "treatment":
            continue
        offline = replay(ctl[(t.model, t.task_id)], CFG, task=suite.get(t.task_id))
        assert t.final is not None and t.final.abstained == offline.abstained, t.task_id


def test_summary_stored_for_the_report(evaluated: tuple[Workspace, dict[str, Any]]) -> None:
    ws, result = evaluated
    meta = ws.get_meta(META_EVAL)
    assert meta["run_id"] == result["run_id"] and meta["simulated"] is True
    assert {r["model"] for r in meta["ab"]} == set(MODELS)
    configs = {r["config"] for r in meta["risk_coverage"]}
    assert len(configs) == 13 and "none" in configs  # 12 swept configurations + none
