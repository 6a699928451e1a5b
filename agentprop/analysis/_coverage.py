"""Known-truth check of the corrected rates: simulated studies with a simulated judge whose
error rates are stated, repeated many times, and how often each method's 95 % interval
covers the true rate (bench/bench_ppi_coverage.py; a fast version is a test).

One study is a workspace of two strata: the *target* (the traces a rate is over, e.g. the
S2 traces of one model) with prevalence π of the event (a wrong answer), and the *rest*
of the workspace with prevalence π_rest. The judge flags the event with sensitivity se and
specificity sp (per stratum when they differ). Human labels are a simple random sample of
the whole workspace (the label mix); each method estimates the target's true rate, the
share of its traces where the event truly happened:

- judge only: the judged rate, bootstrap CI (ignores the judge's errors);
- the paper's correction: P(human | judge) from the whole label mix applied to the
  target's judged rate (valid only when the target's prevalence is the mix's);
- Rogan–Gladen: sensitivity and specificity from the label mix (valid when the judge's
  errors do not depend on the stratum);
- PPI++: the labels that fall in the target and its unlabelled traces (`_ppi`); valid
  whatever the judge, since the labels are a random sample of the target too;
- labels only: the same labels without the judge (λ = 0), for the interval's width.

The truth each interval should cover is the target's stated prevalence: a rate in a report
is about the model, of which the traces are a sample.

With `traces_per_task` > 1 the traces come in tasks that share a task-level prevalence
(a random effect), and every interval resamples tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from agentprop.analysis._calibration import LabelMix, MixItem, mix_corrections
from agentprop.analysis._ppi import PPIData, ppi_estimate
from agentprop.analysis._stats import Estimate, Resampler, estimate_from_reps

METHODS = ("judge_only", "paper", "rogan_gladen", "ppi", "labels_only")


@dataclass(frozen=True)
class Scenario:
    """One simulated design (all numbers stated, nothing estimated)."""

    name: str
    prevalence: float
    """P(event) in the target stratum."""
    rest_prevalence: float
    """P(event) in the rest of the workspace (the other part of the label mix)."""
    sensitivity: float = 0.85
    specificity: float = 0.90
    rest_sensitivity: float | None = None
    """The judge's sensitivity in the rest (None: as in the target)."""
    rest_specificity: float | None = None
    n_target: int = 600
    n_rest: int = 600
    n_labels: int = 200
    traces_per_task: int = 1
    """> 1: traces come in tasks sharing a task-level prevalence (intervals resample tasks)."""
    task_spread: float = 0.15
    """With tasks: the SD of the task-level prevalence around the stratum's."""
    labels_in_target: bool = False
    """Draw every label inside the target (`agentprop label sample --for RATE`), not from
    the whole workspace."""
    by_verdict: bool = False
    """With `labels_in_target`: half the labels from each of the judge's verdicts (far from
    proportional), the cells recorded as a label design does (stratified PPI++)."""

    @property
    def errors_differ(self) -> bool:
        return ((self.rest_sensitivity is not None and self.rest_sensitivity != self.sensitivity)
                or (self.rest_specificity is not None
                    and self.rest_specificity != self.specificity))


@dataclass
class _Stratum:
    y: np.ndarray
    f: np.ndarray
    task: np.ndarray


def _stratum(rng: np.random.Generator, n: int, prevalence: float, se: float, sp: float,
             per_task: int, spread: float, prefix: str) -> _Stratum:
    tasks = np.arange(n) // per_task
    if per_task > 1:  # task prevalences ~ Beta with mean `prevalence` and SD `spread`
        k = int(tasks.max()) + 1
        conc = prevalence * (1 - prevalence) / spread ** 2 - 1
        p = rng.beta(prevalence * conc, (1 - prevalence) * conc, size=k)[tasks]
    else:
        p = np.full(n, prevalence)
    y = (rng.random(n) < p).astype(float)
    hit = rng.random(n)
    f = np.where(y == 1, hit < se, hit >= sp).astype(float)
    return _Stratum(y, f, np.char.add(prefix, tasks.astype(str)))


@dataclass
class StudyResult:
    """Each method's estimate of one study, and the truth it should cover."""

    truth: float
    """The target's stated prevalence: the rate of the process the traces are drawn from,
    which is what every interval here (and in a report) is about."""
    estimates: dict[str, Estimate] = field(default_factory=dict)


def one_study(sc: Scenario, rng: np.random.Generator, n_resamples: int = 1000,
              boot: np.random.Generator | None = None) -> StudyResult:
    """Draw one workspace and label sample by `sc` (from `rng`) and estimate the target's
    rate; the bootstraps draw from `boot` (default `rng`), so that the studies drawn do
    not depend on how many numbers the methods' bootstraps take."""
    boot = rng if boot is None else boot
    per, spread = sc.traces_per_task, sc.task_spread
    tgt = _stratum(rng, sc.n_target, sc.prevalence, sc.sensitivity, sc.specificity, per,
                   spread, "t")
    rest = _stratum(rng, sc.n_rest, sc.rest_prevalence,
                    sc.rest_sensitivity if sc.rest_sensitivity is not None else sc.sensitivity,
                    sc.rest_specificity if sc.rest_specificity is not None else sc.specificity,
                    per, spread, "r")
    total = sc.n_target if sc.labels_in_target else sc.n_target + sc.n_rest
    if sc.by_verdict:
        cells = [np.flatnonzero(tgt.f == v) for v in (0.0, 1.0)]
        chosen = np.concatenate([rng.choice(c, size=min(sc.n_labels // 2, c.size),
                                            replace=False) for c in cells])
    else:
        chosen = rng.choice(total, size=min(sc.n_labels, total), replace=False)
    in_t = chosen[chosen < sc.n_target]
    in_r = chosen[chosen >= sc.n_target] - sc.n_target
    lab_y = np.concatenate([tgt.y[in_t], rest.y[in_r]])
    lab_f = np.concatenate([tgt.f[in_t], rest.f[in_r]])
    out = StudyResult(truth=sc.prevalence)
    clusters = tgt.task if per > 1 else None
    rs = Resampler(tgt.f, clusters=clusters, n_resamples=n_resamples, rng=boot)
    n = sc.n_target
    out.estimates["judge_only"] = rs.ratio(tgt.f)
    # the label mix: the labelled traces of both strata, with their tasks
    ids_t = np.char.add("t", np.arange(sc.n_target).astype(str))
    ids_r = np.char.add("r", np.arange(sc.n_rest).astype(str))
    mix = LabelMix.of(np.concatenate([ids_t[in_t], ids_r[in_r]]),
                      np.concatenate([tgt.task[in_t], rest.task[in_r]]), lab_f == 1,
                      lab_y == 1)
    tasks_t = tgt.task if per > 1 else ids_t
    (fixed,) = mix_corrections([MixItem(tgt.f, np.ones(sc.n_target))], ids_t, tasks_t, mix,
                               n_resamples=n_resamples, rng=boot)
    for method in ("paper", "rogan_gladen"):
        value, reps = fixed[method]
        out.estimates[method] = estimate_from_reps(value, n, reps)
    unl = np.setdiff1d(np.arange(sc.n_target), in_t)
    verdict = np.where(tgt.f == 1, "yes", "no")
    data = PPIData.of(tgt.y[in_t], tgt.f[in_t], tgt.f[unl],
                      cells=verdict[in_t] if sc.by_verdict else None,
                      cells_u=verdict[unl] if sc.by_verdict else None,
                      clusters=None if clusters is None else tgt.task[in_t],
                      clusters_u=None if clusters is None else tgt.task[unl])
    out.estimates["ppi"] = ppi_estimate(data, n_resamples=n_resamples, rng=boot).estimate()
    out.estimates["labels_only"] = ppi_estimate(data, lam=0.0, n_resamples=n_resamples,
                                                rng=boot).estimate()
    return out


def coverage(sc: Scenario, studies: int = 1000, *, seed: int = 0, n_resamples: int = 1000,
             progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Per method: coverage of the true rate by the 95 % interval over `studies` repeated
    studies, mean bias, mean interval width, and how many studies left it undefined."""
    rng = np.random.default_rng([seed, 0])  # the studies
    boot = np.random.default_rng([seed, 1])  # the methods' bootstraps
    nan3 = (math.nan, math.nan, math.nan)
    hits: dict[str, list[tuple[float, float, float]]] = {m: [] for m in METHODS}
    for i in range(studies):
        res = one_study(sc, rng, n_resamples, boot)
        for m in METHODS:
            e = res.estimates[m]
            ok = math.isfinite(e.value) and e.ci is not None
            hits[m].append((float(e.lo <= res.truth <= e.hi), e.value - res.truth,
                            e.hi - e.lo) if ok else nan3)
        if progress is not None:
            progress(i + 1)
    rows = []
    for m in METHODS:
        arr = np.asarray(hits[m], dtype=float).reshape(-1, 3)
        ok = ~np.isnan(arr[:, 0])
        rows.append({"scenario": sc.name, "method": m, "studies": studies,
                     "defined": int(ok.sum()),
                     "coverage": float(arr[ok, 0].mean()) if ok.any() else math.nan,
                     "bias": float(arr[ok, 1].mean()) if ok.any() else math.nan,
                     "width": float(arr[ok, 2].mean()) if ok.any() else math.nan})
    return pd.DataFrame(rows)


SCENARIOS = (
    Scenario("same prevalence (π = 0.30 = label mix)", prevalence=0.30, rest_prevalence=0.30),
    Scenario("other prevalence (π = 0.62, label mix 0.46)", prevalence=0.62,
             rest_prevalence=0.30),
    Scenario("tasks shared (π = 0.62, 4 traces per task)", prevalence=0.62,
             rest_prevalence=0.30, traces_per_task=4),
    Scenario("judge errs differently in the rest (π = 0.62)", prevalence=0.62,
             rest_prevalence=0.30, rest_sensitivity=0.60, rest_specificity=0.97),
    Scenario("labels drawn in the target (π = 0.62)", prevalence=0.62, rest_prevalence=0.30,
             labels_in_target=True),
    Scenario("labels drawn by verdict, half each (π = 0.62)", prevalence=0.62,
             rest_prevalence=0.30, labels_in_target=True, by_verdict=True),
)
"""The designs of bench/bench_ppi_coverage.py: two prevalences of the target (the label
mix's and another), the same with shared tasks, and a judge whose errors depend on the
stratum (where Rogan–Gladen is not valid either); last, the labels drawn inside the target,
as `label sample --for` does, at random and by verdict (stratified PPI++)."""
