"""How far a judge agrees with human labels on a validation set: accuracy, Cohen's κ with a
CI that resamples tasks (several answers share a task), false accepts and false rejects —
overall and by any grouping column. Pure functions over a verdict frame
(`agentprop.judges.validation_verdicts`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from agentprop.analysis._stats import N_RESAMPLES, SEED, cohen_kappa


def clustered_kappa(human: np.ndarray, judge: np.ndarray, clusters: np.ndarray, *,
                    n_resamples: int = N_RESAMPLES, seed: int = SEED
                    ) -> tuple[float, float, float]:
    """κ and its bootstrap CI resampling clusters (tasks): `cohen_kappa` with clusters."""
    res = cohen_kappa(human, judge, clusters=clusters, n_resamples=n_resamples, rng=seed)
    return res.kappa, res.boot_lo, res.boot_hi


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
            "wrong": wrong, "right": right,
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
