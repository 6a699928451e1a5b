"""Learn-then-Test threshold selection and the AURC (analysis/_ltt.py): p-values against
scipy, the no-valid-config and n = 0 paths, tie handling, and the guarantee itself on
simulated studies whose configurations' true false-abstain rates are known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from agentprop.analysis import (
    LttScenario,
    aurc,
    false_abstain_p_values,
    ltt_coverage,
    ltt_select,
)
from agentprop.analysis._ltt import LttMethod, ltt_valid


@pytest.mark.parametrize(("n", "k", "alpha"), [(50, 0, 0.1), (50, 3, 0.1), (200, 9, 0.05),
                                               (7, 7, 0.3), (1, 0, 0.5)])
def test_p_value_is_the_exact_binomial_tail(n: int, k: int, alpha: float) -> None:
    p = false_abstain_p_values([n], [k], alpha)[0]
    assert p == pytest.approx(float(binom.cdf(k, n, alpha)), rel=1e-12)


def test_no_right_answer_gives_no_p_value_and_no_validity() -> None:
    res = ltt_select(["a"], [0], [0], [5.0], alpha=0.1, delta=0.1)
    assert math.isnan(res.p_values[0]) and res.valid == (False,) and res.chosen is None
    assert res.n == (0,)


def test_no_valid_configuration_chooses_nothing() -> None:
    # 10 right answers, none flagged: P(Bin(10, .1) ≤ 0) = .349 > δ/2 — too few to promise
    res = ltt_select(["a", "b"], [10, 10], [0, 4], [1.0, 3.0], alpha=0.1, delta=0.1)
    assert res.chosen is None and res.index is None and not any(res.valid)


def test_bonferroni_picks_the_most_useful_valid_configuration() -> None:
    labels = ["strict", "loose", "looser"]
    n, k = [100, 100, 100], [0, 2, 20]
    res = ltt_select(labels, n, k, [3.0, 9.0, 15.0], alpha=0.1, delta=0.1)
    assert res.method == "bonferroni" and res.level == pytest.approx(0.1 / 3)
    assert res.valid == (True, True, False)  # k = 20 of 100 is no evidence of risk ≤ 0.1
    assert res.chosen == "loose"
    # equal utility: fewer abstentions wins, then the earlier configuration
    tie = ltt_select(labels, n, k, [5.0, 5.0, 5.0], alpha=0.1, delta=0.1,
                     abstentions=[40, 30, 30])
    assert tie.chosen == "loose"


def test_fixed_sequence_stops_at_the_first_acceptance() -> None:
    p = np.array([[0.01, 0.2, 0.001], [0.05, 0.09, 0.5]])
    assert ltt_valid(p, 0.1, order=[0, 1, 2]).tolist() == [[True, False, False],
                                                             [True, True, False]]
    assert ltt_valid(p, 0.1, order=[2, 0]).tolist() == [[True, False, True],
                                                        [False, False, False]]
    res = ltt_select(["a", "b"], [100, 100], [0, 5], [1.0, 2.0], alpha=0.1, delta=0.1,
                     order=[0, 1])
    assert res.method == "fixed_sequence" and res.chosen == "b"


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, math.nan])
def test_levels_outside_the_open_unit_interval_are_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        ltt_select(["a"], [10], [0], [1.0], alpha=bad, delta=0.1)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        ltt_select(["a"], [10], [0], [1.0], alpha=0.1, delta=bad)


def test_aurc_matches_the_definition_without_ties() -> None:
    rng = np.random.default_rng(3)
    score = rng.permutation(50).astype(float)
    wrong = rng.random(50) < 0.3
    ordered = wrong[np.argsort(score)]
    direct = np.mean(np.cumsum(ordered) / np.arange(1, 51))
    res = aurc(score, wrong)
    assert res.value == pytest.approx(direct) and res.n == 50
    assert res.coverage[-1] == 1.0 and res.risk[-1] == pytest.approx(wrong.mean())


def test_aurc_of_tied_scores_does_not_depend_on_their_order() -> None:
    # one tie group: every coverage level has the expected risk = the error share
    assert aurc([2, 2, 2, 2], [1, 0, 0, 1]).value == pytest.approx(0.5)
    # groups {0: right, wrong}, {1: right}, {2: wrong}: levels .5, .5, 1/3, .5
    res = aurc([0, 0, 1, 2], [False, True, False, True])
    assert res.value == pytest.approx((0.5 + 0.5 + 1 / 3 + 0.5) / 4)
    assert res.coverage == (0.5, 0.75, 1.0)
    # a perfect score (all wrong answers most suspicious) beats a reversed one
    assert aurc([0, 0, 1, 1], [0, 0, 1, 1]).value < aurc([1, 1, 0, 0], [0, 0, 1, 1]).value


def test_aurc_of_nothing_is_undefined() -> None:
    res = aurc([], [])
    assert math.isnan(res.value) and res.n == 0


@pytest.mark.parametrize("method", ["bonferroni", "fixed_sequence"])
@pytest.mark.parametrize("prevalence", [0.2, 0.5])
def test_the_chosen_configuration_keeps_its_guarantee(prevalence: float, method: LttMethod
                                                      ) -> None:
    """1,000 simulated tuning studies with known true false-abstain rates per threshold:
    the share of studies whose chosen configuration's true rate exceeds α is at most δ
    (plus Monte-Carlo slack), while the naive rule (empirical rate ≤ α) breaks it; the
    selection is not trivially empty."""
    sc = LttScenario(prevalence=prevalence)
    assert any(r <= sc.alpha for r in sc.right)  # a valid configuration exists
    res = ltt_coverage(sc, 1000, seed=11, method=method)
    slack = 3 * math.sqrt(sc.delta * (1 - sc.delta) / 1000)
    assert res["violation"] <= sc.delta + slack, res
    assert res["chosen_share"] >= 0.9, res
    assert res["naive_violation"] > sc.delta + slack, res  # the check has power
    assert res["mean_recall"] > 0.3, res


GUARANTEE = {
    "config": "tau_l1=2,tau_l2=3,l3=on", "alpha": 0.2, "delta": 0.1, "n": 107, "k": 9,
    "p_value": 8.9e-4, "val_rate": 9 / 107, "held_out": {"n": 95, "k": 6, "rate": 6 / 95},
    "baseline": {"n": 0, "k": 0, "rate": None}, "aurc_val": {"value": 0.38, "n": 168},
    "aurc_held_out": {"value": 0.30, "n": 144},
}


def test_the_report_section_states_the_guarantee_and_the_aurc() -> None:
    """numbers.json gets α, δ, the p-value, the val, held-out and baseline rates and both
    AURCs (an undefined rate is null with n = 0); the page's lead says it in words."""
    import json

    import pandas as pd

    from agentprop.analysis import AnalysisResult, numbers_manifest, sweep_table
    from agentprop.analysis._ltt import with_guarantee
    from agentprop.report.sections.interceptor_sweep import best_note

    sw = pd.DataFrame([{"config": GUARANTEE["config"], "tau_l1": 2, "tau_l2": 3, "l3": True,
                        "n": 168, "precision": 0.5, "recall": 0.1, "f1": 0.2,
                        "abstention_rate": 0.05, "best": True}])
    assert with_guarantee(sweep_table(sw), None).equals(sweep_table(sw))
    t = with_guarantee(sweep_table(sw), GUARANTEE)
    res = AnalysisResult(tables={"interceptor_sweep": t})
    m = numbers_manifest(res)
    json.dumps(m, allow_nan=False)
    assert m["interceptor_sweep.ltt_alpha"]["value"] == 0.2
    p = m["interceptor_sweep.ltt_p_value"]
    assert (p["value"], p["n"]) == (8.9e-4, 107)
    assert m["interceptor_sweep.false_abstain_held_out"]["n"] == 95
    base = m["interceptor_sweep.false_abstain_baseline"]
    assert (base["value"], base["n"]) == (None, 0)
    assert m["interceptor_sweep.aurc_val"]["value"] == pytest.approx(0.38)
    html = best_note(res, pd.DataFrame())
    assert "Learn-then-Test" in html and "α = 0.2" in html and "— (n = 0)" in html
    assert "by F1" not in html
    assert "by F1" in best_note(AnalysisResult(tables={"interceptor_sweep": sweep_table(sw)}),
                                pd.DataFrame())
