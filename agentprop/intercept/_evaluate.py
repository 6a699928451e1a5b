"""Statistics of the paired interceptor experiment, as pure functions over DataFrames.

Inputs are built once from traces and verdicts (`outcome_frame`, `replay_frame`); every
table is then a function of those frames, so the report can re-render them without the
workspace. Outcomes per trace are three (plus two that are left out of comparisons):
``correct``, ``hallucination`` (judged wrong and not abstained), ``abstained``;
``unscored`` (the judge gave no verdict) and ``error`` (the episode failed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize, proportions_ztest

from agentprop.core import InterceptEvent, Task, Trace
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._replay import signals_for
from agentprop.intercept._signals import decide

PAIR_KEYS = ["run_id", "model", "task_id", "condition", "seed"]
OUTCOME_COLUMNS = [
    "trace_id", "run_id", "model", "task_id", "domain", "split", "condition", "seed", "arm",
    "status", "simulated", "abstained", "correct", "outcome", "intercept_layer", "warned",
    "cost", "tokens",
]
DEFAULT_SEED = 42
DEFAULT_RESAMPLES = 1000


def outcome_of(status: str, abstained: bool, correct: bool | None) -> str:
    if status != "ok":
        return "error"
    if abstained:
        return "abstained"
    if correct is None:
        return "unscored"
    return "correct" if correct else "hallucination"


def outcome_row(t: Trace, correct: bool | None) -> dict[str, Any]:
    """One trace's `outcome_frame` row (`correct`: the primary judge's, None = unscored)."""
    fin = t.final
    abstained = bool(fin and fin.abstained)
    layers = [e for e in t.events if isinstance(e, InterceptEvent)]
    usage = t.usage
    return {
        "trace_id": t.id, "run_id": t.run_id, "model": t.model, "task_id": t.task_id,
        "domain": t.domain, "split": t.split, "condition": t.condition, "seed": t.seed,
        "arm": t.arm, "status": t.status, "simulated": t.simulated,
        "abstained": abstained,
        "correct": pd.NA if correct is None else bool(correct),
        "outcome": outcome_of(t.status, abstained, correct),
        "intercept_layer": next(
            (e.layer for e in layers if e.decision == "abstain"), None
        ),
        "warned": any(e.decision == "warn" for e in layers),
        "cost": t.cost, "tokens": usage.input_tokens + usage.output_tokens,
    }


def outcomes_of_rows(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """`outcome_frame` from rows of `outcome_row` (built while streaming traces)."""
    df = pd.DataFrame(rows, columns=OUTCOME_COLUMNS)
    df["correct"] = df["correct"].astype("boolean")
    return df


def outcome_frame(traces: Iterable[Trace], verdicts: Mapping[str, bool | None]) -> pd.DataFrame:
    """One row per trace (columns `OUTCOME_COLUMNS`). `verdicts`: trace id → the primary
    judge's `correct` (missing = unscored). An abstention is an abstention whatever the
    judge said of its text."""
    return outcomes_of_rows([outcome_row(t, verdicts.get(t.id)) for t in traces])


FIRES_COLUMNS = ["trace_id", "config", "fires"]
FireRow = tuple[str, str, bool]


def replay_rows(
    t: Trace, configs: Sequence[InterceptConfig], task: Task | None = None
) -> list[FireRow]:
    """(trace_id, config label, fires) per configuration: the episode replayed once, signals
    computed once per keyword list."""
    kws = list(dict.fromkeys(c.keywords for c in configs))
    by_kw = dict(zip(kws, signals_for(
        t, [next(c for c in configs if c.keywords == kw).model_copy(update={"l3": True})
            for kw in kws], task), strict=True))
    return [(t.id, cfg.label, bool(decide(by_kw[cfg.keywords], cfg))) for cfg in configs]


def fires_of_rows(rows: Sequence[FireRow]) -> pd.DataFrame:
    """`replay_frame` from rows of `replay_rows`."""
    return pd.DataFrame(rows, columns=FIRES_COLUMNS)


def replay_frame(
    traces: Iterable[Trace],
    configs: Sequence[InterceptConfig],
    tasks: Mapping[str, Task] | None = None,
) -> pd.DataFrame:
    """Whether each configuration fires on each trace (columns trace_id, config, fires):
    the interceptor replayed offline, signals computed once per trace and keyword list."""
    rows: list[FireRow] = []
    for t in traces:
        rows.extend(replay_rows(t, configs, tasks.get(t.task_id) if tasks else None))
    return fires_of_rows(rows)


# -- pairing ----------------------------------------------------------------------------
def pair_frame(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Control and treatment traces of the same (run, model, task, condition, seed) side
    by side: columns PAIR_KEYS + domain, outcome_control, outcome_treatment, correct_*,
    cost_*, tokens_*, and `usable` (both outcomes are correct, hallucination or abstained).
    """
    cols = [*PAIR_KEYS, "domain", "outcome", "correct", "cost", "tokens"]
    ctl = outcomes.loc[outcomes["arm"] == "control", cols]
    trt = outcomes.loc[outcomes["arm"] == "treatment", [*PAIR_KEYS, "outcome", "correct",
                                                         "cost", "tokens"]]
    pairs = ctl.merge(trt, on=PAIR_KEYS, suffixes=("_control", "_treatment"), how="inner")
    ok = {"correct", "hallucination", "abstained"}
    pairs["usable"] = pairs["outcome_control"].isin(ok) & pairs["outcome_treatment"].isin(ok)
    return pairs


def _bootstrap_delta(tasks: np.ndarray, diff: np.ndarray, rng: np.random.Generator,
                     n_boot: int) -> tuple[float, float]:
    """Percentile CI of mean(diff), resampling tasks (clusters) with replacement."""
    if len(diff) == 0:
        return math.nan, math.nan
    _, inv = np.unique(tasks, return_inverse=True)
    sums = np.bincount(inv, weights=diff)
    counts = np.bincount(inv).astype(float)
    idx = rng.integers(0, len(sums), size=(n_boot, len(sums)))
    means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def mcnemar_pvalues(saved: int, broken: int) -> tuple[float, float]:
    """(exact, mid-p) two-sided McNemar p-values from the discordant counts."""
    n = saved + broken
    if n == 0:
        return 1.0, 1.0
    exact = float(mcnemar([[0, saved], [broken, 0]], exact=True).pvalue)
    # mid-p = 2·(P(X ≤ k) − ½·P(X = k)), from the uncapped tail (exact p is capped at 1)
    k = min(saved, broken)
    mid = 2 * (float(sps.binom.cdf(k, n, 0.5)) - 0.5 * float(sps.binom.pmf(k, n, 0.5)))
    return exact, min(1.0, max(0.0, mid))


def two_proportion_p(x1: int, x2: int, n: int) -> float:
    """Two-sided z-test p for x1/n vs x2/n (1.0 when both are 0 or n: no variance)."""
    if n == 0 or (x1 + x2) in (0, 2 * n):
        return 1.0
    return float(proportions_ztest([x1, x2], [n, n])[1])


def _rate(mask: pd.Series, of: pd.Series | None = None) -> float:
    base = mask if of is None else mask[of]
    return float(base.mean()) if len(base) else math.nan


def ab_table(
    outcomes: pd.DataFrame,
    *,
    by: Sequence[str] = ("model", "condition"),
    seed: int = DEFAULT_SEED,
    n_boot: int = DEFAULT_RESAMPLES,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """The two-arm comparison per group (default per model and condition), on usable
    pairs. Columns:

    n_pairs, n_dropped (pairs with an unscored or failed arm); hallucination_, correct_,
    abstained_, coverage_, selective_accuracy_, cost_ (total), tokens_ per arm
    (suffixes control / treatment); delta_hallucination (treatment − control, negative =
    fewer hallucinations) with delta_ci_low / delta_ci_high (paired bootstrap, tasks
    resampled); saved (hallucination → not), broken (not → hallucination);
    mcnemar_p (exact), mcnemar_midp, ztest_p (two proportions), cohens_h (control vs
    treatment, positive = drop), power (achieved, normal approximation for two
    independent proportions at `alpha`: conservative for paired data); false_alarms and
    false_alarm_rate (treatment abstained where the control answer was correct, over
    control-correct pairs), n_control_correct.
    """
    pairs = pair_frame(outcomes)
    rng = np.random.default_rng(seed)
    rows = []
    for key, g in pairs.groupby(list(by), sort=True, dropna=False):
        u = g[g["usable"]]
        n = len(u)
        row: dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,),
                                       strict=True))
        row.update(n_pairs=n, n_dropped=int(len(g) - n))
        arms = {}
        for arm in ("control", "treatment"):
            o = u[f"outcome_{arm}"]
            answered = o != "abstained"
            arms[arm] = (o == "hallucination").to_numpy()
            row[f"hallucination_{arm}"] = _rate(o == "hallucination")
            row[f"correct_{arm}"] = _rate(o == "correct")
            row[f"abstained_{arm}"] = _rate(o == "abstained")
            row[f"coverage_{arm}"] = _rate(answered)
            row[f"selective_accuracy_{arm}"] = _rate(o == "correct", answered)
            row[f"cost_{arm}"] = float(g[f"cost_{arm}"].sum())
            row[f"tokens_{arm}"] = int(g[f"tokens_{arm}"].sum())
        hc, ht = arms["control"], arms["treatment"]
        diff = ht.astype(float) - hc.astype(float)
        row["delta_hallucination"] = float(diff.mean()) if n else math.nan
        row["delta_ci_low"], row["delta_ci_high"] = _bootstrap_delta(
            u["task_id"].to_numpy(), diff, rng, n_boot
        )
        saved, broken = int((hc & ~ht).sum()), int((~hc & ht).sum())
        row["saved"], row["broken"] = saved, broken
        row["mcnemar_p"], row["mcnemar_midp"] = mcnemar_pvalues(saved, broken)
        row["ztest_p"] = two_proportion_p(int(hc.sum()), int(ht.sum()), n)
        p_c, p_t = row["hallucination_control"], row["hallucination_treatment"]
        h = float(proportion_effectsize(p_c, p_t)) if n else math.nan
        row["cohens_h"] = h
        row["power"] = (
            float(NormalIndPower().power(effect_size=abs(h), nobs1=n, alpha=alpha, ratio=1.0))
            if n and h != 0 else (alpha if n else math.nan)
        )
        ctl_correct = u["outcome_control"] == "correct"
        fa = ctl_correct & (u["outcome_treatment"] == "abstained")
        row["false_alarms"] = int(fa.sum())
        row["n_control_correct"] = int(ctl_correct.sum())
        row["false_alarm_rate"] = _rate(fa, ctl_correct)
        rows.append(row)
    return pd.DataFrame(rows)


def replay_table(
    outcomes: pd.DataFrame,
    fires: pd.DataFrame,
    *,
    config: str,
    by: Sequence[str] = ("model", "condition"),
    seed: int = DEFAULT_SEED,
    n_boot: int = DEFAULT_RESAMPLES,
) -> pd.DataFrame:
    """The exact replay estimate: the interceptor (`config`, a label in `fires`) replayed
    over the control arm's own traces, so both "arms" are the same episodes and the
    difference has no sampling noise between arms (only the task sample's, in the CI).

    Columns per group: n, hallucination_control, hallucination_replay, delta_hallucination,
    delta_ci_low, delta_ci_high (bootstrap over tasks), saved (hallucinations the replay
    abstains on), abstained_replay, false_alarm_rate (fires on correct control answers).
    """
    ctl = outcomes[(outcomes["arm"] == "control")
                   & outcomes["outcome"].isin(["correct", "hallucination", "abstained"])]
    f = fires.loc[fires["config"] == config, ["trace_id", "fires"]]
    df = ctl.merge(f, on="trace_id", how="inner")
    rng = np.random.default_rng(seed)
    rows = []
    for key, g in df.groupby(list(by), sort=True, dropna=False):
        hall = (g["outcome"] == "hallucination").to_numpy()
        fire = g["fires"].to_numpy(dtype=bool)
        after = hall & ~fire
        diff = after.astype(float) - hall.astype(float)
        correct = (g["outcome"] == "correct").to_numpy()
        row: dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,),
                                       strict=True))
        lo, hi = _bootstrap_delta(g["task_id"].to_numpy(), diff, rng, n_boot)
        row.update(
            n=len(g), config=config,
            hallucination_control=float(hall.mean()) if len(g) else math.nan,
            hallucination_replay=float(after.mean()) if len(g) else math.nan,
            delta_hallucination=float(diff.mean()) if len(g) else math.nan,
            delta_ci_low=lo, delta_ci_high=hi,
            saved=int((hall & fire).sum()),
            abstained_replay=float(fire.mean()) if len(g) else math.nan,
            false_alarm_rate=float(fire[correct].mean()) if correct.any() else math.nan,
        )
        rows.append(row)
    return pd.DataFrame(rows)


def risk_coverage(
    outcomes: pd.DataFrame, fires: pd.DataFrame, *, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """One row per group and configuration: coverage (share answered when the config's
    interceptor abstains where it fires) and risk (share of answered traces that are
    hallucinations), computed by replay over un-intercepted traces; plus the no-interceptor
    point (config "none"). Columns: *by, config, n, coverage, risk."""
    base = outcomes[outcomes["outcome"].isin(["correct", "hallucination"])]
    df = base.merge(fires, on="trace_id", how="inner")
    rows = []
    for key, g in df.groupby([*by, "config"], sort=False, dropna=False):
        answered = ~g["fires"].to_numpy(dtype=bool)
        hall = (g["outcome"] == "hallucination").to_numpy()
        rows.append({
            **dict(zip([*by, "config"], key, strict=True)), "n": len(g),
            "coverage": float(answered.mean()),
            "risk": float(hall[answered].mean()) if answered.any() else math.nan,
        })
    for key, g in base[base["trace_id"].isin(fires["trace_id"])].groupby(
        list(by), sort=False, dropna=False
    ):
        keys = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, keys, strict=True)), "config": "none", "n": len(g),
                     "coverage": 1.0,
                     "risk": float((g["outcome"] == "hallucination").mean())})
    return pd.DataFrame(rows, columns=[*by, "config", "n", "coverage", "risk"])


def false_alarm_table(
    outcomes: pd.DataFrame, fires: pd.DataFrame, *, config: str,
    by: Sequence[str] = ("model",),
) -> pd.DataFrame:
    """How often the interceptor (`config`) fires on traces whose answer was correct, by
    replay (for clean `baseline` traces stored in the workspace). Columns: *by, config,
    n_correct, false_alarms, false_alarm_rate."""
    f = fires.loc[fires["config"] == config, ["trace_id", "fires"]]
    df = outcomes[outcomes["outcome"] == "correct"].merge(f, on="trace_id", how="inner")
    rows = []
    for key, g in df.groupby(list(by), sort=True, dropna=False):
        keys = key if isinstance(key, tuple) else (key,)
        n_fa = int(g["fires"].sum())
        rows.append({**dict(zip(by, keys, strict=True)), "config": config,
                     "n_correct": len(g), "false_alarms": n_fa,
                     "false_alarm_rate": n_fa / len(g) if len(g) else math.nan})
    return pd.DataFrame(rows, columns=[*by, "config", "n_correct", "false_alarms",
                                       "false_alarm_rate"])
