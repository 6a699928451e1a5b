"""Verdicts, human labels and run manifests."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentprop.core._trace import utcnow


class Verdict(BaseModel):
    """A judge's decision on one trace. `correct=None` means unscored, never "incorrect"."""

    trace_id: str
    judge: str
    correct: bool | None
    raw: Any = None
    cost: float = 0.0
    members: dict[str, bool | None] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)


VerdictRow = tuple[str, str, bool | None, dict[str, bool | None]]
"""A verdict without its raw payload: (trace_id, judge, correct, ensemble members)."""

LabelValue = Literal["correct", "incorrect", "unsure"]


class Label(BaseModel):
    """A human label of one trace's final answer."""

    trace_id: str
    annotator: str
    label: LabelValue
    time: datetime = Field(default_factory=utcnow)
    note: str = ""


class RunSpec(BaseModel):
    """The manifest of a run: enough to know exactly what produced its traces. No secrets."""

    id: str
    created_at: datetime = Field(default_factory=utcnow)
    package_version: str = ""
    suite_checksum: str = ""
    config: dict[str, Any] = Field(default_factory=dict)
