"""Stage-level propagation, rejection vs recovery, and baseline vs P2 correctness.

Input is the stage table (one row per trace; see `agentprop.analysis.stages`). Traces of an
interceptor experiment (arm != "") are left to the interceptor analysis, errored traces
(status != ok) and traces without stage information (S1 missing) are counted but excluded
from the rates. S3 missing (unjudged / unscored) is never counted as wrong: it drops out of
every rate that needs S3.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from agentprop.analysis._calibration import LabelMix, MixItem, mix_corrections
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    WeightMemo,
    estimate_from_reps,
    group_rng,
    rank_note,
    spearman,
)
from agentprop.analysis._tidy import POOLED, frame, row
from agentprop.analysis.outcomes import NOTICING_OUTCOMES, OUTCOME_NAMES
from agentprop.analysis.stages import (
    RATES,
    propagation_rates,
    unobservable_note,
)

HEADLINE_ERROR_TYPE = "semantic_wrong"
STAGE_FEATURES = ["S1", "S2", "S3", "no_tool_call", "corrected"]
PROPAGATION_METRICS = [
    "n", "n_S1", "n_S2", "p_S1", "p_S2", "p_S3", "r_12", "r_23", "inj_to_err",
    "no_tool_share", "correction_rate",
]


def as_float(s: pd.Series) -> np.ndarray:
    """Nullable boolean/number column → float array with NaN for missing."""
    if s.dtype == object:
        s = s.where(s.notna(), None).astype("boolean")
    return np.asarray(pd.Series(s).astype("Float64").to_numpy(dtype=float, na_value=np.nan))


def is_injected(condition: pd.Series) -> pd.Series:
    return condition.astype(str).str.startswith("p2:")


def injected_traces(stages: pd.DataFrame, conditions: Sequence[str] | None = None
                    ) -> tuple[pd.DataFrame, list[str]]:
    """The P2 traces outside interceptor experiments used for propagation, and their conditions.

    Default: the paper's protocol `p2:semantic_wrong` when present, otherwise every P2
    condition. Pass `conditions` to choose.
    """
    if stages.empty:
        return stages, []
    base = stages[(stages["arm"].fillna("") == "") & is_injected(stages["condition"])]
    if conditions is None:
        present = sorted(base["condition"].astype(str).unique())
        head = f"p2:{HEADLINE_ERROR_TYPE}"
        conditions = [head] if head in present else present
    return base[base["condition"].isin(list(conditions))], list(conditions)


def _clusters(d: pd.DataFrame) -> np.ndarray | None:
    """Cluster by task when several traces share a task (seeds, pooled models)."""
    tasks = d["task_id"].astype(str)
    return tasks.to_numpy() if tasks.duplicated().any() else None


def _usable(d: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    err = d["error"].fillna(False).astype(bool) if "error" in d else pd.Series(False, d.index)
    s1_known = d["S1"].notna()
    ok = d[~err & s1_known]
    return ok, int(err.sum()), int((~err & ~s1_known).sum())


RATE_NAMES = {"no_tool": "no_tool_share", "corrected": "correction_rate"}
"""stages.propagation_rates names → the names of our tables (the rest are kept)."""
UNREPORTED = {"noticed_share",  # P(noticed) with no S2 condition: the false-alarm rate's
               # estimator on baseline traces (reported as `noticed_false_alarm`)
               # calls that did not arrive: over every trace in the `tool_calls` section
               # (analysis/_delivery.py), not a propagation rate
               "leaked_call", "unknown_tool", "bad_arguments", "undelivered_call"}


def _group_rows(d: pd.DataFrame, rates: pd.Series, keys: dict[str, Any], key: str,
                n_resamples: int, seed: int, mix: LabelMix | None,
                cal_note: str, memo: CalibratedMemo | None = None) -> list[dict[str, Any]]:
    """Tidy rows of one group: the rates of `propagation_rates` (p_S3 and the tool-call
    conditioned p_S1 included) and, with the label mix, the human-calibrated r_23 /
    inj_to_err."""
    rows = [row(keys, key, name, int(rates[name]), int(rates[name]))
            for name in ("n", "n_error", "n_S1", "n_S2", "n_tasks")]
    for name, _, _ in RATES:
        if name in UNREPORTED:
            continue
        rows.append(row(keys, key, RATE_NAMES.get(name, name),
                        Estimate(float(rates[name]), int(rates[f"{name}_n"]),
                                 float(rates[f"{name}_lo"]), float(rates[f"{name}_hi"])),
                        note=str(rates.get(f"{name}_note") or "")))
    ok, _, n_unknown = _usable(d)
    rows.append(row(keys, key, "n_no_stage_info", n_unknown, n_unknown))
    if mix is None:
        return rows
    for metric, given in (("r_23", "S2"), ("inj_to_err", "S1")):
        for method, est in calibrated(ok, "S3", given, mix, metric, key, n_resamples=n_resamples,
                                      seed=seed, memo=memo).items():
            rows.append(row(keys, key, f"{metric}_cal_{method}", est, note=cal_note))
    return rows


CalibratedMemo = dict[tuple[Any, ...], dict[str, tuple[float, npt.NDArray[np.float64]]]]
"""`calibrated`'s results by everything they depend on. The propagation table and the
corrected-rates table both calibrate r_23 and inj_to_err per group, on the same traces in
the same order and the same stream; with one memo per analysis (`AnalysisContext`) the
second reads the first's instead of drawing its weight matrix again."""


def _fingerprint(*arrays: npt.NDArray[Any]) -> str:
    """A digest of arrays' dtypes, shapes and bytes: equal inputs, equal digests."""
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        c = np.ascontiguousarray(a)
        h.update(f"{c.dtype.str}{c.shape}".encode())
        h.update(c.tobytes())
    return h.hexdigest()


def calibrated(ok: pd.DataFrame, event: str, given: str | None, mix: LabelMix, metric: str,
               group: str, *, n_resamples: int = N_RESAMPLES, seed: int = SEED,
               memo: CalibratedMemo | None = None) -> dict[str, Estimate]:
    """P(event | given) over the traces `ok` (those with the event unknown left out),
    corrected by the label mix each way (`METHODS`), with one bootstrap of the rate's
    traces and the labelled ones together; the stream is (seed, metric, group), so the
    propagation table and the corrected-rates table print the same numbers. With `memo`,
    a result is computed once per distinct input (its key holds every input: the stream,
    the traces, their tasks and rate columns, and the mix)."""
    e = as_float(ok[event]) if event in ok else np.full(len(ok), np.nan)
    c = np.ones(len(ok)) if given is None else as_float(ok[given])
    known = ~np.isnan(c) & (c > 0) & ~np.isnan(e)
    num, den = np.where(known, e, 0.0), known.astype(float)
    ids = np.asarray(ok["trace_id"].astype(str).to_numpy(), dtype=str)
    tasks = np.asarray(ok["task_id"].astype(str).to_numpy(), dtype=str)
    key = (metric, group, seed, n_resamples,
           _fingerprint(ids, tasks, num, den, mix.trace_ids, mix.tasks, mix.judge_event,
                        mix.human_event)) if memo is not None else None
    fixed = memo.get(key) if memo is not None and key is not None else None
    if fixed is None:
        (fixed,) = mix_corrections([MixItem(num, den)], ids, tasks, mix,
                                   n_resamples=n_resamples,
                                   rng=group_rng(seed, "calibrated", metric, group))
        if memo is not None and key is not None:
            memo[key] = fixed
    n = round(float(den.sum()))
    return {m: estimate_from_reps(v, n, r) if n else Estimate(math.nan, 0)
            for m, (v, r) in fixed.items()}


def propagation_table(
    stages: pd.DataFrame,
    *,
    by: str = "model",
    conditions: Sequence[str] | None = None,
    mix: LabelMix | None = None,
    calibration_note: str = "",
    pooled: bool = True,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
    memo: CalibratedMemo | None = None,
    weight_memo: WeightMemo | None = None,
) -> pd.DataFrame:
    """Per-`by` (and pooled, key "") propagation: the rates of `stages.propagation_rates`
    (p_S1 = P(S1 | opportunity), p_S2, r_12, r_23, inj_to_err = P(S3 | S1), no_tool_share,
    correction_rate, counts) plus p_S3 and p_S1_given_tool_call.

    With the label `mix` (human labels of the primary judge) adds r_23 and inj_to_err
    calibrated both ways (`*_cal_paper`, `*_cal_rogan_gladen`) with joint-bootstrap CIs.
    `memo` and `weight_memo` keep the calibrations and each group's task bootstrap for the
    corrected rates (`AnalysisContext`).
    """
    d, _ = injected_traces(stages, conditions)
    rows: list[dict[str, Any]] = []
    if d.empty:
        return frame(rows, [by])
    rows = _table_rows(d, [by], n_resamples, seed, mix, calibration_note, pooled, memo,
                       weight_memo)
    rows += false_alarm_rows(stages, d, by, pooled=pooled, n_resamples=n_resamples, seed=seed)
    return frame(rows, [by])


def _table_rows(d: pd.DataFrame, by: list[str], n_resamples: int, seed: int,
                mix: LabelMix | None, cal_note: str,
                pooled: bool, memo: CalibratedMemo | None = None,
                weight_memo: WeightMemo | None = None) -> list[dict[str, Any]]:
    known = d[d["S1"].notna() | d["error"].astype(bool)]
    rows: list[dict[str, Any]] = []
    groups = [(d, known)]
    if pooled:
        groups.append((d.assign(**dict.fromkeys(by, POOLED)),
                       known.assign(**dict.fromkeys(by, POOLED))))
    for full, kn in groups:
        if kn.empty:
            continue
        per = propagation_rates(kn, by=by, rng_seed=seed, n_boot=n_resamples,
                                memo=weight_memo)
        for _, rates in per.iterrows():
            vals = [rates[b] for b in by]
            mask = np.logical_and.reduce([full[b] == v for b, v in zip(by, vals, strict=True)])
            key = "|".join(str(v) for v in vals)
            rows += _group_rows(full[mask], rates, dict(zip(by, vals, strict=True)), key,
                                n_resamples, seed, mix, cal_note, memo)
    return rows


def baseline_traces(stages: pd.DataFrame) -> pd.DataFrame:
    """Baseline traces outside interceptor experiments, status ok."""
    return stages[(stages["arm"].fillna("") == "") & (stages["condition"] == "baseline")
                  & ~stages["error"].fillna(False).astype(bool)]


def false_alarm_rows(stages: pd.DataFrame, injected: pd.DataFrame, by: str, *,
                     pooled: bool = True, n_resamples: int = N_RESAMPLES,
                     seed: int = SEED) -> list[dict[str, Any]]:
    """`noticed_false_alarm`: P(noticed) on baseline traces that made a tool call (the
    detector's base rate: hedging or re-querying with nothing wrong), and `noticed_delta`:
    P(noticed | S2) on injected traces minus the false-alarm rate, on the tasks that have
    both (task means, paired bootstrap over tasks)."""
    base = baseline_traces(stages)
    inj = injected[~injected["error"].fillna(False).astype(bool)
                   & injected["S2"].fillna(False).astype(bool)]
    groups = sorted(set(base[by].unique()) | set(inj[by].unique()))
    parts = [(str(g), base[base[by] == g], inj[inj[by] == g]) for g in groups]
    if pooled:
        parts.append((POOLED, base, inj))
    rows: list[dict[str, Any]] = []
    for key, b, i in parts:
        keys = {by: key}
        unseen = unobservable_note(b)
        b = b[b["noticed"].notna()]
        fa = as_float(b["noticed"])
        est = (Resampler(fa, clusters=b["task_id"].astype(str).to_numpy(),
                         n_resamples=n_resamples,
                         rng=group_rng(seed, key, "noticed_false_alarm")).ratio(fa)
               if len(b) else Estimate(math.nan, 0))
        rows.append(row(keys, key, "noticed_false_alarm", est,
                        note="" if len(b) else unseen))
        delta = _paired_delta(i, b, "noticed", n_resamples,
                              group_rng(seed, key, "noticed_delta"))
        why = "" if delta.n else (unseen or unobservable_note(i))
        rows.append(row(keys, key, "noticed_delta", delta,
                        note=why or "injected (S2) − baseline, on matched model × task"))
    return rows


def _paired_delta(treated: pd.DataFrame, base: pd.DataFrame, col: str, n_resamples: int,
                  rng: np.random.Generator) -> Estimate:
    """Mean over matched (model, task) of mean(col | treated) − mean(col | base), with a
    bootstrap over tasks."""
    def means(d: pd.DataFrame) -> pd.Series:
        d = d[d[col].notna()]
        return pd.Series(as_float(d[col]), index=pd.MultiIndex.from_arrays(
            [d["model"].astype(str), d["task_id"].astype(str)])).groupby(level=[0, 1]).mean()

    t, b = means(treated), means(base)
    common = t.index.intersection(b.index)
    if not len(common):
        return Estimate(math.nan, 0)
    diff = t.loc[common].to_numpy() - b.loc[common].to_numpy()
    tasks = common.get_level_values(1).to_numpy()
    return Resampler(diff, clusters=tasks, n_resamples=n_resamples,
                     rng=rng).ratio(diff, difference=True)


def propagation_by_type(
    stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> pd.DataFrame:
    """Propagation per (model, error type) over every P2 condition; key "MODEL|TYPE"."""
    conds = sorted(stages["condition"].astype(str).unique()) if not stages.empty else []
    d, _ = injected_traces(stages, conds)
    by = ["model", "error_type"]
    rows = [] if d.empty else _table_rows(d, by, n_resamples, seed, None, "", False)
    return frame(rows, by)


def fault_class_table(
    stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES, seed: int = SEED
) -> pd.DataFrame:
    """Every injected condition side by side, per (model, condition); key "MODEL|COND":
    P2 at each call position and `p2:multi=K`, corrupted output (`out:*`) and tool
    failures (`fault:*`), with their S2 reach, r_23, noticing, correction (a retry, after a
    failure), abstention and `fabricated` (the headline under `fault:*`)."""
    if stages.empty:
        return frame([], ["model", "condition"])
    d = stages[(stages["arm"].fillna("") == "") & (stages["condition"] != "baseline")]
    by = ["model", "condition"]
    rows = [] if d.empty else _table_rows(d, by, n_resamples, seed, None, "", False)
    return frame(rows, by)


def rejection_recovery(
    propagation: pd.DataFrame, *, by: str = "model", n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """Per model: the paper's rejection (1 − p_S1) and recovery (1 − r_23), and ours.

    The paper's rejection is what its release measured (the share of injections that never
    executed); in our own runs the runtime applies every corruption, so it is 0 by
    construction and ours is `noticed` = P(noticed | S2): the agent saw the problem after
    it reached the observation. Also kept apart: no-tool share (never counted as rejection),
    rejection among traces that called a tool (`rejection_given_tool_call`), correction
    rate. Spearman ρ across models (key "") for the paper's pair (`spearman_rho`,
    `spearman_p`) and ours (noticed vs recovery: `spearman_rho_ours`, `spearman_p_ours`).
    Models with an undefined value are listed with NaN and left out of the correlation.
    """
    rows: list[dict[str, Any]] = []
    per = propagation[propagation["key"] != POOLED]
    # models with propagation rates: one with clean traces only has just its false-alarm
    # rows (noticed_false_alarm, noticed_delta), and no rejection or recovery
    models = sorted(per.loc[per["metric"] == "p_S1", "key"].unique())
    rej: list[float] = []
    rec: list[float] = []
    noticed: list[float] = []

    def get(m: str, metric: str) -> pd.Series:
        return per[(per["key"] == m) & (per["metric"] == metric)].iloc[0]

    for m in models:
        p1, r23 = get(m, "p_S1"), get(m, "r_23")
        nt, cr = get(m, "no_tool_share"), get(m, "correction_rate")
        pt = get(m, "p_S1_given_tool_call")
        nc = get(m, "noticed")
        n_s2 = int(get(m, "n_S2")["value"])
        keys = {by: m}
        rows.append(row(keys, m, "rejection", Estimate(1 - p1.value, int(p1.n),
                                                       1 - p1.ci_hi, 1 - p1.ci_lo)))
        rows.append(row(keys, m, "recovery", Estimate(1 - r23.value, int(r23.n),
                                                      1 - r23.ci_hi, 1 - r23.ci_lo)))
        rows.append(row(keys, m, "no_tool_share", Estimate(nt.value, int(nt.n), nt.ci_lo,
                                                           nt.ci_hi)))
        rows.append(row(keys, m, "correction_rate", Estimate(cr.value, int(cr.n), cr.ci_lo,
                                                             cr.ci_hi)))
        rows.append(row(keys, m, "rejection_given_tool_call",
                        Estimate(1 - pt.value, int(pt.n), 1 - pt.ci_hi, 1 - pt.ci_lo)))
        rows.append(row(keys, m, "noticed", Estimate(nc.value, int(nc.n), nc.ci_lo, nc.ci_hi),
                        note=str(nc["note"] or "")))
        rows.append(row(keys, m, "n_S2", n_s2, n_s2))
        rej.append(1 - p1.value)
        rec.append(1 - r23.value)
        noticed.append(nc.value)
    sp = spearman(rej, rec, n_resamples=n_resamples, rng=seed)
    rows.append(row({by: POOLED}, POOLED, "spearman_rho", Estimate(sp.rho, sp.n, sp.lo, sp.hi),
                    note=rank_note(sp.n)))
    rows.append(row({by: POOLED}, POOLED, "spearman_p", sp.p, sp.n, note=rank_note(sp.n)))
    so = spearman(noticed, rec, n_resamples=n_resamples, rng=seed)
    rows.append(row({by: POOLED}, POOLED, "spearman_rho_ours",
                    Estimate(so.rho, so.n, so.lo, so.hi), note=rank_note(so.n)))
    rows.append(row({by: POOLED}, POOLED, "spearman_p_ours", so.p, so.n, note=rank_note(so.n)))
    return frame(rows, [by])


def baseline_vs_p2(
    stages: pd.DataFrame,
    *,
    conditions: Sequence[str] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """Correctness (not S3 under the primary judge) of baseline vs injected P2 traces.

    - paper's definition: `baseline_correct` over all baseline traces of the model vs
      `p2_injected_correct` over its P2 traces with S1 (and `p2_all_correct` over all);
    - ours: `matched_*` on the tasks that have both a baseline trace and an S1 P2 trace,
      and `matched_delta` (P2 − baseline) with a paired bootstrap clustered by task.
    """
    rows: list[dict[str, Any]] = []
    if stages.empty:
        return frame(rows, ["model"])
    base_all = stages[(stages["arm"].fillna("") == "") & (stages["condition"] == "baseline")]
    p2_all, _ = injected_traces(stages, conditions)
    models = sorted(set(base_all["model"].unique()) | set(p2_all["model"].unique()))
    for m in models:
        keys = {"model": m}
        rng = group_rng(seed, m)
        b = base_all[base_all["model"] == m]
        p = p2_all[p2_all["model"] == m]
        b = b[~b["error"].fillna(False).astype(bool)]
        p = p[~p["error"].fillna(False).astype(bool)]
        b_ok = 1 - as_float(b["S3"])
        p_ok = 1 - as_float(p["S3"])
        p_s1 = as_float(p["S1"]) == 1
        # clustered by task when a task has several traces (seeds), as everywhere (§8)
        est = Resampler(b_ok, clusters=_clusters(b), n_resamples=n_resamples,
                        rng=rng).ratio(b_ok) if len(b) else Estimate(math.nan, 0)
        rows.append(row(keys, m, "baseline_correct", est))
        rows.append(row(keys, m, "p2_all_correct",
                        Resampler(p_ok, clusters=_clusters(p), n_resamples=n_resamples,
                                  rng=rng).ratio(p_ok)
                        if len(p) else Estimate(math.nan, 0)))
        inj = p_ok[p_s1]
        rows.append(row(keys, m, "p2_injected_correct",
                        Resampler(inj, clusters=_clusters(p[p_s1]), n_resamples=n_resamples,
                                  rng=rng).ratio(inj)
                        if inj.size else Estimate(math.nan, 0)))
        # ours: task-matched, paired by task (task means when a task has several traces)
        bt = pd.DataFrame({"task": b["task_id"].to_numpy(), "ok": b_ok}).dropna()
        pt = pd.DataFrame({"task": p["task_id"].to_numpy()[p_s1], "ok": inj}).dropna()
        bm = bt.groupby("task")["ok"].mean()
        pm = pt.groupby("task")["ok"].mean()
        common = sorted(set(bm.index) & set(pm.index))
        if common:
            bv, pv = bm.loc[common].to_numpy(), pm.loc[common].to_numpy()
            rs = Resampler(np.arange(len(common)), clusters=np.array(common),
                           n_resamples=n_resamples, rng=rng)
            rows.append(row(keys, m, "matched_baseline_correct", rs.ratio(bv)))
            rows.append(row(keys, m, "matched_p2_injected_correct", rs.ratio(pv)))
            rows.append(row(keys, m, "matched_delta", rs.ratio(pv - bv, difference=True)))
        else:
            for metric in ("matched_baseline_correct", "matched_p2_injected_correct",
                           "matched_delta"):
                rows.append(row(keys, m, metric, Estimate(math.nan, 0)))
    return frame(rows, ["model"])


def stopping_table(
    stages: pd.DataFrame,
    *,
    conditions: Sequence[str] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """Where the error stops: the share of each `stopped_at` outcome (agentprop.analysis.
    outcomes) among injected traces, with CIs resampling tasks (all outcomes of a group
    share one weight matrix, so the shares' CIs are joint).

    Key MODEL (and "" pooled) over the propagation conditions; key MODEL|ERROR_TYPE over
    every injected condition. Metrics: `n` (traces with an outcome), `n_undecided`
    (injected traces whose outcome cannot be told, e.g. unjudged answers), and one share per
    outcome name.
    """
    rows: list[dict[str, Any]] = []
    if stages.empty:
        return frame(rows, ["model"])
    head, _ = injected_traces(stages, conditions)
    conds = sorted(stages["condition"].astype(str).unique())
    every, _ = injected_traces(stages, conds)
    groups: list[tuple[str, pd.DataFrame]] = [
        (str(m), g) for m, g in head.groupby("model", sort=True)]
    if len(head):
        groups.append((POOLED, head))
    groups += [(f"{m}|{t}", g) for (m, t), g in every.groupby(["model", "error_type"],
                                                               sort=True)]
    for key, g in groups:
        rows += _stopping_rows(g, key, n_resamples, seed)
    return frame(rows, ["model"])


def _stopping_rows(g: pd.DataFrame, key: str, n_resamples: int,
                   seed: int) -> list[dict[str, Any]]:
    g = g[~g["error"].fillna(False).astype(bool)]
    decided = g[g["stopped_at"].notna()]
    keys = {"model": key.split("|")[0]}
    n, undecided = len(decided), len(g) - len(decided)
    rows = [row(keys, key, "n", n, n), row(keys, key, "n_undecided", undecided, undecided)]
    outcome = decided["stopped_at"].to_numpy(dtype=object)
    rs = Resampler(np.arange(n), clusters=decided["task_id"].astype(str).to_numpy(),
                   n_resamples=n_resamples, rng=group_rng(seed, "stopping", key))
    shares = rs.ratios([((outcome == name).astype(float), None) for name in OUTCOME_NAMES])
    # where noticing cannot be observed (no model turns), the outcomes that read it are
    # undefined for the group, not shares of the traces that happen to be decided
    unseen = unobservable_note(g, as_float(g["S2"]))
    rows += [row(keys, key, name, Estimate(math.nan, int(np.nansum(as_float(g["S2"]))))
                 if unseen and name in NOTICING_OUTCOMES else est,
                 note=unseen if name in NOTICING_OUTCOMES else "")
             for name, est in zip(OUTCOME_NAMES, shares, strict=True)]
    return rows
