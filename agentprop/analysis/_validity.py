"""How far a judge agrees with human labels on a validation set: accuracy, Cohen's κ with a
CI that resamples tasks (several answers share a task), false accepts and false rejects —
overall and by any grouping column. Pure functions over a verdict frame
(`agentprop.judges.validation_verdicts`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    _kappa_from_counts,
    _percentile,
    make_rng,
    resample_weights,
)


def _cells(human: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """(n11, n10, n01, n00) per row: rows judge ✓/✗, columns human ✓/✗."""
    return np.stack([judge & human, judge & ~human, ~judge & human, ~judge & ~human],
                    axis=-1).astype(float)


def clustered_kappa(human: np.ndarray, judge: np.ndarray, clusters: np.ndarray, *,
                    n_resamples: int = N_RESAMPLES, seed: int = SEED
                    ) -> tuple[float, float, float]:
    """κ and a percentile bootstrap CI that resamples clusters (tasks): each cluster's
    2×2 cells are summed, and whole clusters are drawn."""
    cells = _cells(human, judge)
    codes, uniq = pd.factorize(clusters)
    per = np.zeros((len(uniq), 4))
    np.add.at(per, codes, cells)
    total = per.sum(axis=0)
    k = float(_kappa_from_counts(*total))
    if math.isnan(k) or len(uniq) < 2:
        return k, math.nan, math.nan
    w = resample_weights(len(uniq), n_resamples, make_rng(seed)).astype(float)
    reps = w @ per
    ks = _kappa_from_counts(reps[:, 0], reps[:, 1], reps[:, 2], reps[:, 3])
    lo, hi = _percentile(np.asarray(ks, dtype=float))
    return k, lo, hi


def judge_validity(verdicts: pd.DataFrame, by: Sequence[str] = (), *,
                   n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per judge (and `by` group): n scored, accuracy, κ [CI over tasks], false accepts
    (judged correct, labelled incorrect) of the incorrect answers, false rejects of the
    correct ones, and unscored. Undefined rates are NaN, never 0 or 1."""
    rows = []
    keys = ["judge", *by]
    for key, g in verdicts.groupby(keys, sort=True):
        scored = g[g["correct"].notna()]
        human = scored["human"].to_numpy(dtype=bool)
        judge = scored["correct"].to_numpy(dtype=bool)
        n = len(scored)
        k, lo, hi = clustered_kappa(human, judge, scored["task_id"].to_numpy(),
                                    n_resamples=n_resamples, seed=seed) if n else (
            math.nan, math.nan, math.nan)
        wrong, right = int((~human).sum()), int(human.sum())
        fa, fr = int((judge & ~human).sum()), int((~judge & human).sum())
        rows.append({
            **dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)),
            "n": n, "accuracy": float((judge == human).mean()) if n else math.nan,
            "kappa": k, "kappa_lo": lo, "kappa_hi": hi,
            "false_accepts": fa, "false_accept_rate": fa / wrong if wrong else math.nan,
            "false_rejects": fr, "false_reject_rate": fr / right if right else math.nan,
            "unscored": int(g["correct"].isna().sum()),
        })
    return pd.DataFrame(rows)


def validity_summary(verdicts: pd.DataFrame, graders: pd.DataFrame | None = None,
                     meta: dict[str, object] | None = None) -> dict[str, object]:
    """The figures the report states beside "the facts judge is the reference": per judge
    overall, and κ between the two human graders (`graders`: columns a, b, task_id)."""
    table = judge_validity(verdicts)
    judges = {str(r["judge"]): {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                for k, v in r.items() if k != "judge"}
              for r in table.to_dict("records")}
    out: dict[str, object] = {"judges": judges, **(meta or {})}
    if graders is not None and len(graders):
        k, lo, hi = clustered_kappa(graders["a"].to_numpy(dtype=bool),
                                    graders["b"].to_numpy(dtype=bool),
                                    graders["task_id"].to_numpy())
        out["graders"] = {"n": len(graders), "kappa": k, "kappa_lo": lo, "kappa_hi": hi}
    return out
