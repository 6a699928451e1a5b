"""Stage table and propagation rates on hand-built traces with known answers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from agentprop.analysis.stages import (
    STAGE_COLUMNS,
    propagation_rates,
    stage_table,
    with_outcomes,
)
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)

ORIG = {"city": "London", "date": "2025-06-17"}
WRONG = {"city": "Paris", "date": "2025-06-17"}
OBS_ORIG = {"city": "London", "temp": 14}
OBS_WRONG = {"city": "Paris", "temp": 19}
VALIDATION = {"error": {"type": "validation", "message": "bad", "param": "city"}}


def call(cid: str, args: dict[str, Any], step: int = 0, name: str = "forecast") -> ToolCallEvent:
    return ToolCallEvent(step=step, call=ToolCall(id=cid, name=name, arguments=args))


def result(cid: str, args: dict[str, Any], obs: dict[str, Any], cf: dict[str, Any] | None = None,
           step: int = 0, name: str = "forecast") -> ToolResultEvent:
    return ToolResultEvent(step=step, call_id=cid, name=name, arguments=args, observation=obs,
                           counterfactual=cf)


def injection(status: str = "applied", param: str | None = "city", original: Any = "London",
              injected: Any = "Paris", cid: str | None = "c1", removed: bool = False,
              error_type: str = "semantic_wrong") -> InjectionEvent:
    if status != "applied":
        param = original = injected = cid = None
    return InjectionEvent(protocol="p2", error_type=error_type, status=status,  # type: ignore[arg-type]
                          call_id=cid, tool="forecast" if cid else None, param=param,
                          original=original, injected=injected, removed=removed)


def trace(tid: str, events: list, condition: str = "p2:semantic_wrong", model: str = "m1",
          task: str | None = None, status: str = "ok", meta: dict | None = None,
          abstained: bool = False) -> Trace:
    events = [*events, FinalEvent(step=9, answer=None if abstained else "x", abstained=abstained)]
    return Trace(id=tid, run_id="r", model=model, task_id=task or f"t_{tid}", domain="weather",
                 split="test", difficulty="easy", condition=condition, seed=0,
                 status=status, events=events, meta=meta or {})  # type: ignore[arg-type]


def applied_semantic(tid: str, *, corrected: bool = False, **kw: Any) -> Trace:
    ev = [call("c1", ORIG), injection(), result("c1", WRONG, OBS_WRONG, OBS_ORIG)]
    if corrected:
        ev += [call("c2", ORIG, step=1), result("c2", ORIG, OBS_ORIG, step=1)]
    return trace(tid, ev, **kw)


def test_columns_dtypes_and_baseline() -> None:
    base = trace("b", [call("c1", ORIG), result("c1", ORIG, OBS_ORIG)], condition="baseline")
    df = stage_table([base], {"b": True})
    assert list(df.columns) == list(STAGE_COLUMNS)
    for col in ("opportunity", "no_tool_call", "S1", "S2", "corrected", "S3"):
        assert str(df[col].dtype) == "boolean"
    row = df.iloc[0]
    assert row.error_type is None and row.condition == "baseline"
    assert not row.opportunity and not row.S1 and not row.S2 and not row.corrected
    assert not row.no_tool_call and row.S3 is not pd.NA and not row.S3
    assert not row.error and not row.abstained


def test_semantic_wrong_stages_and_correction() -> None:
    df = stage_table(
        [applied_semantic("a", corrected=True), applied_semantic("b")],
        {"a": False, "b": None},
    ).set_index("trace_id")
    a, b = df.loc["a"], df.loc["b"]
    assert a.opportunity and a.S1 and a.S2 and a.corrected and a.S3
    assert a.error_type == "semantic_wrong"
    assert b.S1 and b.S2 and not b.corrected and pd.isna(b.S3)


def test_applied_without_visible_effect() -> None:
    # the tool ignores the corrupted value: observation equals the counterfactual
    t = trace("s", [call("c1", ORIG), injection(), result("c1", WRONG, OBS_ORIG, OBS_ORIG)])
    row = stage_table([t]).iloc[0]
    assert row.opportunity and row.S1 and not row.S2 and not row.corrected and pd.isna(row.S3)


def test_validation_error_counts_as_visible_and_correction_needs_original_value() -> None:
    bad = {"city": 42, "date": "2025-06-17"}
    inj = injection(injected=42, error_type="type_mismatch")
    fixed = trace("fixed", [call("c1", ORIG), inj, result("c1", bad, VALIDATION, OBS_ORIG),
                            call("c2", ORIG, 1), result("c2", ORIG, OBS_ORIG, step=1)],
                  condition="p2:type_mismatch")
    other_value = trace("other", [call("c1", ORIG), inj, result("c1", bad, VALIDATION, OBS_ORIG),
                                  call("c2", WRONG, 1), result("c2", WRONG, OBS_WRONG, step=1)])
    other_tool = trace("tool", [call("c1", ORIG), inj, result("c1", bad, VALIDATION, OBS_ORIG),
                                call("c2", ORIG, 1, name="alerts"),
                                result("c2", ORIG, {}, step=1, name="alerts")])
    # the next plan step reuses the original value for another entity: not a correction
    next_step = trace("next", [call("c1", ORIG), inj, result("c1", bad, VALIDATION, OBS_ORIG),
                               call("c2", {"city": "Rome", "date": "2025-06-17"}, 1),
                               result("c2", ORIG, OBS_ORIG, step=1)])
    # a re-issue may add an optional argument
    plus_unit = trace("unit", [call("c1", ORIG), inj, result("c1", bad, VALIDATION, OBS_ORIG),
                               call("c2", {**ORIG, "unit": "celsius"}, 1),
                               result("c2", ORIG, OBS_ORIG, step=1)])
    df = stage_table([fixed, other_value, other_tool, next_step, plus_unit]).set_index(
        "trace_id")
    assert df.S2.all()
    assert df.corrected.tolist() == [True, False, False, False, True]
    assert df.loc["fixed"].error_type == "type_mismatch"


def test_missing_required_restored() -> None:
    removed = {"date": "2025-06-17"}
    inj = injection(injected=None, removed=True, error_type="missing_required")
    t = trace("m", [call("c1", ORIG), inj, result("c1", removed, VALIDATION, OBS_ORIG),
                    call("c2", ORIG, 1), result("c2", ORIG, OBS_ORIG, step=1)])
    row = stage_table([t]).iloc[0]
    assert row.S1 and row.S2 and row.corrected


def test_statuses_no_tool_call_and_no_target_param() -> None:
    none = trace("n", [injection("no_tool_call")], abstained=True)
    ntp = trace("p", [call("c1", {}, name="ping"), result("c1", {}, {"pong": 1}, name="ping"),
                      injection("no_target_param")])
    df = stage_table([none, ntp]).set_index("trace_id")
    assert df.loc["n"].no_tool_call and not df.loc["n"].opportunity and df.loc["n"].abstained
    assert not df.loc["p"].no_tool_call and not df.loc["p"].opportunity
    assert not df.S1.any() and not df.S2.any()


def test_missing_counterfactual_is_na_and_unexecuted_is_not_s1() -> None:
    no_cf = trace("x", [call("c1", ORIG), injection(), result("c1", WRONG, OBS_WRONG, None)])
    unexecuted = trace("y", [call("c1", ORIG), injection()], status="error")
    df = stage_table([no_cf, unexecuted]).set_index("trace_id")
    assert df.loc["x"].S1 and pd.isna(df.loc["x"].S2) and pd.isna(df.loc["x"].corrected)
    assert df.loc["y"].opportunity and not df.loc["y"].S1 and df.loc["y"].error


def test_imported_release_stages_override() -> None:
    meta = {"release_stages": {"opportunity": True, "no_tool_call": False, "S1": True,
                               "S2": None, "corrected": False}}
    t = trace("i", [], meta=meta)  # no events at all, as in an imported CSV row
    row = stage_table([t], {"i": False}).iloc[0]
    assert row.opportunity and row.S1 and not row.no_tool_call and not row.corrected
    assert pd.isna(row.S2) and row.S3


def test_twenty_thousand_traces() -> None:
    # speed is measured by bench/bench_stages.py (a benchmark, not a timed test: the
    # machines are shared); this checks the table at that scale
    proto = applied_semantic("p", corrected=True)
    traces = [proto.model_copy(update={"id": f"t{i}", "task_id": f"k{i % 500}"})
              for i in range(20_000)]
    df = stage_table(traces, {f"t{i}": i % 2 == 0 for i in range(20_000)})
    assert len(df) == 20_000 and df.S2.all() and df.S3.sum() == 10_000


# -- propagation_rates ---------------------------------------------------------------------

def _rows(model: str, **cols: list) -> list[dict]:
    n = len(next(iter(cols.values())))
    base = {"model": model, "condition": "p2:semantic_wrong", "error": False,
            "opportunity": True, "no_tool_call": False, "S1": True, "S2": True,
            "corrected": False, "S3": None, "error_type": "semantic_wrong", "noticed": False,
            "noticed_kind": None}
    return [{**base, "task_id": f"{model}_{i}", **{k: v[i] for k, v in cols.items()}}
            for i in range(n)]


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in ("opportunity", "no_tool_call", "S1", "S2", "corrected", "noticed", "S3"):
        df[c] = df[c].astype("boolean")
    return with_outcomes(df)


def test_rates_hand_computed_and_zero_denominator() -> None:
    rows = _rows("A", S1=[True, True, True, False], S2=[True, True, False, False],
                 S3=[True, False, None, False], corrected=[True, False, False, False])
    rows += _rows("B", S1=[False, False], S2=[False, False], opportunity=[True, False],
                  no_tool_call=[False, True])
    rows += _rows("A", error=[True])  # an error trace: counted, never rated
    rows += [{**rows[0], "condition": "baseline", "task_id": "A_base"}]
    out = propagation_rates(_frame(rows), n_boot=200).set_index("model")
    a, b = out.loc["A"], out.loc["B"]
    assert (a.n, a.n_error, a.n_opportunity, a.n_S1, a.n_S2) == (4, 1, 4, 3, 2)
    assert a.p_S1 == 0.75 and a.p_S2 == 0.5 and a.no_tool == 0.0
    assert a.r_12 == pytest.approx(2 / 3) and a.r_12_n == 3
    assert a.r_23 == 0.5 and a.r_23_n == 2
    assert a.inj_to_err == 0.5 and a.inj_to_err_n == 2  # the unjudged S1 trace is left out
    assert a.corrected == 0.5 and a.corrected_n == 2
    for rate in ("p_S1", "p_S2", "r_12", "r_23", "corrected"):
        assert a[f"{rate}_lo"] <= a[rate] <= a[f"{rate}_hi"]
    assert b.n == 2 and b.n_S2 == 0 and b.no_tool == 0.5 and b.p_S1 == 0.0 and b.p_S1_n == 1
    for rate in ("r_12", "r_23", "inj_to_err", "corrected"):
        assert math.isnan(b[rate]) and math.isnan(b[f"{rate}_lo"]) and b[f"{rate}_n"] == 0


def test_rates_deterministic_and_clustered_by_task() -> None:
    rows = _rows("A", S2=[True, False, True, False, True, False, False, True])
    df = _frame(rows)
    one = propagation_rates(df, n_boot=300)
    assert one.equals(propagation_rates(df, n_boot=300))
    assert one.p_S2_lo[0] < 0.5 < one.p_S2_hi[0]
    # all traces of one task form one cluster: resampling it never changes the rate
    same_task = _frame([{**r, "task_id": "T"} for r in rows])
    c = propagation_rates(same_task, n_boot=300).iloc[0]
    assert c.n_tasks == 1 and c.p_S2_lo == c.p_S2 == c.p_S2_hi == 0.5


def test_rates_grouping_and_empty() -> None:
    df = _frame(_rows("A", S2=[True, False]) + _rows("B", S2=[True, True]))
    out = propagation_rates(df, by=["model", "condition"], n_boot=50)
    assert list(out.model) == ["A", "B"] and list(out.p_S2) == [0.5, 1.0]
    empty = propagation_rates(df[df.model == "Z"])
    assert empty.empty and "p_S2_lo" in empty.columns
    real = stage_table([applied_semantic("a", corrected=True)], {"a": False})
    r = propagation_rates(real, n_boot=50).iloc[0]
    assert (r.n, r.p_S1, r.p_S2, r.corrected, r.r_23) == (1, 1.0, 1.0, 1.0, 1.0)
