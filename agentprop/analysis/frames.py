"""Build the analysis input DataFrames from core objects (traces, verdicts, labels).

The analysis never reads the store: callers (CLI, report, notebooks) load lists of core
models from a Workspace and pass them here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from agentprop.core import Label, Trace, Verdict

DEFAULT_PRIMARY = "facts"
STAGE_COLUMNS = [
    "trace_id", "run_id", "model", "task_id", "domain", "split", "difficulty", "condition",
    "error_type", "seed", "arm", "status", "simulated", "opportunity", "no_tool_call", "S1",
    "S2", "corrected", "S3", "abstained", "error",
]


def verdict_frame(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """Long verdicts: trace_id, judge, correct (nullable boolean; <NA> = unscored)."""
    rows = [(v.trace_id, v.judge, v.correct) for v in verdicts]
    df = pd.DataFrame(rows, columns=["trace_id", "judge", "correct"])
    df["correct"] = df["correct"].astype("boolean")
    return df


def members_frame(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """Ensemble members' votes: trace_id, ensemble (judge name), member, correct."""
    rows = [(v.trace_id, v.judge, m, c) for v in verdicts for m, c in v.members.items()]
    df = pd.DataFrame(rows, columns=["trace_id", "ensemble", "member", "correct"])
    df["correct"] = df["correct"].astype("boolean")
    return df


def label_frame(labels: Iterable[Label]) -> pd.DataFrame:
    """Human labels: trace_id, annotator, label (correct | incorrect | unsure)."""
    return pd.DataFrame([(x.trace_id, x.annotator, x.label) for x in labels],
                        columns=["trace_id", "annotator", "label"])


def primary_verdicts(verdicts: Iterable[Verdict], judge: str) -> dict[str, bool | None]:
    return {v.trace_id: v.correct for v in verdicts if v.judge == judge}


def stage_frame(traces: Iterable[Trace], verdicts: Mapping[str, bool | None]) -> pd.DataFrame:
    """The stage table (agentprop.analysis.stages) plus each trace's final `answer`.

    Reads `traces` once, so a workspace's traces can be streamed rather than held in memory.
    """
    from agentprop.analysis.stages import stage_table

    answers: dict[str, str | None] = {}

    def tap(items: Iterable[Trace]) -> Iterator[Trace]:
        for t in items:
            answers[t.id] = t.final_answer
            yield t

    df = stage_table(tap(traces), verdicts)
    if df.empty:
        df = pd.DataFrame(columns=STAGE_COLUMNS)
    df = df.copy()
    df["answer"] = df["trace_id"].map(answers)
    return df


@dataclass
class AnalysisInput:
    """Everything the analyses read. `meta` carries workspace facts for the report."""

    stages: pd.DataFrame
    verdicts: pd.DataFrame
    members: pd.DataFrame
    labels: pd.DataFrame
    primary_judge: str = DEFAULT_PRIMARY
    sweep: pd.DataFrame | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def build_input(
    traces: Iterable[Trace],
    verdicts: Sequence[Verdict],
    labels: Sequence[Label] = (),
    *,
    primary_judge: str = DEFAULT_PRIMARY,
    sweep: pd.DataFrame | None = None,
    meta: Mapping[str, Any] | None = None,
) -> AnalysisInput:
    """Frames for the analyses; S3 comes from the verdicts of `primary_judge`."""
    return AnalysisInput(
        stages=stage_frame(traces, primary_verdicts(verdicts, primary_judge)),
        verdicts=verdict_frame(verdicts),
        members=members_frame(verdicts),
        labels=label_frame(labels),
        primary_judge=primary_judge,
        sweep=sweep,
        meta=dict(meta or {}),
    )
