"""A guard in the agent loop: what each decision does at each point, what the trace records,
how injected faults meet a retry, and how `--guard` specs resolve."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentprop.agent import MAX_RETRIES, AgentHooks
from agentprop.core import GuardEvent, LoadError, ToolCallEvent, ToolResultEvent
from agentprop.inject._faults import FaultHooks
from agentprop.inject._outhooks import OutputHooks
from agentprop.intercept import (
    ABSTENTION_TEXT,
    GUARD_ERROR,
    Decision,
    GuardHooks,
    GuardView,
    InterceptConfig,
    mitigation,
    resolve_guard,
)
from tests.intercept._fakes import OBS, TinyWeather, answer, call, run


def _results(t: object) -> list[ToolResultEvent]:
    return [e for e in t.events if isinstance(e, ToolResultEvent)]  # type: ignore[attr-defined]


def _guard_events(t: object) -> list[GuardEvent]:
    return [e for e in t.events if isinstance(e, GuardEvent)]  # type: ignore[attr-defined]


def test_reject_before_a_call_keeps_it_from_running_and_tells_the_agent() -> None:
    def guard(v: GuardView) -> Decision | None:
        return Decision.reject("calls to Paris are blocked") if v.point == "tool_call" else None

    t = asyncio.run(run([call(), answer("I could not look it up.")],
                        [GuardHooks(guard, name="blocker")]))
    (res,) = _results(t)
    assert res.observation == {"error": {"type": GUARD_ERROR,
                                         "message": "calls to Paris are blocked"}}
    assert res.counterfactual == OBS  # the call the agent made, run on a copy
    (ev,) = _guard_events(t)
    assert (ev.guard, ev.point, ev.action, ev.call_id) == ("blocker", "tool_call", "reject",
                                                          "c1")
    # the agent saw the rejection as its tool message
    assert any(m.role == "tool" and GUARD_ERROR in (m.content or "") for m in t.messages)
    assert t.final is not None and not t.final.abstained


def test_retry_after_a_transient_fault_gets_the_real_result() -> None:
    """fault:* never reached the tool: the same request again succeeds (AgentCheck's
    timeouts); each attempt is its own call and result event."""
    retry = mitigation("retry").build(InterceptConfig())
    t = asyncio.run(run([call(), answer("14.6 °C")],
                        [FaultHooks(domain=TinyWeather(), kind="timeout"),
                         GuardHooks(retry, name="retry")]))
    calls = [e.call.id for e in t.events if isinstance(e, ToolCallEvent)]
    assert calls == ["c1", "c1.retry1"]
    first, second = _results(t)
    assert first.observation["error"]["type"] == "timeout"
    assert second.observation == OBS
    assert [e.action for e in _guard_events(t)] == ["retry"]
    tool_msgs = [m.content for m in t.messages if m.role == "tool"]
    assert len(tool_msgs) == 1 and "14.6" in tool_msgs[0]  # the agent saw only the last


def test_retry_meets_a_persistent_output_fault_again() -> None:
    """out:* is what the server returns for that request: asking twice returns it twice."""
    def always_retry_once(v: GuardView) -> Decision | None:
        return Decision.retry("check") if v.point == "tool_result" and v.attempt == 0 \
            else None

    t = asyncio.run(run([call(), answer("done")],
                        [OutputHooks(domain=TinyWeather(), kind="wrong_value"),
                         GuardHooks(always_retry_once)]))
    first, second = _results(t)
    assert first.observation != OBS and second.observation == first.observation


def test_retries_stop_at_the_limit() -> None:
    def forever(v: GuardView) -> Decision | None:
        return Decision.retry() if v.point == "tool_result" else None

    t = asyncio.run(run([call(), answer("done")], [GuardHooks(forever)]))
    assert len(_results(t)) == 1 + MAX_RETRIES


def test_reject_an_answer_gives_a_turn_then_abstains_after_max() -> None:
    def no_answers(v: GuardView) -> Decision | None:
        return Decision.reject("check again") if v.point == "answer" else None

    t = asyncio.run(run([call(), answer("a"), answer("b"), answer("c")],
                        [GuardHooks(no_answers, max_rejects=2)]))
    actions = [e.action for e in _guard_events(t)]
    assert actions == ["reject", "reject", "abstain"]
    assert sum(m.role == "user" and m.content == "check again" for m in t.messages) == 2
    assert t.final is not None and t.final.abstained and t.final.answer == ABSTENTION_TEXT


def test_abstain_with_a_message_replaces_the_answer() -> None:
    def ask(v: GuardView) -> Decision | None:
        return Decision.abstain("unsure", message="Which Paris?") \
            if v.point == "answer" else None

    t = asyncio.run(run([call(), answer("14.6 °C")], [GuardHooks(ask, name="ask")]))
    assert t.final is not None and t.final.abstained
    assert t.final.answer == "Which Paris?" and t.final.reason == "ask: unsure"


def test_a_guard_sees_the_interceptor_signals() -> None:
    seen: list[int] = []

    def watch(v: GuardView) -> Decision | None:
        if v.point == "answer":
            seen.append(v.signals().l1_count)
        return None

    asyncio.run(run([call(), answer("14.6 °C")],
                    [FaultHooks(domain=TinyWeather(), kind="timeout"), GuardHooks(watch)]))
    assert seen == [1]  # one tool error observation before the answer


def _user_guard(view: GuardView) -> Decision | None:
    return None


class _Hooks(AgentHooks):
    pass


class _FrameworkThing:
    """Stands for a framework's guardrail class (a LangChain middleware, say)."""


def test_resolve_guard_specs(tmp_path: Path) -> None:
    assert resolve_guard("retry").kind == "builtin"
    assert resolve_guard("abstain_l3").replay_config is not None
    assert resolve_guard("requery").replay_config is None  # it does more than abstain
    me = "tests.intercept.test_guards"
    fn = resolve_guard(f"{me}:_user_guard")
    assert fn.kind == "function" and isinstance(fn.hooks()[0], GuardHooks)
    assert resolve_guard(f"{me}:_Hooks").kind == "hooks"
    fw = resolve_guard(f"{me}:_FrameworkThing")
    assert fw.in_agent and fw.hooks() == []
    assert isinstance(fw.framework()[0], _FrameworkThing)
    with pytest.raises(LoadError, match="did you mean 'retry'"):
        resolve_guard("retyr")
    with pytest.raises(LoadError, match="has no attribute"):
        resolve_guard(f"{me}:nothing")
    bad = tmp_path / "g.py"
    bad.write_text("def guard(a, b):\n    return None\n")
    with pytest.raises(LoadError, match="one argument"):
        resolve_guard(f"{bad}:guard")
