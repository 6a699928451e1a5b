"""Traces: the typed, immutable event record of one agent episode."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from agentprop.core._task import ToolCall, pop_meta_key


def utcnow() -> datetime:
    return datetime.now(UTC)


class Usage(BaseModel):
    input_tokens: int = 0
    """Prompt tokens the provider billed (0 for a cache hit's re-use)."""
    output_tokens: int = 0
    """Completion tokens the provider billed."""


class UnparsedCall(BaseModel):
    """A tool call that arrived as one, but whose arguments are not a JSON object: the
    model's output, recorded as it came (the episode gets a `CallIssueEvent`)."""

    id: str
    """The call's id as the provider sent it ("" when it sent none)."""
    name: str
    """The tool the call names."""
    arguments: str
    """The arguments text exactly as received."""
    error: str
    """Why it does not parse (the JSON decoder's message)."""
    index: int = 0
    """Its position among the turn's calls (parsed ones included), so the history keeps
    the model's order."""


class ModelOutput(BaseModel):
    """What one model call returned. `raw` is the provider's response as JSON."""

    text: str | None = None
    """The assistant's text (the final answer when no tool is called)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Tool calls the model proposed, in order."""
    unparsed_calls: list[UnparsedCall] = Field(default_factory=list)
    """Tool calls whose arguments did not parse as a JSON object (not in `tool_calls`)."""
    reasoning: str | None = None
    """Visible reasoning the provider returned beside the text, if any."""
    usage: Usage = Field(default_factory=Usage)
    """Token counts of this call."""
    latency_s: float = 0.0
    """Wall time of the call, seconds (0 for a cache hit)."""
    cost: float = 0.0
    """US dollars, from models/_prices.py; 0 for simulated models and cache hits."""
    cached: bool = False
    """True when served from the workspace's response cache (not billed again)."""
    raw: dict[str, Any] | None = None
    """The provider's response as JSON, for audit; never read by analysis."""


class Message(BaseModel):
    """A chat message in provider-neutral form."""

    role: Literal["system", "user", "assistant", "tool"]
    """Chat role: system, user, assistant or tool."""
    content: str | None = None
    """Text of the message (None for an assistant turn that only calls tools)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """For an assistant message: the calls it made."""
    tool_call_id: str | None = None
    """For a tool message: the id of the call it answers."""
    name: str | None = None
    """For a tool message: the tool's name."""
    reasoning: str | None = None
    """For an assistant message: the reasoning shown beside it, if any."""


class ModelCallEvent(BaseModel):
    type: Literal["model_call"] = "model_call"
    """Discriminator of the event union."""
    step: int
    """Agent step (0-based): one model call and the tools it called."""
    request_hash: str
    """Hash of the request (messages, tools, config): the response-cache key."""
    output: ModelOutput
    """What the model returned."""


class ToolCallEvent(BaseModel):
    """A tool call as the model proposed it (before any injection)."""

    type: Literal["tool_call"] = "tool_call"
    """Discriminator of the event union."""
    step: int
    """Agent step."""
    call: ToolCall
    """The call exactly as proposed."""


InjectionStatus = Literal["applied", "no_tool_call", "no_target_param", "no_model_call"]


class InjectionEvent(BaseModel):
    """What an injector did to one episode. `protocol` is the condition family (`p2`,
    `out`, `fault`, `api`); `call_index` the 1-based ordinal of the corrupted call among the
    episode's tool calls; for `out`, `param` is the path of the corrupted observation
    field."""

    type: Literal["injection"] = "injection"
    """Discriminator of the event union."""
    step: int = 0
    """Agent step of the targeted call (0: the first tool call)."""
    protocol: str
    """Name of the injection protocol (P2: before the first call executes)."""
    error_type: str
    """semantic_wrong, type_mismatch, out_of_range or missing_required."""
    status: InjectionStatus
    """applied; no_tool_call (the agent called no tool); no_target_param (no critical parameter to
    corrupt); no_model_call (`api:*`: no model call after a tool result reached agentprop).
    Only `applied` counts for S1."""
    call_id: str | None = None
    """Id of the corrupted call."""
    tool: str | None = None
    """Name of the corrupted tool."""
    param: str | None = None
    """The corrupted parameter."""
    original: Any = None
    """The value the model proposed."""
    injected: Any = None
    """The value executed instead (None when removed)."""
    removed: bool = False
    """True when the parameter was dropped (missing_required)."""
    in_history: bool = True
    """True when the model's own history shows the corrupted call (the default); False when it sees
    the call it proposed."""
    call_index: int | None = None
    """1-based ordinal of the corrupted call among the episode's tool calls (`api`: of the
    faulted call among its model calls)."""
    received: Any = None
    """`api` only: what the agent ended up with for the faulted model call: the completion
    of the client's retry of the same request (`retried`), else what the fault delivered
    (`injected`: the error, or the cut completion's text and calls). `original` is then
    the completion the upstream really returned (the counterfactual)."""
    retried: bool = False
    """`api` only: the client sent the faulted request again (its SDK's or its own retry)."""


class ToolResultEvent(BaseModel):
    """A tool's observation for the arguments that were actually executed.

    `observation` is what the agent saw. `counterfactual` is the true observation of the
    proposed (uncorrupted) call, computed on a copy of the episode state (or, for a
    corrupted observation, the tool's real result); None when no injection touched this
    call.
    """

    type: Literal["tool_result"] = "tool_result"
    """Discriminator of the event union."""
    step: int
    """Agent step."""
    call_id: str
    """Id of the call this result answers."""
    name: str
    """Tool name."""
    arguments: dict[str, Any]
    """The arguments actually executed (after any injection)."""
    observation: dict[str, Any]
    """What the tool returned (an ``error`` object on failure)."""
    counterfactual: dict[str, Any] | None = None
    """The true observation of the proposed call (see the class docstring); None when no
    injection touched this call, or when it was withheld."""
    counterfactual_withheld: str | None = None
    """Why the counterfactual of an injected call was not made (the tool may have side
    effects, so agentprop never calls it a second time); None otherwise. S2 is then
    undefined for the trace, with this reason."""


InterceptLayer = Literal["L1", "L2", "L3"]


class InterceptEvent(BaseModel):
    type: Literal["intercept"] = "intercept"
    """Discriminator of the event union."""
    step: int
    """Agent step at which the interceptor acted."""
    layer: InterceptLayer
    """Which interceptor layer fired (L1 arguments, L2 observation, L3 answer)."""
    decision: Literal["abstain", "warn"]
    """abstain (the answer was replaced) or warn (a warning was shown)."""
    reason: str
    """Why, in one line (shown to the user in reports)."""


GuardPoint = Literal["tool_call", "tool_result", "answer"]
GuardAction = Literal["reject", "retry", "abstain"]


class GuardEvent(BaseModel):
    """A guardrail or mitigation acting (`intercept evaluate --guard`, docs/guardrails.md).
    Only actions are recorded: a guard that allows leaves no event."""

    type: Literal["guard"] = "guard"
    """Discriminator of the event union."""
    step: int
    """Agent step at which the guard acted."""
    guard: str
    """The guard's name (a built-in mitigation's name, or MODULE:CALLABLE)."""
    point: GuardPoint
    """Where: before a tool call ran, on its result, or on an answer candidate."""
    action: GuardAction
    """reject (the agent sees the guard's message instead), retry (the call ran again,
    as a framework's retry middleware does) or abstain (the answer is withheld)."""
    call_id: str | None = None
    """The tool call it acted on (tool_call and tool_result points)."""
    reason: str = ""
    """Why, in one line (the guard's own words)."""


class FinalEvent(BaseModel):
    type: Literal["final"] = "final"
    """Discriminator of the event union."""
    step: int
    """Agent step."""
    answer: str | None
    """The final answer as given to the user (None if there was none)."""
    abstained: bool = False
    """True when the interceptor replaced the answer by an abstention."""
    reason: str | None = None
    """For an abstention: the interceptor's reason."""
    forced: bool = False
    """True when the agent was out of steps and answered only when asked once more without
    tools (`run --answer-on-step-limit`); false for an answer the agent chose to give."""


CallIssueKind = Literal["leaked", "unknown_tool", "bad_arguments"]


class CallIssueEvent(BaseModel):
    """A tool call that did not arrive as a valid call (docs/tool-call-outcomes.md):
    ``leaked``, a call of an offered tool written as text in the content instead of a
    structured call; ``unknown_tool``, a structured call of a tool that was not offered;
    ``bad_arguments``, a call whose arguments do not parse as a JSON object. None of them
    reaches a tool (a leaked call only when the runtime executes leaked calls); none is
    counted as "no tool call" or as rejection."""

    type: Literal["call_issue"] = "call_issue"
    """Discriminator of the event union."""
    step: int
    """Agent step (the model call that produced it)."""
    kind: CallIssueKind
    """leaked, unknown_tool or bad_arguments."""
    tool: str | None = None
    """The tool the call names (for a leaked call: the offered tool its text calls)."""
    raw: str
    """The raw text: the whole content (leaked), the call as JSON (unknown_tool), or the
    arguments as received (bad_arguments)."""
    detail: str = ""
    """Why: the form of a leaked call (json, call_syntax, functions_prefix, react), or the
    JSON decoder's message."""
    call_id: str | None = None
    """Id of the call in the agent's history, when it has one there."""
    executed: bool = False
    """For a leaked call: True when the runtime ran it as a call (`execute_leaked`)."""


class ErrorEvent(BaseModel):
    """A failure after retries (provider error, step limit). The trace is kept and marked."""

    type: Literal["error"] = "error"
    """Discriminator of the event union."""
    step: int
    """Agent step."""
    kind: str
    """ModelError kind (rate_limit, server, timeout, connection, auth...); for an external
    agent ``agent_exception``, ``timeout``, ``no_final_answer``; ``upstream`` when the
    user's MCP server died, hung or could not start under the episode."""
    message: str
    """The provider's message, secrets redacted."""
    attempts: int = 1
    """How many attempts were made before giving up."""


TraceEvent = Annotated[
    ModelCallEvent
    | ToolCallEvent
    | InjectionEvent
    | ToolResultEvent
    | InterceptEvent
    | GuardEvent
    | FinalEvent
    | CallIssueEvent
    | ErrorEvent,
    Field(discriminator="type"),
]


class WorkUnit(BaseModel):
    """One episode to run. Its key identifies the trace; a stored key is never run again.

    `arm` separates interceptor arms ("" = no interceptor experiment, "control",
    "treatment") that share run, model, task, condition and seed.
    """

    run_id: str
    """The run the unit belongs to."""
    model: str
    """Model id provider/name."""
    task_id: str
    """Suite task id."""
    condition: str = "baseline"
    """baseline or an injection condition."""
    seed: int = 0
    """Repetition seed (distinct episodes of the same unit)."""
    arm: str = ""
    """"", "control" or "treatment" (interceptor experiments)."""

    @property
    def key(self) -> str:
        parts = [self.run_id, self.model, self.task_id, self.condition, str(self.seed), self.arm]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


TraceStatus = Literal["ok", "error", "step_limit"]


class Trace(BaseModel):
    """One agent episode for one work unit. Immutable once written."""

    id: str
    """The work unit's key: a stored id is never run again."""
    run_id: str
    """Run that produced it (its RunSpec holds the configuration)."""
    model: str
    """Model id provider/name."""
    task_id: str
    """Suite task id."""
    domain: str
    """Task domain (copied so analysis needs no suite)."""
    split: str
    """val or test."""
    difficulty: str
    """easy, medium or hard (or unknown, imported)."""
    condition: str = "baseline"
    """baseline or the injection condition."""
    seed: int = 0
    """Repetition seed."""
    arm: str = ""
    """"", "control" or "treatment"."""
    status: TraceStatus = "ok"
    """ok; error (a ModelError ended it); step_limit (out of steps)."""
    simulated: bool = False
    """True when the model was simulated: reports label such numbers."""
    messages: list[Message] = Field(default_factory=list)
    """The conversation as the model saw it."""
    events: list[TraceEvent] = Field(default_factory=list)
    """Typed events in order: the record every indicator is computed from."""
    started_at: datetime = Field(default_factory=utcnow)
    """UTC start time."""
    ended_at: datetime | None = None
    """UTC end time (None if unfinished)."""
    release_stages: dict[str, bool | None] | None = None
    """For a trace imported from a published release (interop/): the stage indicators the
    release itself recorded (``S1``, ``S2``, ``no_tool``...; None = not recorded), which
    override the ones derived from the events. None for traces agentprop ran itself."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Provenance extras (``imported``, ``source_file``...); nothing computed reads it."""

    @model_validator(mode="before")
    @classmethod
    def _lift_release_stages(cls, data: Any) -> Any:
        """Workspaces written before the field existed keep it in ``meta``."""
        popped = pop_meta_key(data, "release_stages")
        if popped is None:
            return data
        data, lifted = popped
        if data.get("release_stages") is None:
            data["release_stages"] = lifted
        return data

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
