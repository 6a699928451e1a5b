"""Agreement between judges and human labels: small pure functions.

Conventions: a 2×2 table has rows = judge (correct, incorrect) and columns = human
(correct, incorrect). Human "unsure" labels are left out; a trace labelled by several
annotators counts with the majority of their correct/incorrect labels (a tie leaves it
out). Unscored verdicts are left out. Cohen's κ with its asymptotic 95 % CI comes from
statsmodels; the bootstrap versions live in agentprop.analysis.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
from pydantic import BaseModel

from agentprop.core import Label


class Kappa(BaseModel):
    kappa: float
    se: float
    ci_low: float
    ci_high: float
    n: int


def confusion(judge: Sequence[bool], human: Sequence[bool]) -> np.ndarray:
    """2×2 counts: [[J✓H✓, J✓H✗], [J✗H✓, J✗H✗]]."""
    if len(judge) != len(human):
        raise ValueError("judge and human vectors differ in length")
    t = np.zeros((2, 2), dtype=int)
    for j, h in zip(judge, human, strict=True):
        t[0 if j else 1, 0 if h else 1] += 1
    return t


def cohen_kappa(table: Sequence[Sequence[int]] | np.ndarray) -> Kappa:
    """Cohen's κ of a square table with the asymptotic 95 % CI (NaN when undefined)."""
    t = np.asarray(table, dtype=float)
    n = int(t.sum())
    nan = float("nan")
    if n == 0:
        return Kappa(kappa=nan, se=nan, ci_low=nan, ci_high=nan, n=0)
    pe = float((t.sum(0) * t.sum(1)).sum() / n**2)
    if pe >= 1.0 - 1e-12:
        return Kappa(kappa=nan, se=nan, ci_low=nan, ci_high=nan, n=n)
    from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

    with warnings.catch_warnings():  # a zero SE under H0 only affects its z test
        warnings.simplefilter("ignore", RuntimeWarning)
        r = sm_kappa(t)
    return Kappa(kappa=float(r["kappa"]), se=float(r["std_kappa"]),
                 ci_low=float(r["kappa_low"]), ci_high=float(r["kappa_upp"]), n=n)


def _binary(label: str) -> bool | None:
    return {"correct": True, "incorrect": False}.get(label)


def human_consensus(labels: Iterable[Label]) -> dict[str, bool]:
    """trace_id → the majority correct/incorrect label over annotators ("unsure" dropped).

    A tie is broken by the lead annotator (most labels, then alphabetical): the same rule
    as `agentprop.analysis`, so `label agreement` and the report agree on n and κ."""
    votes: dict[str, list[bool]] = defaultdict(list)
    by_annotator: dict[str, dict[str, bool]] = defaultdict(dict)
    for lab in labels:
        b = _binary(lab.label)
        if b is not None:
            votes[lab.trace_id].append(b)
            by_annotator[lab.annotator][lab.trace_id] = b
    lead = min(by_annotator, key=lambda a: (-len(by_annotator[a]), a), default=None)
    out: dict[str, bool] = {}
    for tid, vs in votes.items():
        yes = sum(vs)
        if yes * 2 != len(vs):
            out[tid] = yes * 2 > len(vs)
        elif lead is not None and tid in by_annotator[lead]:
            out[tid] = by_annotator[lead][tid]
    return out


def judge_vs_human(verdicts: Mapping[str, bool | None], human: Mapping[str, bool]
                   ) -> dict[str, Any]:
    """κ, CI, confusion, share judged correct by judge and by human, n (paired traces)."""
    ids = sorted(t for t in human if verdicts.get(t) is not None)
    j = [bool(verdicts[t]) for t in ids]
    h = [human[t] for t in ids]
    table = confusion(j, h)
    k = cohen_kappa(table)
    n = len(ids)
    return {
        "n": n,
        "kappa": k.kappa, "ci_low": k.ci_low, "ci_high": k.ci_high, "se": k.se,
        "confusion": table.tolist(),
        "judge_correct_share": float(table[0].sum() / n) if n else math.nan,
        "human_correct_share": float(table[:, 0].sum() / n) if n else math.nan,
        "unscored_or_unlabelled": sum(1 for t in human if verdicts.get(t) is None),
    }


def _by_annotator(labels: Iterable[Label]) -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = defaultdict(dict)
    for lab in labels:
        b = _binary(lab.label)
        if b is not None:
            out[lab.annotator][lab.trace_id] = b
    return dict(out)


def inter_annotator(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """Cohen's κ for every pair of annotators on the traces both labelled."""
    by = _by_annotator(labels)
    rows = []
    for a, b in combinations(sorted(by), 2):
        common = sorted(set(by[a]) & set(by[b]))
        if not common:
            continue
        k = cohen_kappa(confusion([by[a][t] for t in common], [by[b][t] for t in common]))
        rows.append({"a": a, "b": b, "n": k.n, "kappa": k.kappa, "ci_low": k.ci_low,
                     "ci_high": k.ci_high})
    return rows


def krippendorff_alpha(labels: Sequence[Label]) -> float | None:
    """Nominal Krippendorff's α over all annotators (None with fewer than three)."""
    by = _by_annotator(labels)
    if len(by) <= 2:
        return None
    items = sorted(set().union(*(set(v) for v in by.values())))
    data = np.full((len(by), len(items)), np.nan)
    col = {t: i for i, t in enumerate(items)}
    for r, ann in enumerate(sorted(by)):
        for t, v in by[ann].items():
            data[r, col[t]] = float(v)
    import krippendorff

    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except (ValueError, ZeroDivisionError):
        return None


def agreement_summary(verdicts: Mapping[str, Mapping[str, bool | None]],
                      labels: Sequence[Label]) -> dict[str, Any]:
    """All of the above: `verdicts` is judge → trace_id → correct."""
    human = human_consensus(labels)
    return {
        "labels": len(labels),
        "labelled_traces": len({lab.trace_id for lab in labels}),
        "unsure": sum(1 for lab in labels if lab.label == "unsure"),
        "annotators": sorted({lab.annotator for lab in labels}),
        "judges": {name: judge_vs_human(v, human) for name, v in sorted(verdicts.items())},
        "inter_annotator": inter_annotator(labels),
        "krippendorff_alpha": krippendorff_alpha(labels),
    }


def workspace_agreement(workspace: Any) -> dict[str, Any]:
    """`agreement_summary` over a workspace's verdicts and labels."""
    verdicts: dict[str, dict[str, bool | None]] = defaultdict(dict)
    for v in workspace.verdicts():
        verdicts[v.judge][v.trace_id] = v.correct
    return agreement_summary(verdicts, workspace.labels())
