"""Where the error stops (`stopped_at`, the stopping table), false alarms on baseline traces,
and bootstrap streams that belong to their group."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from analysis_helpers import frame, row

from agentprop.analysis import (
    baseline_vs_p2,
    interceptor_ab,
    lookup,
    propagation_table,
    rejection_recovery,
    stopping_table,
)
from agentprop.analysis.outcomes import OUTCOME_NAMES, OUTCOMES, Outcome, stopped_at

R = 300


def _outcome_rows() -> list[dict]:
    return [
        row("m", "t0", opportunity=False, undelivered=True),               # undelivered_call
        row("m", "t1", no_tool=True, opportunity=False),                    # no_tool_call
        row("m", "t2", s1=True, s2=False, s3=True),                         # not_applied
        row("m", "t3", s1=True, s2=True, s3=False, noticed=True),           # noticed_recovered
        row("m", "t4", s1=True, s2=True, s3=False),                         # unnoticed_recovered
        row("m", "t5", s1=True, s2=True, s3=True, noticed=True),            # noticed_not_rec.
        row("m", "t6", s1=True, s2=True, s3=True),                          # propagated
        row("m", "t7", s1=True, s2=True, s3=None),                          # unjudged: undecided
        row("m", "t8", s1=True, s2=None, s3=True),                          # S2 unknown
        row("m", "t9", cond="baseline", s3=False),                          # baseline: none
    ]


def test_stopped_at_each_outcome_and_undecidable_rows() -> None:
    df = frame(_outcome_rows())
    assert df["stopped_at"].tolist() == [
        "undelivered_call", "no_tool_call", "not_applied", "noticed_recovered",
        "unnoticed_recovered", "noticed_not_recovered", "propagated", None, None, None]
    assert df["recovered"].tolist()[3:7] == [True, True, False, False]
    assert df["recovered"].isna().tolist()[7:] == [True, True, True]


def test_a_new_outcome_takes_precedence_where_it_is_inserted() -> None:
    df = frame(_outcome_rows())
    fabricated = Outcome("fabricated", "states facts no observation holds",
                         lambda d: d["task_id"].isin(["t6"]).astype("boolean"))
    at = OUTCOME_NAMES.index("noticed_recovered")
    out = stopped_at(df, (*OUTCOMES[:at], fabricated, *OUTCOMES[at:]))
    assert out.iloc[6] == "fabricated" and out.iloc[3] == "noticed_recovered"


def test_stopping_table_shares_and_keys() -> None:
    rows = [*_outcome_rows(), row("m", "t1", cond="p2:type_mismatch", s1=True, s2=True, s3=True)]
    t = stopping_table(frame(rows), n_resamples=R)
    assert lookup(t, "n", "m") == 7 and lookup(t, "n_undecided", "m") == 2
    shares = [lookup(t, name, "m") for name in OUTCOME_NAMES]
    assert shares == pytest.approx([1 / 7] * 7) and sum(shares) == pytest.approx(1)
    assert lookup(t, "propagated", "") == pytest.approx(1 / 7)  # pooled (one model)
    assert lookup(t, "propagated", "m|type_mismatch") == 1.0
    assert lookup(t, "n", "m|semantic_wrong") == 7
    ci = t[(t["key"] == "m") & (t["metric"] == "propagated")].iloc[0]
    assert ci.ci_lo < 1 / 7 < ci.ci_hi


def test_stopping_ci_resamples_tasks() -> None:
    # two tasks, ten seeds each: one always propagates, one always recovers unnoticed
    rows = [row("m", "a", s1=True, s2=True, s3=True, seed=i) for i in range(10)]
    rows += [row("m", "b", s1=True, s2=True, s3=False, seed=i) for i in range(10)]
    t = stopping_table(frame(rows), n_resamples=R)
    r = t[(t["key"] == "m") & (t["metric"] == "propagated")].iloc[0]
    assert r.value == 0.5 and r.ci_lo == 0.0 and r.ci_hi == 1.0  # 2 clusters, not 20 units


def test_false_alarm_rate_and_paired_difference() -> None:
    rows = [
        # injected, S2: noticed on t1, t2; not on t3
        row("m", "t1", s1=True, s2=True, noticed=True),
        row("m", "t2", s1=True, s2=True, noticed=True),
        row("m", "t3", s1=True, s2=True, noticed=False),
        # baseline: a false alarm on t1, none on t2, t4 (t4 has no injected twin)
        row("m", "t1", cond="baseline", noticed=True),
        row("m", "t2", cond="baseline", noticed=False),
        row("m", "t4", cond="baseline", noticed=False),
        row("m", "t5", cond="baseline", noticed=None, no_tool=True),  # no tool: undefined
    ]
    t = propagation_table(frame(rows), n_resamples=R)
    assert lookup(t, "noticed", "m") == pytest.approx(2 / 3)
    fa = t[(t["key"] == "m") & (t["metric"] == "noticed_false_alarm")].iloc[0]
    assert fa.value == pytest.approx(1 / 3) and fa.n == 3
    # matched tasks t1 (1 − 1) and t2 (1 − 0): mean difference 0.5 over n = 2 tasks
    d = t[(t["key"] == "m") & (t["metric"] == "noticed_delta")].iloc[0]
    assert d.value == pytest.approx(0.5) and d.n == 2
    assert lookup(t, "recovered", "m") == pytest.approx(1.0)  # all S3 False


def test_rejection_recovery_ours_is_noticed_vs_recovery() -> None:
    rows = []
    for i, (noticed, wrong) in enumerate([(1, 7), (3, 5), (5, 6), (8, 1)]):
        for k in range(10):
            rows.append(row(f"m{i}", f"t{k}", s1=True, s2=True, noticed=k < noticed,
                            s3=k < wrong))
    rr = rejection_recovery(propagation_table(frame(rows), n_resamples=R), n_resamples=R)
    assert lookup(rr, "noticed", "m2") == pytest.approx(0.5)
    from scipy.stats import spearmanr

    expected = spearmanr([0.1, 0.3, 0.5, 0.8], [0.3, 0.5, 0.4, 0.9]).statistic
    assert lookup(rr, "spearman_rho_ours") == pytest.approx(expected)
    assert math.isnan(lookup(rr, "spearman_rho"))  # the paper's: rejection constant 0


def _two_models(extra: bool) -> pd.DataFrame:
    rows = []
    models = ["0", "a", "b"] if extra else ["a", "b"]  # "0" sorts first
    for m in models:
        for k in range(12):
            rows.append(row(m, f"t{k}", s1=True, s2=k % 3 != 0, s3=k % 2 == 0,
                            noticed=k % 4 == 0))
            rows.append(row(m, f"t{k}", cond="baseline", s3=k % 5 == 0, noticed=k % 6 == 0))
            for arm, wrong in (("control", k % 2 == 0), ("treatment", k % 3 == 0)):
                rows.append(row(m, f"t{k}", arm=arm, s1=True, s2=True, s3=wrong))
    return frame(rows)


@pytest.mark.parametrize("table", [
    lambda d: propagation_table(d, n_resamples=R),
    lambda d: stopping_table(d, n_resamples=R),
    lambda d: baseline_vs_p2(d, n_resamples=R),
    lambda d: interceptor_ab(d, n_resamples=R),
])
def test_a_models_cis_do_not_change_when_another_model_is_added(table) -> None:  # type: ignore[no-untyped-def]
    before, after = table(_two_models(False)), table(_two_models(True))
    for key in ("a", "b"):
        x = before[before["key"] == key].set_index("metric")[["value", "ci_lo", "ci_hi"]]
        y = after[after["key"] == key].set_index("metric")[["value", "ci_lo", "ci_hi"]]
        assert len(x) > 3
        pd.testing.assert_frame_equal(x, y)
