"""Prediction-powered inference (PPI++) for a rate measured through an imperfect instrument.

The one home of the formula (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient
Prediction-Powered Inference"; `ppi-python`'s `ppi_mean_ci`). A population of units (the
traces a rate is over) is split into n labelled units, which carry the human label y and
the instrument's output f (a judge's verdict, a detector's flag), and N unlabelled units,
which carry f only. The rate E[y] is estimated by

    θ̂ = λ·mean(f_U) + mean(y − λ·f_L)

with the power-tuning parameter

    λ = cov(y, f_L) / ((1 + n/N)·var(f_L ∪ f_U)),  clipped to [0, 1]

(`ppi_py.ppi._calc_lam_glm` for a mean; cov with divisor n, var with n + N − 1), and the
normal interval θ̂ ± z·se, se² = var(λ·f_U)/N + var(y − λ·f_L)/n (divisor the count, as
`ppi_py`). λ = 0 is the labels alone (the classical estimate); λ = 1 is PPI without tuning.
The estimate is valid whatever the instrument's quality: a useless instrument gets λ ≈ 0.

Two extensions, both reducing to the above when they do not apply:

- **Sampling strata** (`cells`): labels drawn with unequal probabilities across cells
  (`agentprop label sample --for`: Neyman allocation over instrument verdict × model) are
  a simple random sample within each cell only. The estimate is then Σ_h W_h·θ̂_h with
  θ̂_h the PPI++ estimate inside cell h and W_h = N_h/N its share of the population (known:
  every unit's cell is), and se² = Σ_h W_h²·se_h² + (Σ_h W_h·θ̂_h² − θ̂²)/N, the second
  term the sampling of the shares themselves (a rate is about the process the traces come
  from, not only these traces). Inside a cell where the instrument is
  constant (a verdict cell) λ has nothing to tune and θ̂_h is the labelled mean: the
  estimate is the post-stratified one. A cell of the population without labels (two are
  needed for a variance) leaves the rate undefined: NaN, with the reason.
- **Shared tasks** (`clusters`): when several units of the population share a task, the
  interval is a percentile bootstrap that resamples tasks (`resample_weights`, the one
  home of the cluster bootstrap), labelled and unlabelled units of a drawn task together,
  re-tuning λ in every replicate; the point estimate is unchanged.

Everything is computed from per-cell moment sums (n, Σy, Σf, Σy², Σf², Σyf; N, Σf_U,
Σf_U²), so the bootstrap is one matrix product. A difference of two rates (the paired Δ
of the interceptor arms) resamples the same tasks for both (`ppi_difference`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from agentprop.analysis._stats import (
    ALPHA,
    N_RESAMPLES,
    Estimate,
    FloatArray,
    _codes,
    _percentile,
    make_rng,
    resample_weights,
)

# moment columns, labelled then unlabelled
_N, _SY, _SF, _SYY, _SFF, _SYF, _NU, _SFU, _SFFU = range(9)
_MOMENTS = 9


@dataclass(frozen=True)
class PPIData:
    """One rate's population: labelled units (human label `y`, instrument output `f`) and
    unlabelled units (`f_u`), each unit with its sampling cell and its task (cluster).
    Values are 0/1 floats; units missing either side are the caller's to drop."""

    y: FloatArray
    f: FloatArray
    f_u: FloatArray
    cells: npt.NDArray[Any] | None = None
    """Sampling cell of each labelled unit (None: one cell, a simple random sample)."""
    cells_u: npt.NDArray[Any] | None = None
    clusters: npt.NDArray[Any] | None = None
    """Task of each labelled unit (None: units are independent)."""
    clusters_u: npt.NDArray[Any] | None = None

    @classmethod
    def of(cls, y: npt.ArrayLike, f: npt.ArrayLike, f_u: npt.ArrayLike, *,
           cells: npt.ArrayLike | None = None, cells_u: npt.ArrayLike | None = None,
           clusters: npt.ArrayLike | None = None,
           clusters_u: npt.ArrayLike | None = None) -> PPIData:
        def arr(x: npt.ArrayLike | None) -> npt.NDArray[Any] | None:
            return None if x is None else np.asarray(x).astype(str)

        return cls(np.asarray(y, dtype=float).ravel(), np.asarray(f, dtype=float).ravel(),
                   np.asarray(f_u, dtype=float).ravel(), arr(cells), arr(cells_u),
                   arr(clusters), arr(clusters_u))

    @property
    def n(self) -> int:
        return int(self.y.size)

    @property
    def n_unlabelled(self) -> int:
        return int(self.f_u.size)

    def _cell_codes(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], list[str]]:
        if self.cells is None and self.cells_u is None:
            return (np.zeros(self.n, np.int64), np.zeros(self.n_unlabelled, np.int64), [""])
        lab = self.cells if self.cells is not None else np.full(self.n, "", dtype=object)
        unl = self.cells_u if self.cells_u is not None else np.full(self.n_unlabelled, "",
                                                                     dtype=object)
        codes, uniq = _codes(np.concatenate([lab.astype(str), unl.astype(str)]))
        return codes[:self.n], codes[self.n:], [str(u) for u in uniq]

    def has_tasks(self) -> bool:
        """Whether every unit's task is known."""
        return ((self.clusters is not None or self.n == 0)
                and (self.clusters_u is not None or self.n_unlabelled == 0))

    def shared_tasks(self) -> bool:
        """Whether several units of the population share a task."""
        if not self.has_tasks():
            return False
        tasks = np.concatenate([c for c in (self.clusters, self.clusters_u) if c is not None])
        return bool(len(np.unique(tasks)) < tasks.size)


@dataclass(frozen=True)
class PPIResult:
    """A PPI++ estimate: the rate with its CI, λ (one per cell; the population-weighted
    mean when there are several), the counts, how the CI was made, and why it is undefined
    when it is."""

    value: float
    lo: float
    hi: float
    lam: float
    n_labelled: int
    n_unlabelled: int
    method: str  # "clt", "clt-stratified", "task bootstrap", or "" when undefined
    note: str = ""

    def estimate(self, *, clip: bool = True) -> Estimate:
        """As an `Estimate` whose n is the labels it rests on. A rate's interval is cut to
        [0, 1] (`clip`): the parameter cannot leave it, so coverage is unchanged."""
        lo, hi = self.lo, self.hi
        if clip and math.isfinite(lo) and math.isfinite(hi):
            lo, hi = max(0.0, lo), min(1.0, hi)
        return Estimate(self.value, self.n_labelled, lo, hi)


def _moments(d: PPIData, codes: npt.NDArray[np.int64], codes_u: npt.NDArray[np.int64],
             k: int) -> FloatArray:
    """Per-cell moment sums, shape (k, 9)."""
    out = np.zeros((k, _MOMENTS))
    y, f, fu = d.y, d.f, d.f_u
    for j, col in ((_N, np.ones_like(y)), (_SY, y), (_SF, f), (_SYY, y * y), (_SFF, f * f),
                   (_SYF, y * f)):
        out[:, j] = np.bincount(codes, weights=col, minlength=k)
    for j, col in ((_NU, np.ones_like(fu)), (_SFU, fu), (_SFFU, fu * fu)):
        out[:, j] = np.bincount(codes_u, weights=col, minlength=k)
    return out


def _cell_estimates(m: FloatArray, lam: float | None
                    ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(θ_h, se²_h, λ_h) from moment sums of shape (..., 9), vectorised over the leading
    axes. NaN where a cell has no label; se² NaN with fewer than two."""
    n, nu = m[..., _N], m[..., _NU]
    with np.errstate(divide="ignore", invalid="ignore"):
        ybar, fbar = m[..., _SY] / n, m[..., _SF] / n
        cov = m[..., _SYF] / n - ybar * fbar
        var_y = m[..., _SYY] / n - ybar ** 2
        var_f = m[..., _SFF] / n - fbar ** 2
        fubar = np.where(nu > 0, m[..., _SFU] / nu, 0.0)
        var_fu = np.where(nu > 0, m[..., _SFFU] / nu - fubar ** 2, 0.0)
        total, sf_all = n + nu, m[..., _SF] + m[..., _SFU]
        var_all = (m[..., _SFF] + m[..., _SFFU] - sf_all ** 2 / total) / (total - 1)
        if lam is None:
            tuned = cov / ((1 + n / nu) * var_all)
            usable = (nu > 0) & (n > 0) & (var_all > 1e-15) & np.isfinite(tuned)
            lam_h = np.where(usable, np.clip(np.where(usable, tuned, 0.0), 0.0, 1.0), 0.0)
        else:
            lam_h = np.where(nu > 0, float(lam), 0.0)
        theta = lam_h * fubar + ybar - lam_h * fbar
        var_r = np.maximum(var_y - 2 * lam_h * cov + lam_h ** 2 * var_f, 0.0)
        se2 = (np.where(nu > 0, lam_h ** 2 * np.maximum(var_fu, 0.0) / np.where(nu > 0, nu, 1),
                        0.0) + var_r / n)
    theta = np.where(n > 0, theta, np.nan)
    se2 = np.where(n >= 2, se2, np.nan)
    return np.asarray(theta, float), np.asarray(se2, float), np.asarray(lam_h, float)


def _combine(m: FloatArray, lam: float | None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Σ_h W_h θ_h over the cell axis (-2), W_h = (n_h + N_h)/Σ, and its variance:
    Σ_h W_h² se²_h plus the variance of the shares themselves, (Σ_h W_h θ_h² − θ²)/Σ
    (the traces are a sample too: with every trace labelled it is the binomial's)."""
    theta, se2, lam_h = _cell_estimates(m, lam)
    size = m[..., _N] + m[..., _NU]
    total = size.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = size / total
    present = size > 0
    th = np.where(present, theta, 0.0)
    value = np.where(present, w * th, 0.0).sum(axis=-1)
    value = np.where((present & np.isnan(theta)).any(axis=-1), np.nan, value)
    with np.errstate(invalid="ignore"):
        shares = np.maximum((w * th ** 2).sum(axis=-1) - value ** 2, 0.0) / total[..., 0]
    var = np.where(present, w ** 2 * np.where(present, se2, 0.0), 0.0).sum(axis=-1) + shares
    var = np.where((present & np.isnan(se2)).any(axis=-1), np.nan, var)
    lam_mean = (w * lam_h).sum(axis=-1)
    return np.asarray(value, float), np.asarray(var, float), np.asarray(lam_mean, float)


def _why_undefined(m: FloatArray, cells: list[str]) -> str:
    size = m[:, _N] + m[:, _NU]
    if size.sum() == 0:
        return "no unit in the population"
    empty = [c or "all" for c, s, n in zip(cells, size, m[:, _N], strict=True)
             if s > 0 and n == 0]
    if empty:
        return "no labels in stratum " + ", ".join(empty[:3]) + ("…" if len(empty) > 3 else "")
    few = [c or "all" for c, s, n in zip(cells, size, m[:, _N], strict=True) if s > 0 and n < 2]
    if few:
        return "fewer than two labels in stratum " + ", ".join(few[:3])
    return ""


def _z(alpha: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2))


class _Replicates:
    """Task-bootstrap replicates of per-cell moment sums of one or more populations that
    share their tasks (the same draws for all, so differences get joint intervals)."""

    def __init__(self, items: Sequence[PPIData], n_resamples: int,
                 rng: np.random.Generator | int | None) -> None:
        tasks = [c for d in items for c in (d.clusters, d.clusters_u) if c is not None]
        _, uniq = _codes(np.concatenate(tasks) if tasks else np.array([], str))
        self.k = len(uniq)
        self.weights = resample_weights(self.k, n_resamples, make_rng(rng))
        self._lookup = {str(t): i for i, t in enumerate(uniq)}

    def moments(self, d: PPIData, codes: npt.NDArray[np.int64],
                codes_u: npt.NDArray[np.int64], n_cells: int) -> FloatArray:
        """Replicates × cells × moments."""
        lab = self._task_index(d.clusters)
        unl = self._task_index(d.clusters_u)
        per = np.zeros((self.k, n_cells, _MOMENTS))
        y, f, fu = d.y, d.f, d.f_u
        for j, col in ((_N, np.ones_like(y)), (_SY, y), (_SF, f), (_SYY, y * y),
                       (_SFF, f * f), (_SYF, y * f)):
            np.add.at(per[:, :, j], (lab, codes), col)
        for j, col in ((_NU, np.ones_like(fu)), (_SFU, fu), (_SFFU, fu * fu)):
            np.add.at(per[:, :, j], (unl, codes_u), col)
        flat = per.reshape(self.k, n_cells * _MOMENTS)
        return np.asarray(self.weights @ flat, float).reshape(-1, n_cells, _MOMENTS)

    def _task_index(self, clusters: npt.NDArray[Any] | None) -> npt.NDArray[np.int64]:
        if clusters is None:  # an empty side (has_tasks holds)
            return np.zeros(0, dtype=np.int64)
        return np.asarray([self._lookup[str(c)] for c in clusters], dtype=np.int64)


def ppi_estimate(d: PPIData, *, lam: float | None = None, n_resamples: int = N_RESAMPLES,
                 rng: np.random.Generator | int | None = None,
                 alpha: float = ALPHA) -> PPIResult:
    """The PPI++ estimate of E[y] over `d`'s population with its (1 − α) interval: normal
    when units are independent (identical to `ppi_py.ppi_mean_ci` with one cell), a task
    bootstrap when units share tasks. `lam` fixes λ (None: tuned, as PPI++)."""
    codes, codes_u, cells = d._cell_codes()
    m = _moments(d, codes, codes_u, len(cells))
    value, var, lam_mean = (float(x) for x in _combine(m, lam))
    why = _why_undefined(m, cells)
    if not math.isfinite(value):
        return PPIResult(math.nan, math.nan, math.nan, math.nan, d.n, d.n_unlabelled, "",
                         why or "undefined")
    if d.shared_tasks():
        reps = _Replicates([d], n_resamples, rng)
        rv, _, _ = _combine(reps.moments(d, codes, codes_u, len(cells)), lam)
        lo, hi = _percentile(rv, alpha)
        return PPIResult(value, lo, hi, lam_mean, d.n, d.n_unlabelled, "task bootstrap",
                         _dropped_note(rv))
    if not math.isfinite(var):
        return PPIResult(value, math.nan, math.nan, lam_mean, d.n, d.n_unlabelled, "", why)
    half = _z(alpha) * math.sqrt(var)
    method = "clt" if len(cells) == 1 else "clt-stratified"
    return PPIResult(value, value - half, value + half, lam_mean, d.n, d.n_unlabelled, method)


def ppi_difference(a: PPIData, b: PPIData, *, lam: float | None = None,
                   n_resamples: int = N_RESAMPLES,
                   rng: np.random.Generator | int | None = None,
                   alpha: float = ALPHA) -> PPIResult:
    """θ̂_a − θ̂_b, each a PPI++ estimate over its own population (an interceptor arm),
    with a percentile interval from one task bootstrap of both (their units share tasks:
    the pairing's correlation stays in the interval). Without tasks the two are
    independent samples: se² = se²_a + se²_b."""
    parts = []
    for d in (a, b):
        codes, codes_u, cells = d._cell_codes()
        parts.append((d, codes, codes_u, cells, _moments(d, codes, codes_u, len(cells))))
    point = [_combine(m, lam) for *_, m in parts]
    value = float(point[0][0] - point[1][0])
    n_lab, n_unl = a.n + b.n, a.n_unlabelled + b.n_unlabelled
    lam_mean = float((point[0][2] + point[1][2]) / 2)
    if not math.isfinite(value):
        why = "; ".join(filter(None, (_why_undefined(m, c) for _, _, _, c, m in parts)))
        return PPIResult(math.nan, math.nan, math.nan, math.nan, n_lab, n_unl, "",
                         why or "undefined")
    if a.has_tasks() and b.has_tasks():
        reps = _Replicates([a, b], n_resamples, rng)
        rv = [_combine(reps.moments(d, c, cu, len(cells)), lam)[0]
              for d, c, cu, cells, _ in parts]
        diff = rv[0] - rv[1]
        lo, hi = _percentile(diff, alpha)
        return PPIResult(value, lo, hi, lam_mean, n_lab, n_unl, "task bootstrap",
                         _dropped_note(diff))
    var = float(point[0][1] + point[1][1])
    if not math.isfinite(var):
        return PPIResult(value, math.nan, math.nan, lam_mean, n_lab, n_unl, "",
                         "fewer than two labels in an arm")
    half = _z(alpha) * math.sqrt(var)
    return PPIResult(value, value - half, value + half, lam_mean, n_lab, n_unl, "clt")


def _dropped_note(reps: FloatArray) -> str:
    """A warning when many bootstrap replicates were undefined (a stratum drew no label)."""
    bad = int((~np.isfinite(reps)).sum())
    if bad * 20 > reps.size:
        return (f"warning: {bad} of {reps.size} task-bootstrap replicates drew no label in "
                "some stratum; the interval is too narrow")
    return ""


def ppi_mean_ci(y: npt.ArrayLike, f: npt.ArrayLike, f_u: npt.ArrayLike, *,
                lam: float | None = None, alpha: float = ALPHA
                ) -> tuple[float, float, float, float]:
    """(θ̂, lower, upper, λ) of the textbook PPI++ mean over independent units: the call
    `ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=alpha, lam=lam)` answers with the
    same interval (tests/analysis/test_ppi.py checks it to 1e-6)."""
    r = ppi_estimate(PPIData.of(y, f, f_u), lam=lam, alpha=alpha)
    return r.value, r.lo, r.hi, r.lam
