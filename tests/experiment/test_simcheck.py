"""simulation_check on hand-built stage tables: covered, not covered, missing model."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agentprop.experiment import simulation_check

COND = "p2:semantic_wrong"


def _rows(model: str, n: int, *, no_tool: int, s2: int, corrected: int, s3: int,
          difficulty: str = "easy", condition: str = COND, prefix: str = "") -> list[dict]:
    """n traces: `no_tool` without a tool call, `s2` of the rest saw the corruption,
    `corrected` of those corrected it, the first `s3` of the S2 ones answered wrong."""
    rows = []
    for i in range(n):
        tool = i >= no_tool
        k = i - no_tool  # index among tool users
        is_s2 = tool and k < s2
        rows.append({
            "model": model, "task_id": f"{prefix}{model}-{i}", "condition": condition,
            "difficulty": difficulty, "error": False, "opportunity": tool,
            "no_tool_call": not tool, "S1": is_s2, "S2": is_s2,
            "corrected": is_s2 and k < corrected,
            "S3": (is_s2 and k >= s2 - s3) if is_s2 else False,
        })
    return rows


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in ("opportunity", "no_tool_call", "S1", "S2", "corrected", "S3"):
        df[c] = df[c].astype("boolean")
    return df


# 200 traces: no_tool 0.10, S2 share 0.60 (120), corrected 0.25 of S2 (30), r_23 0.50 (60)
TRUE = {"no_tool": 0.10, "tool_use": 0.60, "correction_given_S2": 0.25, "r_23": 0.50}


def test_covered_when_truth_matches() -> None:
    df = _frame(_rows("sim/a", 200, no_tool=20, s2=120, corrected=30, s3=60))
    out = simulation_check(df, {"sim/a": TRUE}, n_boot=300)
    assert list(out["metric"]) == ["no_tool_share", "S2_rate", "correction_rate", "r_23"]
    est = dict(zip(out["metric"], out["estimate"], strict=True))
    assert est == pytest.approx(
        {"no_tool_share": 0.10, "S2_rate": 0.60, "correction_rate": 0.25, "r_23": 0.50})
    assert out["covered"].tolist() == [True] * 4
    assert (out["ci_lo"] < out["estimate"]).all() and (out["estimate"] < out["ci_hi"]).all()
    n = dict(zip(out["metric"], out["n"], strict=True))
    assert n == {"no_tool_share": 200, "S2_rate": 200, "correction_rate": 120, "r_23": 120}


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
    # a profile with no traces gets no rows; a model without known truth is not checked
    assert set(out["model"]) == {"sim/a"} and len(out) == 4

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
    assert a["level"].iloc[0] == pytest.approx(1 - 0.05 / 4)
    assert b["level"].iloc[0] == pytest.approx(1 - 0.05 / 8)
    wa = (a["ci_hi"] - a["ci_lo"]).to_numpy()
    wb = (b[b["model"] == "sim/a"]["ci_hi"] - b[b["model"] == "sim/a"]["ci_lo"]).to_numpy()
    assert (wb >= wa - 1e-12).all() and (wb > wa).any()  # more checks, wider intervals
