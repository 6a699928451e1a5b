"""Statistics used by every analysis: estimates with n and bootstrap CIs, agreement, tests.

All functions are pure. Randomness comes from one seeded `numpy.random.Generator` passed in
(or built from `seed`, default 42). Bootstraps are vectorised: resampling n units with
replacement is drawing a multinomial count vector over the units (or, for categorical data,
over the distinct patterns, which is the same distribution and far cheaper), so every
replicate is a row of a weight matrix and every statistic is a matrix product.

Undefined results (empty group, zero denominator, constant ranks) are NaN with their n,
never 0 and never an exception. A share of exactly 0 or 1 has a bootstrap interval of one
point; its open side is the exact Clopper–Pearson bound over the independent units (tasks).
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

SEED = 42
N_RESAMPLES = 1000
ALPHA = 0.05
MIN_RANK_N = 5
"""Fewest pairs (models) a rank correlation is tested on: below it no p-value and no
bootstrap CI is given (with 4 models every ρ is one of a few values, and resampling 4
pairs mostly redraws the same ranks), only ρ and "n = 4, not testable"."""
SMALL_N = 10
"""The small-sample floor: an estimate whose n is under it is marked as resting on too
few, and a comparison with human labels warns when a cell of its 2×2 table holds fewer
labels."""

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Estimate:
    """A number with the count it rests on and its (percentile) CI; NaN when undefined."""

    value: float
    n: int
    lo: float = math.nan
    hi: float = math.nan

    @property
    def ci(self) -> tuple[float, float] | None:
        if math.isnan(self.lo) or math.isnan(self.hi):
            return None
        return (self.lo, self.hi)

    def as_row(self, prefix: str = "") -> dict[str, Any]:
        return {f"{prefix}value": self.value, f"{prefix}n": self.n,
                f"{prefix}ci_lo": self.lo, f"{prefix}ci_hi": self.hi}


NAN_ESTIMATE = Estimate(math.nan, 0)


def make_rng(seed: int | np.random.Generator | None = SEED) -> np.random.Generator:
    """The one Generator of an analysis (pass a Generator through to share its stream)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(SEED if seed is None else seed)


def group_rng(seed: int | np.random.Generator | None, *key: object) -> np.random.Generator:
    """The Generator of one group's bootstrap, derived from the analysis seed and the group's
    key, so a group's CI does not depend on which other groups the data hold (adding a model
    to a workspace leaves every other model's CI as it was). A Generator passed as `seed` is
    used as is (the caller chose to share its stream)."""
    if isinstance(seed, np.random.Generator):
        return seed
    digest = hashlib.sha256("\x1f".join(map(str, key)).encode()).digest()
    return np.random.default_rng([SEED if seed is None else int(seed),
                                  int.from_bytes(digest[:8], "big")])


def _percentile(reps: FloatArray, alpha: float = ALPHA) -> tuple[float, float]:
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return (math.nan, math.nan)
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return (float(lo), float(hi))


def edge_bound(value: float, k: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a share of exactly 0 or 1 over k
    independent units: [0, 1 − (α/2)^(1/k)] or [(α/2)^(1/k), 1]. A percentile bootstrap of
    such a share is the point itself, since resampling cannot vary what never happened."""
    b = (alpha / 2) ** (1 / k)
    return (0.0, 1 - b) if value == 0 else (b, 1.0)


def _is_share(x: FloatArray, d: FloatArray) -> bool:
    """Units with 0/1 events over 0/1 denominators (a proportion, not a difference)."""
    return bool(np.isin(x, (0.0, 1.0)).all() and np.isin(d, (0.0, 1.0)).all()
                and (x <= d).all())


def _widen_edge(est: Estimate, x: FloatArray, d: FloatArray, k: int,
                alpha: float) -> Estimate:
    """`est` with the exact bound on the open side when it is a share of exactly 0 or 1
    whose bootstrap interval collapsed to the point (k = independent units, e.g. tasks)."""
    if k < 1 or est.value not in (0.0, 1.0) or est.lo != est.hi or not _is_share(x, d):
        return est
    lo, hi = edge_bound(est.value, k, alpha)
    return Estimate(est.value, est.n, lo, hi)


WeightMemo = dict[tuple[Any, ...], npt.NDArray[Any]]
"""Cluster-bootstrap weight matrices kept for one later use, by what they depend on: the
stream's key (`group_rng`'s), the number of clusters and of replicates. Stored as counts
(`_pack_counts`): a kept matrix costs a sixteenth of its floats (≈ 88 → 44 MB at 200,000
traces, where the propagation table keeps 11 of 1,000 × 8,000)."""

_DRAW_ROWS = 64
"""Replicates drawn per call of the generator in `resample_weights` (bounds the draws held
at once; the stream, and so every count, is the same as one call's)."""

_PIPE_DRAWS = 1 << 20
"""Draws (replicates × draws per replicate) from which `resample_weights` counts a block
while a second thread draws the next: numpy draws without the GIL, so the two share the
cores (≈ 1.4× at 16,000 tasks); below it a thread's start costs more than it saves."""


def resample_weights(
    k: int, n_resamples: int, rng: np.random.Generator, probs: FloatArray | None = None,
    trials: int | None = None,
) -> FloatArray:
    """Row b = how often each of k units (or patterns with `probs`) is drawn in replicate b,
    as floats (every statistic is a matrix product with it).

    Equal probabilities (units, clusters): k uniform draws per replicate, counted (the same
    distribution as a multinomial, and far cheaper for thousands of tasks). The draws are
    made a block of replicates at a time and counted row by row: the same values as one
    `rng.integers(0, k, size=(n_resamples, m))` (32-bit draws are the stream of 64-bit
    ones below 2³²), leaving the generator in the same state, without holding every draw
    and with each row's counts in cache."""
    if k == 0:
        return np.zeros((n_resamples, 0))
    if probs is None:
        m = k if trials is None else trials
        out = np.empty((n_resamples, k))
        dtype = np.int32 if k <= np.iinfo(np.int32).max else np.int64
        starts = range(0, n_resamples, _DRAW_ROWS)
        sizes = [(min(_DRAW_ROWS, n_resamples - s), m) for s in starts]
        if n_resamples * m < _PIPE_DRAWS:
            for start, size in zip(starts, sizes, strict=True):
                _count_rows(out, start, rng.integers(0, k, size=size, dtype=dtype), k)
            return out
        with ThreadPoolExecutor(1) as drawer:  # draws the next block (without the GIL)
            block = drawer.submit(rng.integers, 0, k, size=sizes[0], dtype=dtype)
            for j, start in enumerate(starts):
                rows = block.result()
                if j + 1 < len(sizes):  # one draw in flight at a time: the same stream
                    block = drawer.submit(rng.integers, 0, k, size=sizes[j + 1], dtype=dtype)
                _count_rows(out, start, rows, k)
        return out
    return np.asarray(rng.multinomial(k if trials is None else trials, probs,
                                      size=n_resamples), dtype=np.float64)


def _count_rows(out: FloatArray, start: int, block: npt.NDArray[Any], k: int) -> None:
    """Rows start.. of `out`: each replicate's draws counted per unit (in cache, a row at a
    time)."""
    for i, row in enumerate(block):
        out[start + i] = np.bincount(row, minlength=k)


def _kept_weights(k: int, n_resamples: int, rng: np.random.Generator, memo: WeightMemo,
                  key: tuple[Any, ...]) -> FloatArray:
    """`resample_weights(k, n_resamples, rng)`, or the same matrix kept in `memo` under the
    stream's `key` by an earlier draw (taken out: each is kept for one more use)."""
    slot = (*key, k, n_resamples)
    kept = memo.pop(slot, None)
    if kept is not None:
        return _unpack_counts(kept, k)
    weights = resample_weights(k, n_resamples, rng)
    memo[slot] = _pack_counts(weights)
    return weights


def _pack_counts(weights: FloatArray) -> npt.NDArray[Any]:
    """Counts as integers: two per byte when all are below 16 (a task drawn 16 times in one
    replicate of thousands is rare) and the clusters are even in number, else in their
    smallest integer type."""
    if weights.size and weights.max() < 16 and weights.shape[1] % 2 == 0:
        w = weights.astype(np.uint8)
        return np.asarray((w[:, 0::2] << 4) | w[:, 1::2], dtype=np.uint8)
    return weights.astype(np.min_scalar_type(int(weights.max(initial=0))))


def _unpack_counts(kept: npt.NDArray[Any], k: int) -> FloatArray:
    """The float matrix `_pack_counts` stored (its width says whether it is packed)."""
    if kept.shape[1] == k:
        return np.asarray(kept, dtype=np.float64)
    out = np.empty((kept.shape[0], k))
    out[:, 0::2] = kept >> 4
    out[:, 1::2] = kept & 15
    return out


def _safe_div(num: Any, den: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(den) > 0, np.asarray(num, dtype=float) / den, np.nan)


# -- proportions and ratios -----------------------------------------------------------------

def ratio_ci(
    num: npt.ArrayLike,
    den: npt.ArrayLike | None = None,
    *,
    clusters: npt.ArrayLike | None = None,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
    difference: bool = False,
) -> Estimate:
    """sum(num)/sum(den) over units with a bootstrap CI; n = sum(den) rounded.

    Units are resampled with replacement; with `clusters`, whole clusters (e.g. tasks) are
    resampled. `den=None` means 1 per unit (a mean). Values of num may be any float (a
    paired difference, a boolean outcome), so the same function serves rates and deltas;
    a share of exactly 0 or 1 gets the exact bound on its open side unless `difference`.
    """
    x = np.asarray(num, dtype=float).ravel()
    d = np.ones_like(x) if den is None else np.asarray(den, dtype=float).ravel()
    keep = np.isfinite(x) & np.isfinite(d)
    x, d = x[keep], d[keep]
    if d.sum() <= 0:
        return Estimate(math.nan, round(float(d.sum())))
    cl = None if clusters is None else np.asarray(clusters)[keep]
    rs = Resampler(np.column_stack([x, d]), clusters=cl, n_resamples=n_resamples, rng=rng)
    return rs.ratio(x, d, alpha, difference=difference)


def proportion_ci(
    x: npt.ArrayLike,
    *,
    clusters: npt.ArrayLike | None = None,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> Estimate:
    """Share of True among the non-missing values of x (None/NaN dropped), with bootstrap CI."""
    arr = _as_float_bool(x)
    keep = ~np.isnan(arr)
    cl = None if clusters is None else np.asarray(clusters)[keep]
    return ratio_ci(arr[keep], clusters=cl, n_resamples=n_resamples, rng=rng, alpha=alpha)


def conditional_ci(
    event: npt.ArrayLike,
    given: npt.ArrayLike,
    *,
    clusters: npt.ArrayLike | None = None,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> Estimate:
    """P(event | given) resampling all units (so the CI carries the randomness of n_given).

    Units where `given` is missing, or `given` is True and `event` is missing, are dropped.
    """
    e = _as_float_bool(event)
    gv = _as_float_bool(given)
    keep = ~np.isnan(gv) & ~((gv == 1) & np.isnan(e))
    e, gv = np.nan_to_num(e[keep]), gv[keep]
    cl = None if clusters is None else np.asarray(clusters)[keep]
    return ratio_ci(e * gv, gv, clusters=cl, n_resamples=n_resamples, rng=rng, alpha=alpha)


def _as_float_bool(x: npt.ArrayLike) -> FloatArray:
    """Booleans with missing values (None, pd.NA, NaN) as 1.0/0.0/NaN."""
    import pandas as pd

    arr = np.asarray(x)
    if arr.dtype == bool:
        return arr.astype(float).ravel()
    s = pd.Series(arr.ravel(), dtype=object)
    s = s.where(s.notna(), None)
    return np.asarray(s.astype("boolean").astype("Float64").to_numpy(dtype=float,
                                                                      na_value=np.nan),
                      dtype=np.float64)


def _codes(values: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    """Each value's index among the distinct values as strings, sorted, and those values
    (`np.unique(values.astype(str), return_inverse=True)`, by hashing instead of sorting
    every value: cluster ids are hundreds of thousands of task ids)."""
    import pandas as pd

    arr = np.asarray(values)
    if not (arr.dtype.kind == "U" or (arr.dtype.kind == "O" and len(arr)
                                      and pd.api.types.infer_dtype(arr, skipna=False)
                                      == "string")):
        arr = arr.astype(str)
    codes, uniq = pd.factorize(arr.ravel(), sort=True)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniq, dtype=str)


# -- agreement ------------------------------------------------------------------------------

def _kappa_from_counts(n11: Any, n10: Any, n01: Any, n00: Any) -> Any:
    """Cohen's κ of 2×2 tables given as (arrays of) cell counts; NaN where undefined."""
    n = np.asarray(n11 + n10 + n01 + n00, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        po = (n11 + n00) / n
        pa1 = (n11 + n10) / n
        pb1 = (n11 + n01) / n
        pe = pa1 * pb1 + (1 - pa1) * (1 - pb1)
        k = np.where((n > 0) & (pe < 1), (po - pe) / (1 - pe), np.nan)
    return k


@dataclass(frozen=True)
class KappaResult:
    kappa: float
    n: int
    asym_lo: float
    asym_hi: float
    boot_lo: float
    boot_hi: float
    table: tuple[int, int, int, int]  # (both 1, a1 b0, a0 b1, both 0)


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    clusters: npt.ArrayLike | None = None,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> KappaResult:
    """Cohen's κ of two binary raters (missing on either side dropped).

    Asymptotic CI from statsmodels (`cohens_kappa`); percentile bootstrap CI from a
    multinomial over the four cells, or, with `clusters` (the task of each unit, aligned
    with a and b), by resampling clusters: the table's cells are summed per cluster and
    the cluster tables resampled, since traces of one task are not independent.
    """
    fa, fb = _as_float_bool(a), _as_float_bool(b)
    keep = ~np.isnan(fa) & ~np.isnan(fb)
    fa, fb = fa[keep], fb[keep]
    cells = np.column_stack([(fa == 1) & (fb == 1), (fa == 1) & (fb == 0),
                             (fa == 0) & (fb == 1), (fa == 0) & (fb == 0)]).astype(float)
    n11, n10, n01, n00 = (int(x) for x in cells.sum(axis=0))
    if clusters is None:
        return kappa_from_table(n11, n10, n01, n00, n_resamples=n_resamples, rng=rng,
                                alpha=alpha)
    res = kappa_from_table(n11, n10, n01, n00, n_resamples=0, alpha=alpha)
    if math.isnan(res.kappa):
        return res
    codes, uniq = _codes(np.asarray(clusters)[keep])
    per = np.stack([np.bincount(codes, weights=cells[:, j], minlength=len(uniq))
                    for j in range(4)], axis=1)
    w = resample_weights(len(uniq), n_resamples, make_rng(rng))
    rep = w @ per
    reps = _kappa_from_counts(rep[:, 0], rep[:, 1], rep[:, 2], rep[:, 3])
    lo, hi = _percentile(np.asarray(reps, dtype=float), alpha)
    return KappaResult(res.kappa, res.n, res.asym_lo, res.asym_hi, lo, hi, res.table)


def kappa_from_table(
    n11: int, n10: int, n01: int, n00: int, *,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> KappaResult:
    """κ from a 2×2 table [[n11, n10], [n01, n00]] (rows: rater A yes/no; cols: rater B)."""
    n = n11 + n10 + n01 + n00
    k = float(_kappa_from_counts(np.float64(n11), n10, n01, n00))
    alo = ahi = blo = bhi = math.nan
    if not math.isnan(k):
        from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sm_kappa(np.array([[n11, n10], [n01, n00]]))
        from scipy.stats import norm

        half = float(norm.ppf(1 - alpha / 2)) * float(res.std_kappa)
        # the Wald interval can leave κ's range [-1, 1]; what lies outside it is not a κ
        alo, ahi = max(-1.0, k - half), min(1.0, k + half)
    if not math.isnan(k) and n_resamples > 0:
        g = make_rng(rng)
        probs = np.array([n11, n10, n01, n00], dtype=float) / n
        cells = g.multinomial(n, probs, size=n_resamples).astype(float)
        reps = _kappa_from_counts(cells[:, 0], cells[:, 1], cells[:, 2], cells[:, 3])
        blo, bhi = _percentile(np.asarray(reps, dtype=float), alpha)
    return KappaResult(k, n, alo, ahi, blo, bhi, (n11, n10, n01, n00))


def krippendorff_alpha(
    ratings: npt.ArrayLike,
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal",
) -> Estimate:
    """Krippendorff's α for raters × units (NaN = missing); n = units rated at least twice."""
    from krippendorff import alpha as k_alpha

    data = np.asarray(ratings, dtype=float)
    if data.ndim != 2:
        return NAN_ESTIMATE
    n_units = int((np.sum(~np.isnan(data), axis=0) >= 2).sum())
    values = np.unique(data[~np.isnan(data)])
    if n_units == 0 or values.size < 2:
        return Estimate(math.nan, n_units)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = float(k_alpha(reliability_data=data, level_of_measurement=level))
    return Estimate(a, n_units)


# -- correlation ----------------------------------------------------------------------------

@dataclass(frozen=True)
class CorrResult:
    rho: float
    p: float
    n: int
    lo: float
    hi: float


def _rank_rows(m: FloatArray) -> FloatArray:
    from scipy.stats import rankdata

    return np.asarray(rankdata(m, axis=1), dtype=float)


def _row_pearson(x: FloatArray, y: FloatArray) -> FloatArray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return np.asarray(_safe_div((xc * yc).sum(axis=1), den), dtype=float)


def _finite_pairs(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The (x, y) pairs where both are finite."""
    fx, fy = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(fx) & np.isfinite(fy)
    return fx[keep], fy[keep]


def spearman(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> CorrResult:
    """Spearman ρ and p (scipy) with a bootstrap CI over pairs; NaN pairs dropped. Under
    `MIN_RANK_N` pairs: ρ only (p and CI NaN, see `rank_note`)."""
    from scipy.stats import spearmanr

    fx, fy = _finite_pairs(x, y)
    n = int(fx.size)
    if n < 3 or np.ptp(fx) == 0 or np.ptp(fy) == 0:  # a rank correlation is undefined
        return CorrResult(math.nan, math.nan, n, math.nan, math.nan)
    res = spearmanr(fx, fy)
    if n < MIN_RANK_N:  # ρ, but neither a p-value nor a CI (`rank_note`)
        return CorrResult(float(res.statistic), math.nan, n, math.nan, math.nan)
    idx = make_rng(rng).integers(0, n, size=(n_resamples, n))
    reps = _row_pearson(_rank_rows(fx[idx]), _rank_rows(fy[idx]))
    lo, hi = _percentile(reps, alpha)
    return CorrResult(float(res.statistic), float(res.pvalue), n, lo, hi)


def kendall(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    alpha: float = ALPHA,
) -> CorrResult:
    """Kendall τ-b and p (scipy) with a bootstrap CI over pairs (few items: a loop is
    fine). Under `MIN_RANK_N` pairs: τ only (p and CI NaN, see `rank_note`)."""
    from scipy.stats import kendalltau

    fx, fy = _finite_pairs(x, y)
    n = int(fx.size)
    if n < 3 or np.ptp(fx) == 0 or np.ptp(fy) == 0:  # a rank correlation is undefined
        return CorrResult(math.nan, math.nan, n, math.nan, math.nan)
    res = kendalltau(fx, fy)
    if n < MIN_RANK_N:  # τ, but neither a p-value nor a CI (`rank_note`)
        return CorrResult(float(res.statistic), math.nan, n, math.nan, math.nan)
    idx = make_rng(rng).integers(0, n, size=(n_resamples, n))
    # pairwise concordance per replicate, vectorised: n is the number of models (small)
    dx = np.sign(fx[idx][:, :, None] - fx[idx][:, None, :])
    dy = np.sign(fy[idx][:, :, None] - fy[idx][:, None, :])
    num = (dx * dy).sum(axis=(1, 2))
    den = np.sqrt((dx != 0).sum(axis=(1, 2)) * (dy != 0).sum(axis=(1, 2)))
    lo, hi = _percentile(np.asarray(_safe_div(num, den), dtype=float), alpha)
    return CorrResult(float(res.statistic), float(res.pvalue), n, lo, hi)


def rank_note(n: int) -> str:
    """What a rank correlation over `n` pairs supports: "" when it is tested, else "n = 4,
    not testable" (and why), the note its value carries."""
    if n >= MIN_RANK_N or n < 3:
        return ""
    return (f"n = {n}, not testable: a rank correlation needs at least {MIN_RANK_N} models "
            "for a p-value or a CI")


def small_sample_note(cells: Sequence[int], what: str, floor: int = SMALL_N) -> str:
    """A warning when a cell of `what`'s table (e.g. the 2×2 of a judge against the human
    labels) holds fewer than `floor` labels: every number drawn from it is indicative."""
    small = [int(c) for c in cells if int(c) < floor]
    if not small:
        return ""
    return (f"warning: small sample: {what}: {len(small)} of its {len(cells)} cells hold "
            f"under {floor} labels (fewest {min(small)}); read its numbers as indicative "
            "only")


def below_floor(n: int, floor: int = SMALL_N) -> bool:
    """Whether an estimate over `n` units is under the small-sample floor."""
    return 0 < n < floor


# -- tests and effect sizes -----------------------------------------------------------------

@dataclass(frozen=True)
class McNemarResult:
    b: int  # A yes, B no (e.g. control hallucinated, treatment did not)
    c: int  # A no, B yes
    p_exact: float
    p_midp: float


def mcnemar_test(b: int, c: int) -> McNemarResult:
    """Exact McNemar (statsmodels) on the discordant counts, plus the mid-p variant."""
    from scipy.stats import binom
    from statsmodels.stats.contingency_tables import mcnemar

    if b + c == 0:
        return McNemarResult(b, c, math.nan, math.nan)
    p = float(mcnemar(np.array([[0, b], [c, 0]]), exact=True).pvalue)
    # mid-p = 2·(P(X ≤ k) − ½·P(X = k)), from the uncapped tail (exact p is capped at 1)
    k = min(b, c)
    midp = min(1.0, 2 * (float(binom.cdf(k, b + c, 0.5)) - 0.5 * float(binom.pmf(k, b + c, 0.5))))
    return McNemarResult(b, c, p, midp)


def two_proportion_z(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float]:
    """(z, p) of the two-sided two-proportion z test (statsmodels); NaN when undefined."""
    from statsmodels.stats.proportion import proportions_ztest

    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan)
    pooled = (x1 + x2) / (n1 + n2)
    if pooled in (0.0, 1.0):
        return (math.nan, math.nan)
    z, p = proportions_ztest(np.array([x1, x2]), np.array([n1, n2]))
    return (float(z), float(p))


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin√p1 − 2·asin√p2 (statsmodels' proportion_effectsize)."""
    from statsmodels.stats.proportion import proportion_effectsize

    if not (0 <= p1 <= 1 and 0 <= p2 <= 1):
        return math.nan
    return float(proportion_effectsize(p1, p2))


def achieved_power(h: float, n1: int, n2: int, alpha: float = ALPHA) -> float:
    """Power of a two-sided two-sample z test for effect h at the achieved sizes."""
    from statsmodels.stats.power import NormalIndPower

    if n1 <= 0 or n2 <= 0 or not math.isfinite(h):
        return math.nan
    if h == 0:
        return alpha
    return float(NormalIndPower().power(effect_size=abs(h), nobs1=n1, alpha=alpha,
                                        ratio=n2 / n1, alternative="two-sided"))


def nan_if_empty(values: Sequence[float]) -> float:
    """Mean of values, NaN if there are none."""
    return float(np.mean(values)) if len(values) else math.nan


class Resampler:
    """One bootstrap weight matrix shared by all statistics of one group of units.

    With `clusters` (e.g. task ids) whole clusters are drawn; otherwise units are collapsed
    into their distinct `patterns` (rows of the feature matrix the statistics use) and the
    pattern counts are drawn from a multinomial — the same distribution as resampling units,
    at the cost of a few columns. Statistics computed from the same Resampler share their
    replicates, so differences and derived quantities get joint CIs.
    """

    def __init__(
        self,
        patterns: npt.ArrayLike,
        *,
        clusters: npt.ArrayLike | None = None,
        n_resamples: int = N_RESAMPLES,
        rng: np.random.Generator | int | None = None,
        memo: tuple[WeightMemo, tuple[Any, ...]] | None = None,
    ) -> None:
        """`memo`: a `WeightMemo` and the key of `rng`'s stream. With clusters, a matrix
        another Resampler of the same key, cluster count and replicates kept there is taken
        (and dropped from the memo) instead of drawn; else the one drawn is kept."""
        feats = np.asarray(patterns, dtype=float)
        if feats.ndim == 1:
            feats = feats[:, None]
        self.n_units = int(feats.shape[0])
        g = make_rng(rng)
        if clusters is not None:
            self.codes, uniq = _codes(clusters)
            k = len(uniq)
            self.sizes = np.bincount(self.codes, minlength=k).astype(float)
            self.per_draw_sum = True
            self.weights = (resample_weights(k, n_resamples, g) if memo is None
                            else _kept_weights(k, n_resamples, g, *memo))
        else:
            filled = np.where(np.isnan(feats), -1.0, feats)
            uniq_rows, inv, counts = np.unique(
                filled, axis=0, return_inverse=True, return_counts=True
            )
            self.codes = np.asarray(inv, dtype=np.int64).ravel()
            k = len(uniq_rows)
            self.sizes = counts.astype(float)
            self.per_draw_sum = False
            self.weights = (
                resample_weights(k, n_resamples, g, probs=counts / counts.sum(),
                                 trials=self.n_units)
                if k else np.zeros((n_resamples, 0))
            )
        self.k = k

    def _per_draw(self, x: FloatArray) -> FloatArray:
        s = np.bincount(self.codes, weights=x, minlength=self.k)
        out = s if self.per_draw_sum else _safe_div(s, self.sizes)
        return np.asarray(out, dtype=np.float64)

    def sums(self, columns: npt.ArrayLike) -> FloatArray:
        """Replicates × columns: each column's sum over the resampled units."""
        c = np.asarray(columns, dtype=float)
        c = c[:, None] if c.ndim == 1 else c
        per = np.column_stack([self._per_draw(c[:, j]) for j in range(c.shape[1])])
        return np.asarray(self.weights @ per, dtype=float)

    def kappa(self, a: npt.ArrayLike, b: npt.ArrayLike, alpha: float = ALPHA) -> KappaResult:
        """Cohen's κ of two aligned binary raters (no missing values) with the asymptotic CI
        and a bootstrap CI from this resampler's replicates of the table's cells (summed
        per cluster when clustered)."""
        fa, fb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        cells = np.column_stack([(fa == 1) & (fb == 1), (fa == 1) & (fb == 0),
                                 (fa == 0) & (fb == 1), (fa == 0) & (fb == 0)]).astype(float)
        n11, n10, n01, n00 = (int(x) for x in cells.sum(axis=0))
        res = kappa_from_table(n11, n10, n01, n00, n_resamples=0, alpha=alpha)
        if math.isnan(res.kappa) or self.k == 0:
            return res
        rep = self.sums(cells)
        reps = _kappa_from_counts(rep[:, 0], rep[:, 1], rep[:, 2], rep[:, 3])
        lo, hi = _percentile(np.asarray(reps, dtype=float), alpha)
        return KappaResult(res.kappa, res.n, res.asym_lo, res.asym_hi, lo, hi, res.table)

    @staticmethod
    def _clean(num: npt.ArrayLike, den: npt.ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        x = np.asarray(num, dtype=float).ravel()
        d = np.ones_like(x) if den is None else np.asarray(den, dtype=float).ravel()
        bad = ~np.isfinite(x) | ~np.isfinite(d)
        return np.where(bad, 0.0, x), np.where(bad, 0.0, d)

    def ratios_reps(
        self, items: Sequence[tuple[npt.ArrayLike, npt.ArrayLike | None]]
    ) -> list[tuple[float, int, FloatArray]]:
        """(point value, n, replicates) of sum(num)/sum(den) for each (num, den); NaN
        entries count as 0/0. All in one matrix product: the weights are read once."""
        clean = [self._clean(x, d) for x, d in items]
        out: list[tuple[float, int, FloatArray]] = []
        live = [i for i, (_, d) in enumerate(clean) if d.sum() > 0 and self.k]
        reps: dict[int, FloatArray] = {}
        if live:
            per = np.column_stack([self._per_draw(clean[i][0]) for i in live]
                                  + [self._per_draw(clean[i][1]) for i in live])
            r = self.weights @ per
            m = len(live)
            for j, i in enumerate(live):
                reps[i] = np.asarray(_safe_div(r[:, j], r[:, m + j]), dtype=float)
        for i, (x, d) in enumerate(clean):
            total = float(d.sum())
            if i not in reps:
                out.append((math.nan, round(total), np.full(self.weights.shape[0], np.nan)))
            else:
                out.append((float(x.sum() / total), round(total), reps[i]))
        return out

    def ratio_reps(
        self, num: npt.ArrayLike, den: npt.ArrayLike | None = None
    ) -> tuple[float, int, FloatArray]:
        """(point value, n, replicates) of sum(num)/sum(den); NaN entries count as 0/0."""
        return self.ratios_reps([(num, den)])[0]

    def ratios(
        self, items: Sequence[tuple[npt.ArrayLike, npt.ArrayLike | None]],
        alpha: float = ALPHA, *, difference: bool = False,
    ) -> list[Estimate]:
        """`ratio` of each (num, den), computed together (see `ratios_reps`)."""
        out = []
        for (num, den), (value, n, reps) in zip(items, self.ratios_reps(items), strict=True):
            if math.isnan(value):
                out.append(Estimate(value, n))
                continue
            lo, hi = _percentile(reps, alpha)
            est = Estimate(value, n, lo, hi)
            if not difference:
                x, d = self._clean(num, den)
                # independent units: clusters (tasks) with a denominator, else units
                k = (int((self._per_draw(d) > 0).sum()) if self.per_draw_sum
                     else int((d > 0).sum()))
                est = _widen_edge(est, x, d, k, alpha)
            out.append(est)
        return out

    def ratio(
        self, num: npt.ArrayLike, den: npt.ArrayLike | None = None, alpha: float = ALPHA,
        *, difference: bool = False,
    ) -> Estimate:
        """sum(num)/sum(den) with its percentile CI. A share of exactly 0 or 1 gets the
        exact bound on its open side; `difference=True` says num holds differences (a
        paired Δ), whose 0 is not a share."""
        return self.ratios([(num, den)], alpha, difference=difference)[0]


def estimate_from_reps(value: float, n: int, reps: FloatArray, alpha: float = ALPHA) -> Estimate:
    """An Estimate from a point value and its bootstrap replicates."""
    if not math.isfinite(value):
        return Estimate(math.nan, n)
    lo, hi = _percentile(np.asarray(reps, dtype=float), alpha)
    return Estimate(value, n, lo, hi)
