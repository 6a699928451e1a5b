"""The threshold sweep: replay configurations over stored un-intercepted traces.

The positive class is "the un-intercepted final answer is wrong under the primary judge";
a configuration's prediction is "the interceptor fires". No model is called: each trace's
signals are computed once and every configuration's thresholds applied to them with the
same `decide` the online hook uses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from agentprop.core import Task, Trace
from agentprop.intercept._config import InterceptConfig, default_configs
from agentprop.intercept._replay import trace_signals
from agentprop.intercept._signals import Signals, decide

SWEEP_COLUMNS = [
    "config", "tau_l1", "tau_l2", "l3", "n", "positives", "tp", "fp", "fn", "tn",
    "precision", "recall", "f1", "abstention_rate", "same_as", "best",
]


def signal_config(keywords: Sequence[str] | None = None) -> InterceptConfig:
    """The configuration signals are measured under for a keyword list (L3 always on;
    thresholds do not affect signals). An empty list means the default keywords."""
    return InterceptConfig(l3=True, **({"keywords": tuple(keywords)} if keywords else {}))


def keyword_sets(configs: Sequence[InterceptConfig]) -> list[tuple[str, ...]]:
    """The distinct keyword lists of `configs`, in order: signals are computed once each."""
    return list(dict.fromkeys(c.keywords for c in configs))


def sweep_inputs(
    traces: Iterable[Trace],
    verdicts: Mapping[str, bool | None],
    keywords: Sequence[str] | None = None,
    tasks: Mapping[str, Task] | None = None,
) -> list[tuple[Signals, bool]]:
    """(signals, answer is wrong) per usable trace: status ok and a scored verdict."""
    cfg = signal_config(keywords)
    rows: list[tuple[Signals, bool]] = []
    for t in traces:
        correct = verdicts.get(t.id)
        if t.status != "ok" or correct is None:
            continue
        task = tasks.get(t.task_id) if tasks else None
        rows.append((trace_signals(t, cfg, task), not correct))
    return rows


def sweep(
    traces: Iterable[Trace],
    verdicts: Mapping[str, bool | None],
    configs: Sequence[InterceptConfig] | None = None,
    *,
    tasks: Mapping[str, Task] | None = None,
) -> pd.DataFrame:
    """One row per configuration (columns `SWEEP_COLUMNS`), `best` marking the chosen one:
    the highest F1, ties broken towards fewer abstentions, then the earlier configuration.
    F1 is NaN when there is no positive and the configuration never fires (undefined).

    `verdicts` maps trace id to the primary judge's `correct` (None = unscored: skipped).
    Traces with status other than ok are skipped too (they have no answer to intercept).
    """
    configs = list(configs) if configs is not None else default_configs()
    traces = list(traces)
    inputs = {kw: sweep_inputs(traces, verdicts, kw, tasks) for kw in keyword_sets(configs)}
    return sweep_table(inputs, configs)


def sweep_table(
    inputs: Mapping[tuple[str, ...], Sequence[tuple[Signals, bool]]],
    configs: Sequence[InterceptConfig],
) -> pd.DataFrame:
    """The `sweep` table from precomputed (signals, answer is wrong) pairs per keyword list
    (see `sweep_inputs`), so a caller can stream traces and keep only their signals."""
    out = []
    seen: list[tuple[InterceptConfig, tuple[bool, ...]]] = []
    for cfg in configs:
        data = inputs[cfg.keywords]
        tp = fp = fn = tn = 0
        flags = tuple(bool(decide(signals, cfg)) for signals, _ in data)
        for fires, (_, wrong) in zip(flags, data, strict=True):
            tp += fires and wrong
            fp += fires and not wrong
            fn += (not fires) and wrong
            tn += (not fires) and not wrong
        twin = next((c for c, f in seen if f == flags and c.keywords == cfg.keywords), None)
        seen.append((cfg, flags))
        n = len(data)
        precision = tp / (tp + fp) if tp + fp else math.nan
        recall = tp / (tp + fn) if tp + fn else math.nan
        # no positive and no firing: F1 is undefined (NaN), not 0
        f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else math.nan
        out.append({
            "config": cfg.label, "tau_l1": cfg.tau_l1, "tau_l2": cfg.tau_l2, "l3": cfg.l3,
            "n": n, "positives": tp + fn, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "precision": precision, "recall": recall, "f1": f1,
            "abstention_rate": (tp + fp) / n if n else math.nan,
            "same_as": "" if twin is None else same_as_note(twin, cfg, data),
        })
    df = pd.DataFrame(out, columns=SWEEP_COLUMNS[:-1])
    df["best"] = False
    if len(df):
        f1s = [-_nan_last(-float(x)) for x in df["f1"]]  # an undefined F1 ranks last
        rates = [_nan_last(float(x)) for x in df["abstention_rate"]]
        order = sorted(range(len(df)), key=lambda i: (-f1s[i], rates[i], i))
        df.loc[order[0], "best"] = True
    return df


def same_as_note(earlier: InterceptConfig, cfg: InterceptConfig,
                 data: Sequence[tuple[Signals, bool]]) -> str:
    """Why `cfg` fires on exactly the traces `earlier` does (its row repeats that one):
    for a threshold raised from a to b, either no trace's count lies in [a, b), or the
    traces whose count does are flagged by another layer anyway."""
    why = ""
    for layer, lo, hi in (("L1", earlier.tau_l1, cfg.tau_l1), ("L2", earlier.tau_l2,
                                                                 cfg.tau_l2)):
        if lo == hi:
            continue
        a, b = min(lo, hi), max(lo, hi)
        span = f"{a}" if b == a + 1 else f"{a} to {b - 1}"
        counts = [s.l1_count if layer == "L1" else s.l2_count for s, _ in data]
        between = sum(a <= c < b for c in counts)
        why = (f"no trace has an {layer} count of {span}" if not between else
               f"the {between} traces with an {layer} count of {span} are flagged by "
               "another layer anyway")
        break
    if not why and earlier.l3 != cfg.l3:
        why = "L3 flags no trace the other layers do not"
    return f"flags the same traces as {earlier.label}" + (f": {why}" if why else "")


LAYER_COLUMNS = ["trace_id", "condition", "task_id", "L1", "L2", "L3", "wrong"]


def layer_hits(
    traces: Iterable[Trace],
    config: InterceptConfig,
    *,
    verdicts: Mapping[str, bool | None] | None = None,
    tasks: Mapping[str, Task] | None = None,
) -> pd.DataFrame:
    """Which layer would fire on each injected, un-intercepted trace whose corruption was
    applied (all three layers on, at `config`'s thresholds), and whether its answer is
    wrong under the primary judge (None: unjudged). An offline replay, like the sweep: no
    model is called. `agentprop.analysis.interceptor_layers` summarises it per fault
    class."""
    from agentprop.core import InjectionEvent

    cfg = config.model_copy(update={"l3": True})
    rows = []
    for t in traces:
        if t.condition == "baseline" or t.arm not in ("", "control") or t.status != "ok":
            continue
        if not any(isinstance(e, InjectionEvent) and e.status == "applied" for e in t.events):
            continue
        task = tasks.get(t.task_id) if tasks else None
        layers = {f.layer for f in decide(trace_signals(t, cfg, task), cfg)}
        correct = (verdicts or {}).get(t.id)
        rows.append([t.id, t.condition, t.task_id, "L1" in layers, "L2" in layers,
                     "L3" in layers, None if correct is None else not correct])
    return pd.DataFrame(rows, columns=LAYER_COLUMNS)


def _nan_last(v: float) -> float:
    return math.inf if math.isnan(v) else round(v, 12)


def best_config(table: pd.DataFrame, *, mode: str = "abstain") -> InterceptConfig:
    """The configuration the sweep chose (the row with `best`)."""
    rows = table[table["best"]]
    if rows.empty:
        raise ValueError("the sweep table has no rows")
    row = rows.iloc[0]
    return InterceptConfig(
        tau_l1=int(row["tau_l1"]), tau_l2=int(row["tau_l2"]), l3=bool(row["l3"]),
        mode=mode,
    )
