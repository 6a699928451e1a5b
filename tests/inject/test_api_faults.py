"""`api:*` natively: the first model call after a tool result fails through the model's
own retry policy (a 429 waits its Retry-After) or arrives cut; the event holds the real
completion and what the agent ended up with; names parse and expand; a unit always
faults the same call."""

from __future__ import annotations

import asyncio
from typing import Any

import pandas as pd
import pytest

from agentprop.agent import run_episode
from agentprop.analysis.invariants import counterfactual_differs
from agentprop.analysis.stages import stage_table
from agentprop.cli._suite import get_suite
from agentprop.core import (
    ErrorEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    Task,
    ToolCall,
    Trace,
    WorkUnit,
)
from agentprop.domains import get_domain
from agentprop.inject import (
    API_FAULTS,
    API_KINDS,
    ApiFaultHooks,
    UnknownConditionError,
    expand_conditions,
    hooks_for,
    parse_condition,
    valid_conditions,
)
from agentprop.models import GenerateConfig, Model, RetryPolicy
from agentprop.sim import PROFILES, SimModel
from agentprop.testing import ScriptedModel


def _task() -> Task:
    return next(t for t in get_suite(None).tasks if t.domain == "weather")


def _episode(condition: str, model: Model | None = None, *, max_steps: int = 10,
             sleeps: list[float] | None = None) -> Trace:
    task = _task()
    unit = WorkUnit(run_id="r", model="sim/balanced", task_id=task.id, condition=condition)
    hook = hooks_for(condition, unit, task)
    if isinstance(hook, ApiFaultHooks):
        async def sleep(s: float) -> None:
            (sleeps if sleeps is not None else []).append(s)

        hook.sleep = sleep
    model = model or SimModel(PROFILES["balanced"], suite=get_suite(None))
    return asyncio.run(run_episode(unit, task, model, [hook] if hook else [], GenerateConfig(),
                                   get_domain(task.domain).make_env(task.env_seed),
                                   max_steps=max_steps))


def _event(trace: Trace) -> InjectionEvent:
    (ev,) = [e for e in trace.events if isinstance(e, InjectionEvent)]
    assert ev.protocol == "api"
    return ev


def _row(trace: Trace) -> dict[str, Any]:
    row = stage_table([trace]).iloc[0]
    return {k: None if pd.isna(row[k]) else bool(row[k])
            for k in ("opportunity", "S1", "S2", "corrected")}


def test_names_parse_expand_and_are_listed() -> None:
    assert expand_conditions(["api:all"]) == [f"api:{k}" for k in API_KINDS]
    assert set(API_KINDS) == {"rate_limited", "server_error", "truncated", "stream_cut"}
    assert {f"api:{k}" for k in API_KINDS} | {"api:all"} <= set(valid_conditions())
    parsed = parse_condition("api:stream_cut")
    assert parsed is not None and (parsed.family, parsed.kind) == ("api", "stream_cut")
    with pytest.raises(UnknownConditionError, match="did you mean 'api:truncated'"):
        parse_condition("api:truncate")
    with pytest.raises(UnknownConditionError, match="p2 conditions only"):
        parse_condition("api:truncated@last")
    # each kind declares when it can change the answer
    assert {f.changes_answer for f in API_FAULTS.values()} == {"unless_retried", "when_used"}


@pytest.mark.parametrize(("kind", "error_kind", "wait"),
                         [("rate_limited", "rate_limit", 1.0), ("server_error", "server", 0.0)])
def test_http_fault_goes_through_the_retry_policy(kind: str, error_kind: str,
                                                  wait: float) -> None:
    sleeps: list[float] = []
    trace = _episode(f"api:{kind}", sleeps=sleeps)
    ev = _event(trace)
    assert ev.status == "applied" and ev.call_index == 2  # the first call after a result
    assert ev.injected["error"]["status"] == API_FAULTS[kind].http_status
    assert ev.retried and ev.received == ev.original
    assert len(sleeps) == 1 and sleeps[0] >= wait  # a 429 waits its Retry-After
    assert trace.status == "ok"
    after = trace.events[trace.events.index(ev) + 1]
    assert isinstance(after, ModelCallEvent) and after.output.raw is not None
    assert after.output.raw["attempts"] == 2 and after.output.raw["api_fault"] == kind
    assert _row(trace) == {"opportunity": True, "S1": True, "S2": False, "corrected": False}
    assert counterfactual_differs(trace) is False


class _NoRetries(SimModel):
    retry = RetryPolicy(max_attempts=1)


@pytest.mark.parametrize(("kind", "error_kind"), [("rate_limited", "rate_limit"),
                                                  ("server_error", "server")])
def test_http_fault_without_retries_ends_the_episode(kind: str, error_kind: str) -> None:
    trace = _episode(f"api:{kind}", _NoRetries(PROFILES["balanced"], suite=get_suite(None)))
    ev = _event(trace)
    assert trace.status == "error" and not ev.retried and ev.received == ev.injected
    (err,) = [e for e in trace.events if isinstance(e, ErrorEvent)]
    assert err.kind == error_kind and err.attempts == 1
    assert _row(trace)["S2"] is True and counterfactual_differs(trace) is True


@pytest.mark.parametrize("kind", ["truncated", "stream_cut"])
def test_cut_completion_is_what_the_agent_sees(kind: str) -> None:
    trace = _episode(f"api:{kind}")
    ev = _event(trace)
    turn = trace.events[trace.events.index(ev) + 1]
    assert isinstance(turn, ModelCallEvent)
    real = ev.original["tool_calls"][-1]
    (cut,) = turn.output.unparsed_calls  # the cut call's arguments do not parse
    assert cut.name == real["name"] and not turn.output.tool_calls
    whole = __import__("json").dumps(real["arguments"])
    assert cut.arguments == whole[: len(whole) // 2]
    flag = {"finish_reason": "length"} if kind == "truncated" else {"stream_cut": True}
    assert turn.output.raw is not None and flag.items() <= turn.output.raw.items()
    assert ev.received["tool_calls"] == [{"name": real["name"], "arguments": cut.arguments}]
    assert _row(trace) == {"opportunity": True, "S1": True, "S2": True, "corrected": False}


def test_cut_text_when_no_call() -> None:
    model = ScriptedModel([[ToolCall(id="c1", name="get_weather",
                                     arguments={"city": "Paris", "date": "2025-06-16"})],
                           ModelOutput(text="It is sunny in Paris today.")])
    trace = _episode("api:truncated", model)
    ev = _event(trace)
    assert ev.original == {"text": "It is sunny in Paris today.", "tool_calls": []}
    assert ev.received == {"text": "It is sunny i", "tool_calls": []}
    final = trace.events[-1]
    assert getattr(final, "answer", None) == "It is sunny i"  # the agent took the cut text


def test_no_model_call_after_a_tool_result() -> None:
    calls = ScriptedModel([[ToolCall(id="c1", name="get_weather",
                                     arguments={"city": "Paris", "date": "2025-06-16"})]])
    ev = _event(_episode("api:server_error", calls, max_steps=1))
    assert ev.status == "no_model_call"
    ev = _event(_episode("api:server_error", ScriptedModel(["no tools needed"])))
    assert ev.status == "no_tool_call"
    trace = _episode("api:truncated", ScriptedModel(["no tools needed"]))
    assert _row(trace)["opportunity"] is False


def test_a_unit_always_faults_the_same_call() -> None:
    def dump(t: Trace) -> list[Any]:
        return [e.model_dump(exclude={"output": {"latency_s"}}) for e in t.events]

    for kind in ("rate_limited", "stream_cut"):  # an error and a cut completion
        assert dump(_episode(f"api:{kind}")) == dump(_episode(f"api:{kind}"))


def test_experiment_files_accept_api_conditions() -> None:
    from agentprop.experiment import ExperimentConfig
    from agentprop.experiment._plan import build_plan

    cfg = ExperimentConfig.model_validate({
        "name": "api", "models": [{"id": "sim/balanced"}], "judges": ["facts"],
        "primary_judge": "facts", "report": False,
        "runs": [{"name": "faults", "models": ["sim/balanced"], "domains": ["weather"],
                  "n": 2, "conditions": ["baseline", "api:all"]}]})
    plan = build_plan(cfg, get_suite(None))
    conditions = {u.condition for s in plan.steps for u in s.units}
    assert conditions == {"baseline", *(f"api:{k}" for k in API_KINDS)}
