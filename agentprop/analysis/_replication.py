"""Cross-domain replication: does the model ranking on held-out retail match the core one?"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._propagation import as_float, injected_traces
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    group_rng,
    kendall,
    rank_note,
    spearman,
)
from agentprop.analysis._tidy import POOLED, frame, row

HELD_OUT = "retail"
CORE = ("calendar", "weather", "medical")


def cross_domain(stages: pd.DataFrame, *, held_out: str = HELD_OUT,
                 conditions: Sequence[str] | None = None,
                 n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per model: baseline correctness and injection-to-error on core vs held-out domains.

    Injection-to-error uses the propagation conditions (`conditions`, default as
    `injected_traces`: `p2:semantic_wrong` when present), named in each row's note, never
    a silent pool of error types. CIs resample tasks (a task's seeds and conditions are not
    independent). Key "" carries Spearman ρ and Kendall τ (with bootstrap CIs over models)
    between the core and held-out values of each measure: `spearman_correct`,
    `kendall_correct`, `spearman_inj_to_err`, `kendall_inj_to_err`. Needs ≥ 3 models with
    both (NaN otherwise), and `MIN_RANK_N` for a p-value and a CI (else its note says
    "n = 4, not testable").
    """
    rows: list[dict[str, Any]] = []
    if stages.empty:
        return frame(rows, ["model"])
    d = stages[(stages["arm"].fillna("") == "") & ~stages["error"].fillna(False).astype(bool)]
    d = d[d["domain"].isin([*CORE, held_out])]
    if held_out not in set(d["domain"].unique()):
        return frame(rows, ["model"])
    injected, conds = injected_traces(d, conditions)
    note = "conditions: " + ", ".join(conds) if conds else ""
    values: dict[str, dict[str, list[float]]] = {"correct": {}, "inj_to_err": {}}
    for model, g in d.groupby("model", sort=True):
        m = str(model)
        keys = {"model": m}
        inj_m = injected[injected["model"] == model]
        for part, domains in (("core", list(CORE)), (held_out, [held_out])):
            sub = g[g["domain"].isin(domains)]
            base = sub[sub["condition"] == "baseline"]
            ok = 1 - as_float(base["S3"])
            est = (Resampler(ok, clusters=base["task_id"].astype(str).to_numpy(),
                             n_resamples=n_resamples,
                             rng=group_rng(seed, "replication", m, part, "correct")).ratio(ok)
                   if len(base) else Estimate(math.nan, 0))
            rows.append(row(keys, m, f"correct_{part}", est))
            values["correct"].setdefault(m, []).append(est.value)
            inj = inj_m[inj_m["domain"].isin(domains)]
            s1, s3 = as_float(inj["S1"]), as_float(inj["S3"])
            e2 = (Resampler(np.arange(len(inj)), clusters=inj["task_id"].astype(str).to_numpy(),
                            n_resamples=n_resamples,
                            rng=group_rng(seed, "replication", m, part, "inj_to_err"))
                  .ratio(s1 * s3, np.where(np.isnan(s3), np.nan, s1)) if len(inj)
                  else Estimate(math.nan, 0))
            rows.append(row(keys, m, f"inj_to_err_{part}", e2, note=note))
            values["inj_to_err"].setdefault(m, []).append(e2.value)
    for measure, per in values.items():
        pairs = [v for v in per.values() if len(v) == 2]
        x = [v[0] for v in pairs]
        y = [v[1] for v in pairs]
        sp = spearman(x, y, n_resamples=n_resamples, rng=group_rng(seed, "spearman", measure))
        kt = kendall(x, y, n_resamples=n_resamples, rng=group_rng(seed, "kendall", measure))
        untested = rank_note(sp.n)
        rows.append(row({"model": POOLED}, POOLED, f"spearman_{measure}",
                        Estimate(sp.rho, sp.n, sp.lo, sp.hi),
                        note="; ".join(x for x in (note if measure == "inj_to_err" else "",
                                                   untested) if x)))
        rows.append(row({"model": POOLED}, POOLED, f"spearman_{measure}_p", sp.p, sp.n,
                        note=untested))
        rows.append(row({"model": POOLED}, POOLED, f"kendall_{measure}",
                        Estimate(kt.rho, kt.n, kt.lo, kt.hi), note=untested))
        rows.append(row({"model": POOLED}, POOLED, f"kendall_{measure}_p", kt.p, kt.n,
                        note=untested))
    return frame(rows, ["model"])
