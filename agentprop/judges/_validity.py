"""Judges against a hand-labelled validation set: load it, run judges on it.

The set (tests/fixtures/judge_validation.jsonl in the repository) is one JSON header line
(the labelling rule, how the labels were made) and one line per labelled final answer of a
suite task. Each answer becomes a trace whose executed tool calls are the agent's own
(`executed_calls`) or the gold plan's, so the state check replays a real world. The
agreement statistics are in `agentprop.analysis` (`judge_validity`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from agentprop.core import FinalEvent, Task, ToolResultEvent, Trace
from agentprop.judges._lookup import get_judge

if TYPE_CHECKING:
    from agentprop.suite import Suite

VALIDITY_FILE = Path(__file__).with_name("validity.json")
"""The judges' measured validity (written by bench/bench_judge_validity.py --write)."""
DETECTORS_FILE = Path(__file__).with_name("detectors.json")
"""The detectors' measured validity on their held-out labels, one entry per detector
(`noticed`: bench/bench_noticed.py --write; `fabricated`: bench/bench_fabricated.py
--write)."""


class LabelledAnswer(BaseModel):
    """One labelled final answer of the validation set."""

    model_config = ConfigDict(extra="ignore")

    id: str
    task_id: str
    query: str = ""  # the task's query when it was labelled (to notice a changed suite)
    answer: str
    label: str  # correct | incorrect
    contestable: bool = False
    kind: str = ""
    source: str = ""
    executed_calls: list[dict[str, Any]] | None = None
    grader_a: str | None = None
    grader_b: str | None = None


class ValidationSet(BaseModel):
    """The header (labelling rule, provenance) and the labelled answers."""

    header: dict[str, Any] = Field(default_factory=dict)
    items: list[LabelledAnswer] = Field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> ValidationSet:
        lines = [ln for ln in Path(path).read_text(encoding="utf-8").splitlines() if ln.strip()]
        head = json.loads(lines[0])
        return cls(header=head, items=[LabelledAnswer.model_validate_json(x)
                                       for x in lines[1:]])


def as_trace(item: LabelledAnswer, task: Task) -> Trace:
    """The answer as a finished trace; its tool calls replay the world it left."""
    calls = item.executed_calls or [{"name": c.name, "arguments": c.arguments}
                                    for c in task.gold_plan]
    events: list[Any] = [
        ToolResultEvent(step=i, call_id=f"v{i}", name=c["name"], arguments=c["arguments"],
                        observation={})
        for i, c in enumerate(calls)
    ]
    events.append(FinalEvent(step=len(events), answer=item.answer))
    return Trace(id=item.id, run_id="validation", model="validation", task_id=task.id,
                 domain=task.domain, split=task.split, difficulty=task.difficulty,
                 events=events)


def _scaled(task: Task) -> bool:
    """The task asks a decision or a severity."""
    return any(f.role == "asked" and (f.kind == "decision" or f.relation == "severity")
               for f in task.expected_facts)


async def _judge_all(items: list[LabelledAnswer], suite: Suite, names: Iterable[str]
                     ) -> list[dict[str, Any]]:
    rows = []
    for name in names:
        judge = get_judge(name, suite=suite)
        for item in items:
            task = suite.get(item.task_id)
            assert task is not None  # validation_verdicts keeps only answers with a task
            verdict = (await judge.judge_many(as_trace(item, task), task))[0]
            rows.append({"id": item.id, "task_id": task.id, "domain": task.domain,
                         "intent": task.intent, "kind": item.kind,
                         "contestable": item.contestable, "scaled": _scaled(task),
                         "human": item.label == "correct", "judge": name,
                         "correct": verdict.correct})
    return rows


def validation_verdicts(vset: ValidationSet, suite: Suite,
                        judges: Iterable[str]) -> pd.DataFrame:
    """One row per (answer, judge): the human label and the judge's verdict (None when the
    judge left it unscored). Answers whose task the suite lacks are skipped."""
    items = [i for i in vset.items if suite.get(i.task_id) is not None]
    return pd.DataFrame(asyncio.run(_judge_all(items, suite, list(judges))))


def graders_frame(vset: ValidationSet) -> pd.DataFrame:
    """The two graders' labels where both gave one (columns a, b, task_id)."""
    rows = [{"a": i.grader_a == "correct", "b": i.grader_b == "correct", "task_id": i.task_id}
            for i in vset.items if i.grader_a and i.grader_b]
    return pd.DataFrame(rows)


def load_validity() -> dict[str, Any] | None:
    """The measured validity shipped with this version (None if absent or unreadable)."""
    return _read_json(VALIDITY_FILE)


REAL_TEXT_FILE = Path(__file__).with_name("real_text.json")
"""The instruments' agreement on a real model's text, labelled blind by two graders
(bench/bench_real_text.py --write)."""


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def update_detector(name: str, figures: dict[str, Any], path: Path = DETECTORS_FILE) -> None:
    """Store one detector's measured validity (the others' entries are kept)."""
    data = _read_json(path) or {}
    data[name] = figures
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
