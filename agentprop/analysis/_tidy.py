"""The one table shape every analysis returns, so the manifest and report treat them alike.

A tidy table has one row per (key, metric): the key columns of the analysis (e.g. `model`),
then `key` (the manifest qualifier: "" for a pooled value, "gpt4o_mini", "gpt4o~majority"),
`metric`, `value`, `n`, `ci_lo`, `ci_hi` and `note` (a warning or remark, "" if none).
Columns after `note`, if any, are further fields of each number in numbers.json (the
simulation check's `true` and `covered`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from agentprop.analysis._stats import Estimate

TIDY_COLUMNS = ["key", "metric", "value", "n", "ci_lo", "ci_hi", "note"]
POOLED = ""


def row(keys: Mapping[str, Any], key: str, metric: str, est: Estimate | float | int,
        n: int | None = None, note: str = "") -> dict[str, Any]:
    """One tidy row; a bare number becomes an estimate without CI (n given or 0)."""
    if isinstance(est, Estimate):
        e = est
    else:
        v = float(est)
        e = Estimate(v, int(n if n is not None else 0))
    return {**keys, "key": key, "metric": metric, "value": e.value, "n": int(e.n),
            "ci_lo": e.lo, "ci_hi": e.hi, "note": note}


def frame(rows: Iterable[Mapping[str, Any]], key_columns: Sequence[str]) -> pd.DataFrame:
    """Rows → tidy DataFrame with a stable column order (empty input → empty table)."""
    cols = [*key_columns, *TIDY_COLUMNS]
    df = pd.DataFrame(list(rows), columns=cols)
    df["n"] = df["n"].astype("int64")
    for c in ("value", "ci_lo", "ci_hi"):
        df[c] = df[c].astype(float)
    return df


def lookup(df: pd.DataFrame, metric: str, key: str = POOLED) -> float:
    """The value of one metric (NaN if absent): handy in tests and captions."""
    hit = df[(df["metric"] == metric) & (df["key"] == key)]
    return float(hit["value"].iloc[0]) if len(hit) else math.nan


def wide(df: pd.DataFrame, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Key × metric values (for figures and quick inspection)."""
    sub = df if metrics is None else df[df["metric"].isin(metrics)]
    out = sub.pivot_table(index="key", columns="metric", values="value", aggfunc="first",
                          sort=False, dropna=False)
    if metrics is not None:
        out = out.reindex(columns=[m for m in metrics if m in out.columns])
    return out
