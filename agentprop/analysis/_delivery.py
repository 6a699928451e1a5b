"""Tool calls that did not arrive as calls, per model (docs/tool-call-outcomes.md).

A call written as text, a call of a tool that was not offered, and arguments that do not
parse are each the model's output, not a transport failure and not "the agent called no
tool". This table counts them over every trace of a model (baseline and injected, outside
interceptor experiments; error traces are counted apart), as shares of traces with
task-clustered CIs: the one home of these numbers for `agentprop stages` and the report.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._stats import N_RESAMPLES, SEED, Resampler, group_rng
from agentprop.analysis._tidy import POOLED, frame, row

DELIVERY_METRICS: tuple[str, ...] = (
    "leaked_call", "unknown_tool", "bad_arguments", "undelivered_call", "no_tool_call")
"""The stage columns counted: each kind of call issue (a trace may have several), the
traces whose calls all failed to arrive, and the traces with no call and no attempt."""


def delivery_table(stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                   seed: int = SEED) -> pd.DataFrame:
    """Per model (and pooled): `n` (non-error traces), `n_error`, and for each metric of
    `DELIVERY_METRICS` its count `n_<metric>` and its share of the `n` traces (CI
    resampling tasks). A frame without the columns (traces from before them) gives no
    rows."""
    rows: list[dict[str, Any]] = []
    if stages.empty or any(m not in stages for m in DELIVERY_METRICS):
        return frame(rows, ["model"])
    own = stages[stages["arm"].fillna("") == ""]
    groups = [(str(m), g) for m, g in own.groupby("model", sort=True)]
    if own["model"].nunique() > 1:
        groups.append((POOLED, own))
    for key, g in groups:
        rows += _rows(g, key, n_resamples, seed)
    return frame(rows, ["model"])


def _rows(g: pd.DataFrame, key: str, n_resamples: int, seed: int) -> list[dict[str, Any]]:
    err = g["error"].fillna(False).astype(bool).to_numpy()
    ok = g[~err]
    keys = {"model": key}
    n = len(ok)
    out = [row(keys, key, "n", n, n), row(keys, key, "n_error", int(err.sum()),
                                          int(err.sum()))]
    flags = [ok[m].fillna(False).astype(bool).to_numpy(dtype=float) for m in DELIVERY_METRICS]
    out += [row(keys, key, f"n_{m}", int(f.sum()), n)
            for m, f in zip(DELIVERY_METRICS, flags, strict=True)]
    rs = Resampler(np.arange(n), clusters=ok["task_id"].astype(str).to_numpy(),
                   n_resamples=n_resamples, rng=group_rng(seed, "delivery", key))
    shares = rs.ratios([(f, None) for f in flags])
    out += [row(keys, key, m, est) for m, est in zip(DELIVERY_METRICS, shares, strict=True)]
    return out
