"""The wider fault model: call positions, several parameters, corrupted output, tool
failures; their stages, the sim's reaction, and bad input."""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.agent import run_episode
from agentprop.analysis.stages import stage_table
from agentprop.cli import app
from agentprop.core import InjectionEvent, Task, ToolResultEvent, Trace, WorkUnit
from agentprop.domains import get_domain, is_failure
from agentprop.inject import (
    UnknownConditionError,
    eligible_plan_calls,
    expand_conditions,
    get_protocol,
    hooks_for,
)
from agentprop.judges import FabricationRule, query_vocabulary
from agentprop.models import GenerateConfig
from agentprop.sim import PROFILES, SimModel, SimProfile
from agentprop.sim._policy import FAILURE_ABSTAIN


@cache
def _suite() -> object:
    from agentprop.suite import Suite, get_generator

    tasks = [t for d in ("weather", "calendar", "medical")
             for t in get_generator(d).generate(12, seed=3)]
    return Suite(tasks, seed=3)


def _tasks() -> list[Task]:
    return list(_suite().tasks)  # type: ignore[attr-defined]


def _episode(task: Task, condition: str, profile: SimProfile | str = "oracle",
             seed: int = 0) -> Trace:
    prof = PROFILES[profile] if isinstance(profile, str) else profile
    unit = WorkUnit(run_id="r", model=f"sim/{prof.name}", task_id=task.id,
                    condition=condition, seed=seed)
    hook = hooks_for(condition, unit, task)
    model = SimModel(prof, suite=_suite())
    env = get_domain(task.domain).make_env(task.env_seed)
    return asyncio.run(run_episode(unit, task, model, [hook] if hook else [],
                                   GenerateConfig(seed=seed), env))


def _applied(trace: Trace) -> list[InjectionEvent]:
    return [e for e in trace.events if isinstance(e, InjectionEvent) and e.status == "applied"]


def _chained(min_eligible: int = 2) -> Task:
    proto = get_protocol("semantic_wrong")
    for t in _tasks():
        dom = get_domain(t.domain)
        if eligible_plan_calls(t, dom, proto, dom.make_env(t.env_seed)) >= min_eligible:
            return t
    raise AssertionError("no chained task in the test suite")


# -- names -------------------------------------------------------------------------------

def test_conditions_parse_canonicalise_and_expand() -> None:
    got = expand_conditions(["p2:semantic_wrong@first", "p2:semantic_wrong", "p2:type_mismatch@n=1",
                             "p2:out_of_range@n=3", "p2:multi=2", "out:all", "fault:timeout",
                             "fault:all", "p2:semantic_wrong@last"])
    assert got == ["p2:semantic_wrong", "p2:type_mismatch", "p2:out_of_range@n=3",
                   "p2:multi=2", "out:wrong_value", "out:swapped_entity", "out:stale",
                   "out:truncated", "out:schema_drift", "out:irrelevant", "out:contradictory",
                   "out:partial", "out:prompt_injection", "fault:timeout",
                   "fault:server_error", "fault:rate_limited", "fault:empty",
                   "fault:permission_denied", "p2:semantic_wrong@last"]


@pytest.mark.parametrize("bad", ["p2:nope", "out:nope", "fault:slow", "p2:multi=1",
                                 "p2:multi=9", "p2:semantic_wrong@middle",
                                 "p2:semantic_wrong@n=0", "out:stale@last", "typo:x"])
def test_unknown_conditions_list_the_valid_ones(bad: str) -> None:
    with pytest.raises(UnknownConditionError) as exc:
        expand_conditions([bad])
    msg = str(exc.value)
    assert "\n" not in msg and "fault:timeout" in msg and "p2:<type>@last" in msg


def test_cli_rejects_an_unknown_condition_before_writing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    res = CliRunner().invoke(app, ["run", "--model", "sim/oracle", "--condition", "fault:slow",
                                   "--limit", "2", "--workspace", str(ws)])
    assert res.exit_code != 0
    assert "unknown condition 'fault:slow'" in res.output and "Traceback" not in res.output
    assert not ws.exists()


# -- call position -----------------------------------------------------------------------

def test_last_position_corrupts_a_later_call_of_a_chained_task() -> None:
    task = _chained()
    first = _applied(_episode(task, "p2:semantic_wrong"))
    last = _applied(_episode(task, "p2:semantic_wrong@last"))
    assert len(first) == len(last) == 1
    assert first[0].call_index == 1
    assert last[0].call_index is not None and last[0].call_index > 1
    df = stage_table([_episode(task, "p2:semantic_wrong@last")])
    assert bool(df.loc[0, "opportunity"]) and bool(df.loc[0, "S2"])


def test_a_position_the_task_cannot_offer_is_no_target_param_never_an_opportunity() -> None:
    easy = next(t for t in _tasks() if len(t.gold_plan) == 1)
    trace = _episode(easy, "p2:semantic_wrong@n=2")
    events = [e for e in trace.events if isinstance(e, InjectionEvent)]
    assert [e.status for e in events] == ["no_target_param"]
    row = stage_table([trace]).iloc[0]
    assert not bool(row["opportunity"]) and not bool(row["S1"])


def test_random_position_is_seeded_per_unit() -> None:
    task = _chained()
    a = _applied(_episode(task, "p2:semantic_wrong@random", seed=5))
    b = _applied(_episode(task, "p2:semantic_wrong@random", seed=5))
    assert [(e.call_index, e.param, e.injected) for e in a] == \
        [(e.call_index, e.param, e.injected) for e in b]


def test_multi_places_k_corruptions_on_distinct_parameters() -> None:
    task = _chained()
    trace = _episode(task, "p2:multi=2")
    applied = _applied(trace)
    assert len(applied) == 2
    assert len({(e.call_id, e.param) for e in applied}) == 2
    assert int(stage_table([trace]).loc[0, "n_injected"]) == 2


# -- corrupted output --------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["wrong_value", "swapped_entity", "stale", "truncated"])
def test_output_corruption_keeps_the_true_result_as_counterfactual(kind: str) -> None:
    hits = 0
    for task in _tasks():
        trace = _episode(task, f"out:{kind}", profile="propagator")
        applied = _applied(trace)
        if not applied:
            continue
        hits += 1
        ev = applied[0]
        result = next(r for r in trace.events
                      if isinstance(r, ToolResultEvent) and r.call_id == ev.call_id)
        env = get_domain(task.domain).make_env(task.env_seed)
        truth = None
        for r in trace.events:  # replay the calls up to the corrupted one on a fresh state
            if isinstance(r, ToolResultEvent):
                obs = env.call(r.name, r.arguments)
                if r is result:
                    truth = obs
                    break
        assert result.counterfactual == truth  # the tool ran correctly
        assert result.observation != result.counterfactual  # the agent saw something else
        row = stage_table([trace]).iloc[0]
        assert bool(row["S1"]) and bool(row["S2"]) and row["target_param"] == ev.param
    assert hits > 0, f"out:{kind} found nothing to corrupt in the test suite"


# -- tool failures -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["timeout", "server_error", "rate_limited", "empty",
                                  "permission_denied"])
def test_fault_is_a_failure_the_tool_never_ran(kind: str) -> None:
    task = next(t for t in _tasks() if t.domain == "calendar" and any(
        c.name == "create_event" for c in t.gold_plan))
    never = SimProfile(name="never-retries", p_no_tool=0, p_notice=0, p_correct_anyway=0,
                       base_error=0, p_uncertain_words=0, p_retry=0.0, p_abstain=1.0)
    trace = _episode(task, f"fault:{kind}", profile=never)
    assert len(_applied(trace)) == 1
    result = next(r for r in trace.events if isinstance(r, ToolResultEvent))
    assert is_failure(result.observation) and result.counterfactual is not None
    assert not is_failure(result.counterfactual)
    assert trace.final_answer == FAILURE_ABSTAIN.format(tool=result.name)
    row = stage_table([trace]).iloc[0]
    assert bool(row["S2"]) and not bool(row["corrected"])
    assert row["noticed_kind"] == "abstain"


def test_a_retry_after_a_failure_is_a_correction() -> None:
    task = next(t for t in _tasks() if len(t.gold_plan) == 1)
    trace = _episode(task, "fault:timeout", profile="oracle")  # p_retry = 1
    results = [r for r in trace.events if isinstance(r, ToolResultEvent)]
    assert len(results) == 2 and is_failure(results[0].observation)
    assert results[1].arguments == results[0].arguments and not is_failure(results[1].observation)
    row = stage_table([trace]).iloc[0]
    assert bool(row["corrected"]) and row["noticed_kind"] == "requery"


def test_fabricated_after_a_failure_follows_the_rule() -> None:
    """An invented answer after a timeout is fabricated; the retried one is not."""
    suite = _suite()
    invents = SimProfile(name="invents", p_no_tool=0, p_notice=0, p_correct_anyway=0,
                         base_error=0, p_uncertain_words=0, p_retry=0.0, p_abstain=0.0)
    checked = 0
    rule = FabricationRule(query_vocabulary(suite.tasks))
    for task in _tasks():
        if len(task.gold_plan) != 1:
            continue
        made_up = stage_table([_episode(task, "fault:timeout", profile=invents)],
                              tasks=suite, rule=rule).iloc[0]  # type: ignore[arg-type]
        retried = stage_table([_episode(task, "fault:timeout", profile="oracle")],
                              tasks=suite, rule=rule).iloc[0]  # type: ignore[arg-type]
        if made_up["fabricated"] is pd_na() or retried["fabricated"] is pd_na():
            continue  # the task has no fact the tools report directly
        assert bool(made_up["fabricated"]) and not bool(retried["fabricated"]), task.id
        checked += 1
    assert checked >= 3


def pd_na() -> object:
    import pandas as pd

    return pd.NA
