"""Human calibration of judge-measured wrong-answer rates, two named ways.

- "paper": P(human correct | judge correct) = a and P(human correct | judge wrong) = b from
  the labels; a judged wrong rate w becomes 1 − ((1 − w)·a + w·b). This is what the paper
  did (a = 0.76, b = 0.25 for its ensemble).
- "rogan_gladen": sensitivity se = P(judge correct | human correct) and specificity
  sp = P(judge wrong | human wrong); the true correct rate is (q + sp − 1)/(se + sp − 1)
  with q = 1 − w, clipped to [0, 1]; undefined when se + sp ≤ 1.

The CI is a joint bootstrap: the label set (a multinomial over its four cells) and the
traces behind the rate are resampled independently in every replicate, so it carries the
uncertainty of the (often ~100) labels as well as of the traces.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agentprop.analysis._stats import (
    N_RESAMPLES,
    Estimate,
    FloatArray,
    _safe_div,
    estimate_from_reps,
    make_rng,
)

METHODS = ("paper", "rogan_gladen")


@dataclass(frozen=True)
class LabelCells:
    """Judge × human counts on the labelled traces (j = judge, h = human; c/w correct/wrong)."""

    jc_hc: int
    jc_hw: int
    jw_hc: int
    jw_hw: int

    @property
    def n(self) -> int:
        return self.jc_hc + self.jc_hw + self.jw_hc + self.jw_hw

    @classmethod
    def from_pairs(cls, judge: Iterable[bool], human: Iterable[bool]) -> LabelCells:
        j = np.asarray(list(judge), dtype=bool)
        h = np.asarray(list(human), dtype=bool)
        return cls(int((j & h).sum()), int((j & ~h).sum()), int((~j & h).sum()),
                   int((~j & ~h).sum()))


def _factors(c: npt.NDArray[np.float64]) -> dict[str, FloatArray]:
    """a, b, se, sp from cell arrays with columns (jc_hc, jc_hw, jw_hc, jw_hw)."""
    jc_hc, jc_hw, jw_hc, jw_hw = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    return {
        "a": np.asarray(_safe_div(jc_hc, jc_hc + jc_hw), dtype=float),
        "b": np.asarray(_safe_div(jw_hc, jw_hc + jw_hw), dtype=float),
        "se": np.asarray(_safe_div(jc_hc, jc_hc + jw_hc), dtype=float),
        "sp": np.asarray(_safe_div(jw_hw, jc_hw + jw_hw), dtype=float),
    }


def calibrate_wrong(w: npt.ArrayLike, f: dict[str, FloatArray], method: str) -> FloatArray:
    """Calibrated wrong-answer rate from judged wrong rate(s) w and factor arrays f."""
    wa = np.asarray(w, dtype=float)
    if method == "paper":
        return np.asarray(1 - ((1 - wa) * f["a"] + wa * f["b"]), dtype=float)
    if method == "rogan_gladen":
        den = f["se"] + f["sp"] - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            true_c = np.where(den > 0, ((1 - wa) + f["sp"] - 1) / den, np.nan)
        return np.asarray(1 - np.clip(true_c, 0.0, 1.0), dtype=float)
    raise ValueError(f"unknown calibration method {method!r}; use one of {METHODS}")


class Calibrator:
    """Point factors and bootstrap replicates of the factors from one label set."""

    def __init__(self, cells: LabelCells, *, n_resamples: int = N_RESAMPLES,
                 rng: np.random.Generator | int | None = None) -> None:
        self.cells = cells
        arr = np.array([cells.jc_hc, cells.jc_hw, cells.jw_hc, cells.jw_hw], dtype=float)
        self.point = _factors(arr)
        if cells.n > 0:
            draws = make_rng(rng).multinomial(cells.n, arr / cells.n, size=n_resamples)
            self.reps = _factors(draws.astype(float))
        else:
            self.reps = {k: np.full(n_resamples, np.nan) for k in ("a", "b", "se", "sp")}

    def factor(self, name: str) -> float:
        return float(self.point[name])

    def apply(self, w: float, w_reps: FloatArray, n: int, method: str) -> Estimate:
        """Calibrate a judged wrong rate (value, its replicates, its n) by `method`."""
        if not math.isfinite(w) or self.cells.n == 0:
            return Estimate(math.nan, n)
        value = float(calibrate_wrong(w, self.point, method))
        reps = calibrate_wrong(w_reps, self.reps, method)
        return estimate_from_reps(value, n, reps)


def stratum_note(label_strata: set[str], rate_strata: set[str]) -> str:
    """A warning when the labels were drawn from other strata than the rate corrected."""
    if not label_strata or label_strata == rate_strata:
        return ""
    other = sorted(label_strata - rate_strata)
    missing = sorted(rate_strata - label_strata)
    parts = []
    if other:
        parts.append(f"labels include {', '.join(other)}")
    if missing:
        parts.append(f"no labels from {', '.join(missing)}")
    return ("warning: labels come from another stratum than the corrected rate ("
            + "; ".join(parts) + ")")
