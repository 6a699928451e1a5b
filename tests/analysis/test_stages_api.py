"""Stages of a model-API fault (`api:*`): S1 the fault reached the client, S2 what the
agent ended up with differs from the real completion (a retry into the same completion
is S2 False), `corrected` False, `noticed` read after the completion it received, the
invariant check agrees."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agentprop.analysis.invariants import counterfactual_differs, stage_violations
from agentprop.analysis.noticing import notice
from agentprop.analysis.stages import stage_table
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)

REAL = {"text": None, "tool_calls": [{"name": "forecast", "arguments": {"city": "Oslo"}}]}
ERROR = {"error": {"status": 429, "type": "requests", "code": "rate_limit_exceeded"}}
CUT = {"text": None, "tool_calls": [{"name": "forecast", "arguments": '{"city": '}]}


def _fault(kind: str = "rate_limited", *, received: Any = ERROR, original: Any = REAL,
           retried: bool = False, status: str = "applied") -> InjectionEvent:
    return InjectionEvent(protocol="api", error_type=kind, status=status,  # type: ignore[arg-type]
                          original=original if status == "applied" else None,
                          injected=ERROR if kind in ("rate_limited", "server_error") else CUT,
                          received=received, retried=retried, call_index=2)


def _turn(text: str | None = None, calls: list[ToolCall] | None = None) -> ModelCallEvent:
    return ModelCallEvent(step=1, request_hash="h", output=ModelOutput(text=text,
                                                                       tool_calls=calls or []))


def _trace(fault: InjectionEvent, after: list[Any], tid: str = "t") -> Trace:
    call = ToolCall(id="c0", name="forecast", arguments={"city": "Oslo"})
    events = [_turn(calls=[call]), ToolCallEvent(step=0, call=call),
              ToolResultEvent(step=0, call_id="c0", name="forecast",
                              arguments={"city": "Oslo"}, observation={"t": 1}),
              fault, *after, FinalEvent(step=2, answer="x")]
    return Trace(id=tid, run_id="r", model="m", task_id="t1", domain="weather", split="test",
                 difficulty="easy", condition=f"api:{fault.error_type}", seed=0, status="ok",
                 events=events)


def _row(trace: Trace) -> dict[str, Any]:
    row = stage_table([trace]).iloc[0]
    return {k: None if pd.isna(row[k]) else (row[k] if k == "error_type" else bool(row[k]))
            for k in ("error_type", "opportunity", "S1", "S2", "corrected")}


def test_retried_into_the_same_completion_is_not_visible() -> None:
    fault = _fault(received=REAL, retried=True)
    t = _trace(fault, [_turn("Let me look again.")])
    assert _row(t) == {"error_type": "rate_limited", "opportunity": True, "S1": True,
                       "S2": False, "corrected": False}
    assert counterfactual_differs(t) is False


def test_error_not_retried_is_visible() -> None:
    t = _trace(_fault(), [])
    assert _row(t)["S2"] is True and counterfactual_differs(t) is True


def test_a_retry_that_drew_another_completion_is_visible() -> None:
    other = {"text": "It is sunny.", "tool_calls": []}
    assert _row(_trace(_fault(received=other, retried=True), []))["S2"] is True


def test_cut_completion_is_visible_and_no_counterfactual_is_unknown() -> None:
    cut = _fault("truncated", received=CUT)
    assert _row(_trace(cut, [_turn()]))["S2"] is True
    unknown = _fault("truncated", received=CUT, original=None)
    assert _row(_trace(unknown, []))["S2"] is None


def test_not_applied_has_no_opportunity() -> None:
    t = _trace(_fault(status="no_model_call", received=None), [])
    assert _row(t) == {"error_type": "rate_limited", "opportunity": False, "S1": False,
                       "S2": False, "corrected": False}


def test_noticed_reads_after_the_completion_received() -> None:
    # the cut turn itself is not the agent's reaction; the turn after it is
    fault = _fault("truncated", received=CUT)
    worried = "The previous response was cut off and seems incomplete, let me retry."
    quiet = _trace(fault, [_turn(worried), _turn("Oslo is mild.")])
    assert notice(quiet, fault).noticed is False
    fault2 = _fault("truncated", received=CUT)
    seen = _trace(fault2, [_turn("Oslo"), _turn(worried)])
    assert notice(seen, fault2).noticed is True
    # an error with no completion: the next turn is already the agent's reaction
    fault3 = _fault()
    err = _trace(fault3, [_turn(worried)])
    assert notice(err, fault3).noticed is True


def test_invariants_hold_on_api_stages() -> None:
    traces = [_trace(_fault(received=REAL, retried=True), [], "a"), _trace(_fault(), [], "b")]
    df = stage_table(traces)
    differs = {t.id: counterfactual_differs(t) for t in traces}
    assert stage_violations(df, differs, []) == []
