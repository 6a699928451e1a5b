"""Agreement between judges and human labels, for `agentprop label agreement`.

Every number comes from `agentprop.analysis` (κ, its CIs, the confusion cells, shares,
the human-consensus rule, inter-annotator κ, Krippendorff's α), called on the same frames
with the same seed as the report, so the command and numbers.json print the same values.
Conventions: the confusion table has rows = judge (correct, incorrect) and columns = human
(correct, incorrect); "unsure" labels and unscored verdicts are left out; a trace labelled
by several annotators counts with their majority (a tie goes to the lead annotator).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from agentprop.analysis import (
    N_RESAMPLES,
    SEED,
    annotator_alpha,
    annotator_kappas,
    judge_agreement,
    label_frame,
    verdict_frame,
)
from agentprop.analysis import human_consensus as _consensus
from agentprop.core import Label, VerdictRow

if TYPE_CHECKING:
    from agentprop.store import Workspace


def human_consensus(labels: Iterable[Label]) -> dict[str, bool]:
    """trace_id → the consensus correct/incorrect label (the analysis package's rule)."""
    return {str(k): bool(v) for k, v in _consensus(label_frame(labels)).items()}


def _value(t: pd.DataFrame, metric: str) -> tuple[float, int, float, float]:
    hit = t[t["metric"] == metric]
    if hit.empty:
        return math.nan, 0, math.nan, math.nan
    r = hit.iloc[0]
    return float(r["value"]), int(r["n"]), float(r["ci_lo"]), float(r["ci_hi"])


def _judge_summary(t: pd.DataFrame, unscored: int) -> dict[str, Any]:
    kappa, n, lo, hi = _value(t, "kappa")
    _, _, alo, ahi = _value(t, "kappa_asymptotic")
    cells = {m: int(_value(t, m)[0]) if n else 0 for m in ("tp", "fp", "fn", "tn")}
    return {
        "n": n, "kappa": kappa, "ci_low": lo, "ci_high": hi,
        "asymptotic_ci_low": alo, "asymptotic_ci_high": ahi,
        "confusion": [[cells["tp"], cells["fp"]], [cells["fn"], cells["tn"]]],
        "agreement": _value(t, "agreement")[0],
        "judge_correct_share": _value(t, "judge_correct_share")[0],
        "human_correct_share": _value(t, "reference_correct_share")[0],
        "unscored_or_unlabelled": unscored,
    }


def agreement_summary(
    verdicts: Iterable[VerdictRow],
    labels: list[Label],
    *,
    tasks: Mapping[str, str] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """κ of every judge against the human consensus (bootstrap CI as in the report, and
    the asymptotic one), confusion, shares; inter-annotator κ; Krippendorff's α.
    `verdicts`: (trace_id, judge, correct, members) rows; `tasks`: trace id → task id."""
    vf = verdict_frame(verdicts)
    lf = label_frame(labels)
    human = _consensus(lf)
    table = judge_agreement(vf, lf, tasks=tasks, n_resamples=n_resamples, seed=seed)
    vs_human = table[table["reference"] == "human"] if len(table) else table
    judges: dict[str, Any] = {}
    for name in sorted(set(vf["judge"])):
        scored = set(vf[(vf["judge"] == name) & vf["correct"].notna()]["trace_id"])
        unscored = sum(1 for t in human.index if t not in scored)
        judges[name] = _judge_summary(vs_human[vs_human["judge"] == name], unscored)
    alpha = annotator_alpha(lf)
    return {
        "labels": len(labels),
        "labelled_traces": len({lab.trace_id for lab in labels}),
        "unsure": sum(1 for lab in labels if lab.label == "unsure"),
        "annotators": sorted({lab.annotator for lab in labels}),
        "judges": judges,
        "inter_annotator": annotator_kappas(lf, n_resamples=n_resamples, seed=seed),
        "krippendorff_alpha": None if math.isnan(alpha.value) else alpha.value,
        "krippendorff_alpha_n": alpha.n,
        # e.g. a judge whose 2×2 against the humans has a cell under the small-sample floor
        "warnings": sorted({str(x) for x in vs_human.get("note", [])
                            if str(x).startswith("warning")}),
        "resamples": n_resamples,
        "seed": seed,
    }


def workspace_agreement(workspace: Workspace, *, n_resamples: int = N_RESAMPLES,
                        seed: int = SEED) -> dict[str, Any]:
    """`agreement_summary` over a workspace's verdicts, labels and trace → task map."""
    tasks = {r["id"]: r["task_id"] for r in workspace.trace_rows()}
    return agreement_summary(workspace.verdict_rows(), workspace.labels(), tasks=tasks,
                             n_resamples=n_resamples, seed=seed)
