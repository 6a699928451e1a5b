"""Numbers that do not overclaim: no test over too few models, κ inside its range, a
warning where labels are few, "too few" on thin estimates, repeated sweep rows explained,
and stacked CIs inside the bar."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agentprop.analysis import (
    MIN_RANK_N,
    SMALL_N,
    Estimate,
    judge_agreement,
    kappa_from_table,
    kendall,
    rank_note,
    small_sample_note,
    spearman,
    sweep_table,
)
from agentprop.analysis._calibration import LabelCells
from agentprop.analysis._judges import calibration_table
from agentprop.report import Cell


def test_a_rank_correlation_over_four_models_is_not_tested() -> None:
    """Four sim models used to print `1.000 [1.000, 1.000], p 0.000`."""
    x, y = [0.1, 0.4, 0.6, 0.8], [0.2, 0.3, 0.7, 0.9]
    for corr in (spearman(x, y), kendall(x, y)):
        assert corr.rho == pytest.approx(1.0) and corr.n == 4
        assert math.isnan(corr.p) and math.isnan(corr.lo) and math.isnan(corr.hi)
    assert rank_note(4) == ("n = 4, not testable: a rank correlation needs at least 5 models "
                            "for a p-value or a CI")
    five = spearman([*x, 0.9], [*y, 0.95])
    assert MIN_RANK_N == 5 and not math.isnan(five.p) and five.lo <= five.hi
    assert rank_note(5) == ""


def test_the_report_says_not_testable_where_the_rank_correlation_is() -> None:
    from agentprop.analysis import rejection_recovery

    rows = []
    for i, m in enumerate(["a", "b", "c", "d"]):
        for metric, v in (("p_S1", 1.0), ("r_23", 0.2 * i + 0.1), ("n_S2", 20.0),
                          ("correction_rate", 0.1), ("p_S1_given_tool_call", 1.0),
                          ("noticed", 0.2 * i + 0.05), ("no_tool_share", 0.0)):
            rows.append({"model": m, "key": m, "metric": metric, "value": v, "n": 20,
                         "ci_lo": v, "ci_hi": v, "note": ""})
    table = rejection_recovery(pd.DataFrame(rows))
    rho = table[table["metric"] == "spearman_rho_ours"].iloc[0]
    p = table[table["metric"] == "spearman_p_ours"].iloc[0]
    assert rho["n"] == 4 and math.isnan(rho["ci_lo"]) and math.isnan(p["value"])
    assert rho["note"].startswith("n = 4, not testable")


def test_kappa_confidence_interval_stays_inside_minus_one_to_one() -> None:
    """A small table whose Wald interval used to read [-1.235, 0.235]."""
    k = kappa_from_table(1, 2, 3, 1, n_resamples=0)
    assert k.kappa < 0
    assert -1.0 <= k.asym_lo <= k.kappa <= k.asym_hi <= 1.0
    assert k.asym_lo == -1.0  # the unclipped bound lies below -1


def test_calibration_on_few_labels_warns() -> None:
    few = LabelCells(jc_hc=2, jc_hw=1, jw_hc=3, jw_hw=12)
    table = calibration_table(few, "facts", n_resamples=50,
                              note=small_sample_note([2, 1, 3, 12], "the calibration of facts"))
    note = table["note"].iloc[0]
    assert note.startswith("warning: small sample: the calibration of facts: 3 of its 4 "
                           "cells hold under 10 labels (fewest 1)")
    assert small_sample_note([SMALL_N] * 4, "x") == ""


def test_judge_against_few_human_labels_warns() -> None:
    ids = [f"t{i}" for i in range(12)]
    verdicts = pd.DataFrame({"trace_id": ids, "judge": "facts",
                             "correct": pd.array([i % 2 == 0 for i in range(12)],
                                                 dtype="boolean")})
    labels = pd.DataFrame({"trace_id": ids, "annotator": "ada",
                           "label": ["correct" if i % 3 else "incorrect" for i in range(12)]})
    t = judge_agreement(verdicts, labels, n_resamples=50)
    vs_human = t[(t["reference"] == "human") & (t["metric"] == "kappa")]
    assert vs_human["note"].iloc[0].startswith(
        "warning: small sample: facts against the human labels:")


@pytest.mark.parametrize(("n", "text"), [
    (1, "1.000 [0.025, 1.000] (n=1, too few)"),
    (9, "1.000 [0.025, 1.000] (n=9, too few)"),
    (10, "1.000 [0.025, 1.000] (n=10)"),
])
def test_an_estimate_under_the_floor_reads_as_too_few(n: int, text: str) -> None:
    """`selective_accuracy 1.000 [0.025, 1.000] n=1` was headlined like any other."""
    assert str(Cell(Estimate(1.0, n, 0.025, 1.0))) == text
    assert str(Cell(Estimate(math.nan, 3))) == "undefined (n=3)"  # nothing to overread


def test_sweep_rows_that_repeat_an_earlier_row_say_why() -> None:
    from agentprop.intercept import sweep
    from tests.intercept._fakes import OBS, VALIDATION, episode

    # one trace with a single tool error (L1 = 1), none with two: τ_L1 = 2 and 3 flag
    # the same (no) traces
    traces = [episode("It is 14.6 °C.", [VALIDATION, OBS], tid="a"),
              episode("It is 14.6 °C.", [OBS], tid="b")]
    table = sweep(traces, {"a": False, "b": True})
    same = table.set_index("config")["same_as"]
    assert same["tau_l1=1,tau_l2=2,l3=on"] == ""
    assert same["tau_l1=3,tau_l2=2,l3=on"] == (
        "flags the same traces as tau_l1=2,tau_l2=2,l3=on: no trace has an L1 count of 2")
    tidy = sweep_table(table)
    notes = tidy[tidy["key"] == "tau_l1=3,tau_l2=2,l3=on"]["note"]
    assert set(notes) == {same["tau_l1=3,tau_l2=2,l3=on"]}


def test_stacked_error_bars_stay_inside_the_bar() -> None:
    from agentprop.report._figures import error_bars_within

    sub = pd.DataFrame({"value": [0.6, 0.1, 0.05], "ci_lo": [0.4, 0.0, 0.0],
                        "ci_hi": [0.8, 0.3, 0.2], "n": 10})
    bottom = np.array([0.3, 0.85, 0.0])
    err = error_bars_within(sub, bottom)
    top = bottom + sub["value"].to_numpy()
    assert (top + err[1] <= 1.0 + 1e-12).all() and (top - err[0] >= -1e-12).all()
    assert err[1][0] == pytest.approx(0.1)  # 0.9 + 0.2 would pass 1: cut at 1
    assert err[1][2] == pytest.approx(0.15)  # within the bar: as computed
