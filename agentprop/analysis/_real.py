"""How a real (not simulated) model's episodes went, per model: the one home of the report's
real-model numbers.

A simulated agent answers by construction; a real model may never answer (the step limit),
answer only when asked once more without tools (`forced`), fail, or spend many calls and
tokens. These shares and means are over every trace of the model (baseline and injected,
outside interceptor experiments), with CIs resampling tasks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._stats import N_RESAMPLES, SEED, Resampler, group_rng
from agentprop.analysis._tidy import frame, row

SHARES: tuple[str, ...] = ("answered", "forced", "step_limit", "failed")
"""Shares of episodes: with a final answer (the agent's own or forced), with a forced one,
ended at the step limit without one, ended by an error."""
MEANS: tuple[str, ...] = ("model_calls", "tool_calls", "tokens")
"""Per-episode means."""
UNSEEN_WITHOUT_TURNS = frozenset({"model_calls", "tokens"})
"""Means an external agent's trace holds only when its model turns were recorded."""
NOT_OBSERVED = ("not observed: the agent's model calls did not go through `agentprop "
                "gateway`")


def real_model_table(stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                     seed: int = SEED) -> pd.DataFrame:
    """Per non-simulated model: `episodes`, the `SHARES` and `MEANS` (CIs resampling
    tasks) and `s_per_call` (seconds inside the model per model call). Empty when every
    model is simulated or the stage table predates the columns."""
    rows: list[dict[str, Any]] = []
    need = {"simulated", "forced", "model_calls", "tool_calls", "tokens", "model_s", "status"}
    if stages.empty or not need <= set(stages.columns):
        return frame(rows, ["model"])
    own = stages[(~stages["simulated"].astype(bool)) & (stages["arm"].fillna("") == "")]
    for model, g in own.groupby("model", sort=True):
        rows += _rows(g, str(model), n_resamples, seed)
    return frame(rows, ["model"])


def _rows(g: pd.DataFrame, key: str, n_resamples: int, seed: int) -> list[dict[str, Any]]:
    keys = {"model": key}
    status = g["status"].astype(str).to_numpy()
    forced = g["forced"].astype("boolean").fillna(False).to_numpy(dtype=bool)
    flags = {"answered": status == "ok", "forced": forced,
             "step_limit": status == "step_limit",
             "failed": (status != "ok") & (status != "step_limit")}
    n = len(g)
    rs = Resampler(np.arange(n), clusters=g["task_id"].astype(str).to_numpy(),
                   n_resamples=n_resamples, rng=group_rng(seed, "real_models", key))
    out = [row(keys, key, "episodes", n, n)]
    shares = rs.ratios([(flags[m].astype(float), None) for m in SHARES])
    out += [row(keys, key, m, est) for m, est in zip(SHARES, shares, strict=True)]
    # an external agent's model calls and tokens are seen only through the gateway: over
    # the traces that record its turns, never a 0 for what was not observed
    seen = (g["turns_recorded"].astype("boolean").fillna(True).to_numpy(dtype=bool)
            if "turns_recorded" in g else np.ones(n, dtype=bool))
    values = [g[m].fillna(0).to_numpy(dtype=float) for m in MEANS]
    dens = [seen.astype(float) if m in UNSEEN_WITHOUT_TURNS else None for m in MEANS]
    means = rs.ratios([(np.where(seen | (d is None), v, 0.0), d)
                       for v, d in zip(values, dens, strict=True)], difference=True)
    for m, est in zip(MEANS, means, strict=True):
        out.append(row(keys, key, m, est, note=NOT_OBSERVED if est.n == 0 else ""))
    calls = float(g["model_calls"].sum())
    out.append(row(keys, key, "s_per_call",
                   float(g["model_s"].sum()) / calls if calls else float("nan"), int(calls),
                   note=NOT_OBSERVED if not seen.any() else ""))
    return out
