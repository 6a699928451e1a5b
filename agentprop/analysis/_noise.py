"""The clean-run noise floor and propagation beyond it (the one home of both formulas).

An answer that changes between two clean runs of the same question changed with no fault;
a judge that compares an injected answer with a clean one counts such changes as S3 too. The
noise floor measures them: per (model, task), the share of disagreeing pairs among the
task's clean answers (one per seed; pairs the comparison cannot decide are left out and
counted), averaged over tasks. Propagation beyond the floor is an injected condition's S3
rate minus that floor, both from one task-clustered bootstrap draw, so the difference's CI
carries their covariance (a task with unstable answers raises both terms).

The comparison is a parameter (`Agree`: (query, a, b) → True agree, False disagree, None
undecidable), so this module stays pure; the report passes the agreement judge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    below_floor,
    edge_bound,
    estimate_from_reps,
    group_rng,
)
from agentprop.analysis._tidy import frame, row

Agree = Callable[[str, str, str], "bool | None"]
"""(query, answer a, answer b) → True (they agree), False (they disagree), None (undecidable)."""

NO_JUDGE = "no agreement judge"
FEW_SEEDS = "fewer than 2 clean answers per task (run baseline with --seed at least twice)"
NOT_APPLIED = "the injection was applied in no trace"
NO_VERDICT = "no injected trace has an S3 verdict (judge the workspace)"
PAIR_COLUMNS = ["model", "task_id", "pairs", "disagree", "undecidable"]


def _clean(stages: pd.DataFrame) -> pd.DataFrame:
    """Clean (baseline, no interceptor arm, no error) traces with an answer."""
    if stages.empty or "answer" not in stages:
        return stages.iloc[0:0]
    arm = stages["arm"].fillna("") if "arm" in stages else pd.Series("", stages.index)
    err = stages["error"].fillna(False).astype(bool) if "error" in stages \
        else pd.Series(False, stages.index)
    keep = (stages["condition"] == "baseline") & (arm == "") & ~err & stages["answer"].notna()
    return stages[keep]


def clean_pairs(stages: pd.DataFrame, queries: Mapping[str, str],
                agree: Agree) -> pd.DataFrame:
    """Per (model, task) with two or more clean answers: the pairs compared, those that
    disagree, and those `agree` could not decide (one call per unordered pair, in seed
    order; a task whose query is unknown is compared with an empty query)."""
    out: list[dict[str, Any]] = []
    for (model, task), g in _clean(stages).groupby(["model", "task_id"], sort=True):
        answers = [str(a) for a in g.sort_values("seed")["answer"]]
        if len(answers) < 2:
            continue
        query = str(queries.get(str(task), ""))
        verdicts = [agree(query, a, b) for a, b in combinations(answers, 2)]
        out.append({"model": model, "task_id": str(task), "pairs": len(verdicts),
                    "disagree": sum(v is False for v in verdicts),
                    "undecidable": sum(v is None for v in verdicts)})
    return pd.DataFrame(out, columns=PAIR_COLUMNS)


@dataclass(frozen=True)
class TaskColumns:
    """Per task of one model: the floor's share (NaN when no pair was decided) and the
    injected traces' S3 sum and count, aligned on `tasks` (the union of both)."""

    tasks: list[str]
    share: np.ndarray
    s3: np.ndarray
    s3_n: np.ndarray
    undecidable: int


def task_columns(pairs: pd.DataFrame, injected: pd.DataFrame | None = None) -> TaskColumns:
    """The per-task columns the floor and the difference resample (`pairs` of one model,
    `injected` its traces of one condition with `S3` and `S1`)."""
    decided = (pairs["pairs"] - pairs["undecidable"]).to_numpy(dtype=float)
    share = dict(zip(pairs["task_id"].astype(str),
                     np.where(decided > 0, pairs["disagree"].to_numpy(dtype=float)
                              / np.where(decided > 0, decided, 1), np.nan), strict=True))
    s3_sum: dict[str, float] = {}
    s3_cnt: dict[str, float] = {}
    if injected is not None and len(injected):
        d = injected[injected["S3"].notna()]
        g = d.assign(S3=d["S3"].astype(bool).astype(float)).groupby(
            d["task_id"].astype(str))["S3"]
        s3_sum = {str(k): float(v) for k, v in g.sum().items()}
        s3_cnt = {str(k): float(v) for k, v in g.count().items()}
    tasks = sorted(set(share) | set(s3_cnt))
    return TaskColumns(
        tasks=tasks,
        share=np.array([share.get(t, np.nan) for t in tasks], dtype=float),
        s3=np.array([s3_sum.get(t, 0.0) for t in tasks], dtype=float),
        s3_n=np.array([s3_cnt.get(t, 0.0) for t in tasks], dtype=float),
        undecidable=int(pairs["undecidable"].sum()))


def _floor_terms(c: TaskColumns) -> tuple[np.ndarray, np.ndarray]:
    has = np.isfinite(c.share).astype(float)
    return np.nan_to_num(c.share), has


def floor_note(n_tasks: int, undecidable: int) -> str:
    """The floor's warnings: few tasks, pairs the comparison could not decide."""
    parts = []
    if below_floor(n_tasks):
        parts.append(f"warning: small sample: the floor rests on {n_tasks} task(s)")
    if undecidable:
        parts.append(f"{undecidable} undecidable pair(s) left out")
    return "; ".join(parts)


def noise_floor(c: TaskColumns, *, n_resamples: int = N_RESAMPLES,
                rng: np.random.Generator | int | None = SEED) -> Estimate:
    """The mean over tasks of their disagreeing-pair share, with a CI resampling tasks;
    NaN with n = 0 when no task has a decided pair. A floor of exactly 0 or 1 over 0/1
    task shares gets the exact bound on its open side (the Resampler's rule)."""
    num, has = _floor_terms(c)
    if has.sum() == 0:
        return Estimate(math.nan, 0)
    rs = Resampler(np.ones(len(c.tasks)), clusters=np.asarray(c.tasks),
                   n_resamples=n_resamples, rng=rng)
    return rs.ratio(num, has)


def beyond_floor(c: TaskColumns, *, n_resamples: int = N_RESAMPLES,
                 rng: np.random.Generator | int | None = SEED
                 ) -> tuple[Estimate, Estimate, Estimate]:
    """(S3 rate, floor, S3 rate − floor): the rate is sum(S3)/count over the injected
    traces, the floor the task mean of `noise_floor`; one task-clustered draw gives the
    replicates of both, so the difference's CI resamples tasks jointly. n of the difference
    is the injected traces; NaN when either term is undefined."""
    num, has = _floor_terms(c)
    if not c.tasks:
        return Estimate(math.nan, 0), Estimate(math.nan, 0), Estimate(math.nan, 0)
    rs = Resampler(np.ones(len(c.tasks)), clusters=np.asarray(c.tasks),
                   n_resamples=n_resamples, rng=rng)
    items = [(c.s3, c.s3_n), (num, has)]
    rate, floor = rs.ratios(items)
    if rate.value in (0.0, 1.0) and rate.lo == rate.hi:
        # a task-summed rate of exactly 0 or 1: resampling cannot vary it; the exact bound
        # over the tasks with an injected trace, as for every share (`edge_bound`)
        lo, hi = edge_bound(rate.value, int((c.s3_n > 0).sum()))
        rate = Estimate(rate.value, rate.n, lo, hi)
    (rv, rn, rreps), (fv, _, freps) = rs.ratios_reps(items)
    diff = estimate_from_reps(rv - fv, rn, rreps - freps)
    if has.sum() == 0:
        floor = Estimate(math.nan, 0)
    return rate, floor, diff


def noise_table(stages: pd.DataFrame, queries: Mapping[str, str], agree: Agree | None,
                conditions: Sequence[str] | None = None, *,
                n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per model: `noise_floor` (key "MODEL|baseline", with `floor_pairs` and
    `floor_undecidable`); per model × injected condition: `s3_rate` (P(S3 | S1)) and
    `beyond_floor` (its floor drawn with it).
    Undefined values are NaN with their n and the reason in `note` (no comparison: "no
    agreement judge"; under two clean answers per task: `FEW_SEEDS`)."""
    rows: list[dict[str, Any]] = []
    if stages.empty:
        return frame(rows, ["model", "condition"])
    models = sorted(stages["model"].astype(str).unique())
    inj = _injected(stages, conditions)
    present = _injected(stages, conditions, applied=False)
    for model in models:
        pairs = (clean_pairs(stages[stages["model"] == model], queries, agree)
                 if agree is not None else pd.DataFrame(columns=PAIR_COLUMNS))
        why = NO_JUDGE if agree is None else (FEW_SEEDS if pairs.empty else "")
        c = task_columns(pairs)
        floor = noise_floor(c, n_resamples=n_resamples,
                            rng=group_rng(seed, "noise_floor", model))
        keys = {"model": model, "condition": "baseline"}
        key = f"{model}|baseline"
        rows.append(row(keys, key, "noise_floor", floor,
                        note=why or floor_note(floor.n, c.undecidable)))
        rows.append(row(keys, key, "floor_pairs", int(pairs["pairs"].sum()),
                        int(pairs["pairs"].sum())))
        rows.append(row(keys, key, "floor_undecidable", c.undecidable, c.undecidable))
        for cond in sorted(present.loc[present["model"] == model, "condition"]
                           .astype(str).unique()):
            d = inj[(inj["model"] == model) & (inj["condition"] == cond)]
            rate, _, diff = beyond_floor(task_columns(pairs, d), n_resamples=n_resamples,
                                          rng=group_rng(seed, "beyond_floor", model, cond))
            keys = {"model": model, "condition": cond}
            key = f"{model}|{cond}"
            s3_why = "" if rate.n else (NOT_APPLIED if d.empty else NO_VERDICT)
            rows.append(row(keys, key, "s3_rate", rate, note=s3_why))
            rows.append(row(keys, key, "beyond_floor", diff, note=why or s3_why))
    return frame(rows, ["model", "condition"])


def _injected(stages: pd.DataFrame, conditions: Sequence[str] | None, *,
              applied: bool = True) -> pd.DataFrame:
    """Injected traces (outside interceptor arms, without error), with S1 applied unless
    `applied` is False."""
    arm = stages["arm"].fillna("") if "arm" in stages else pd.Series("", stages.index)
    err = stages["error"].fillna(False).astype(bool)
    s1 = stages["S1"].fillna(False).astype(bool) | (not applied)
    keep = (stages["condition"] != "baseline") & (arm == "") & ~err & s1
    if conditions is not None:
        keep &= stages["condition"].isin(list(conditions))
    return stages[keep]


# -- known-truth simulation (the estimator's coverage: tests and bench/bench_noise_coverage.py)

@dataclass(frozen=True)
class NoiseScenario:
    """One simulated study design. Task t's clean answer is the canonical one with
    probability 1 − q_t (q_t ~ Beta(noise_a, noise_b)), else a one-off variant, so two clean
    answers disagree with probability d_t = 1 − (1 − q_t)²; an injected answer is wrong when
    the answer was unstable anyway or, else, when the fault propagates (probability
    `propagation`): p_t = 1 − (1 − π)(1 − q_t)². The truth is E[p_t] − E[d_t] =
    π·E[(1 − q)²], over the population of tasks."""

    tasks: int = 40
    seeds: int = 3
    injected_per_task: int = 3
    propagation: float = 0.3
    noise_a: float = 1.5
    noise_b: float = 8.5

    @property
    def stable(self) -> float:
        """E[(1 − q)²] for 1 − q ~ Beta(b, a)."""
        a, b = self.noise_a, self.noise_b
        return b * (b + 1) / ((a + b) * (a + b + 1))

    @property
    def true_floor(self) -> float:
        return 1 - self.stable

    @property
    def true_beyond(self) -> float:
        return self.propagation * self.stable


def simulate_study(sc: NoiseScenario, rng: np.random.Generator) -> TaskColumns:
    """One study's per-task columns, from answers compared by equality."""
    q = rng.beta(sc.noise_a, sc.noise_b, size=sc.tasks)
    canonical = rng.random((sc.tasks, sc.seeds)) >= q[:, None]
    answers = np.where(canonical, 0, 1 + np.arange(sc.tasks * sc.seeds).reshape(
        sc.tasks, sc.seeds))  # every variant is its own answer
    pair_i, pair_j = np.triu_indices(sc.seeds, 1)
    disagree = (answers[:, pair_i] != answers[:, pair_j]).sum(axis=1)
    p = 1 - (1 - sc.propagation) * (1 - q) ** 2
    s3 = (rng.random((sc.tasks, sc.injected_per_task)) < p[:, None]).sum(axis=1)
    return TaskColumns(tasks=[f"t{i:04d}" for i in range(sc.tasks)],
                       share=disagree / len(pair_i), s3=s3.astype(float),
                       s3_n=np.full(sc.tasks, float(sc.injected_per_task)), undecidable=0)


def noise_coverage(sc: NoiseScenario, studies: int, *, n_resamples: int = N_RESAMPLES,
                   seed: int = SEED) -> dict[str, float]:
    """Over repeated studies: how often the 95 % CIs of the floor and of the difference
    cover their truths, with the mean bias and CI width of the difference."""
    rng = np.random.default_rng(seed)
    cover_f = cover_d = 0
    bias = width = 0.0
    for _ in range(studies):
        c = simulate_study(sc, rng)
        _, floor, diff = beyond_floor(c, n_resamples=n_resamples, rng=rng)
        cover_f += floor.lo <= sc.true_floor <= floor.hi
        cover_d += diff.lo <= sc.true_beyond <= diff.hi
        bias += diff.value - sc.true_beyond
        width += diff.hi - diff.lo
    return {"floor_coverage": cover_f / studies, "beyond_coverage": cover_d / studies,
            "beyond_bias": bias / studies, "beyond_width": width / studies,
            "true_floor": sc.true_floor, "true_beyond": sc.true_beyond}
