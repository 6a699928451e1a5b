"""The evaluation's statistics on hand-built frames."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agentprop.analysis import mcnemar_test, two_proportion_z
from agentprop.app._evaluation import (
    ab_table,
    false_alarm_table,
    outcome_frame,
    pair_frame,
    replay_frame,
    replay_table,
    risk_coverage,
)
from agentprop.intercept import InterceptConfig, default_configs

from ._fakes import OBS, VALIDATION, episode


def _frame(pairs: list[tuple[str, str]], *, model: str = "m") -> pd.DataFrame:
    """Outcome rows for (control outcome, treatment outcome) pairs, one task each."""
    rows = []
    for i, (c, t) in enumerate(pairs):
        for arm, out in (("control", c), ("treatment", t)):
            rows.append({
                "trace_id": f"{model}-{i}-{arm}", "run_id": "r", "model": model,
                "task_id": f"task{i}", "domain": "d", "split": "test", "condition": "p2:x",
                "seed": 0, "arm": arm, "status": "ok", "simulated": True,
                "abstained": out == "abstained",
                "correct": {"correct": True, "hallucination": False}.get(out),
                "outcome": out, "intercept_layer": None, "warned": False,
                "cost": 0.01 if arm == "control" else 0.02, "tokens": 10,
            })
    return pd.DataFrame(rows)


def test_ab_table_counts_and_tests() -> None:
    pairs = (
        [("hallucination", "abstained")] * 6  # saved
        + [("correct", "abstained")] * 2  # false alarms
        + [("correct", "correct")] * 10
        + [("hallucination", "hallucination")] * 2
        + [("unscored", "correct")]  # dropped
    )
    row = ab_table(_frame(pairs), n_boot=200).iloc[0]
    assert row["n_pairs"] == 20 and row["n_dropped"] == 1
    assert (row["saved"], row["broken"]) == (6, 0)
    assert math.isclose(row["hallucination_control"], 8 / 20)
    assert math.isclose(row["hallucination_treatment"], 2 / 20)
    assert math.isclose(row["delta_hallucination"], -6 / 20)
    assert row["delta_ci_low"] <= -6 / 20 <= row["delta_ci_high"] < 0
    assert math.isclose(row["mcnemar_p"], 2 * 0.5**6)
    assert math.isclose(row["mcnemar_midp"], 2 * 0.5**6 - 0.5**6)
    assert math.isclose(row["abstained_treatment"], 8 / 20)
    assert math.isclose(row["delta_correct"], -2 / 20)
    assert math.isclose(row["coverage_treatment"], 12 / 20)
    assert math.isclose(row["selective_accuracy_treatment"], 10 / 12)
    assert math.isclose(row["selective_accuracy_control"], 12 / 20)
    assert (row["false_alarms"], row["n_control_correct"]) == (2, 12)
    assert math.isclose(row["false_alarm_rate"], 2 / 12)
    assert row["cohens_h"] > 0 and 0 < row["power"] < 1 and row["ztest_p"] < 0.05
    assert math.isclose(row["cost_treatment"], 21 * 0.02)


def test_ab_table_is_seeded_and_groups_by_model() -> None:
    df = pd.concat([
        _frame([("hallucination", "abstained"), ("correct", "correct")] * 5, model="a"),
        _frame([("correct", "correct")] * 4, model="b"),
    ])
    one, two = ab_table(df, n_boot=300, seed=7), ab_table(df, n_boot=300, seed=7)
    pd.testing.assert_frame_equal(one, two)
    assert one["model"].tolist() == ["a", "b"]
    b = one.iloc[1]
    # no discordant pair and no hallucination at all: the tests are undefined, not p = 1
    assert b["delta_hallucination"] == 0
    assert math.isnan(b["mcnemar_p"]) and math.isnan(b["ztest_p"])


def test_statistical_helpers_edge_cases() -> None:
    none = mcnemar_test(0, 0)
    assert math.isnan(none.p_exact) and math.isnan(none.p_midp)
    tie = mcnemar_test(3, 3)
    assert tie.p_exact == 1.0 and tie.p_midp == pytest.approx(1.0)  # b = c: no evidence
    assert math.isnan(two_proportion_z(0, 10, 0, 10)[1])
    assert math.isnan(two_proportion_z(10, 10, 10, 10)[1])
    assert two_proportion_z(9, 10, 1, 10)[1] < 0.01


def test_pairs_match_on_task_condition_and_seed() -> None:
    df = _frame([("correct", "abstained"), ("hallucination", "hallucination")])
    df.loc[(df["task_id"] == "task1") & (df["arm"] == "treatment"), "seed"] = 1
    pairs = pair_frame(df)
    assert pairs["task_id"].tolist() == ["task0"]


def test_replay_estimate_risk_coverage_and_false_alarms_on_traces() -> None:
    ctl = [
        episode("It is 22 °C.", [OBS], tid="h-l3"),  # hallucination L3 catches
        episode("It is 14.6 °C.", [VALIDATION, OBS], tid="c-l1"),  # correct, L1 false alarm
        episode("It is 14.6 °C.", [OBS], tid="c-ok"),  # correct, nothing fires
        episode("It is 14.6 °C.", [OBS], tid="h-miss"),  # hallucination nobody catches
    ]
    for t in ctl:
        t.arm = "control"
    verdicts = {"h-l3": False, "c-l1": True, "c-ok": True, "h-miss": False}
    outcomes = outcome_frame(ctl, verdicts)
    assert outcomes.set_index("trace_id").loc["h-l3", "outcome"] == "hallucination"
    cfg = InterceptConfig()
    fires = replay_frame(ctl, [cfg, *default_configs()[1:]])
    rep = replay_table(outcomes, fires, config=cfg.label, n_boot=100).iloc[0]
    assert (rep["n"], rep["saved"]) == (4, 1)
    assert math.isclose(rep["hallucination_control"], 0.5)
    assert math.isclose(rep["hallucination_replay"], 0.25)
    assert math.isclose(rep["false_alarm_rate"], 0.5)
    rc = risk_coverage(outcomes, fires).set_index("config")
    assert math.isclose(rc.loc[cfg.label, "coverage"], 0.5)  # fires on h-l3 and c-l1
    assert math.isclose(rc.loc[cfg.label, "risk"], 0.5)  # c-ok, h-miss answered
    assert rc.loc["none", "coverage"] == 1.0 and rc.loc["none", "risk"] == 0.5
    no_l3 = InterceptConfig(tau_l1=2, tau_l2=2, l3=False)
    assert math.isclose(rc.loc[no_l3.label, "coverage"], 1.0)
    fa = false_alarm_table(outcomes, fires, config=cfg.label).iloc[0]
    assert (fa["n_correct"], fa["false_alarms"]) == (2, 1)


@pytest.mark.parametrize("status", ["error", "step_limit"])
def test_failed_episodes_are_their_own_outcome(status: str) -> None:
    t = episode("x", [OBS], tid="f")
    t.status = status  # type: ignore[assignment]
    assert outcome_frame([t], {"f": False})["outcome"].tolist() == ["error"]


def test_mcnemar_midp_is_one_when_saved_equals_broken() -> None:
    assert mcnemar_test(5, 5).p_exact == 1.0
    assert mcnemar_test(5, 5).p_midp == pytest.approx(1.0)
    assert mcnemar_test(2, 2).p_midp == pytest.approx(1.0)
