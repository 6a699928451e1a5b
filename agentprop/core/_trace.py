"""Traces: the typed, immutable event record of one agent episode."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from agentprop.core._task import ToolCall


def utcnow() -> datetime:
    return datetime.now(UTC)


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class ModelOutput(BaseModel):
    """What one model call returned. `raw` is the provider's response as JSON."""

    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    reasoning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    cost: float = 0.0
    cached: bool = False
    raw: dict[str, Any] | None = None


class Message(BaseModel):
    """A chat message in provider-neutral form."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str | None = None


class ModelCallEvent(BaseModel):
    type: Literal["model_call"] = "model_call"
    step: int
    request_hash: str
    output: ModelOutput


class ToolCallEvent(BaseModel):
    """A tool call as the model proposed it (before any injection)."""

    type: Literal["tool_call"] = "tool_call"
    step: int
    call: ToolCall


InjectionStatus = Literal["applied", "no_tool_call", "no_target_param"]


class InjectionEvent(BaseModel):
    """What an injector did to one episode. `protocol` is the condition family (`p2`,
    `out`, `fault`); `call_index` the 1-based ordinal of the corrupted call among the
    episode's tool calls; for `out`, `param` is the path of the corrupted observation
    field."""

    type: Literal["injection"] = "injection"
    step: int = 0
    protocol: str
    error_type: str
    status: InjectionStatus
    call_id: str | None = None
    tool: str | None = None
    param: str | None = None
    original: Any = None
    injected: Any = None
    removed: bool = False
    in_history: bool = True
    call_index: int | None = None


class ToolResultEvent(BaseModel):
    """A tool's observation for the arguments that were actually executed.

    `observation` is what the agent saw. `counterfactual` is the true observation of the
    proposed (uncorrupted) call, computed on a copy of the episode state (or, for a
    corrupted observation, the tool's real result); None when no injection touched this
    call.
    """

    type: Literal["tool_result"] = "tool_result"
    step: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    observation: dict[str, Any]
    counterfactual: dict[str, Any] | None = None


InterceptLayer = Literal["L1", "L2", "L3"]


class InterceptEvent(BaseModel):
    type: Literal["intercept"] = "intercept"
    step: int
    layer: InterceptLayer
    decision: Literal["abstain", "warn"]
    reason: str


class FinalEvent(BaseModel):
    type: Literal["final"] = "final"
    step: int
    answer: str | None
    abstained: bool = False
    reason: str | None = None


class ErrorEvent(BaseModel):
    """A failure after retries (provider error, step limit). The trace is kept and marked."""

    type: Literal["error"] = "error"
    step: int
    kind: str
    message: str
    attempts: int = 1


TraceEvent = Annotated[
    ModelCallEvent
    | ToolCallEvent
    | InjectionEvent
    | ToolResultEvent
    | InterceptEvent
    | FinalEvent
    | ErrorEvent,
    Field(discriminator="type"),
]


class WorkUnit(BaseModel):
    """One episode to run. Its key identifies the trace; a stored key is never run again.

    `arm` separates interceptor arms ("" = no interceptor experiment, "control",
    "treatment") that share run, model, task, condition and seed.
    """

    run_id: str
    model: str
    task_id: str
    condition: str = "baseline"
    seed: int = 0
    arm: str = ""

    @property
    def key(self) -> str:
        parts = [self.run_id, self.model, self.task_id, self.condition, str(self.seed), self.arm]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


TraceStatus = Literal["ok", "error", "step_limit"]


class Trace(BaseModel):
    """One agent episode for one work unit. Immutable once written."""

    id: str
    run_id: str
    model: str
    task_id: str
    domain: str
    split: str
    difficulty: str
    condition: str = "baseline"
    seed: int = 0
    arm: str = ""
    status: TraceStatus = "ok"
    simulated: bool = False
    messages: list[Message] = Field(default_factory=list)
    events: list[TraceEvent] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def final(self) -> FinalEvent | None:
        for ev in reversed(self.events):
            if isinstance(ev, FinalEvent):
                return ev
        return None

    @property
    def final_answer(self) -> str | None:
        fin = self.final
        return fin.answer if fin else None

    @property
    def cost(self) -> float:
        return sum(ev.output.cost for ev in self.events if isinstance(ev, ModelCallEvent))

    @property
    def usage(self) -> Usage:
        u = Usage()
        for ev in self.events:
            if isinstance(ev, ModelCallEvent):
                u.input_tokens += ev.output.usage.input_tokens
                u.output_tokens += ev.output.usage.output_tokens
        return u


def stable_hash(obj: Any) -> str:
    """Hash of a JSON-serialisable object, independent of key order."""
    data = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode()).hexdigest()
