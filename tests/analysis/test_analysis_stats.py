"""Statistics: hand-computed values, undefined cases as NaN with n, seeded determinism."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agentprop.analysis import (
    Resampler,
    achieved_power,
    cohen_kappa,
    cohens_h,
    conditional_ci,
    kappa_from_table,
    kendall,
    krippendorff_alpha,
    mcnemar_test,
    proportion_ci,
    ratio_ci,
    spearman,
    two_proportion_z,
)


def test_kappa_of_the_papers_ensemble_vs_human_table() -> None:
    # Table 3 of the paper: ensemble correct/incorrect × human correct/incorrect
    k = kappa_from_table(19, 6, 19, 56)
    assert k.kappa == pytest.approx(0.432, abs=5e-4)
    assert k.n == 100
    assert k.asym_lo < k.kappa < k.asym_hi
    assert k.boot_lo < k.kappa < k.boot_hi
    # the paper's limitation section: bootstrap CI about [0.28, 0.58] / [0.239, 0.622]
    assert 0.2 < k.boot_lo < 0.3 and 0.55 < k.boot_hi < 0.65


def test_kappa_from_raw_pairs_matches_table_and_drops_missing() -> None:
    a = [True] * 19 + [True] * 6 + [False] * 19 + [False] * 56 + [None]
    b = [True] * 19 + [False] * 6 + [True] * 19 + [False] * 56 + [True]
    k = cohen_kappa(a, b)
    assert k.n == 100 and k.table == (19, 6, 19, 56)
    assert k.kappa == pytest.approx(0.4318, abs=1e-4)


def test_kappa_undefined_is_nan_with_n() -> None:
    assert math.isnan(kappa_from_table(0, 0, 0, 0).kappa)
    k = kappa_from_table(5, 0, 0, 0)  # both raters constant: chance agreement 1
    assert math.isnan(k.kappa) and k.n == 5


def test_proportion_drops_missing_and_empty_is_nan() -> None:
    e = proportion_ci([True, False, None, True, pd.NA])
    assert e.value == pytest.approx(2 / 3) and e.n == 3
    empty = proportion_ci([])
    assert math.isnan(empty.value) and empty.n == 0 and empty.ci is None


def test_conditional_rate_zero_denominator_is_undefined() -> None:
    e = conditional_ci([True, False], [False, False])
    assert math.isnan(e.value) and e.n == 0
    e2 = conditional_ci([1, 0, 1, None], [1, 1, 0, 1])  # the None row is dropped
    assert e2.value == pytest.approx(0.5) and e2.n == 2


def test_bootstrap_is_seeded_and_percentile_ci_brackets_value() -> None:
    x = np.r_[np.ones(30), np.zeros(70)]
    a, b = proportion_ci(x, rng=42), proportion_ci(x, rng=42)
    assert a == b
    assert a.lo < 0.3 < a.hi
    assert proportion_ci(x, rng=1) != a


def test_cluster_bootstrap_resamples_whole_clusters() -> None:
    # two clusters of identical rows: every replicate is 0, 0.5 or 1
    num = [1, 1, 1, 0, 0, 0]
    r = Resampler(np.arange(6), clusters=["a"] * 3 + ["b"] * 3, n_resamples=200, rng=3)
    value, n, reps = r.ratio_reps(num)
    assert value == 0.5 and n == 6
    assert set(np.unique(reps)) <= {0.0, 0.5, 1.0}
    e = ratio_ci(num, clusters=["a"] * 3 + ["b"] * 3)
    assert (e.lo, e.hi) == (0.0, 1.0)


def test_spearman_and_kendall() -> None:
    s = spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert s.rho == pytest.approx(0.8) and s.n == 5 and s.lo <= s.rho <= s.hi
    k = kendall([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert k.rho == pytest.approx(0.6)
    undefined = spearman([1, 2, float("nan")], [3, 4, 5])
    assert math.isnan(undefined.rho) and undefined.n == 2


def test_mcnemar_ztest_h_power() -> None:
    m = mcnemar_test(163, 25)
    assert m.p_exact < 1e-20 and m.p_midp < m.p_exact
    assert math.isnan(mcnemar_test(0, 0).p_exact)
    assert mcnemar_test(5, 5).p_exact == pytest.approx(1.0)
    z, p = two_proportion_z(335, 600, 197, 600)
    assert z > 0 and p < 1e-10
    assert math.isnan(two_proportion_z(0, 0, 1, 2)[1])
    h = cohens_h(0.558, 0.328)
    assert h == pytest.approx(2 * math.asin(math.sqrt(0.558)) - 2 * math.asin(math.sqrt(0.328)))
    assert achieved_power(h, 600, 600) > 0.99
    assert achieved_power(0.0, 10, 10) == pytest.approx(0.05)
    assert math.isnan(achieved_power(0.2, 0, 10))


def test_krippendorff_alpha() -> None:
    e = krippendorff_alpha([[1, 0, 1, np.nan], [1, 0, 1, 1]])
    assert e.value == pytest.approx(1.0) and e.n == 3
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]).value)


def test_mcnemar_midp_is_one_when_discordant_counts_tie() -> None:
    # mid-p = 2·(P(X ≤ k) − ½·P(X = k)); with b = c it is exactly 1 by symmetry, while
    # "exact − pmf" undercuts it because the exact p was capped at 1 first.
    assert mcnemar_test(1, 1).p_midp == pytest.approx(1.0)
    assert mcnemar_test(5, 5).p_midp == pytest.approx(1.0)
    assert mcnemar_test(3, 7).p_midp == pytest.approx(0.34375 - 0.1171875)


def test_a_share_of_zero_or_one_gets_the_exact_bound_not_a_point() -> None:
    """Resampling cannot vary what never happened: 0 of 10 would be [0, 0] by percentile
    bootstrap. The open side is the Clopper–Pearson bound over the independent units."""
    import numpy as np

    from agentprop.analysis import Resampler, proportion_ci

    zeros = proportion_ci([False] * 10, n_resamples=200, rng=1)
    assert zeros.value == 0 and zeros.lo == 0 and zeros.hi == pytest.approx(1 - 0.025 ** 0.1)
    ones = proportion_ci([True] * 10, n_resamples=200, rng=1)
    assert ones.hi == 1 and ones.lo == pytest.approx(0.025 ** 0.1)
    # clustered: twenty traces on four tasks are four independent units
    tasks = np.repeat(["a", "b", "c", "d"], 5)
    rs = Resampler(np.arange(20), clusters=tasks, n_resamples=200, rng=1)
    est = rs.ratio(np.zeros(20))
    assert est.hi == pytest.approx(1 - 0.025 ** 0.25)
    # a difference of zero is not a share: its interval stays what the bootstrap says
    diff = rs.ratio(np.zeros(20) - np.zeros(20), difference=True)
    assert (diff.lo, diff.hi) == (0.0, 0.0)
    # a share strictly inside (0, 1) keeps its percentile interval
    mixed = proportion_ci([True, False] * 5, n_resamples=200, rng=1)
    assert 0 < mixed.lo < 0.5 < mixed.hi < 1


@pytest.mark.parametrize(("k", "n", "trials"), [(1, 3, None), (7, 130, None),
                                                 (4000, 200, None), (5, 65, 9),
                                                 # drawn in a second thread (_PIPE_DRAWS)
                                                 (6000, 190, None), (300, 1000, 1100)])
def test_resample_weights_are_the_counts_of_one_draw_of_every_replicate(
        k: int, n: int, trials: int | None) -> None:
    # the weights are drawn in blocks of replicates, as 32-bit integers: the same counts as
    # the one 64-bit draw of every replicate they replace, and the generator left in the
    # same state (a statistic drawn after them sees the same stream), whether a second
    # thread draws the next block while one is counted or not
    from agentprop.analysis._stats import resample_weights

    g, ref = np.random.default_rng(11), np.random.default_rng(11)
    w = resample_weights(k, n, g, trials=trials)
    m = k if trials is None else trials
    draws = ref.integers(0, k, size=(n, m), dtype=np.int64)
    expected = np.stack([np.bincount(row, minlength=k) for row in draws])
    assert w.dtype == np.float64 and w.shape == (n, k)
    assert np.array_equal(w, expected)
    assert g.bit_generator.state == ref.bit_generator.state
    assert g.integers(0, 5, size=9).tolist() == ref.integers(0, 5, size=9).tolist()


@pytest.mark.parametrize("values", [
    np.array(["retail_0002", "calendar_0010", "retail_0002", "Zeta", "ä", ""], dtype=object),
    np.array(["b", "a", "b"]),
    np.array([3, 1, 2, 3]),
    np.array(["b", 1.5, None, "b"], dtype=object),
    np.array([], dtype=object),
])
def test_cluster_codes_are_np_unique_of_the_values_as_strings(values: np.ndarray) -> None:
    # the cluster codes decide which weight column is which task: they must be those of
    # np.unique over the values as strings (sorted), whatever they are computed with
    from agentprop.analysis._stats import _codes

    uniq, inv = np.unique(values.astype(str), return_inverse=True)
    codes, got = _codes(values)
    assert codes.tolist() == inv.ravel().tolist()
    assert got.tolist() == uniq.tolist()
