"""The stage table from the store's stage rows: computed once per trace when it is written,
read as columns by every analysis (docs/architecture.md, "The stored stage table").

A trace's event-derived stage values depend only on its own events and on the suite
`fabricated` is read against, so they are computed once (`StageRecorder`, called by the
store in the transaction that writes the trace, or when an older workspace is back-filled)
and the analysis reads them as columns instead of parsing every trace. S3 depends on the
primary judge's verdicts, so it is never stored: `stored_stage_frame` joins it in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from agentprop.analysis.invariants import counterfactual_differs, landing_violations
from agentprop.analysis.stages import (
    EVENT_COLUMNS,
    STAGE_COLUMNS,
    FabricationCheck,
    TaskLookup,
    event_stages,
    typed_stages,
)
from agentprop.core import Trace

STAGE_VERSION = 2
"""Bump whenever a stored stage value would be computed differently (stages.py, noticing,
the fabrication rule and the facts judge's reading it uses): rows of another version are
recomputed, never read. `tests/store/test_stage_version.py` fails when those sources
change until their digest is recorded again, after this was bumped if values can change.
2: the noticed v4 rules and the facts judge v5's reading (2026-12-07)."""

STORED_COLUMNS: tuple[str, ...] = (*EVENT_COLUMNS, "answer", "cf_differs", "landing")
"""The order of a stored row's values (the store's `STAGE_ROW_COLUMNS`)."""


def stage_context(suite_checksum: str | None) -> str:
    """What a stored row was computed with besides its trace: the stage code's version and
    the suite `fabricated` was read against (``-``: none, `fabricated` undefined)."""
    return f"stages-v{STAGE_VERSION} suite:{suite_checksum or '-'}"


@dataclass
class StageRecorder:
    """A trace's stored stage row (`STORED_COLUMNS`), with the text rules for `noticed`
    (an LLM classifier's readings are read at analysis time, on today's path)."""

    tasks: TaskLookup | None = None
    rule: FabricationCheck | None = None

    def __call__(self, trace: Trace) -> tuple[Any, ...]:
        row = event_stages(trace, tasks=self.tasks, rule=self.rule)
        return (*(row.get(c) for c in EVENT_COLUMNS), trace.final_answer,
                counterfactual_differs(trace), json.dumps(landing_violations(trace)))

    def portable(self) -> StageRecorder:
        """This recorder without its task lookup, to send to a worker process: the worker
        looks up the tasks its units brought (`with_tasks`), so only the fabrication rule
        (≈ 0.1 MB with the built-in suite's vocabulary, against ≈ 10 MB for the suite)
        travels."""
        return StageRecorder(None, self.rule)

    def with_tasks(self, tasks: TaskLookup) -> StageRecorder:
        return StageRecorder(tasks, self.rule)


@dataclass
class PrecomputedRows:
    """The writer's row function when rows are computed elsewhere (a worker of
    `--executor processes|ray`, or the run's row helper, `runner/_rows.py`): `give(trace,
    row)` before the trace is queued, and the writer takes the row given for that very
    trace object. A trace the
    driver changed or replaced in between (a secret redacted from an error, text UTF-8
    cannot encode) was not given one, so its row is computed here as before."""

    compute: StageRecorder
    _given: dict[str, tuple[Trace, tuple[Any, ...]]] = field(default_factory=dict)

    def give(self, trace: Trace, row: tuple[Any, ...]) -> None:
        self._given[trace.id] = (trace, row)

    def given(self, trace: Trace) -> bool:
        hit = self._given.get(trace.id)
        return hit is not None and hit[0] is trace

    def __call__(self, trace: Trace) -> tuple[Any, ...]:
        hit = self._given.pop(trace.id, None)  # the writer's thread; one dict op, atomic
        if hit is not None and hit[0] is trace:
            return hit[1]
        return self.compute(trace)


def stored_stage_frame(stored: pd.DataFrame,
                       verdicts: Mapping[str, bool | None] | pd.Series) -> pd.DataFrame:
    """The stage table (`stages.stage_frame`'s, `answer` included) from stored rows
    (`Workspace.stage_frame`), S3 joined from the primary judge's `verdicts` (trace id →
    correct, a mapping or a Series by trace id; a trace without one has S3 <NA>)."""
    df = stored
    by_trace = verdicts if isinstance(verdicts, pd.Series) else pd.Series(verdicts)
    correct = df["trace_id"].map(by_trace.astype("boolean")) if len(by_trace) \
        else pd.Series(pd.NA, index=df.index, dtype="boolean")
    df["S3"] = ~correct.astype("boolean")
    df["error"] = df["status"] != "ok"
    df["recovered"] = None
    df["stopped_at"] = None
    for col in ("forced", "simulated"):
        df[col] = df[col].astype(bool)
    answers = pd.Series(df["answer"].array, index=pd.Index(df["trace_id"].array))
    out = typed_stages(df[list(STAGE_COLUMNS)].copy())
    out["answer"] = out["trace_id"].map(answers)  # as `stage_frame` sets it: same dtype
    return out


def stored_checks(stored: pd.DataFrame) -> tuple[dict[str, bool | None], list[str]]:
    """What `invariants.TraceChecks` gathers from traces, read from stored rows: each
    trace's `counterfactual_differs` and every landing violation."""
    ids, cf = stored["trace_id"], stored["cf_differs"]
    known = cf.notna().to_numpy()
    differs: dict[str, bool | None] = dict.fromkeys(ids[~known].tolist())
    differs.update(zip(ids[known].tolist(), cf[known].astype(bool).tolist(), strict=True))
    landing = stored["landing"]
    violations = [v for text in landing[landing != "[]"] for v in json.loads(text)]
    return differs, violations
