"""Every rate measured through an instrument, four ways: the instrument alone, the paper's
correction, Rogan–Gladen and PPI++ (the report's corrected-rates table).

The rates and the instrument each is measured through (`RATES`):

| rate | population (per model, and pooled) | instrument | human label |
|---|---|---|---|
| `p_S3` | judged injected traces | primary judge (S3) | answer |
| `r_23` | … with S2 | primary judge | answer |
| `inj_to_err` | … with S1 (P(S3 \\| S1)) | primary judge | answer |
| `noticed` | injected traces with S2 | the `noticed` detector | noticed |
| `fabricated` | injected traces where it is defined | the `fabricated` rule | fabricated |
| `hallucination_control`, `_treatment` | an arm's paired traces | primary judge | answer |
| `delta_hallucination` | treatment − control | primary judge | answer |

**Estimands.** Each ratio here conditions on an event measured from a trace's events
without error (S1, S2, the arm, whether `fabricated` is defined), so every unit's membership
of the conditioning stratum is known: P(S3 | S2) is a plain mean inside the stratum, and PPI
for a mean applies to it as it is (no delta method). The paired Δ is a difference of two
such means over arms whose traces share tasks: one task bootstrap resamples both
(`ppi_difference`), so the pairing stays in its interval. A hallucination is a wrong answer
that was not an abstention; abstentions are known without labels, so they form a stratum of
their own (rate 0) and the labels speak for the answered traces.

**Labels.** PPI++ uses the labels inside the rate's population: a random sample of it
when the sample was drawn for this rate (`label sample --for`), or, with a recorded design,
a random sample within each of its cells (stratified PPI++, `analysis/_ppi.py`); a cell of
the population the design never drew from (say S2 = 0 for a sample drawn for r_23) leaves
the rate undefined. Labels without a recorded design are taken as a random sample (said in
the note). The paper's correction and Rogan–Gladen use every label of the question (the
label mix), as the paper did: the first is biased when the rate's population has another
prevalence than the mix, the second when the instrument's errors differ between them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._calibration import METHODS, LabelMix, MixItem, mix_corrections
from agentprop.analysis._interceptor import ARMS, PAIR_ON, ab_rng_key
from agentprop.analysis._judges import human_consensus
from agentprop.analysis._ppi import PPIData, PPIResult, ppi_difference, ppi_estimate
from agentprop.analysis._propagation import (
    CalibratedMemo,
    as_float,
    calibrated,
    injected_traces,
)
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    WeightMemo,
    estimate_from_reps,
    group_rng,
)
from agentprop.analysis._tidy import POOLED, frame, row
from agentprop.analysis.stages import task_resampler
from agentprop.core import LabelDesign

KEYS = ["rate", "group"]
OUTSIDE = "outside the label design"
"""The cell of a population's traces the recorded label design never drew from."""


@dataclass(frozen=True)
class RateSpec:
    """A rate measured through an instrument: P(instrument's event | given) per model."""

    name: str
    question: str
    """The human label that says what the instrument measures (`core.LabelQuestion`)."""
    event: str
    """The stage column the instrument fills (S3 is the primary judge's)."""
    given: str | None = None
    """The stage column that must be True (the conditioning stratum; None: every trace)."""


RATES: tuple[RateSpec, ...] = (
    RateSpec("p_S3", "answer", "S3"),
    RateSpec("r_23", "answer", "S3", "S2"),
    RateSpec("inj_to_err", "answer", "S3", "S1"),
    RateSpec("noticed", "noticed", "noticed", "S2"),
    RateSpec("fabricated", "fabricated", "fabricated"),
)
"""The propagation rates measured through an instrument (the interceptor arms follow)."""

ARM_RATES = ("hallucination_control", "hallucination_treatment", "delta_hallucination")
RATE_NAMES = (*(r.name for r in RATES), *ARM_RATES)


def rate_spec(name: str) -> RateSpec | None:
    return next((r for r in RATES if r.name == name), None)


def rate_population(stages: pd.DataFrame, spec: RateSpec,
                    conditions: Sequence[str] | None = None) -> pd.DataFrame:
    """The traces `spec`'s rate is over (every model): the propagation conditions' ok
    traces with stage information, in the conditioning stratum, with the instrument's
    output known. The sampler draws `label sample --for` from here."""
    d, _ = injected_traces(stages, conditions)
    d = d[~d["error"].fillna(False).astype(bool) & d["S1"].notna()]
    if spec.given is not None:
        d = d[d[spec.given].fillna(False).astype(bool)]
    return d[d[spec.event].notna()] if spec.event in d else d.iloc[0:0]


def consensus(labels: pd.DataFrame, question: str) -> pd.Series:
    """trace id → the human's yes (True) / no of `question` (answer: True = *wrong*, the
    event the judge flags as S3), by the analysis' consensus rule; unsure dropped."""
    if labels.empty:
        return pd.Series(dtype=bool)
    lab = labels
    if "question" in lab:
        lab = lab[lab["question"].fillna("answer") == question]
    if question != "answer":
        lab = lab.assign(label=lab["label"].map({"yes": "correct", "no": "incorrect",
                                                 "unsure": "unsure"}))
    h = human_consensus(lab)
    out = h.astype(bool)
    return ~out if question == "answer" else out


def design_cells(rows: pd.DataFrame, design: LabelDesign | None, in_design: pd.Series,
                 verdict: np.ndarray) -> np.ndarray | None:
    """Each row's cell of the recorded design (None: no design, the labels are taken as a
    random sample). `in_design` marks the rows of the design's population; `verdict` is
    the instrument's yes/no on each row."""
    if design is None or not design.by:
        return None
    parts = []
    for col in design.by:
        if col == "verdict":
            parts.append(np.where(verdict == 1, "yes", "no"))
        else:
            parts.append(rows[col].astype(str).to_numpy() if col in rows
                         else np.full(len(rows), "?"))
    keys = ["|".join(p) for p in zip(*parts, strict=True)] if parts else [""] * len(rows)
    return np.where(in_design.to_numpy(dtype=bool), np.asarray(keys, dtype=object), OUTSIDE)


def design_population(stages: pd.DataFrame, design: LabelDesign,
                      conditions: Sequence[str] | None = None) -> pd.Series:
    """Whether each trace of `stages` was eligible for the design's sample."""
    if design.rate is not None:
        spec = rate_spec(design.rate)
        if spec is not None:
            ids = set(rate_population(stages, spec, conditions)["trace_id"])
            return stages["trace_id"].isin(ids)
        if design.rate in (*ARM_RATES, "hallucination"):
            return stages["arm"].isin(ARMS) & ~stages["error"].fillna(False).astype(bool)
    ok = stages["status"].astype(str) == "ok"
    if design.condition:
        ok &= stages["condition"].astype(str) == design.condition
    return ok


@dataclass(frozen=True)
class CorrectedInput:
    """What the corrected rates read besides the stage table."""

    labels: pd.DataFrame
    """Human labels of every question (trace_id, annotator, label, question)."""
    design: LabelDesign | None = None
    conditions: Sequence[str] | None = None
    mixes: dict[str, LabelMix | None] | None = None
    """Per question, the label mix (None or absent: built here from `labels` and the
    stage table's instrument column)."""
    validated: Callable[[str], bool] = lambda _: True
    """Whether an instrument has a validity card (rates through one without are marked)."""
    instrument_of: Callable[[str], str] = lambda question: question
    """The instrument's name for a question (answer → the primary judge)."""
    memo: CalibratedMemo | None = None
    """The analysis' `calibrated` results (the propagation table's r_23 and inj_to_err)."""
    weight_memo: WeightMemo | None = None
    """The propagation table's task bootstrap weights per group (the same stream)."""


def _ppi_data(rows: pd.DataFrame, f: np.ndarray, human: pd.Series,
              cells: np.ndarray | None) -> PPIData:
    """`rows`' instrument outputs `f`, split by whether `human` (trace id → yes/no)
    labels the trace."""
    tid = rows["trace_id"].astype(str).to_numpy()
    has = pd.Index(tid).isin(human.index)
    y = human.reindex(tid[has]).to_numpy(dtype=float)
    tasks = rows["task_id"].astype(str).to_numpy()
    return PPIData.of(y, f[has], f[~has],
                      cells=None if cells is None else cells[has],
                      cells_u=None if cells is None else cells[~has],
                      clusters=tasks[has], clusters_u=tasks[~has])


def _ppi_rows(keys: dict[str, Any], key: str, res: PPIResult, labels_only: PPIResult,
              population: int, design_note: str, warn: str, *,
              n_labels: int | None = None) -> list[dict[str, Any]]:
    """The PPI++ rows of one rate; `n_labels` the human labels when some units are known
    without one (an arm's abstentions)."""
    note = "; ".join(x for x in (warn, res.note, design_note,
                                 f"CI: {res.method}" if res.method else "") if x)
    n = res.n_labelled if n_labels is None else n_labels

    def as_n(r: PPIResult) -> Estimate:
        e = r.estimate()
        return Estimate(e.value, n, e.lo, e.hi)

    return [
        row(keys, key, "ppi", as_n(res), note=note),
        row(keys, key, "labels_only", as_n(labels_only), note="the labels alone (λ = 0)"),
        row(keys, key, "ppi_lambda", res.lam, n),
        row(keys, key, "n_labelled", n, n),
        row(keys, key, "n_population", population, population),
    ]


def _mix(inp: CorrectedInput, question: str, stages: pd.DataFrame, event: str,
         human: pd.Series) -> LabelMix | None:
    """The label mix of a question: every labelled trace with an instrument output."""
    if inp.mixes is not None and question in inp.mixes:
        return inp.mixes[question]
    lab = stages[stages["trace_id"].astype(str).isin(human.index) & stages[event].notna()]
    if lab.empty:
        return None
    ids = lab["trace_id"].astype(str).to_numpy()
    return LabelMix.of(ids, lab["task_id"].astype(str).to_numpy(), as_float(lab[event]) == 1,
                       human.reindex(ids).to_numpy(dtype=bool))


def _mix_rows(keys: dict[str, Any], key: str, fixed: dict[str, Estimate] | None, n: int,
              warn: str) -> list[dict[str, Any]]:
    rows = []
    for method in METHODS:
        est = fixed[method] if fixed is not None else Estimate(math.nan, n)
        note = "; ".join(x for x in (warn, "" if fixed is not None else
                                     "no labels of this question") if x)
        rows.append(row(keys, key, method, est, note=note))
    return rows


def _design_note(design: LabelDesign | None, question: str) -> str:
    if design is None or design.question != question:
        return "labels taken as a random sample of the population (no recorded design)"
    what = f"drawn for {design.rate}" if design.rate else "stratified"
    return f"labels {what} by {', '.join(design.by) or 'nothing'}"


def corrected_rates(stages: pd.DataFrame, inp: CorrectedInput, *,
                    n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """The corrected-rates table: per rate and model (and pooled, group ""), `judge_only`,
    `paper`, `rogan_gladen`, `ppi` (with `labels_only`, `ppi_lambda`, `n_labelled`,
    `n_population`). The instrument-only value and its CI are the propagation table's
    (the same task bootstrap stream)."""
    rows: list[dict[str, Any]] = []
    if stages.empty:
        return frame(rows, KEYS)
    plans = [p for spec in RATES if (p := _rate_plan(stages, spec, inp)) is not None]
    rows += _rates_rows(stages, plans, inp, n_resamples, seed)
    rows += arm_rows(stages, inp, n_resamples=n_resamples, seed=seed)
    return frame(rows, KEYS)


def _rates_rows(stages: pd.DataFrame, plans: list[_RatePlan], inp: CorrectedInput,
                n_resamples: int, seed: int) -> list[dict[str, Any]]:
    """Every rate's rows, rate by rate as the table reads; computed group by group."""
    if not plans:
        return []
    known_all, _ = injected_traces(stages, inp.conditions)
    known_all = known_all[~known_all["error"].fillna(False).astype(bool)
                          & known_all["S1"].notna()]
    done: dict[tuple[int, str], list[dict[str, Any]]] = {}
    # the judged rates of a group share its task bootstrap (the propagation table's
    # stream, which depends on the group only): one weight matrix per group, not per rate
    for group in dict.fromkeys(g for p in plans for g, _ in p.groups):
        base = known_all if group == POOLED else known_all[known_all["model"] == group]
        rs = task_resampler(base, seed, (group,), n_resamples, inp.weight_memo)
        for i, plan in enumerate(plans):
            for name, g in plan.groups:
                if name == group:
                    done[(i, group)] = _group_rows(plan, group, g, base, rs, n_resamples, seed,
                                                   inp.memo)
    return [r for i, plan in enumerate(plans) for group, _ in plan.groups
            for r in done[(i, group)]]


@dataclass(frozen=True)
class _RatePlan:
    """One rate's population, labels and notes, and its groups (per model, then pooled)."""

    spec: RateSpec
    human: pd.Series
    mix: LabelMix | None
    design: LabelDesign | None
    in_design: pd.Series | None
    warn: str
    groups: list[tuple[str, pd.DataFrame]]


def _rate_plan(stages: pd.DataFrame, spec: RateSpec, inp: CorrectedInput) -> _RatePlan | None:
    pop = rate_population(stages, spec, inp.conditions)
    if pop.empty:
        return None
    human = consensus(inp.labels, spec.question)
    mix = _mix(inp, spec.question, stages, spec.event, human)
    design = inp.design if inp.design is not None and \
        inp.design.question == spec.question else None
    in_design = (design_population(stages, design, inp.conditions)
                 .reindex(pop.index) if design is not None else None)
    instrument = inp.instrument_of(spec.question)
    warn = ("" if inp.validated(instrument) else
            f"warning: unvalidated: {instrument} has no validity card")
    groups = [(str(m), g) for m, g in pop.groupby("model", sort=True)]
    groups.append((POOLED, pop))
    return _RatePlan(spec, human, mix, design, in_design, warn, groups)


def _group_rows(plan: _RatePlan, group: str, g: pd.DataFrame, base: pd.DataFrame,
                rs: Resampler, n_resamples: int, seed: int,
                memo: CalibratedMemo | None = None) -> list[dict[str, Any]]:
    """One rate's rows for one group: judged (on `rs`, the group's task bootstrap of
    `base`), corrected by the label mix, and PPI++ over the rate's traces `g`."""
    spec, design, in_design = plan.spec, plan.design, plan.in_design
    keys = {"rate": spec.name, "group": group}
    key = f"{spec.name}|{group}"
    e = as_float(base[spec.event]) if spec.event in base else np.full(len(base), np.nan)
    c = np.ones(len(base)) if spec.given is None else as_float(base[spec.given])
    known = ~np.isnan(c) & (c > 0) & ~np.isnan(e)
    judged = rs.ratio(np.where(known, e, 0.0), known.astype(float))
    out = [row(keys, key, "judge_only", judged, note=plan.warn)]
    fixed = (calibrated(base, spec.event, spec.given, plan.mix, spec.name, group,
                        n_resamples=n_resamples, seed=seed, memo=memo)
             if plan.mix is not None else None)
    out += _mix_rows(keys, key, fixed, judged.n, plan.warn)
    f = as_float(g[spec.event])
    cells = (design_cells(g, design, in_design.loc[g.index], f)
             if design is not None and in_design is not None else None)
    data = _ppi_data(g, f, plan.human, cells)
    rng_key = ("corrected", spec.name, group)
    res = ppi_estimate(data, n_resamples=n_resamples, rng=group_rng(seed, *rng_key))
    alone = ppi_estimate(data, lam=0.0, n_resamples=n_resamples,
                         rng=group_rng(seed, *rng_key))
    out += _ppi_rows(keys, key, res, alone, len(g), _design_note(design, spec.question),
                     plan.warn)
    return out


def _arm_frame(g: pd.DataFrame) -> pd.DataFrame:
    """The traces of usable pairs (both arms judged or abstained), with `hallucination`
    (judged wrong and not abstained) and `answered`."""
    d = g.copy()
    wrong = as_float(d["S3"])
    abst = np.nan_to_num(as_float(d["abstained"].astype("boolean"))) if "abstained" in d \
        else np.zeros(len(d))
    d["answered"] = 1 - abst
    d["hallucination"] = np.where(abst == 1, 0.0, wrong)
    d = d[d["hallucination"].notna()].drop_duplicates([*PAIR_ON, "arm"])
    both = d.groupby(PAIR_ON)["arm"].transform("nunique") == 2
    return d[both]


def arm_rows(stages: pd.DataFrame, inp: CorrectedInput, *, n_resamples: int = N_RESAMPLES,
             seed: int = SEED) -> list[dict[str, Any]]:
    """Each interceptor evaluation's arms and their Δ, four ways (keys as the interceptor
    table's: the model, or model@run with several evaluations)."""
    if stages.empty or "arm" not in stages:
        return []
    d = stages[stages["arm"].isin(ARMS) & ~stages["error"].fillna(False).astype(bool)]
    if d.empty:
        return []
    human = consensus(inp.labels, "answer")
    mix = _mix(inp, "answer", stages, "S3", human)
    design = inp.design if inp.design is not None and inp.design.question == "answer" \
        else None
    in_design = design_population(stages, design, inp.conditions) if design else None
    instrument = inp.instrument_of("answer")
    warn = ("" if inp.validated(instrument) else
            f"warning: unvalidated: {instrument} has no validity card")
    several = d["run_id"].nunique() > 1
    out: list[dict[str, Any]] = []
    for (run, model), g in d.groupby(["run_id", "model"], sort=True):
        pairs = _arm_frame(g)
        if pairs.empty:
            continue
        arms = _Arms(f"{model}@{run}" if several else str(model), pairs, mix, warn,
                     _design_note(design, "answer"), n_resamples, seed,
                     Resampler(np.arange(len(pairs)),
                               clusters=pairs["task_id"].astype(str).to_numpy(),
                               n_resamples=n_resamples,
                               rng=group_rng(seed, *ab_rng_key(g["run_id"], str(model),
                                                               g["condition"]))))
        for arm in ARMS:
            sub = pairs[pairs["arm"] == arm]
            cells = (design_cells(sub, design, in_design.reindex(sub.index),
                                  sub["hallucination"].to_numpy(dtype=float))
                     if design is not None and in_design is not None else None)
            data, n_labels = _arm_data(sub, human, cells)
            out += arms.arm(arm, data, n_labels)
        out += arms.delta()
    return out


def _arm_data(sub: pd.DataFrame, human: pd.Series, cells: np.ndarray | None
              ) -> tuple[PPIData, int]:
    """An arm's PPI data and its human labels: an abstention is known without a label (a
    hallucination of 0), so abstentions are a stratum of their own and the labels speak
    for the answers."""
    abst = (sub["answered"] == 0).to_numpy()
    tid = sub["trace_id"].astype(str)
    labelled = human.reindex(tid[~abst].to_numpy()).dropna().astype(bool)
    y = pd.concat([pd.Series(False, index=tid[abst].to_numpy()), labelled])
    cells = np.where(abst, "abstained", "answered" if cells is None else cells)
    return _ppi_data(sub, sub["hallucination"].to_numpy(dtype=float), y, cells), len(labelled)


class _Arms:
    """The rows of one evaluation's two arms and their Δ, sharing one task bootstrap (the
    interceptor table's stream) so that differences get joint intervals."""

    def __init__(self, group: str, pairs: pd.DataFrame, mix: LabelMix | None, warn: str,
                 design_note: str, n_resamples: int, seed: int, rs: Resampler) -> None:
        self.group, self.pairs, self.warn = group, pairs, warn
        self.design_note, self.n_resamples, self.seed, self.rs = (
            design_note, n_resamples, seed, rs)
        self.h = pairs["hallucination"].to_numpy(dtype=float)
        self.answered = pairs["answered"].to_numpy(dtype=float)
        self.judged: dict[str, tuple[float, np.ndarray]] = {}
        self.data: dict[str, PPIData] = {}
        self.n_labels: dict[str, int] = {}
        # the label mix's corrections act on the answered traces' wrong rate, times the
        # answered share; both arms in one bootstrap, so their Δ has a joint interval
        self.fixed: dict[str, dict[str, tuple[float, np.ndarray]]] | None = None
        if mix is not None:
            items = []
            for arm in ARMS:
                side = (pairs["arm"] == arm).to_numpy(dtype=float)
                items.append(MixItem(self.h * side, self.answered * side,
                                     self.answered * side, side))
            fixed = mix_corrections(items, pairs["trace_id"].astype(str).to_numpy(),
                                    pairs["task_id"].astype(str).to_numpy(), mix,
                                    n_resamples=n_resamples,
                                    rng=group_rng(seed, "calibrated", "arms", group))
            self.fixed = dict(zip(ARMS, fixed, strict=True))

    def _keys(self, name: str) -> tuple[dict[str, Any], str]:
        return {"rate": name, "group": self.group}, f"{name}|{self.group}"

    def _note(self, extra: str = "") -> str:
        return "; ".join(x for x in (self.warn, extra) if x)

    def arm(self, arm: str, data: PPIData, n_labels: int) -> list[dict[str, Any]]:
        name = f"hallucination_{arm}"
        keys, key = self._keys(name)
        side = (self.pairs["arm"] == arm).to_numpy(dtype=float)
        value, _, reps = self.rs.ratio_reps(self.h * side, side)
        self.judged[arm] = (value, reps)
        out = [row(keys, key, "judge_only", self.rs.ratio(self.h * side, side),
                   note=self._note())]
        n = int(side.sum())
        for method in METHODS:
            est = Estimate(math.nan, n)
            if self.fixed is not None:
                v, r = self.fixed[arm][method]
                est = estimate_from_reps(v, n, r)
            out.append(row(keys, key, method, est,
                           note=self._note("" if self.fixed is not None else "no labels")))
        self.data[arm] = data
        rng = group_rng(self.seed, "corrected", name, self.group)
        res = ppi_estimate(data, n_resamples=self.n_resamples, rng=rng)
        alone = ppi_estimate(data, lam=0.0, n_resamples=self.n_resamples,
                             rng=group_rng(self.seed, "corrected", name, self.group))
        self.n_labels[arm] = n_labels
        return out + _ppi_rows(keys, key, res, alone, data.n + data.n_unlabelled,
                               self.design_note, self.warn, n_labels=n_labels)

    def delta(self) -> list[dict[str, Any]]:
        name = "delta_hallucination"
        keys, key = self._keys(name)
        n = int((self.pairs["arm"] == "treatment").sum())
        (tv, tr), (cv, cr) = self.judged["treatment"], self.judged["control"]
        out = [row(keys, key, "judge_only", estimate_from_reps(tv - cv, n, tr - cr),
                   note=self._note())]
        for method in METHODS:
            est = Estimate(math.nan, n)
            if self.fixed is not None:
                (mt, rt), (mc, rc) = (self.fixed["treatment"][method],
                                      self.fixed["control"][method])
                est = estimate_from_reps(mt - mc, n, rt - rc)
            out.append(row(keys, key, method, est,
                           note=self._note("" if self.fixed is not None else "no labels")))
        args = (self.data["treatment"], self.data["control"])
        res = ppi_difference(*args, n_resamples=self.n_resamples,
                             rng=group_rng(self.seed, "corrected", name, self.group))
        alone = ppi_difference(*args, lam=0.0, n_resamples=self.n_resamples,
                               rng=group_rng(self.seed, "corrected", name, self.group))
        rows = _ppi_rows(keys, key, res, alone, len(self.pairs), self.design_note, self.warn,
                         n_labels=sum(self.n_labels.values()))
        for r in rows:  # a difference is not a share: its interval is not cut to [0, 1]
            if r["metric"] in ("ppi", "labels_only"):
                est = (res if r["metric"] == "ppi" else alone).estimate(clip=False)
                r["ci_lo"], r["ci_hi"] = est.lo, est.hi
        return out + rows
