"""Interceptor A/B (control vs treatment arms, paired by task) and the threshold sweep.

The one home of the A/B statistics: `ab_statistics` is what the report and `agentprop
intercept evaluate` both compute. Outcomes per trace are three: correct, hallucination
(wrong and not abstained), abstained. Pairs are (run, model, task, condition, seed) present
in both arms with both outcomes decided; an unjudged answer (S3 missing, not abstained)
drops its pair. Δ is treatment − control with a paired bootstrap clustered by task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._propagation import as_float
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    achieved_power,
    cohens_h,
    group_rng,
    mcnemar_test,
    proportion_ci,
    two_proportion_z,
)
from agentprop.analysis._tidy import frame, row

PAIR_ON = ["run_id", "model", "task_id", "condition", "seed"]  # arms pair within a run
ARMS = ("control", "treatment")
PAIR_COLUMNS = ["task_id", "hallucination_control", "hallucination_treatment",
                "correct_control", "correct_treatment", "abstained_control",
                "abstained_treatment"]
"""The columns `ab_statistics` reads: one row per usable pair, outcomes as 0/1 floats."""


def ab_rng_key(run_ids: Any, model: str, conditions: Any) -> tuple[str, ...]:
    """The key of one A/B group's bootstrap stream: the evaluation(s), the model and the
    conditions its pairs cover. The report and `agentprop intercept evaluate` derive the
    same stream for the same pairs, so they print the same CI."""
    return ("interceptor", ",".join(sorted(map(str, set(run_ids)))), str(model),
            ",".join(sorted(map(str, set(conditions)))))


def ab_statistics(pairs: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                  rng: np.random.Generator | int | None = SEED) -> dict[str, Estimate]:
    """Every A/B statistic of one group of usable pairs (columns `PAIR_COLUMNS`).

    Rates per arm (hallucination = wrong and not abstained; correct; abstention; coverage
    = 1 − abstention; selective accuracy = correct among answered), Δ hallucination and
    Δ correct (treatment − control) with a paired bootstrap over tasks, saved (control
    hallucinated, treatment did not) and broken (the reverse), exact McNemar and mid-p on
    them, the unpaired two-proportion z test, Cohen's h and the achieved power, and false
    alarms (treatment abstained where the control answer was correct). Undefined values
    (no pairs, no discordant pairs, no variance) are NaN, never 0 or 1.
    """
    n = len(pairs)
    col = {c: pairs[c].to_numpy(dtype=float) for c in PAIR_COLUMNS[1:]}
    rs = Resampler(np.arange(n), clusters=pairs["task_id"].astype(str).to_numpy(),
                   n_resamples=n_resamples, rng=rng)
    out: dict[str, Estimate] = {"n_pairs": Estimate(n, n)}
    shares: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    for arm in ARMS:
        h, c, a = (col[f"{x}_{arm}"] for x in ("hallucination", "correct", "abstained"))
        shares.update({f"hallucination_{arm}": (h, None), f"correct_{arm}": (c, None),
                       f"abstention_{arm}": (a, None), f"coverage_{arm}": (1 - a, None),
                       f"selective_accuracy_{arm}": (c, 1 - a)})
    out.update(zip(shares, rs.ratios(list(shares.values())), strict=True))
    hc, ht = col["hallucination_control"], col["hallucination_treatment"]
    d_h, d_c = rs.ratios([(ht - hc, None),
                          (col["correct_treatment"] - col["correct_control"], None)],
                         difference=True)
    out["delta_hallucination"], out["delta_correct"] = d_h, d_c
    saved, broken = int(((hc == 1) & (ht == 0)).sum()), int(((hc == 0) & (ht == 1)).sum())
    out["saved"], out["broken"] = Estimate(saved, n), Estimate(broken, n)
    mc = mcnemar_test(saved, broken)
    out["mcnemar_p"] = Estimate(mc.p_exact, saved + broken)
    out["mcnemar_midp"] = Estimate(mc.p_midp, saved + broken)
    x_c, x_t = int(hc.sum()), int(ht.sum())
    out["ztest_p"] = Estimate(two_proportion_z(x_c, n, x_t, n)[1], n)
    effect = cohens_h(x_c / n, x_t / n) if n else math.nan
    out["cohens_h"] = Estimate(effect, n)
    out["power"] = Estimate(achieved_power(effect, n, n), n)
    ctl_ok = col["correct_control"]
    fa = ctl_ok * col["abstained_treatment"]
    out["false_alarms"] = Estimate(int(fa.sum()), int(ctl_ok.sum()))
    out["n_control_correct"] = Estimate(int(ctl_ok.sum()), n)
    out["false_alarm_rate"] = rs.ratio(fa, ctl_ok)
    return out


NOTES = {"ztest_p": "unpaired two-proportion z test (paper-compatible)"}


def _outcomes(d: pd.DataFrame) -> pd.DataFrame:
    """Per trace: hallucination / correct / abstained as 0/1 (NaN when unjudged). An
    abstention is an abstention whatever the judge said of its text."""
    wrong = as_float(d["S3"])
    abst = as_float(d["abstained"].astype("boolean")) if "abstained" in d else np.zeros(len(d))
    abst = np.nan_to_num(abst)
    known = ~np.isnan(wrong) | (abst == 1)
    w = np.nan_to_num(wrong)
    out = d[PAIR_ON].copy()
    out["hallucination"] = np.where(known, w * (1 - abst), np.nan)
    out["correct"] = np.where(known, (1 - w) * (1 - abst), np.nan)
    out["abstained"] = np.where(known, abst, np.nan)
    return out


def pairs_of(g: pd.DataFrame) -> pd.DataFrame:
    """The usable control/treatment pairs of stage rows (columns `PAIR_COLUMNS`): same
    run, model, task, condition and seed in both arms, both sides decided."""
    c = _outcomes(g[g["arm"] == "control"]).dropna().drop_duplicates(PAIR_ON)
    t = _outcomes(g[g["arm"] == "treatment"]).dropna().drop_duplicates(PAIR_ON)
    p = c.merge(t, on=PAIR_ON, suffixes=("_control", "_treatment"))
    return p[[*PAIR_ON, *PAIR_COLUMNS[1:]]]


def _ab_rows(g: pd.DataFrame, keys: dict[str, Any], key: str, seed: int,
             n_resamples: int, note: str) -> list[dict[str, Any]]:
    """The A/B rows of one group of traces (a model, or a model under one condition)."""
    p = pairs_of(g)
    rng = group_rng(seed, *ab_rng_key(g["run_id"], str(g["model"].iloc[0]), g["condition"]))
    stats = ab_statistics(p, n_resamples=n_resamples, rng=rng)
    return [row(keys, key, m, e, note=NOTES.get(m, note if m == "n_pairs" else ""))
            for m, e in stats.items()]


def interceptor_ab(stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                   seed: int = SEED,
                   evaluations: Mapping[str, str] | None = None,
                   guards: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per evaluation and model: `ab_statistics` of the paired arms.

    An evaluation is one run with interceptor arms (one configuration). With one
    evaluation in the workspace the key is the model (all its conditions pooled) and
    ``model|condition`` per condition when there are several, since an interceptor can
    help against one error type and not another. With several evaluations (say abstain
    and warn mode) each is keyed on its own, ``model@run_id`` (and
    ``model@run_id|condition``): they are never pooled. `evaluations` maps a run id to a
    description of its configuration, noted on its `n_pairs` row. The runs of `guards`
    (run id → guard) are other guards' evaluations: `guard_matrix` has them.
    """
    rows: list[dict[str, Any]] = []
    cols = ["model", "evaluation"]
    if stages.empty or "arm" not in stages:
        return frame(rows, cols)
    d = _paired_arms(stages)
    if guards:
        d = d[~d["run_id"].astype(str).isin(set(guards))]
    several = d["run_id"].nunique() > 1
    for (run, model), g in d.groupby(["run_id", "model"], sort=True):
        base = f"{model}@{run}" if several else str(model)
        keys = {"model": model, "evaluation": run}
        note = (f"evaluation {run}: {evaluations[str(run)]}"
                if evaluations and str(run) in evaluations else f"evaluation {run}")
        rows += _ab_rows(g, keys, base, seed, n_resamples, note)
        conditions = sorted(g["condition"].dropna().unique())
        if len(conditions) > 1:  # pooled above; each condition on its own too
            for cond in conditions:
                rows += _ab_rows(g[g["condition"] == cond], keys, f"{base}|{cond}", seed,
                                 n_resamples, note)
    return frame(rows, cols)


def _paired_arms(stages: pd.DataFrame) -> pd.DataFrame:
    """The traces of evaluation arms that did not fail."""
    d = stages[stages["arm"].isin(ARMS)]
    if "error" in d:
        d = d[~d["error"].fillna(False).astype(bool)]
    return d


def guard_matrix(stages: pd.DataFrame, guards: Mapping[str, str] | None, *,
                 n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """The mitigation × fault-class matrix: per guard evaluation (`guards`: run id →
    guard, `intercept evaluate --guard`, `intercept matrix`), per model and condition, the
    `ab_statistics` of its paired arms (Δ hallucination with a paired bootstrap over tasks,
    saved, broken, McNemar, false alarms). Its `baseline` cells are the guard's cost on
    clean runs: nothing was wrong there, so every abstention is a false alarm and every
    broken pair a harm. Key ``guard|condition`` (``guard@model|condition`` with several
    models); a guard evaluated twice is keyed by run (``guard@run_id|...``)."""
    cols = ["guard", "model", "condition"]
    rows: list[dict[str, Any]] = []
    if stages.empty or "arm" not in stages or not guards:
        return frame(rows, cols)
    d = _paired_arms(stages)
    d = d[d["run_id"].astype(str).isin(set(guards))]
    if d.empty:
        return frame(rows, cols)
    several_models = d["model"].nunique() > 1
    runs_of = pd.Series(guards).loc[sorted(set(d["run_id"].astype(str)))]
    twice = set(runs_of[runs_of.duplicated(keep=False)].values)
    order = {run: i for i, run in enumerate(guards)}  # the order the guards were run in
    groups = sorted(d.groupby(["run_id", "model", "condition"], sort=True),
                    key=lambda kv: order[str(kv[0][0])])
    for (run, model, cond), g in groups:
        name = guards[str(run)]
        base = f"{name}@{run}" if name in twice else name
        base = f"{base}@{model}" if several_models else base
        keys = {"guard": name, "model": model, "condition": cond}
        rows += _ab_rows(g, keys, f"{base}|{cond}", seed, n_resamples,
                         f"guard {name}, run {run}")
    return frame(rows, cols)


SWEEP_METRICS = ("precision", "recall", "f1", "abstention")


def sweep_table(sweep: pd.DataFrame | None) -> pd.DataFrame:
    """The interceptor threshold sweep as a tidy table (key `l1=..,l2=..,l3=on|off`).

    Accepts one row per configuration (`agentprop.intercept.sweep` output, or any frame
    with tau_l1, tau_l2, l3 and any of precision, recall, f1, abstention[_rate], n); the
    key is its `config` column when present. `best_f1` (key "") names the best config. A
    configuration whose `same_as` says it flags the same traces as an earlier one carries
    that sentence as its note.
    """
    rows: list[dict[str, Any]] = []
    cols = ["config"]
    if sweep is None or sweep.empty:
        return frame(rows, cols)
    best: tuple[float, float, str] = (-math.inf, -math.inf, "")
    chosen = ""
    for _, r in sweep.iterrows():
        l3 = r.get("l3", "")
        l3s = ("on" if l3 else "off") if isinstance(l3, bool | np.bool_) else str(l3)
        cfg = str(r["config"]) if "config" in r and pd.notna(r["config"]) else \
            f"l1={r.get('tau_l1', '')},l2={r.get('tau_l2', '')},l3={l3s}"
        if "abstention" not in r and "abstention_rate" in r:
            r = r.rename({"abstention_rate": "abstention"})
        n = int(r["n"]) if "n" in r and pd.notna(r["n"]) else 0
        # a configuration that flags the same traces as an earlier one says so, and why
        same = str(r["same_as"]) if "same_as" in r and pd.notna(r["same_as"]) else ""
        for metric in SWEEP_METRICS:
            if metric in r:
                v = float(r[metric]) if pd.notna(r[metric]) else math.nan
                rows.append(row({"config": cfg}, cfg, metric, Estimate(v, n), note=same))
        f1 = float(r["f1"]) if "f1" in r and pd.notna(r["f1"]) else -math.inf
        ab = float(r["abstention"]) if "abstention" in r and pd.notna(r["abstention"]) \
            else math.inf
        if (f1, -ab) > best[:2]:  # the interceptor's rule: best F1, ties → fewer abstentions
            best = (f1, -ab, cfg)
        if "best" in r and pd.notna(r["best"]) and bool(r["best"]):  # the sweep's own pick
            chosen = cfg
    if chosen or best[2]:
        pick = chosen or best[2]
        f1_of = {x["key"]: x["value"] for x in rows if x["metric"] == "f1"}
        rows.append(row({"config": ""}, "", "best_f1", f1_of.get(pick, best[0]), 0, note=pick))
    return frame(rows, cols)


def interceptor_layers(hits: pd.DataFrame | None, *, n_resamples: int = N_RESAMPLES,
                       seed: int = SEED) -> pd.DataFrame:
    """Which interceptor layer catches which fault class (key: the condition): the share
    of applied corruptions on which L1, L2, L3 or any layer fires, and `caught_wrong` =
    the share of wrong answers any layer catches; CIs resample tasks. `hits` is
    `agentprop.intercept.layer_hits` (an offline replay of stored traces)."""
    rows: list[dict[str, Any]] = []
    if hits is None or hits.empty:
        return frame(rows, ["condition"])
    for cond, g in hits.groupby("condition", sort=True):
        keys = {"condition": cond}
        tasks = g["task_id"].astype(str).to_numpy()
        cols = {k: g[k].astype(bool).to_numpy() for k in ("L1", "L2", "L3")}
        cols["any"] = cols["L1"] | cols["L2"] | cols["L3"]
        for metric, x in cols.items():
            rows.append(row(keys, str(cond), metric, proportion_ci(
                x.astype(float), clusters=tasks, n_resamples=n_resamples,
                rng=group_rng(seed, str(cond), metric))))
        wrong = g["wrong"].astype("boolean").fillna(False).to_numpy(dtype=bool)
        rows.append(row(keys, str(cond), "caught_wrong", proportion_ci(
            cols["any"][wrong].astype(float), clusters=tasks[wrong],
            n_resamples=n_resamples, rng=group_rng(seed, str(cond), "caught_wrong"))))
    return frame(rows, ["condition"])
