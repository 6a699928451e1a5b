"""Thresholds with a guarantee: Learn-then-Test selection and the AURC (their one home).

Learn-then-Test (Angelopoulos et al., 2021) turns "pick a threshold on val" into multiple
testing: for each candidate configuration the null hypothesis is "its false-abstain risk
(P(it fires | the answer would be right)) exceeds α", tested with the exact binomial tail
P(Bin(n, α) ≤ k) of its k firings on the n val answers judged right. Rejecting with a
family-wise error rate ≤ δ (Bonferroni over the grid, or fixed-sequence testing along an
order given before the data) makes every rejected configuration's risk ≤ α together with
probability ≥ 1 − δ, so whichever valid one is then chosen by utility keeps the guarantee.

The AURC (area under the risk–coverage curve) rates a scalar suspicion score without any
threshold: answer the least suspicious traces first and average the selective risk over
every coverage level; traces with equal scores are answered as a group (each order within
a group equally likely), so the value does not depend on how ties happen to be sorted.

Everything here is pure and vectorised over leading axes, so the known-truth simulation
(`LttScenario`, `ltt_coverage`) runs 1,000 studies through the same functions the CLI
uses. Undefined is NaN with its n (no right answer on val: no p-value; no trace: no AURC).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from agentprop.analysis._stats import Estimate
from agentprop.analysis._tidy import frame, row

LttMethod = Literal["bonferroni", "fixed_sequence"]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def check_level(name: str, value: float) -> float:
    """`value` if it lies in (0, 1); a one-line ValueError otherwise (α and δ are
    probabilities that must leave room on both sides)."""
    if not (isinstance(value, int | float) and 0 < value < 1):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def false_abstain_p_values(n: npt.ArrayLike, k: npt.ArrayLike, alpha: float) -> FloatArray:
    """P(Bin(n, α) ≤ k), the exact p-value of H0 "false-abstain risk > α" after k firings
    on n right answers (at risk exactly α the tail is largest, so the test is valid for
    every risk above it). NaN where n = 0: no right answer says nothing about the risk."""
    from scipy.stats import binom

    check_level("alpha", alpha)
    n_arr = np.asarray(n, dtype=np.int64)
    k_arr = np.asarray(k, dtype=np.int64)
    p = np.asarray(binom.cdf(k_arr, np.maximum(n_arr, 1), alpha), dtype=np.float64)
    return np.where(n_arr > 0, p, math.nan)


def ltt_valid(p: npt.ArrayLike, delta: float, order: Sequence[int] | None = None
              ) -> BoolArray:
    """Which nulls are rejected with family-wise error ≤ δ (last axis: configurations).

    Without `order`, Bonferroni: p ≤ δ / m, valid whatever the configurations are. With
    `order` (an a-priori sequence, e.g. a nested family from fewest firings to most), fixed-
    sequence testing: each at level δ, stopping at the first that is not rejected; the
    configurations not in `order` are never valid. A NaN p-value is never rejected."""
    check_level("delta", delta)
    p_arr = np.asarray(p, dtype=np.float64)
    m = p_arr.shape[-1]
    with np.errstate(invalid="ignore"):
        if order is None:
            return np.asarray(p_arr <= delta / max(m, 1), dtype=np.bool_)
        seq = list(order)
        if sorted(set(seq)) != sorted(seq) or any(not 0 <= i < m for i in seq):
            raise ValueError("order must list distinct configuration indices")
        passed = np.cumprod(p_arr[..., seq] <= delta, axis=-1).astype(np.bool_)
    out = np.zeros(p_arr.shape, dtype=np.bool_)
    out[..., seq] = passed
    return out


def choose(valid: npt.ArrayLike, utility: npt.ArrayLike, abstentions: npt.ArrayLike
           ) -> IntArray:
    """Index of the valid configuration with the highest utility (ties → fewer
    abstentions, then the earlier one) along the last axis; −1 where none is valid."""
    v = np.asarray(valid, dtype=np.bool_)
    u = np.broadcast_to(np.asarray(utility, dtype=np.float64), v.shape)
    a = np.broadcast_to(np.asarray(abstentions, dtype=np.float64), v.shape)
    best_u = np.max(np.where(v, u, -np.inf), axis=-1, keepdims=True)
    cand = v & (u == best_u)
    best_a = np.min(np.where(cand, a, np.inf), axis=-1, keepdims=True)
    cand &= a == best_a
    idx = np.argmax(cand, axis=-1).astype(np.int64)
    return np.where(cand.any(axis=-1), idx, -1)


@dataclass(frozen=True)
class LttResult:
    """The outcome of a Learn-then-Test selection, one entry per candidate configuration.

    `chosen` is None when no configuration's null was rejected: nothing is guaranteed, and
    the caller must say so (more val traces, or a larger α) instead of falling back."""

    chosen: str | None
    alpha: float
    delta: float
    method: LttMethod
    labels: tuple[str, ...]
    n: tuple[int, ...]
    """Right answers on val each configuration was tested on."""
    k: tuple[int, ...]
    """Its firings on them (false abstentions)."""
    p_values: tuple[float, ...]
    valid: tuple[bool, ...]
    utility: tuple[float, ...]

    @property
    def index(self) -> int | None:
        return None if self.chosen is None else self.labels.index(self.chosen)

    @property
    def level(self) -> float:
        """The level each p-value is compared with (δ/m for Bonferroni)."""
        return self.delta / max(len(self.labels), 1) if self.method == "bonferroni" \
            else self.delta


def ltt_select(
    labels: Sequence[str],
    n: Sequence[int],
    k: Sequence[int],
    utility: Sequence[float],
    *,
    alpha: float,
    delta: float,
    abstentions: Sequence[float] | None = None,
    order: Sequence[int] | None = None,
) -> LttResult:
    """Learn-then-Test over candidate configurations: `n` right val answers and `k` firings
    on them per configuration, `utility` what a configuration is worth (e.g. hallucinations
    caught), `abstentions` its total firings for ties (default `k`), `order` for fixed-
    sequence testing (see `ltt_valid`). P(chosen's false-abstain risk > α) ≤ δ."""
    m = len(labels)
    if not (len(n) == len(k) == len(utility) == m) or (abstentions is not None
                                                       and len(abstentions) != m):
        raise ValueError("labels, n, k, utility (and abstentions) must have one entry each")
    p = false_abstain_p_values(n, k, alpha)
    valid = ltt_valid(p, delta, order)
    idx = int(choose(valid, utility, k if abstentions is None else abstentions))
    return LttResult(
        chosen=None if idx < 0 else str(labels[idx]), alpha=float(alpha),
        delta=float(delta), method="bonferroni" if order is None else "fixed_sequence",
        labels=tuple(str(x) for x in labels), n=tuple(int(x) for x in n),
        k=tuple(int(x) for x in k), p_values=tuple(float(x) for x in p),
        valid=tuple(bool(x) for x in valid), utility=tuple(float(x) for x in utility))


# -- AURC -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Aurc:
    """The area under the risk–coverage curve (NaN when n = 0) and the curve's points at
    the ends of the score's tie groups, from least to most suspicious (coverage rises)."""

    value: float
    n: int
    coverage: tuple[float, ...] = field(default=())
    risk: tuple[float, ...] = field(default=())


def aurc(score: npt.ArrayLike, wrong: npt.ArrayLike) -> Aurc:
    """Answer traces from the least suspicious `score` up; at each coverage i/n the
    selective risk is the share of wrong answers among the i answered, and the AURC is its
    mean over i = 1..n. Within a tie group the order is random, so the risk there is its
    expectation: the errors of the groups before plus j times the group's error share."""
    s = np.asarray(score, dtype=np.float64).ravel()
    w = np.asarray(wrong, dtype=np.float64).ravel()
    if s.shape != w.shape:
        raise ValueError("score and wrong must have one entry per trace")
    n = int(s.size)
    if n == 0:
        return Aurc(math.nan, 0)
    values, group, sizes = np.unique(s, return_inverse=True, return_counts=True)
    errors = np.bincount(group.ravel(), weights=w, minlength=len(values))
    size_before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    err_before = np.concatenate(([0.0], np.cumsum(errors)[:-1]))
    g = np.repeat(np.arange(len(values)), sizes)  # the group of each coverage level
    i = np.arange(1, n + 1, dtype=np.float64)
    expected_errors = err_before[g] + (i - size_before[g]) * errors[g] / sizes[g]
    cum_n = np.cumsum(sizes)
    return Aurc(float(np.mean(expected_errors / i)), n,
                tuple(float(x) for x in cum_n / n),
                tuple(float(x) for x in np.cumsum(errors) / cum_n))


GUARANTEE_METRICS = ("ltt_alpha", "ltt_delta", "ltt_p_value", "false_abstain_val",
                     "false_abstain_held_out", "false_abstain_baseline", "aurc_val",
                     "aurc_held_out")


def guarantee_rows(g: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Tidy rows (key "") of a stored Learn-then-Test guarantee (meta
    `interceptor_guarantee`), each noting the configuration it is about: α and δ, the
    chosen configuration's p-value and val false-abstain rate, the rates realised on the
    held-out split and its clean baseline traces, and the AURC on both splits. A rate
    measured on nothing is NaN with n = 0."""
    if not g:
        return []

    def share(part: Mapping[str, Any]) -> Estimate:
        value = part.get("rate", part.get("value"))
        return Estimate(math.nan if value is None else float(value), int(part["n"]))

    note = str(g["config"])
    values = {
        "ltt_alpha": Estimate(float(g["alpha"]), int(g["n"])),
        "ltt_delta": Estimate(float(g["delta"]), int(g["n"])),
        "ltt_p_value": Estimate(float(g["p_value"]), int(g["n"])),
        "false_abstain_val": Estimate(float(g["val_rate"]), int(g["n"])),
        "false_abstain_held_out": share(g["held_out"]),
        "false_abstain_baseline": share(g["baseline"]),
        "aurc_val": share(g["aurc_val"]),
        "aurc_held_out": share(g["aurc_held_out"]),
    }
    return [row({"config": ""}, "", metric, est, note=note) for metric, est in values.items()]


def with_guarantee(table: pd.DataFrame, g: Mapping[str, Any] | None) -> pd.DataFrame:
    """The sweep's tidy table with the guarantee's rows after it (unchanged without one)."""
    rows = guarantee_rows(g)
    if not rows:
        return table
    old = [{str(k): v for k, v in r.items()} for r in table.to_dict("records")]
    return frame([*old, *rows], ["config"])


# -- known truth ----------------------------------------------------------------------------
@dataclass(frozen=True)
class LttScenario:
    """One simulated tuning study: N val traces, a share `prevalence` of them wrong; each
    trace has an integer suspicion score and configuration τ fires when score ≥ τ
    (τ = 1..len(right)). A right answer's score is τ or more with probability `right[τ-1]`
    (the configuration's TRUE false-abstain rate), a wrong one's with `wrong[τ-1]` (its
    TRUE recall): both non-increasing in τ, a nested family."""

    traces: int = 400
    prevalence: float = 0.3
    alpha: float = 0.1
    delta: float = 0.1
    right: tuple[float, ...] = (0.6, 0.4, 0.25, 0.16, 0.13, 0.11, 0.10, 0.09, 0.07, 0.04,
                                0.02, 0.005)
    wrong: tuple[float, ...] = (0.98, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6, 0.5, 0.4,
                                0.3, 0.2)

    def score_probs(self, tail: Sequence[float]) -> FloatArray:
        """P(score = s), s = 0..m, from the tail P(score ≥ τ), τ = 1..m."""
        t = np.concatenate(([1.0], np.asarray(tail, dtype=np.float64), [0.0]))
        probs = t[:-1] - t[1:]
        if (probs < -1e-12).any():
            raise ValueError("tail probabilities must be non-increasing")
        return np.clip(probs, 0.0, None)


def simulate_counts(sc: LttScenario, studies: int, rng: np.random.Generator
                    ) -> tuple[IntArray, IntArray, IntArray]:
    """Per study: n right answers (studies,), k firings on them and tp firings on wrong
    answers (studies, configurations), drawn as score histograms (one multinomial each)."""
    n_right = rng.binomial(sc.traces, 1 - sc.prevalence, size=studies)
    hist_r = rng.multinomial(n_right, sc.score_probs(sc.right))
    hist_w = rng.multinomial(sc.traces - n_right, sc.score_probs(sc.wrong))
    # firings of τ = traces with score ≥ τ: reversed cumulative sums, scores 1..m
    k = np.cumsum(hist_r[:, ::-1], axis=1)[:, ::-1][:, 1:]
    tp = np.cumsum(hist_w[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return n_right.astype(np.int64), k.astype(np.int64), tp.astype(np.int64)


def ltt_coverage(sc: LttScenario, studies: int, *, seed: int = 42,
                 method: LttMethod = "bonferroni") -> dict[str, float]:
    """Over repeated studies: the share whose chosen configuration's TRUE false-abstain
    rate exceeds α (LTT promises ≤ δ), the share that choose nothing, the mean true recall
    of the chosen one, and the violation share of the naive rule (empirical rate ≤ α, no
    test) for contrast. Fixed-sequence tests from the largest τ (fewest firings) down."""
    rng = np.random.default_rng(seed)
    n_right, k, tp = simulate_counts(sc, studies, rng)
    m = k.shape[1]
    order = list(range(m - 1, -1, -1)) if method == "fixed_sequence" else None
    p = false_abstain_p_values(n_right[:, None], k, sc.alpha)
    chosen = choose(ltt_valid(p, sc.delta, order), tp, k + tp)
    true_fa = np.asarray(sc.right)
    true_recall = np.asarray(sc.wrong)
    some = chosen >= 0
    violated = some & (true_fa[np.where(some, chosen, 0)] > sc.alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        naive_valid = (n_right[:, None] > 0) & (k / n_right[:, None] <= sc.alpha)
    naive = choose(naive_valid, tp, k + tp)
    naive_violated = (naive >= 0) & (true_fa[np.where(naive >= 0, naive, 0)] > sc.alpha)
    return {
        "studies": float(studies),
        "violation": float(violated.mean()),
        "chosen_share": float(some.mean()),
        "mean_recall": float(true_recall[chosen[some]].mean()) if some.any() else math.nan,
        "naive_violation": float(naive_violated.mean()),
        "any_valid": float((true_fa <= sc.alpha).any()),
    }
