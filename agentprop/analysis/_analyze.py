"""Run every analysis on one input and flatten the results into the numbers manifest."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from agentprop.analysis._calibration import Calibrator, stratum_note
from agentprop.analysis._interceptor import interceptor_ab, interceptor_layers, sweep_table
from agentprop.analysis._judges import (
    calibration_pairs,
    calibration_table,
    human_consensus,
    judge_agreement,
)
from agentprop.analysis._propagation import (
    baseline_vs_p2,
    fault_class_table,
    injected_traces,
    propagation_by_type,
    propagation_table,
    rejection_recovery,
    stopping_table,
)
from agentprop.analysis._replication import cross_domain
from agentprop.analysis._stats import N_RESAMPLES, SEED
from agentprop.analysis.frames import AnalysisInput

SECTIONS = (
    "propagation", "stopping", "propagation_by_type", "fault_classes", "rejection_recovery",
    "baseline_vs_p2", "interceptor", "interceptor_sweep", "interceptor_layers", "judges",
    "calibration", "replication",
)
FACTS = "facts"


@dataclass
class AnalysisResult:
    """Tidy tables by section, plus the facts a reader needs to interpret them."""

    tables: dict[str, pd.DataFrame]
    info: dict[str, Any] = field(default_factory=dict)


def analyze(inp: AnalysisInput, *, n_resamples: int = N_RESAMPLES,
            seed: int = SEED) -> AnalysisResult:
    """All the paper's analyses (each with its own Generator seeded `seed`)."""
    st = inp.stages
    judge = inp.primary_judge
    has_labels = not inp.labels.empty and len(human_consensus(inp.labels)) > 0
    _, conditions = injected_traces(st)
    calibrator = None
    cal_note = ""
    cal_tab = None
    if has_labels and not inp.verdicts.empty:
        cells = calibration_pairs(inp.verdicts, inp.labels, judge)
        if cells.n:
            labelled = set(human_consensus(inp.labels).index)
            known = st[st["trace_id"].isin(labelled)]
            strata = set(known["condition"].astype(str))
            if len(known) < len(labelled):
                strata.add("traces not in this workspace")
            cal_note = stratum_note(strata, set(conditions))
            calibrator = Calibrator(cells, n_resamples=n_resamples, rng=seed)
            cal_tab = calibration_table(cells, judge, n_resamples=n_resamples, seed=seed,
                                        note=cal_note)
    prop = propagation_table(st, conditions=conditions, calibrator=calibrator,
                             calibration_note=cal_note, n_resamples=n_resamples, seed=seed)
    judges_present = set(inp.verdicts["judge"]) if not inp.verdicts.empty else set()
    reference = FACTS if FACTS in judges_present else None
    tables = {
        "propagation": prop,
        "stopping": stopping_table(st, conditions=conditions, n_resamples=n_resamples,
                                   seed=seed),
        "propagation_by_type": propagation_by_type(st, n_resamples=n_resamples, seed=seed),
        "fault_classes": fault_class_table(st, n_resamples=n_resamples, seed=seed),
        "rejection_recovery": rejection_recovery(prop, n_resamples=n_resamples, seed=seed),
        "baseline_vs_p2": baseline_vs_p2(st, conditions=conditions, n_resamples=n_resamples,
                                         seed=seed),
        "interceptor": interceptor_ab(st, n_resamples=n_resamples, seed=seed,
                                      evaluations=inp.meta.get("interceptor_evaluations")),
        "interceptor_sweep": sweep_table(inp.sweep),
        "interceptor_layers": interceptor_layers(inp.layer_hits, n_resamples=n_resamples,
                                                 seed=seed),
        "judges": judge_agreement(inp.verdicts, inp.labels, members=inp.members,
                                  reference=reference, tasks=task_map(st),
                                  n_resamples=n_resamples, seed=seed),
        "replication": cross_domain(st, conditions=conditions, n_resamples=n_resamples,
                                    seed=seed),
    }
    if cal_tab is not None:
        tables["calibration"] = cal_tab
    constant = constant_by_construction(prop, imported=bool(inp.meta.get("imported")))
    info = {
        "primary_judge": judge,
        "propagation_conditions": conditions,
        "has_labels": has_labels,
        "agreement_reference": reference,
        "calibration_note": cal_note,
        "n_traces": len(st),
        "n_resamples": n_resamples,
        "seed": seed,
        "constant_by_construction": constant,
        "simulated_models": sorted(set(st.loc[st["simulated"].fillna(False).astype(bool),
                                              "model"])) if len(st) else [],
        **inp.meta,
    }
    return AnalysisResult(tables=tables, info=info)


CONSTANT_IN_OUR_RUNS = ("p_S1", "p_S2", "r_12")
"""Rates our runtime fixes at 1: it applies the corruption after the model proposed the call
(S1), and every corruption changes the observation (S2). The paper's release measured them."""


def constant_by_construction(propagation: pd.DataFrame, *, imported: bool) -> list[str]:
    """The rates of `CONSTANT_IN_OUR_RUNS` that are 1 for every model with a value, in a
    workspace of our own runs (never for imported data, where they were measured). A rate
    that is not 1 somewhere is shown: then it is not constant, whatever the design says."""
    if imported or propagation.empty:
        return []
    out = []
    for rate in CONSTANT_IN_OUR_RUNS:
        v = propagation.loc[propagation["metric"] == rate, "value"].dropna()
        if len(v) and bool((v == 1.0).all()):
            out.append(rate)
    return out


def task_map(stages: pd.DataFrame) -> dict[str, str]:
    """trace id → task id (judge agreement resamples tasks when traces share one)."""
    if stages.empty:
        return {}
    return dict(zip(stages["trace_id"].astype(str), stages["task_id"].astype(str),
                    strict=True))


def _num(x: Any) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None  # numbers.json is strict JSON: no NaN, no ±inf


def numbers_manifest(result: AnalysisResult) -> dict[str, dict[str, Any]]:
    """Flat names `section.metric[key]` → {"value", "n", "ci"}; NaN and ±inf become null."""
    out: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        df = result.tables.get(section)
        if df is None or df.empty:
            continue
        for r in df.to_dict("records"):
            key = str(r["key"])
            name = f"{section}.{r['metric']}" + (f"[{key}]" if key else "")
            lo, hi = _num(r["ci_lo"]), _num(r["ci_hi"])
            out[name] = {"value": _num(r["value"]), "n": int(r["n"]),
                         "ci": [lo, hi] if lo is not None and hi is not None else None}
    for r in result.info.get("simulation_check") or []:
        est = _num(r.get("estimate"))
        out[f"simulation_check.{r['metric']}[{r['model']}]"] = {
            "value": est, "n": int(r["n"]),
            "ci": [r["ci_lo"], r["ci_hi"]] if est is not None else None,
            "true": r["true"], "covered": bool(r["covered"]),
        }
    for judge, v in ((result.info.get("judge_validity") or {}).get("judges") or {}).items():
        if v.get("kappa") is not None:  # measured on the shipped validation set
            out[f"judge_validity.kappa[{judge}]"] = {
                "value": v["kappa"], "n": v["n"], "ci": [v["kappa_lo"], v["kappa_hi"]]}
    return out
