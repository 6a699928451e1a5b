"""The user's own server and questions (`run --upstream --tasks`): per model × condition the
units, S1, S2 proven by a counterfactual (read-only tools only; the others' S2 is undefined
and counted with its reason, never 0), and the S3 rate beyond the clean-run noise floor
(analysis/_noise.py). The report's `your_tools` section shows this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._noise import Agree, noise_table
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    conditional_ci,
    group_rng,
    proportion_ci,
)
from agentprop.analysis._tidy import frame, row

BASELINE = "baseline"


def _clusters(d: pd.DataFrame) -> np.ndarray:
    return d["task_id"].astype(str).to_numpy()


def withheld_note(n: int, reasons: list[str]) -> str:
    """"S2 undefined: N traces, because REASON" ("" when none was withheld)."""
    return f"S2 undefined: {n} traces, because {'; '.join(reasons)}" if n else ""


def _stage_rows(d: pd.DataFrame, model: str, cond: str, n_resamples: int,
                seed: int) -> list[dict[str, Any]]:
    """One model × condition: units, errors, S1 among the units without error, S2 among
    the applied units whose counterfactual was made, and how many had it withheld."""
    keys = {"model": model, "condition": cond}
    key = f"{model}|{cond}"
    err = d["error"].fillna(False).astype(bool)
    ok = d[~err]
    rows = [row(keys, key, "units", len(d), len(d)),
            row(keys, key, "n_error", int(err.sum()), int(err.sum()))]
    if cond == BASELINE:
        return rows
    rng = group_rng(seed, "your_tools", model, cond)
    rows.append(row(keys, key, "p_S1", proportion_ci(ok["S1"], clusters=_clusters(ok),
                                                     n_resamples=n_resamples, rng=rng)))
    withheld = ok["s2_withheld"].notna() if "s2_withheld" in ok else pd.Series(False, ok.index)
    s1 = ok["S1"].fillna(False).astype(bool)
    n_withheld = int((s1 & withheld).sum())
    note = withheld_note(n_withheld, sorted(set(ok.loc[s1 & withheld, "s2_withheld"]
                                                .astype(str))))
    proven = s1.astype(object).where(~(s1 & withheld), None)  # withheld: dropped
    rows.append(row(keys, key, "p_S2", conditional_ci(
        ok["S2"], proven, clusters=_clusters(ok), n_resamples=n_resamples, rng=rng),
        note=note))
    rows.append(row(keys, key, "n_s2_withheld", n_withheld, n_withheld, note=note))
    return rows


def _key_order(key: str) -> tuple[str, int, str]:
    model, _, cond = key.partition("|")
    return (model, 0 if cond == BASELINE else 1, cond)


def user_tools_table(stages: pd.DataFrame, queries: Mapping[str, str], agree: Agree | None,
                     *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per model × condition (key "MODEL|CONDITION", the clean runs under "MODEL|baseline")
    on the user's questions (the tasks in `queries`; every task when it is empty), outside
    interceptor arms: `units`, `n_error`, `p_S1`, `p_S2`, `n_s2_withheld`, and from
    `noise_table` the `noise_floor`, `s3_rate` and `beyond_floor`."""
    st = stages
    if queries and not st.empty:
        st = st[st["task_id"].astype(str).isin(set(queries))]
    if st.empty:
        return frame([], ["model", "condition"])
    st = st[st["arm"].fillna("") == ""]
    rows: list[dict[str, Any]] = []
    for (model, cond), d in st.groupby(["model", "condition"], sort=True):
        rows += _stage_rows(d, str(model), str(cond), n_resamples, seed)
    noise = noise_table(st, queries, agree, n_resamples=n_resamples, seed=seed)
    out = pd.concat([frame(rows, ["model", "condition"]), noise], ignore_index=True)
    order = {k: i for i, k in enumerate(sorted(out["key"].unique(), key=_key_order))}
    return out.sort_values("key", key=lambda s: s.map(order), kind="stable") \
        .reset_index(drop=True)
