"""The label planner and the sample drawn for one rate (`agentprop label plan`, `label
sample --for`), and the progress of the labels against the plan (the label app).

A rate's traces (`analysis._corrected.rate_population`; an interceptor arm's paired
traces) are split into cells: model × the instrument's verdict (× arm). The planner
(`analysis._labelplan`) says how many labels each cell needs for a half-width, from the
labels already in it (the pilot) or a stated assumption; the sampler draws that many (or
`--n` spread by Neyman allocation) inside each cell, keeping the traces already labelled
first so that no label is wasted, and records the cells as the workspace's `LabelDesign`:
the analysis then reads the labels as a random sample of each cell (stratified PPI++).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from agentprop.analysis._corrected import (
    ARM_RATES,
    consensus,
    rate_population,
    rate_spec,
)
from agentprop.analysis._labelplan import Cell, Plan, pilot_cell, plan, split_total
from agentprop.analysis._propagation import as_float
from agentprop.core import LabelCell, LabelDesign, LabelQuestion
from agentprop.errors import AgentpropError
from agentprop.labels._sample import SampleError, SampleSummary, arrange

if TYPE_CHECKING:
    from agentprop.store import Workspace

ALIASES = {
    "p_s3": "p_S3", "ps3": "p_S3", "s3": "p_S3", "r23": "r_23", "r_23": "r_23",
    "inj_to_err": "inj_to_err", "s3_given_s1": "inj_to_err", "noticed": "noticed",
    "fabricated": "fabricated", "hallucination": "hallucination", "arms": "hallucination",
    "delta": "delta_hallucination", "delta_hallucination": "delta_hallucination",
}
"""What `--rate`/`--for` accept (any case) → the rate's name in the corrected-rates table;
`hallucination` is both interceptor arms."""
CHOICES = ("p_S3", "r23", "inj_to_err", "noticed", "fabricated", "hallucination", "delta")


class PlanError(AgentpropError):
    """A planning or sampling request that cannot be met; one line for the user."""


def canonical_rate(name: str) -> str:
    """The rate a user named, or a PlanError listing the choices (with a close match)."""
    key = name.strip().lower()
    if key in ALIASES:
        return ALIASES[key]
    import difflib

    close = difflib.get_close_matches(key, list(ALIASES), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise PlanError(f"unknown rate {name!r}: choose one of {', '.join(CHOICES)}{hint}")


def question_of(rate: str) -> LabelQuestion:
    spec = rate_spec(rate)
    return cast(LabelQuestion, spec.question) if spec is not None else "answer"


@dataclass(frozen=True)
class RateCells:
    """One group's traces of a rate, by cell: key → trace ids (and their tasks)."""

    group: str
    cells: dict[str, list[str]]
    verdict: dict[str, bool | None]
    """Each cell's instrument verdict (yes/no; None for the arms' abstentions)."""


def rate_cells(stages: pd.DataFrame, rate: str,
               conditions: Sequence[str] | None = None) -> list[RateCells]:
    """The rate's traces per group (model; model × arm for the interceptor), split by
    the instrument's verdict. Abstentions are known without a label: not a cell."""
    spec = rate_spec(rate)
    if spec is not None:
        pop = rate_population(stages, spec, conditions)
        out = []
        for m, g in pop.groupby("model", sort=True):
            f = as_float(g[spec.event]) == 1
            ids = g["trace_id"].astype(str).to_numpy()
            out.append(RateCells(str(m), {f"{m}|yes": sorted(ids[f]), f"{m}|no": sorted(ids[~f])},
                                 {f"{m}|yes": True, f"{m}|no": False}))
        return out
    return _arm_cells(stages, rate)


def _arm_cells(stages: pd.DataFrame, rate: str) -> list[RateCells]:
    from agentprop.analysis._corrected import _arm_frame
    from agentprop.analysis._interceptor import ARMS

    d = stages[stages["arm"].isin(ARMS) & ~stages["error"].fillna(False).astype(bool)]
    out = []
    several = d["run_id"].nunique() > 1
    for (run, m), g in d.groupby(["run_id", "model"], sort=True):
        pairs = _arm_frame(g)
        name = f"{m}@{run}" if several else str(m)
        for arm in ARMS:
            sub = pairs[(pairs["arm"] == arm) & (pairs["answered"] == 1)]
            h = sub["hallucination"].to_numpy(dtype=float) == 1
            ids = sub["trace_id"].astype(str).to_numpy()
            out.append(RateCells(f"{name}|{arm}", {f"{name}|{arm}|yes": sorted(ids[h]),
                                                   f"{name}|{arm}|no": sorted(ids[~h])},
                                 {f"{name}|{arm}|yes": True, f"{name}|{arm}|no": False}))
    return out


def _labelled(labels: pd.DataFrame, rate: str) -> pd.Series:
    return consensus(labels, question_of(rate))


def _cells(rc: RateCells, human: pd.Series, assume_accuracy: float | None) -> list[Cell]:
    out = []
    for key, ids in rc.cells.items():
        have = human.reindex(ids).dropna().astype(bool).tolist()
        out.append(pilot_cell(key, len(ids), have, verdict=rc.verdict[key],
                              assume_accuracy=assume_accuracy))
    return out


def plan_labels(stages: pd.DataFrame, labels: pd.DataFrame, rate: str, half_width: float,
                *, alpha: float = 0.05, assume_accuracy: float | None = None,
                models: Sequence[str] = (), pooled: bool = False) -> list[Plan]:
    """One plan per group of the rate (per model; per model and arm for the interceptor;
    for Δ each arm gets half the variance: half-width / √2 each); `pooled`: one plan for
    the rate over every model together."""
    if not 0 < half_width < 1:
        raise PlanError(f"--half-width must be between 0 and 1 (got {half_width})")
    if assume_accuracy is not None and not 0.5 <= assume_accuracy <= 1:
        raise PlanError(f"--assume-accuracy must be between 0.5 and 1 (got {assume_accuracy})")
    rate = canonical_rate(rate)
    groups = _groups(stages, rate, models, pooled)
    human = _labelled(labels, rate)
    hw = half_width / np.sqrt(2) if rate == "delta_hallucination" else half_width
    return [plan(rc.group, _cells(rc, human, assume_accuracy), float(hw), alpha=alpha)
            for rc in groups]


POOLED_GROUP = "all models"


def _groups(stages: pd.DataFrame, rate: str, models: Sequence[str],
            pooled: bool = False) -> list[RateCells]:
    """The rate's groups (optionally only `models`); `pooled`: one group of every cell,
    for the rate over all models together (its cells stay model × verdict)."""
    groups = rate_cells(stages, rate)
    if models:
        groups = [g for g in groups if g.group.split("|")[0].split("@")[0] in models]
    if pooled and groups:
        arms = sorted({g.group.split("|")[1] for g in groups if "|" in g.group})
        groups = [RateCells(f"{POOLED_GROUP}|{arm}" if arm else POOLED_GROUP,
                            {k: v for g in groups if not arm or g.group.endswith("|" + arm)
                             for k, v in g.cells.items()},
                            {k: v for g in groups for k, v in g.verdict.items()})
                  for arm in (arms or [""])]
    if not groups:
        what = "interceptor arms" if rate in (*ARM_RATES, "hallucination") else "traces"
        scope = f" for {', '.join(models)}" if models else ""
        raise PlanError(f"no {what} for {rate}{scope} in this workspace "
                        "(run and judge some first)")
    return groups


def sample_for_rate(
    workspace: Workspace, stages: pd.DataFrame, labels: pd.DataFrame, rate: str, *,
    n: int | None = None, half_width: float | None = None, seed: int = 0, overlap: int = 0,
    annotators: Sequence[str] = (), assume_accuracy: float | None = None,
    models: Sequence[str] = (), pooled: bool = False,
) -> SampleSummary:
    """Draw the label sample for one rate (replacing any previous sample) and record its
    design: `half_width` → the planner's labels per cell, else `n` spread over groups and
    cells (Neyman). The traces already labelled in a cell are drawn first."""
    rate = canonical_rate(rate)
    if (n is None) == (half_width is None):
        raise SampleError("give --n or --half-width (how many labels, or for what precision)")
    if n is not None and n <= 0:
        raise SampleError(f"--n must be positive (got {n})")
    human = _labelled(labels, rate)
    groups = _groups(stages, rate, models, pooled)
    cells = {rc.group: _cells(rc, human, assume_accuracy) for rc in groups}
    if half_width is not None:
        plans = plan_labels(stages, labels, rate, half_width, assume_accuracy=assume_accuracy,
                            models=models, pooled=pooled)
        targets = {p.group: [c.need for c in p.cells] for p in plans}
    else:
        assert n is not None
        targets = split_total(cells, n)
    rng = random.Random(seed)
    chosen: dict[str, list[str]] = {}
    design_cells: dict[str, LabelCell] = {}
    for rc in groups:
        for (key, ids), want in zip(rc.cells.items(), targets[rc.group], strict=True):
            have = [t for t in ids if t in human.index]
            rest = sorted(set(ids) - set(have))
            pick = have[:want] + rng.sample(rest, max(0, min(want - len(have), len(rest))))
            if pick:
                chosen[key] = pick
            design_cells[key] = LabelCell(population=len(ids), target=want, drawn=len(pick))
    if not chosen:
        raise SampleError(f"nothing to sample for {rate}")
    sample = arrange(chosen, overlap, rng, annotators)
    workspace.put_label_sample(sample)
    by = ["model", "arm", "verdict"] if rate_spec(rate) is None else ["model", "verdict"]
    design = LabelDesign(question=question_of(rate), rate=rate, by=by, cells=design_cells,
                         half_width=half_width)
    workspace.update_meta(label_design=design.model_dump(mode="json"))
    strata = {k: len(v) for k, v in sorted(chosen.items())}
    return SampleSummary(n=len(sample), available=sum(len(i) for rc in groups
                                                      for i in rc.cells.values()),
                         strata=strata, overlap=sum(r["overlap"] for r in sample))


@dataclass(frozen=True)
class Progress:
    """Labels made against the recorded plan, per cell."""

    rate: str | None
    question: str
    cells: list[tuple[str, int, int]]
    """(cell, labelled, target)."""

    @property
    def labelled(self) -> int:
        return sum(min(done, target) for _, done, target in self.cells)

    @property
    def target(self) -> int:
        return sum(target for *_, target in self.cells)


def plan_progress(workspace: Workspace) -> Progress | None:
    """How far the labels are against the recorded design's targets (None: no design).
    A labelled trace counts in the cell it was drawn from (the sample's stratum)."""
    design = workspace.meta().label_design
    if design is None or not design.cells:
        return None
    sample = workspace.label_sample()
    done = {lab.trace_id for lab in workspace.labels(question=design.question)
            if lab.label != "unsure"}
    counts: dict[str, int] = {}
    for r in sample:
        if r["trace_id"] in done:
            counts[r["stratum"]] = counts.get(r["stratum"], 0) + 1
    cells = [(k, counts.get(k, 0), c.target) for k, c in design.cells.items() if c.target]
    return Progress(design.rate, design.question, cells)


def plan_rows(plans: Sequence[Plan]) -> list[dict[str, Any]]:
    """The plans as rows (for --json and the table)."""
    return [{"group": p.group, "cell": c.key, "traces": c.population, "labelled": c.labelled,
             "human_rate": round(c.rate, 4), "source": c.source, "need": c.need,
             "to_label": c.to_label} for p in plans for c in p.cells]

