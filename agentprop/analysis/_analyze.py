"""Run the report sections' analyses on one input and flatten them into the numbers manifest.

Which sections exist is not decided here: each report section (agentprop/report/sections/)
names its pure compute function, and `run_sections` calls them on one shared
`AnalysisContext`, so what several sections need (the propagation conditions, the human
calibration, the propagation table) is computed once, on first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from agentprop.analysis._calibration import LabelMix, stratum_note
from agentprop.analysis._corrected import CorrectedInput, corrected_rates
from agentprop.analysis._judges import (
    calibration_pairs,
    calibration_table,
    human_consensus,
    label_mix,
)
from agentprop.analysis._propagation import (
    CalibratedMemo,
    injected_traces,
    propagation_table,
)
from agentprop.analysis._stats import N_RESAMPLES, SEED, WeightMemo, small_sample_note
from agentprop.analysis.frames import AnalysisInput

FACTS = "facts"


@dataclass
class AnalysisResult:
    """Tidy tables by section (in the report's reading order), plus the facts a reader needs
    to interpret them."""

    tables: dict[str, pd.DataFrame]
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Calibration:
    """The primary judge's human calibration: absent (no labels) or its label mix, the
    note on the strata the labels come from, and the calibration table."""

    mix: LabelMix | None = None
    """The labelled traces with the primary judge's verdict (what the corrections read)."""
    note: str = ""
    table: pd.DataFrame | None = None


@dataclass
class AnalysisContext:
    """One analysis input, its bootstrap settings, and the values several sections share;
    each shared value is computed once, when a section first asks for it (every analysis
    seeds its own Generator with `seed`, so the order sections run in changes no number)."""

    inp: AnalysisInput
    n_resamples: int = N_RESAMPLES
    seed: int = SEED
    calibrated_memo: CalibratedMemo = field(default_factory=dict, init=False, repr=False)
    """The calibrated r_23 and inj_to_err per group, shared by the propagation table and
    the corrected rates (`_propagation.calibrated`)."""
    weight_memo: WeightMemo = field(default_factory=dict, init=False, repr=False)
    """Each group's task bootstrap weights, drawn once for the propagation table and the
    corrected rates (the same stream; `_stats.Resampler`)."""

    @property
    def stages(self) -> pd.DataFrame:
        return self.inp.stages

    @cached_property
    def conditions(self) -> list[str]:
        """The injected conditions the propagation rates are computed over."""
        return injected_traces(self.stages)[1]

    @cached_property
    def has_labels(self) -> bool:
        labels = self.inp.labels
        return not labels.empty and len(human_consensus(labels)) > 0

    @cached_property
    def calibration(self) -> Calibration:
        inp = self.inp
        if not self.has_labels or inp.verdicts.empty:
            return Calibration()
        cells = calibration_pairs(inp.verdicts, inp.labels, inp.primary_judge)
        if not cells.n:
            return Calibration()
        labelled = set(human_consensus(inp.labels).index)
        known = self.stages[self.stages["trace_id"].isin(labelled)]
        strata = set(known["condition"].astype(str))
        if len(known) < len(labelled):
            strata.add("traces not in this workspace")
        note = "; ".join(x for x in (
            stratum_note(strata, set(self.conditions)),
            small_sample_note([cells.jc_hc, cells.jc_hw, cells.jw_hc, cells.jw_hw],
                              f"the calibration of {inp.primary_judge}")) if x)
        return Calibration(
            mix=label_mix(inp.verdicts, inp.labels, inp.primary_judge, self.tasks),
            note=note,
            table=calibration_table(cells, inp.primary_judge, n_resamples=self.n_resamples,
                                    seed=self.seed, note=note))

    @cached_property
    def propagation(self) -> pd.DataFrame:
        """The propagation table (its section, rejection vs recovery and the constant rates
        all read it)."""
        cal = self.calibration
        return propagation_table(self.stages, conditions=self.conditions,
                                 mix=cal.mix, calibration_note=cal.note,
                                 n_resamples=self.n_resamples, seed=self.seed,
                                 memo=self.calibrated_memo, weight_memo=self.weight_memo)

    @cached_property
    def all_labels(self) -> pd.DataFrame:
        """Every human label: the answers' correctness and the detectors' questions."""
        parts = [f for f in (self.inp.labels, self.inp.question_labels) if not f.empty]
        return pd.concat(parts, ignore_index=True) if parts else self.inp.labels

    @cached_property
    def corrected(self) -> pd.DataFrame | None:
        """Every rate measured through an instrument, four ways (`corrected_rates`); None
        without any human label (nothing to correct with)."""
        if self.all_labels.empty:
            return None
        cal = self.calibration
        inp = CorrectedInput(
            labels=self.all_labels, design=self.inp.label_design, conditions=self.conditions,
            mixes={"answer": cal.mix},
            validated=self.has_card, instrument_of=self.instrument_of,
            memo=self.calibrated_memo, weight_memo=self.weight_memo)
        return corrected_rates(self.stages, inp, n_resamples=self.n_resamples, seed=self.seed)

    def instrument_of(self, question: str) -> str:
        """The instrument that answers a label question in this workspace."""
        if question == "noticed" and self.inp.noticed_classifier:
            return f"noticed:{self.inp.noticed_classifier}"
        return str(self.inp.primary_judge) if question == "answer" else question

    def has_card(self, instrument: str) -> bool:
        """Whether the instrument's validity was measured (a validity card exists)."""
        validity = self.inp.judge_validity
        return (validity is not None
                and (validity.judges.get(instrument) or {}).get("kappa") is not None)

    @cached_property
    def agreement_reference(self) -> str | None:
        """The stated reference judge of judge agreement: the facts judge when it ran."""
        verdicts = self.inp.verdicts
        present = set(verdicts["judge"].unique()) if not verdicts.empty else set()
        return FACTS if FACTS in present else None

    @cached_property
    def tasks(self) -> pd.Series:
        return task_map(self.stages)


SectionCompute = Callable[[AnalysisContext], pd.DataFrame | None]
"""A section's analysis: its tidy table, or None when the section does not apply."""


def run_sections(inp: AnalysisInput, sections: Mapping[str, SectionCompute], *,
                 n_resamples: int = N_RESAMPLES, seed: int = SEED) -> AnalysisResult:
    """Every section's table (in the order given) and the facts about the input.

    BLAS runs on one thread here: the bootstrap's matrix products are thin (replicates ×
    tasks times a few columns) and memory-bound, and a second OpenBLAS thread spins on a
    busy machine (≈ 4 CPU s of 40 at 200,000 traces; the numbers are identical, compared
    with bench/compare_numbers.py)."""
    ctx = AnalysisContext(inp, n_resamples=n_resamples, seed=seed)
    tables = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, compute in sections.items():
            table = compute(ctx)
            if table is not None:
                tables[name] = table
        info = analysis_info(ctx)
    return AnalysisResult(tables=tables, info=info)


def analysis_info(ctx: AnalysisContext) -> dict[str, Any]:
    """What a reader needs to interpret the tables (the primary judge, the conditions, ...)."""
    inp, st = ctx.inp, ctx.stages
    v = inp.verdicts
    return {
        "primary_judge": inp.primary_judge,
        # verdicts the primary judge wrote: 0 means nothing is judged yet, and nothing
        # that rests on S3 can be read
        "primary_verdicts": int((v["judge"] == inp.primary_judge).sum()) if len(v) else 0,
        "propagation_conditions": ctx.conditions,
        "has_labels": ctx.has_labels,
        "agreement_reference": ctx.agreement_reference,
        "calibration_note": ctx.calibration.note,
        "n_traces": len(st),
        "n_resamples": ctx.n_resamples,
        "seed": ctx.seed,
        "unvalidated": unvalidated_instruments(ctx),
        "constant_by_construction": constant_by_construction(
            ctx.propagation, imported=bool(inp.workspace.imported)),
        "simulated_models": sorted(set(st.loc[st["simulated"].fillna(False).astype(bool),
                                              "model"].unique())) if len(st) else [],
        **inp.workspace.info(),
        **({"noticed_classifier": inp.noticed_classifier} if inp.noticed_classifier else {}),
        **risk_coverage_info(inp.sweep_guarantee),
    }


def risk_coverage_info(guarantee: Mapping[str, Any] | None) -> dict[str, Any]:
    """The risk–coverage curves of the stored Learn-then-Test guarantee (val and the
    held-out split), for the sweep section's figure; nothing without one."""
    if not guarantee:
        return {}
    curves = {}
    for part, split in (("aurc_val", str(guarantee.get("split", "val"))),
                        ("aurc_held_out", str(guarantee.get("held_out_split", "test")))):
        c = guarantee.get(part) or {}
        if c.get("coverage"):
            curves[split] = {"coverage": list(c["coverage"]), "risk": list(c["risk"]),
                             "aurc": c.get("value"), "n": c.get("n")}
    return {"risk_coverage": curves} if curves else {}


def unvalidated_instruments(ctx: AnalysisContext) -> list[str]:
    """The instruments this workspace's rates are measured through that have no validity
    card: the primary judge (S3), and the detectors when they measured something."""
    st = ctx.stages
    used = [str(ctx.inp.primary_judge)] + [
        ctx.instrument_of(d) for d in ("noticed", "fabricated")
        if d in st and st[d].notna().any()]
    return [i for i in used if not ctx.has_card(i)]


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


def task_map(stages: pd.DataFrame) -> pd.Series:
    """trace id → task id, as a Series indexed by trace id (judge agreement resamples
    tasks when traces share one; `_judges.tasks_of` looks traces up in it)."""
    if stages.empty:
        return pd.Series(dtype=object)
    return pd.Series(stages["task_id"].astype(str).to_numpy(dtype=object),
                     index=pd.Index(stages["trace_id"].astype(str).to_numpy(dtype=object)),
                     dtype=object)


def _num(x: Any) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None  # numbers.json is strict JSON: no NaN, no ±inf


def _field(x: Any) -> Any:
    """A further field of a number as strict JSON (a flag stays a flag)."""
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        return _num(x)
    return None if x is None else str(x)


def numbers_manifest(result: AnalysisResult) -> dict[str, dict[str, Any]]:
    """Flat names `section.metric[key]` → {"value", "n", "ci"}, section by section in the
    result's order; NaN and ±inf become null. An undefined value (null) with a stated
    reason carries it as "note" (e.g. `noticing.UNOBSERVABLE`). A tidy table's columns after
    `note` are further fields of each number (the simulation check's `true` and
    `covered`)."""
    out: dict[str, dict[str, Any]] = {}
    for section, df in result.tables.items():
        if df.empty:
            continue
        cols = list(df.columns)
        extra = cols[cols.index("note") + 1:] if "note" in cols else []
        for r in df.to_dict("records"):
            key = str(r["key"])
            name = f"{section}.{r['metric']}" + (f"[{key}]" if key else "")
            lo, hi = _num(r["ci_lo"]), _num(r["ci_hi"])
            value = _num(r["value"])
            why = str(r.get("note") or "") if value is None else ""
            out[name] = {"value": value, "n": int(r["n"]),
                         "ci": [lo, hi] if lo is not None and hi is not None else None,
                         **({"note": why} if why else {}),
                         **{str(c): _field(r[c]) for c in extra}}
    return out
