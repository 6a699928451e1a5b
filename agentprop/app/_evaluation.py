"""Statistics of the paired interceptor evaluation, as pure functions over DataFrames
(here, above `intercept`, because they use `analysis` and the interceptor's replay).

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

from agentprop.analysis import Resampler, ab_rng_key, ab_statistics, group_rng
from agentprop.core import GuardEvent, InterceptEvent, Task, Trace
from agentprop.intercept import InterceptConfig, decide
from agentprop.intercept._replay import signals_for

PAIR_KEYS = ["run_id", "model", "task_id", "condition", "seed"]
OUTCOME_COLUMNS = [
    "trace_id", "run_id", "model", "task_id", "domain", "split", "condition", "seed", "arm",
    "status", "simulated", "abstained", "correct", "outcome", "intercept_layer", "warned",
    "guard_retries", "guard_rejects", "guard_abstains", "cost", "tokens",
]
GUARD_COLUMNS = {"retry": "guard_retries", "reject": "guard_rejects",
                 "abstain": "guard_abstains"}
"""A guard's action → the outcome column counting it (`GuardEvent.action`)."""
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
    guards = [e for e in t.events if isinstance(e, GuardEvent)]
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
        **{col: sum(1 for e in guards if e.action == a) for a, col in GUARD_COLUMNS.items()},
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


def _usable_pairs(u: pd.DataFrame) -> pd.DataFrame:
    """Pairs of outcome names → the 0/1 columns `analysis.ab_statistics` reads."""
    out = pd.DataFrame({"task_id": u["task_id"].to_numpy()})
    for arm in ("control", "treatment"):
        o = u[f"outcome_{arm}"].to_numpy()
        out[f"hallucination_{arm}"] = (o == "hallucination").astype(float)
        out[f"correct_{arm}"] = (o == "correct").astype(float)
        out[f"abstained_{arm}"] = (o == "abstained").astype(float)
    return out


_AB_NAMES = {"abstention_control": "abstained_control",
             "abstention_treatment": "abstained_treatment"}


def ab_table(
    outcomes: pd.DataFrame,
    *,
    by: Sequence[str] = ("model", "condition"),
    seed: int = DEFAULT_SEED,
    n_boot: int = DEFAULT_RESAMPLES,
) -> pd.DataFrame:
    """The two-arm comparison per group (default per model and condition), on usable
    pairs: the statistics of `agentprop.analysis.ab_statistics` (the report computes the
    same, from the same bootstrap stream for the same pairs), as one wide row per group.

    Columns: n_pairs, n_dropped (pairs with an unscored or failed arm); hallucination_,
    correct_, abstained_, coverage_, selective_accuracy_ per arm, plus cost_ (total) and
    tokens_ (suffixes control / treatment); delta_hallucination with delta_ci_low /
    delta_ci_high, delta_correct; saved, broken; mcnemar_p, mcnemar_midp, ztest_p,
    cohens_h, power; false_alarms, n_control_correct, false_alarm_rate. Undefined values
    are NaN.
    """
    pairs = pair_frame(outcomes)
    rows = []
    for key, g in pairs.groupby(list(by), sort=True, dropna=False):
        u = g[g["usable"]]
        row: dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,),
                                       strict=True))
        row.update(n_dropped=int(len(g) - len(u)))
        rng = group_rng(seed, *ab_rng_key(g["run_id"], str(g["model"].iloc[0]),
                                          g["condition"]))
        stats = ab_statistics(_usable_pairs(u), n_resamples=n_boot, rng=rng)
        for name, est in stats.items():
            row[_AB_NAMES.get(name, name)] = est.value
        d = stats["delta_hallucination"]
        row["delta_ci_low"], row["delta_ci_high"] = d.lo, d.hi
        for arm in ("control", "treatment"):
            row[f"cost_{arm}"] = float(g[f"cost_{arm}"].sum())
            row[f"tokens_{arm}"] = int(g[f"tokens_{arm}"].sum())
        for name in ("n_pairs", "saved", "broken", "false_alarms", "n_control_correct"):
            row[name] = int(row[name])
        rows.append(row)
    return pd.DataFrame(rows)


def action_table(outcomes: pd.DataFrame, *, by: Sequence[str] = ("model", "condition")
                 ) -> pd.DataFrame:
    """What a guard did in the treatment arm, per group: n traces, the share it acted on
    (any retry, reject or abstain) and the count of each action. On clean `baseline`
    traces every action is a cost: nothing was wrong."""
    t = outcomes[(outcomes["arm"] == "treatment") & (outcomes["status"] == "ok")]
    rows = []
    for key, g in t.groupby(list(by), sort=True, dropna=False):
        counts = {a: int(g[col].sum()) for a, col in GUARD_COLUMNS.items()}
        acted = g[list(GUARD_COLUMNS.values())].sum(axis=1) > 0
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                     "n": len(g), "acted_rate": float(acted.mean()) if len(g) else math.nan,
                     **{f"{a}_actions": c for a, c in counts.items()}})
    return pd.DataFrame(rows, columns=[*by, "n", "acted_rate", "retry_actions",
                                       "reject_actions", "abstain_actions"])


def _delta_ci(tasks: np.ndarray, diff: np.ndarray, seed: int, n_boot: int,
              key: tuple[Any, ...]) -> tuple[float, float]:
    """CI of mean(diff) resampling tasks: the analysis package's cluster bootstrap."""
    est = Resampler(diff, clusters=tasks.astype(str), n_resamples=n_boot,
                    rng=group_rng(seed, *key)).ratio(diff, difference=True)
    return est.lo, est.hi


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
    rows = []
    for key, g in df.groupby(list(by), sort=True, dropna=False):
        hall = (g["outcome"] == "hallucination").to_numpy()
        fire = g["fires"].to_numpy(dtype=bool)
        after = hall & ~fire
        diff = after.astype(float) - hall.astype(float)
        correct = (g["outcome"] == "correct").to_numpy()
        row: dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,),
                                       strict=True))
        lo, hi = _delta_ci(g["task_id"].to_numpy(), diff, seed, n_boot,
                           ("replay", config, *row.values()))
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
