"""Stage-level propagation: the per-trace stage table and the per-group propagation rates.

Both are pure functions. Stage indicators come only from a trace's structured events
(DESIGN §4); a judge is consulted only for S3, through the `verdicts` mapping.

Per trace (`stage_table`):

- `opportunity`: the injector found a tool call with an eligible parameter (its
  `injection` event has status "applied").
- `no_tool_call`: the agent made no tool call at all (its own outcome, never "rejection").
- `S1`: applied, and the executed arguments of the targeted call differ from the proposed
  ones.
- `S2`: S1, and that call's observation differs from its counterfactual (the observation
  the proposed arguments produce on a copy of the state); validation errors count.
- `corrected`: S2, and a later call of the same tool re-issues the proposed call: the
  targeted parameter has its original value again and every other argument both calls
  set agrees (a later plan step that merely reuses the value — the same date for another
  city — is not a correction).
- `S3`: the final answer is wrong under the given verdicts (True = wrong; <NA> = unjudged
  or unscored). Computed for every trace, baseline included.

Baseline traces (no `injection` event) get opportunity/S1/S2/corrected False and
`error_type` None; `no_tool_call`, `S3` and `abstained` are computed as for any trace.
An injected trace whose targeted call has no counterfactual recorded gets S2/corrected
<NA> (the comparison cannot be made), never a guess. Imported traces carry
`meta["release_stages"]`, whose non-missing keys override the event-derived values.
Stage columns use pandas' nullable "boolean" dtype.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)

STAGE_COLUMNS: tuple[str, ...] = (
    "trace_id", "run_id", "model", "task_id", "domain", "split", "difficulty", "condition",
    "error_type", "seed", "arm", "status", "simulated", "opportunity", "no_tool_call",
    "S1", "S2", "corrected", "S3", "abstained", "error",
)
_NULLABLE = ("opportunity", "no_tool_call", "S1", "S2", "corrected", "S3")
_OVERRIDABLE = ("opportunity", "no_tool_call", "S1", "S2", "corrected")


def _norm(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def _differs(a: Any, b: Any) -> bool:
    return bool(a != b) and _norm(a) != _norm(b)


def _error_type(condition: str, injection: InjectionEvent | None) -> str | None:
    if injection is not None and injection.error_type:
        return injection.error_type
    prefix, sep, kind = condition.partition(":")
    return kind if sep and prefix == "p2" and kind else None


def _stages(trace: Trace) -> dict[str, Any]:
    """Event-derived stage values of one trace (single pass over its events)."""
    injection: InjectionEvent | None = None
    calls: list[tuple[int, ToolCallEvent]] = []
    results: list[tuple[int, ToolResultEvent]] = []
    final: FinalEvent | None = None
    for i, ev in enumerate(trace.events):
        if isinstance(ev, ToolCallEvent):
            calls.append((i, ev))
        elif isinstance(ev, ToolResultEvent):
            results.append((i, ev))
        elif isinstance(ev, InjectionEvent):
            if injection is None and ev.protocol == "p2":
                injection = ev
        elif isinstance(ev, FinalEvent):
            final = ev

    out: dict[str, Any] = {
        "error_type": _error_type(trace.condition, injection),
        "no_tool_call": not calls,
        "opportunity": False,
        "S1": False,
        "S2": False,
        "corrected": False,
        "abstained": bool(final.abstained) if final is not None else False,
    }
    if injection is None or injection.status != "applied":
        return out
    out["opportunity"] = True

    cid = injection.call_id
    target = next((r for r in results if cid and r[1].call_id == cid), None)
    if target is None:  # ids missing: the corrupted call is the one with a counterfactual
        target = next((r for r in results if r[1].counterfactual is not None), None)
    if target is None:  # applied but never executed (e.g. episode cut short)
        return out
    at, result = target
    proposed = next(
        (c.call.arguments for _, c in calls if cid and c.call.id == cid),
        None,
    )
    if proposed is None:
        proposed = {k: v for k, v in result.arguments.items() if k != injection.param}
        if injection.param is not None:
            proposed[injection.param] = injection.original
    s1 = _differs(result.arguments, proposed)
    out["S1"] = s1
    if not s1:
        return out
    if result.counterfactual is None:
        out["S2"] = out["corrected"] = None
        return out
    s2 = _differs(result.observation, result.counterfactual)
    out["S2"] = s2
    if s2 and injection.param is not None:
        out["corrected"] = any(
            i > at and c.call.name == result.name
            and _restores(c.call.arguments, proposed, injection.param)
            for i, c in calls
        )
    return out


def _restores(args: dict[str, Any], proposed: dict[str, Any], param: str) -> bool:
    """Whether `args` re-issue the proposed call: the targeted parameter has its original
    value and every other argument both calls set agrees. The agreement matters: the next
    step of a plan often reuses the value for another entity (the same date for a second
    city), which is not a correction."""
    if param not in args or _norm(args[param]) != _norm(proposed.get(param)):
        return False
    return all(_norm(args[k]) == _norm(v) for k, v in proposed.items() if k in args)


def stage_table(
    traces: Iterable[Trace], verdicts: Mapping[str, bool | None] | None = None
) -> pd.DataFrame:
    """One row per trace with the columns in `STAGE_COLUMNS` (see the module docstring).

    `verdicts` maps trace id → the primary judge's `correct` (True correct, False wrong,
    None unscored); a trace missing from it has S3 <NA>.
    """
    verdicts = verdicts or {}
    rows: list[dict[str, Any]] = []
    for t in traces:
        row = _stages(t)
        release = t.meta.get("release_stages") if t.meta else None
        if isinstance(release, Mapping):
            for key in _OVERRIDABLE:
                if key in release:
                    row[key] = None if release[key] is None else bool(release[key])
        correct = verdicts.get(t.id)
        row.update(
            trace_id=t.id, run_id=t.run_id, model=t.model, task_id=t.task_id,
            domain=t.domain, split=t.split, difficulty=t.difficulty, condition=t.condition,
            seed=t.seed, arm=t.arm, status=t.status, simulated=bool(t.simulated),
            S3=None if correct is None else not correct, error=t.status != "ok",
        )
        rows.append(row)
    df = pd.DataFrame(rows, columns=list(STAGE_COLUMNS))
    for col in _NULLABLE:
        df[col] = df[col].astype("boolean")
    for col in ("simulated", "abstained", "error"):
        df[col] = df[col].astype(bool)
    df["seed"] = df["seed"].astype("int64")
    df["error_type"] = df["error_type"].astype(object)
    return df


# -- rates -------------------------------------------------------------------------------

RATES: tuple[tuple[str, str, str | None], ...] = (
    # (name, event, condition); condition None = over all non-error traces of the group
    ("no_tool", "no_tool_call", None),
    ("S1_share", "S1", None),
    ("S2_share", "S2", None),
    ("p_S1", "S1", "opportunity"),
    ("p_S2", "S2", "opportunity"),
    ("r_12", "S2", "S1"),
    ("r_23", "S3", "S2"),
    ("inj_to_err", "S3", "S1"),
    ("corrected", "corrected", "S2"),
)
"""The propagation rates: P(event | condition)."""


def _as_float(s: pd.Series) -> np.ndarray:
    """A nullable boolean column as floats: 1.0, 0.0, NaN for <NA>."""
    return s.astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def propagation_rates(
    stage_df: pd.DataFrame,
    by: str | Sequence[str] = "model",
    *,
    rng_seed: int = 42,
    n_boot: int = 1000,
    injected_only: bool = True,
    level: float = 0.95,
) -> pd.DataFrame:
    """Per-group propagation rates with percentile bootstrap CIs, from a `stage_table`.

    Rates (each P(event | condition), over the group's traces where both are known):
    `no_tool` = P(no_tool_call), `S1_share` = P(S1), `S2_share` = P(S2) (unconditional,
    over all non-error traces), `p_S1` = P(S1 | opportunity), `p_S2` = P(S2 | opportunity),
    `r_12` = P(S2 | S1), `r_23` = P(S3 | S2), `inj_to_err` = P(S3 | S1),
    `corrected` = P(corrected | S2). p_S1 and p_S2 are conditional on an opportunity so
    that traces without a tool call are never counted as "rejected"
    (paper-compatible rejection = 1 − p_S1, recovery = 1 − r_23).

    Columns: the `by` columns, `n` (non-error traces), `n_error` (error traces, excluded
    from every rate), `n_opportunity`, `n_S1`, `n_S2`, `n_tasks`, then for each rate `X`:
    `X`, `X_lo`, `X_hi`, `X_n` (its denominator). A zero denominator gives NaN (and NaN
    CI) with its n, never 0. `injected_only` drops `baseline` rows first.

    The bootstrap resamples tasks (clusters) with replacement — identical to resampling
    traces when every task has one trace — vectorised as an index matrix; one seeded
    `numpy.random.Generator` for the whole call, groups in sorted order. Reused by the
    analysis package's "propagation" table.
    """
    keys = [by] if isinstance(by, str) else list(by)
    df = stage_df
    if injected_only:
        df = df[df["condition"] != "baseline"]
    rng = np.random.default_rng(rng_seed)
    alpha = (1 - level) / 2 * 100
    out: list[dict[str, Any]] = []
    if df.empty:
        return pd.DataFrame(columns=[*keys, *_rate_columns()])
    for group_key, g in df.groupby(keys, sort=True, dropna=False):
        gk = group_key if isinstance(group_key, tuple) else (group_key,)
        row: dict[str, Any] = dict(zip(keys, gk, strict=True))
        err = g["error"].to_numpy(dtype=bool)
        ok = g[~err]
        row.update(
            n=len(ok), n_error=int(err.sum()),
            n_opportunity=int(ok["opportunity"].fillna(False).sum()),
            n_S1=int(ok["S1"].fillna(False).sum()),
            n_S2=int(ok["S2"].fillna(False).sum()),
            n_tasks=int(ok["task_id"].nunique()),
        )
        row.update(_group_rates(ok, rng, n_boot, alpha))
        out.append(row)
    return pd.DataFrame(out, columns=[*keys, *_rate_columns()])


def _rate_columns() -> list[str]:
    cols = ["n", "n_error", "n_opportunity", "n_S1", "n_S2", "n_tasks"]
    for name, _, _ in RATES:
        cols += [name, f"{name}_lo", f"{name}_hi", f"{name}_n"]
    return cols


def _group_rates(
    g: pd.DataFrame, rng: np.random.Generator, n_boot: int, alpha: float
) -> dict[str, Any]:
    codes, _ = pd.factorize(g["task_id"], sort=False)
    n_clusters = int(codes.max()) + 1 if len(codes) else 0
    idx = rng.integers(0, n_clusters, size=(n_boot, n_clusters)) if n_clusters else None
    res: dict[str, Any] = {}
    for name, event, cond in RATES:
        e = _as_float(g[event])
        c = np.ones(len(g)) if cond is None else _as_float(g[cond])
        known = ~np.isnan(c) & (c > 0) & ~np.isnan(e)
        num_rows = np.where(known, e, 0.0)
        den_rows = known.astype(float)
        den = float(den_rows.sum())
        res[f"{name}_n"] = int(den)
        if den == 0 or idx is None:
            res[name] = res[f"{name}_lo"] = res[f"{name}_hi"] = float("nan")
            continue
        res[name] = float(num_rows.sum() / den)
        num_c = np.bincount(codes, weights=num_rows, minlength=n_clusters)
        den_c = np.bincount(codes, weights=den_rows, minlength=n_clusters)
        bnum = num_c[idx].sum(axis=1)
        bden = den_c[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = bnum / bden
        boot = boot[~np.isnan(boot)]
        if boot.size == 0:
            res[f"{name}_lo"] = res[f"{name}_hi"] = float("nan")
        else:
            lo, hi = np.percentile(boot, [alpha, 100 - alpha])
            res[f"{name}_lo"], res[f"{name}_hi"] = float(lo), float(hi)
    return res
