"""Human calibration of judge-measured wrong-answer rates, two named ways.

- "paper": P(human correct | judge correct) = a and P(human correct | judge wrong) = b from
  the labels; a judged wrong rate w becomes 1 − ((1 − w)·a + w·b). This is what the paper
  did (a = 0.76, b = 0.25 for its ensemble).
- "rogan_gladen": sensitivity se = P(judge correct | human correct) and specificity
  sp = P(judge wrong | human wrong); the true correct rate is (q + sp − 1)/(se + sp − 1)
  with q = 1 − w, clipped to [0, 1]; undefined when se + sp ≤ 1.

Rates are corrected with `mix_corrections`: one bootstrap resamples the traces behind
the rate and the labelled traces (the label mix) together, by task when traces share one,
so a trace that is both labelled and counted in the rate moves both at once. (Resampling
the labels apart from the traces, as `Calibrator.apply` does, counts such a trace twice:
its intervals came out too wide, covering 97–99 % in bench/bench_ppi_coverage.py.) The
`Calibrator` bootstraps the factors alone (a multinomial over the label cells), for the
calibration table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from agentprop.analysis._stats import (
    N_RESAMPLES,
    Estimate,
    FloatArray,
    Resampler,
    _codes,
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


@dataclass(frozen=True)
class LabelMix:
    """Every labelled trace of one question with the instrument's output on it: the label
    mix the paper's correction and Rogan–Gladen take their factors from. "Event" is what
    the instrument flags (a wrong answer for a judge, noticing for the detector)."""

    trace_ids: npt.NDArray[np.str_]
    tasks: npt.NDArray[np.str_]
    judge_event: FloatArray
    human_event: FloatArray

    @classmethod
    def of(cls, trace_ids: npt.ArrayLike, tasks: npt.ArrayLike, judge_event: Iterable[bool],
           human_event: Iterable[bool]) -> LabelMix:
        return cls(np.asarray(trace_ids, dtype=str), np.asarray(tasks, dtype=str),
                   np.asarray(list(judge_event), dtype=float),
                   np.asarray(list(human_event), dtype=float))

    @property
    def n(self) -> int:
        return int(self.trace_ids.size)

    def cells(self) -> FloatArray:
        """Per labelled trace, its cell (jc_hc, jc_hw, jw_hc, jw_hw) as 0/1 columns."""
        jc, hc = 1 - self.judge_event, 1 - self.human_event
        return np.column_stack([jc * hc, jc * (1 - hc), (1 - jc) * hc, (1 - jc) * (1 - hc)])


@dataclass(frozen=True)
class MixItem:
    """One rate to correct: Σ num / Σ den over the rate's traces (aligned with the ids
    given to `mix_corrections`), calibrated, then times Σ times_num / Σ times_den when
    given (an interceptor arm: the answered share times the calibrated wrong rate)."""

    num: npt.ArrayLike
    den: npt.ArrayLike
    times_num: npt.ArrayLike | None = None
    times_den: npt.ArrayLike | None = None


def mix_corrections(items: Sequence[MixItem], trace_ids: npt.ArrayLike, tasks: npt.ArrayLike,
                    mix: LabelMix, *, n_resamples: int = N_RESAMPLES,
                    rng: np.random.Generator | int | None = None
                    ) -> list[dict[str, tuple[float, FloatArray]]]:
    """Per item and method (`METHODS`): the corrected rate and its bootstrap replicates,
    all from one resampling of the traces of the rates and of the mix together (clustered
    by task when traces share one). NaN when undefined (no labels, a zero denominator,
    se + sp ≤ 1 for Rogan–Gladen)."""
    ids = np.asarray(trace_ids, dtype=str)
    inv, union = _codes(np.concatenate([ids, mix.trace_ids]))
    k = union.size
    task_of = np.empty(k, dtype=object)
    task_of[inv[ids.size:]] = mix.tasks
    task_of[inv[:ids.size]] = np.asarray(tasks, dtype=str)
    cols: list[FloatArray] = []
    cells = np.zeros((k, 4))
    cells[inv[ids.size:]] = mix.cells()

    def spread(x: npt.ArrayLike) -> FloatArray:
        out = np.zeros(k)
        np.add.at(out, inv[:ids.size], np.nan_to_num(np.asarray(x, dtype=float)))
        return out

    for it in items:
        cols += [spread(it.num), spread(it.den)]
        if it.times_num is not None and it.times_den is not None:
            cols += [spread(it.times_num), spread(it.times_den)]
    data = np.column_stack([*cols, cells])
    shared = len(pd.unique(task_of)) < k
    rs = Resampler(data, clusters=task_of.astype(str) if shared else None,
                   n_resamples=n_resamples, rng=rng)
    point = data.sum(axis=0)[None, :]
    reps = rs.sums(data)
    out = []
    for which in (point, reps):
        f = _factors(which[:, -4:])
        col, results = 0, []
        for it in items:
            w = _safe_div(which[:, col], which[:, col + 1])
            col += 2
            scale = 1.0
            if it.times_num is not None and it.times_den is not None:
                scale = _safe_div(which[:, col], which[:, col + 1])
                col += 2
            results.append({m: np.asarray(scale * calibrate_wrong(w, f, m), dtype=float)
                            for m in METHODS})
        out.append(results)
    no_labels = mix.n == 0
    return [{m: (math.nan if no_labels else float(p[m][0]), r[m]) for m in METHODS}
            for p, r in zip(out[0], out[1], strict=True)]


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
