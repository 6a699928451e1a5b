"""simulation_check on hand-built stage tables: covered, not covered, missing model."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agentprop.analysis.stages import with_outcomes
from agentprop.experiment import simulation_check

COND = "p2:semantic_wrong"


def _rows(model: str, n: int, *, no_tool: int, s2: int, corrected: int, s3: int,
          noticed: int | None = None, difficulty: str = "easy", condition: str = COND,
          prefix: str = "") -> list[dict]:
    """n traces: `no_tool` without a tool call, `s2` of the rest saw the corruption,
    `corrected` of those corrected it, the first `s3` of the S2 ones answered wrong, the
    first `noticed` of the tool users noticed (default: the corrected ones). On baseline
    rows (`condition="baseline"`) S1/S2 are False and `noticed` counts false alarms."""
    base = condition == "baseline"
    noticed = corrected if noticed is None else noticed
    rows = []
    for i in range(n):
        tool = i >= no_tool
        k = i - no_tool  # index among tool users
        is_s2 = tool and k < s2 and not base
        rows.append({
            "model": model, "task_id": f"{prefix}{model}-{i}", "condition": condition,
            "error_type": None if base else "semantic_wrong", "arm": "",
            "difficulty": difficulty, "error": False, "opportunity": tool and not base,
            "no_tool_call": not tool, "S1": is_s2, "S2": is_s2,
            "corrected": is_s2 and k < corrected,
            "noticed": (k < noticed) if tool else None,
            "noticed_kind": "requery" if tool and k < noticed else None,
            "S3": (is_s2 and k >= s2 - s3) if is_s2 else False,
        })
    return rows


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in ("opportunity", "no_tool_call", "S1", "S2", "corrected", "noticed", "S3"):
        df[c] = df[c].astype("boolean")
    return with_outcomes(df)


# 200 traces: no_tool 0.10, S2 share 0.60 (120), corrected 0.25 of S2 (30), r_23 0.50 (60);
# 100 easy baseline traces with a tool call, 10 false alarms
TRUE = {"no_tool": 0.10, "tool_use": 0.60, "correction_given_S2": 0.25, "r_23": 0.50,
        "noticed_given_S2": 0.25, "false_alarm": 0.10}
METRICS = ["no_tool_share", "S2_rate", "correction_rate", "r_23", "noticed_rate",
           "false_alarm_rate"]


def _base(model: str = "sim/a", n: int = 100, alarms: int = 10, **kw: object) -> list[dict]:
    return _rows(model, n, no_tool=0, s2=0, corrected=0, s3=0, noticed=alarms,
                 condition="baseline", prefix="base", **kw)  # type: ignore[arg-type]


def test_covered_when_truth_matches() -> None:
    df = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60) + _base())
    out = simulation_check(df, {"sim/a": TRUE}, n_boot=300)
    assert list(out["metric"]) == METRICS
    est = dict(zip(out["metric"], out["estimate"], strict=True))
    assert est == pytest.approx(
        {"no_tool_share": 0.10, "S2_rate": 0.60, "correction_rate": 0.25, "r_23": 0.50,
         "noticed_rate": 0.25, "false_alarm_rate": 0.10})
    assert out["covered"].tolist() == [True] * 6
    assert (out["ci_lo"] < out["estimate"]).all() and (out["estimate"] < out["ci_hi"]).all()
    n = dict(zip(out["metric"], out["n"], strict=True))
    assert n == {"no_tool_share": 200, "S2_rate": 200, "correction_rate": 120, "r_23": 120,
                 "noticed_rate": 120, "false_alarm_rate": 100}


def test_noticing_and_false_alarms_not_covered_when_truth_is_far() -> None:
    df = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60) + _base())
    wrong = {**TRUE, "noticed_given_S2": 0.6, "false_alarm": 0.4}
    out = simulation_check(df, {"sim/a": wrong}, n_boot=300).set_index("metric")
    assert not out.loc["noticed_rate", "covered"]
    assert not out.loc["false_alarm_rate", "covered"]
    assert out.loc["correction_rate", "covered"]


def test_false_alarms_use_easy_baseline_traces_and_noticing_easy_tasks() -> None:
    rows = _rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60) + _base()
    # chained tasks add doubt text to the next plan step: they must not count
    hard_base = _rows("sim/a", 100, no_tool=0, s2=0, corrected=0, s3=0, noticed=90,
                      condition="baseline", difficulty="hard", prefix="hb")
    hard_inj = _rows("sim/a", 100, no_tool=0, s2=100, corrected=30, s3=0, noticed=90,
                     difficulty="hard", prefix="hi")
    out = simulation_check(_frame(rows + hard_base + hard_inj), {"sim/a": TRUE},
                           n_boot=200).set_index("metric")
    assert out.loc["false_alarm_rate", "estimate"] == pytest.approx(0.10)
    assert out.loc["false_alarm_rate", "note"] == "easy baseline tasks"
    assert out.loc["noticed_rate", "estimate"] == pytest.approx(0.25)
    assert out.loc["noticed_rate", "n"] == 120


def test_not_covered_when_truth_is_far() -> None:
    df = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60))
    wrong = {**TRUE, "no_tool": 0.5, "r_23": 0.95}
    out = simulation_check(df, {"sim/a": wrong}, n_boot=300).set_index("metric")
    assert not out.loc["no_tool_share", "covered"] and not out.loc["r_23", "covered"]
    assert out.loc["S2_rate", "covered"] and out.loc["correction_rate", "covered"]
    assert out.loc["r_23", "true"] == 0.95


def test_r23_uses_easy_tasks_only_and_condition_filters() -> None:
    easy = _rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60)
    # chained tasks where every S2 is right: would pull r_23 down if counted
    hard = _rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=0,
                 difficulty="hard", prefix="h")
    # another condition with nothing in common: must be ignored
    other = _rows("sim/a", 100, no_tool=100, s2=0, corrected=0, s3=0,
                  condition="p2:type_mismatch", prefix="o")
    out = simulation_check(_frame(easy + hard + other), {"sim/a": TRUE}, n_boot=200)
    out = out.set_index("metric")
    assert out.loc["r_23", "estimate"] == pytest.approx(0.5)
    assert out.loc["r_23", "n"] == 120 and out.loc["r_23", "note"] == "easy tasks only"
    assert out.loc["no_tool_share", "n"] == 400
    assert out["covered"].all()


def test_missing_model_and_unknown_model() -> None:
    df = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60)
                + _rows("openai/gpt-4o", 50, no_tool=0, s2=10, corrected=0, s3=10))
    out = simulation_check(df, {"sim/a": TRUE, "sim/absent": TRUE}, n_boot=200)
    # a profile with no traces gets no rows (no baseline traces: no false-alarm row); a model
    # without known truth is not checked
    assert set(out["model"]) == {"sim/a"} and len(out) == 5
    assert "false_alarm_rate" not in set(out["metric"])

    empty = simulation_check(df, {"sim/absent": TRUE}, n_boot=200)
    assert empty.empty
    assert {"model", "metric", "true", "estimate", "ci_lo", "ci_hi", "covered"} <= set(
        empty.columns)


def test_undefined_estimate_is_not_covered() -> None:
    # nobody saw the corruption: correction rate and r_23 have no denominator
    df = _frame(_rows("sim/a", 100, no_tool=10, s2=0, corrected=0, s3=0))
    out = simulation_check(df, {"sim/a": TRUE}, n_boot=200).set_index("metric")
    assert math.isnan(out["estimate"].astype(float)["r_23"]) and out.loc["r_23", "n"] == 0
    assert not out.loc["r_23", "covered"] and not out.loc["correction_rate", "covered"]
    assert out.loc["no_tool_share", "covered"]


def test_intervals_are_simultaneous_over_all_checks() -> None:
    one = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60))
    two = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60)
                 + _rows("sim/b", 200, no_tool=20, s2=120, corrected=30, s3=60, prefix="b"))
    a = simulation_check(one, {"sim/a": TRUE}, n_boot=300)
    b = simulation_check(two, {"sim/a": TRUE, "sim/b": TRUE}, n_boot=300)
    assert a["level"].iloc[0] == pytest.approx(1 - 0.05 / 6)
    assert b["level"].iloc[0] == pytest.approx(1 - 0.05 / 12)
    wa = (a["ci_hi"] - a["ci_lo"]).to_numpy()
    wb = (b[b["model"] == "sim/a"]["ci_hi"] - b[b["model"] == "sim/a"]["ci_lo"]).to_numpy()
    assert (wb >= wa - 1e-12).all() and (wb > wa).any()  # more checks, wider intervals
