"""The injector as a hook, driven by the real agent loop and a scripted model."""

from __future__ import annotations

import asyncio

import pytest
from inject_fake import FakeDomain, NotInjectable, ScriptedModel, make_task

from agentprop.agent import run_episode
from agentprop.core import InjectionEvent, ToolCall, ToolResultEvent, Trace, WorkUnit
from agentprop.inject import (
    ERROR_TYPES,
    InjectionHooks,
    UnknownConditionError,
    _conditions,
    expand_conditions,
    get_protocol,
    hooks_for,
)
from agentprop.models import GenerateConfig

DOMAIN = FakeDomain()
GOOD = ToolCall(name="forecast", arguments={"city": "London", "date": "2025-06-17", "days": 3})


def _unit(condition: str = "p2:semantic_wrong", seed: int = 0) -> WorkUnit:
    return WorkUnit(run_id="r1", model="sim/scripted", task_id="fake_0001",
                    condition=condition, seed=seed)


def _hooks(error_type: str, *, in_history: bool = True, domain: FakeDomain = DOMAIN,
           seed: int = 0) -> InjectionHooks:
    return InjectionHooks(unit=_unit(f"p2:{error_type}", seed), task=make_task(), domain=domain,
                          protocol=get_protocol(error_type), error_type=error_type,
                          in_history=in_history)


def _run(turns: list, hooks: list, domain: FakeDomain = DOMAIN) -> tuple[Trace, ScriptedModel]:
    model = ScriptedModel(turns)
    trace = asyncio.run(run_episode(_unit(), make_task(), model, hooks, GenerateConfig(),
                                    domain.make_env(1)))
    return trace, model


def _injections(trace: Trace) -> list[InjectionEvent]:
    return [e for e in trace.events if isinstance(e, InjectionEvent)]


def _results(trace: Trace) -> list[ToolResultEvent]:
    return [e for e in trace.events if isinstance(e, ToolResultEvent)]


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_applied_once_with_counterfactual_equal_to_clean_rerun(error_type: str) -> None:
    trace, _ = _run([[GOOD], [GOOD], "answer"], [_hooks(error_type)])
    (inj,) = _injections(trace)
    assert inj.status == "applied" and inj.error_type == error_type and inj.protocol == "p2"
    assert inj.tool == "forecast" and inj.call_id
    first, second = _results(trace)
    assert first.arguments != GOOD.arguments and first.counterfactual is not None
    assert second.counterfactual is None and second.arguments == GOOD.arguments
    clean, _ = _run([[GOOD], "answer"], [])
    assert first.counterfactual == _results(clean)[0].observation
    if error_type == "semantic_wrong":
        assert "error" not in first.observation
        assert first.observation != first.counterfactual
    else:
        assert first.observation["error"]["type"] == "validation"
    if error_type == "missing_required":
        assert inj.removed and inj.param not in first.arguments and inj.injected is None
    else:
        assert first.arguments[inj.param] == inj.injected != inj.original


@pytest.mark.parametrize("in_history", [True, False])
def test_history_shows_corrupted_or_proposed_arguments(in_history: bool) -> None:
    trace, model = _run([[GOOD], "answer"], [_hooks("semantic_wrong", in_history=in_history)])
    (inj,) = _injections(trace)
    assert inj.in_history is in_history
    assistant = next(m for m in model.seen[1] if m.role == "assistant")
    shown = assistant.tool_calls[0].arguments
    assert shown == (_results(trace)[0].arguments if in_history else GOOD.arguments)


def test_no_tool_call_status() -> None:
    trace, _ = _run(["I just know"], [_hooks("semantic_wrong")])
    (inj,) = _injections(trace)
    assert inj.status == "no_tool_call" and inj.param is None and not _results(trace)


def test_no_target_param_and_first_eligible_call() -> None:
    ping = ToolCall(name="ping", arguments={})
    trace, _ = _run([[ping], "answer"], [_hooks("semantic_wrong")])
    assert [i.status for i in _injections(trace)] == ["no_target_param"]
    # a call without an eligible parameter is skipped; the next eligible one is corrupted
    trace, _ = _run([[ping], [GOOD], "answer"], [_hooks("type_mismatch")])
    (inj,) = _injections(trace)
    assert inj.status == "applied" and inj.tool == "forecast"
    assert [r.counterfactual is not None for r in _results(trace)] == [False, True]


def test_not_injectable_domain_records_no_target_param() -> None:
    dom = NotInjectable()
    trace, _ = _run([[GOOD], "answer"], [_hooks("semantic_wrong", domain=dom)], domain=dom)
    assert [i.status for i in _injections(trace)] == ["no_target_param"]
    assert _results(trace)[0].counterfactual is None


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_same_unit_same_corruption(error_type: str) -> None:
    def injected(seed: int) -> tuple:
        trace, _ = _run([[GOOD], "answer"], [_hooks(error_type, seed=seed)])
        inj = _injections(trace)[0]
        return inj.param, inj.injected, inj.removed

    assert injected(0) == injected(0)
    if error_type == "semantic_wrong":
        assert len({injected(s) for s in range(8)}) > 1  # the seed matters


def test_hooks_for_and_conditions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_conditions, "get_domain", lambda name: DOMAIN)
    task = make_task()
    assert hooks_for("baseline", _unit("baseline"), task) is None
    h = hooks_for("p2:out_of_range", _unit("p2:out_of_range"), task, in_history=False)
    assert isinstance(h, InjectionHooks) and h.error_type == "out_of_range" and not h.in_history
    a = hooks_for("p2:semantic_wrong", _unit(), task)
    b = hooks_for("p2:semantic_wrong", _unit(), task)
    assert a is not b  # per-unit state is never shared
    for bad in ("p2:all", "p3:semantic_wrong", "p2:nonsense", ""):
        with pytest.raises(UnknownConditionError, match="valid: baseline"):
            hooks_for(bad, _unit(), task)
    with pytest.raises(ValueError):
        expand_conditions(["baseline", "p2:typo"])
    assert expand_conditions(["p2:type_mismatch", "baseline", "p2:all", "baseline"]) == [
        "p2:type_mismatch", "baseline", "p2:semantic_wrong", "p2:out_of_range",
        "p2:missing_required",
    ]
