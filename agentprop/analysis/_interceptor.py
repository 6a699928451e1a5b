"""Interceptor A/B (control vs treatment arms, paired by task) and the threshold sweep.

Outcomes per trace are three: correct, hallucination (wrong and not abstained), abstained.
Pairs are (run, model, task, condition, seed) present in both arms with both outcomes judged;
unjudged traces (S3 missing) drop their pair. Δ is treatment − control with a paired
bootstrap clustered by task.
"""

from __future__ import annotations

import math
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
    make_rng,
    mcnemar_test,
    two_proportion_z,
)
from agentprop.analysis._tidy import frame, row

PAIR_ON = ["run_id", "model", "task_id", "condition", "seed"]  # arms pair within a run
ARMS = ("control", "treatment")


def _outcomes(d: pd.DataFrame) -> pd.DataFrame:
    wrong = as_float(d["S3"])
    abst = as_float(d["abstained"].astype("boolean")) if "abstained" in d else np.zeros(len(d))
    abst = np.nan_to_num(abst)
    out = d[PAIR_ON].copy()
    out["hallucination"] = np.where(np.isnan(wrong), np.nan, wrong * (1 - abst))
    out["correct"] = np.where(np.isnan(wrong), np.nan, (1 - wrong) * (1 - abst))
    out["abstained"] = np.where(np.isnan(wrong), np.nan, abst)
    return out


def _ab_rows(g: pd.DataFrame, keys: dict[str, Any], m: str, rng: np.random.Generator,
             n_resamples: int) -> list[dict[str, Any]]:
    """The A/B rows of one group of traces (a model, or a model under one condition)."""
    rows: list[dict[str, Any]] = []
    c = _outcomes(g[g["arm"] == "control"]).dropna()
    t = _outcomes(g[g["arm"] == "treatment"]).dropna()
    c = c.drop_duplicates(PAIR_ON)
    t = t.drop_duplicates(PAIR_ON)
    p = c.merge(t, on=PAIR_ON, suffixes=("_c", "_t"))
    n = len(p)
    rows.append(row(keys, m, "n_pairs", n, n))
    rs = Resampler(np.arange(n), clusters=p["task_id"].astype(str).to_numpy() if n
                   else None, n_resamples=n_resamples, rng=rng)
    for arm, suf in (("control", "_c"), ("treatment", "_t")):
        h, cor, ab = (p["hallucination" + suf].to_numpy(), p["correct" + suf].to_numpy(),
                      p["abstained" + suf].to_numpy())
        rows.append(row(keys, m, f"hallucination_{arm}", rs.ratio(h)))
        rows.append(row(keys, m, f"correct_{arm}", rs.ratio(cor)))
        rows.append(row(keys, m, f"abstention_{arm}", rs.ratio(ab)))
        rows.append(row(keys, m, f"coverage_{arm}", rs.ratio(1 - ab)))
        rows.append(row(keys, m, f"selective_accuracy_{arm}", rs.ratio(cor, 1 - ab)))
    hc, ht = p["hallucination_c"].to_numpy(), p["hallucination_t"].to_numpy()
    rows.append(row(keys, m, "delta_hallucination", rs.ratio(ht - hc)))
    rows.append(row(keys, m, "delta_correct",
                    rs.ratio(p["correct_t"].to_numpy() - p["correct_c"].to_numpy())))
    saved = int(((hc == 1) & (ht == 0)).sum())
    broken = int(((hc == 0) & (ht == 1)).sum())
    rows.append(row(keys, m, "saved", saved, n))
    rows.append(row(keys, m, "broken", broken, n))
    mc = mcnemar_test(saved, broken)
    rows.append(row(keys, m, "mcnemar_p", mc.p_exact, saved + broken))
    rows.append(row(keys, m, "mcnemar_midp", mc.p_midp, saved + broken))
    x_c, x_t = int(hc.sum()), int(ht.sum())
    _, zp = two_proportion_z(x_c, n, x_t, n)
    rows.append(row(keys, m, "ztest_p", zp, n,
                    note="unpaired two-proportion z test (paper-compatible)"))
    eff = cohens_h(x_c / n, x_t / n) if n else math.nan
    rows.append(row(keys, m, "cohens_h", eff, n))
    rows.append(row(keys, m, "power", achieved_power(eff, n, n), n))
    return rows


def interceptor_ab(stages: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                   seed: int = SEED) -> pd.DataFrame:
    """Per model: rates per arm, Δ with paired CI, saved/broken, McNemar, z test, h, power.

    Key = model (all conditions pooled); a model evaluated under several conditions also
    gets rows keyed ``model|condition``, since an interceptor can help against one error
    type and not another.

    Metrics (key = model): `hallucination_control`, `hallucination_treatment`,
    `correct_*`, `abstention_*`, `coverage_*` (1 − abstention), `selective_accuracy_*`
    (correct among answered), `delta_hallucination`, `delta_correct`, `saved` (control
    hallucinated, treatment did not), `broken` (the reverse), `n_pairs`, `mcnemar_p`
    (exact), `mcnemar_midp`, `ztest_p`, `cohens_h`, `power`.
    """
    rng = make_rng(seed)
    rows: list[dict[str, Any]] = []
    cols = ["model"]
    if stages.empty or "arm" not in stages:
        return frame(rows, cols)
    d = stages[stages["arm"].isin(ARMS)]
    if "error" in d:
        d = d[~d["error"].fillna(False).astype(bool)]
    for model, g in d.groupby("model", sort=True):
        rows += _ab_rows(g, {"model": model}, str(model), rng, n_resamples)
        conditions = sorted(g["condition"].dropna().unique())
        if len(conditions) > 1:  # pooled above; each condition on its own too
            for cond in conditions:
                rows += _ab_rows(g[g["condition"] == cond], {"model": model},
                                 f"{model}|{cond}", rng, n_resamples)
    return frame(rows, cols)


SWEEP_METRICS = ("precision", "recall", "f1", "abstention")


def sweep_table(sweep: pd.DataFrame | None) -> pd.DataFrame:
    """The interceptor threshold sweep as a tidy table (key `l1=..,l2=..,l3=on|off`).

    Accepts one row per configuration (`agentprop.intercept.sweep` output, or any frame
    with tau_l1, tau_l2, l3 and any of precision, recall, f1, abstention[_rate], n); the
    key is its `config` column when present. `best_f1` (key "") names the best config.
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
        for metric in SWEEP_METRICS:
            if metric in r:
                v = float(r[metric]) if pd.notna(r[metric]) else math.nan
                rows.append(row({"config": cfg}, cfg, metric, Estimate(v, n)))
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
