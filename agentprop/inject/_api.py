"""Faults of the model API, `api:<kind>`: one model call of the episode fails as a real
OpenAI-compatible endpoint fails, or its completion arrives cut.

- `rate_limited`: HTTP 429 with ``Retry-After`` and OpenAI's error body (natively the
  provider's `rate_limit` failure, which its retry policy retries);
- `server_error`: HTTP 500 with OpenAI's error body (natively `server`, retried alike);
- `truncated`: the real completion cut as a max_tokens limit cuts it, ``finish_reason:
  "length"`` (`cut_completion`);
- `stream_cut`: the response stops mid-way. Streamed: the same cut text and calls, then
  the stream ends without its final chunk and ``[DONE]``. Not streamed: the connection
  closes mid-body (a transport error, which SDKs retry). Natively (agentprop's providers
  do not stream): the cut completion, flagged ``raw["stream_cut"]``.

The faulted call is the first model call after the episode's first tool result: the
agent has state to lose there, and the call is the same natively and at the gateway
(no draw, so a unit always faults the same call). The real completion of that call is
fetched first and recorded as the counterfactual (`InjectionEvent.original`); whether the
client retries, and what it then gets (`received`), is what the condition measures.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from agentprop.agent import AgentHooks, EpisodeContext
from agentprop.core import (
    InjectionEvent,
    Message,
    ModelOutput,
    Task,
    ToolCall,
    ToolSpec,
    UnparsedCall,
    WorkUnit,
)
from agentprop.models import GenerateConfig, Model, ModelError
from agentprop.models._retry import RetryableError, RetryPolicy, call_with_retries

API = "api"
AnswerChange = Literal["unless_retried", "when_used"]
"""When a fault can change the answer: `unless_retried`, only if no retry of the same
request brings the real completion back (SDKs retry these by default); `when_used`, the
cut completion arrives as a success and changes the answer unless the agent discards or
re-requests it."""


@dataclass(frozen=True)
class ApiFault:
    """One `api:` kind: what reaches the client, and when it can change the answer."""

    kind: str
    http_status: int
    """The gateway's status line (200: a completion that arrives cut)."""
    model_error: str | None
    """The native `ModelError` kind (None: a cut completion is returned)."""
    changes_answer: AnswerChange
    note: str


API_FAULTS: dict[str, ApiFault] = {f.kind: f for f in (
    ApiFault("rate_limited", 429, "rate_limit", "unless_retried",
             "the openai SDK retries 429 twice by default, honouring Retry-After"),
    ApiFault("server_error", 500, "server", "unless_retried",
             "the openai SDK retries 500 twice by default"),
    ApiFault("truncated", 200, None, "when_used",
             "a 200 with finish_reason length: no SDK retries it"),
    ApiFault("stream_cut", 200, None, "when_used",
             "streamed: the openai SDK ends the iteration quietly on a stream without "
             "[DONE]; not streamed, a connection error: unless_retried"),
)}
API_KINDS: tuple[str, ...] = tuple(API_FAULTS)
"""The API fault kinds, in the order `api:all` expands to."""
RETRY_AFTER_S = 1
"""The Retry-After of a rate_limited fault, seconds (short: a run waits it once per unit)."""


def error_body(kind: str) -> dict[str, Any]:
    """The official OpenAI error JSON for an HTTP fault."""
    if kind == "rate_limited":
        return {"error": {
            "message": "Rate limit reached for requests. Please try again in "
                       f"{RETRY_AFTER_S}s.",
            "type": "requests", "param": None, "code": "rate_limit_exceeded"}}
    return {"error": {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error", "param": None, "code": None}}


def completion_content(output: ModelOutput) -> dict[str, Any]:
    """What a completion says, for comparing one with another: its text and calls (name and
    arguments, raw text for arguments that do not parse), in order; ids, usage and timing
    differ between two draws of the same completion and are left out."""
    calls: list[dict[str, Any]] = [{"name": c.name, "arguments": c.arguments}
                                   for c in output.tool_calls]
    for u in sorted(output.unparsed_calls, key=lambda u: u.index):
        calls.insert(min(u.index, len(calls)), {"name": u.name, "arguments": u.arguments})
    return {"text": output.text or None, "tool_calls": calls}


def cut_in_half(text: str | None, calls: list[tuple[str, str]]) -> tuple[str | None,
                                                                       list[tuple[str, str]]]:
    """A completion cut mid-way as a max_tokens limit cuts it, always a prefix of it: with
    calls, the last call's arguments JSON to its first half (unparseable; the text and
    earlier calls kept); without, the text to its first half. `calls`: (name, arguments
    JSON text)."""
    if calls:
        name, args = calls[-1]
        return text, [*calls[:-1], (name, args[: len(args) // 2])]
    return (text[: len(text) // 2] if text else text), []


def cut_output(output: ModelOutput, kind: str) -> ModelOutput:
    """The native cut completion (`cut_in_half`): the cut call an `UnparsedCall`, as a
    provider records arguments that do not parse; flagged in `raw` (``finish_reason:
    "length"``, or ``stream_cut``)."""
    entries: list[ToolCall | UnparsedCall] = list(output.tool_calls)
    for u in sorted(output.unparsed_calls, key=lambda u: u.index):
        entries.insert(min(u.index, len(entries)), u)
    flag = {"finish_reason": "length"} if kind == "truncated" else {"stream_cut": True}
    update: dict[str, Any] = {"raw": {**(output.raw or {}), **flag}}
    if not entries:
        text, _ = cut_in_half(output.text, [])
        return output.model_copy(update={**update, "text": text})
    last = entries[-1]
    args = last.arguments if isinstance(last, UnparsedCall) else json.dumps(last.arguments)
    _, [(_, cut)] = cut_in_half(None, [(last.name, args)])
    try:
        json.loads(cut)
        error = "not a JSON object"
    except ValueError as e:
        error = str(e)
    unparsed = [u for u in output.unparsed_calls if u is not last]
    unparsed.append(UnparsedCall(id=last.id, name=last.name, arguments=cut, error=error,
                                 index=len(entries) - 1))
    return output.model_copy(update={
        **update, "tool_calls": [c for c in entries[:-1] if isinstance(c, ToolCall)],
        "unparsed_calls": unparsed})


@dataclass
class ApiFaultHooks(AgentHooks):
    """Faults one model call per episode (the first after a tool result) with `kind`, and
    records it: one `InjectionEvent` (protocol `api`), "applied" when the fault reached the
    client, else at the end "no_tool_call" (no tool was called) or "no_model_call" (no
    model call after a tool result reached agentprop: the episode ended, or an external
    agent's model calls do not go through the gateway).

    Natively `wrap_model` puts the fault in front of the episode's model; an external
    episode's recorder calls `take` / `release` / `applied` for the gateway's requests.
    """

    name: str = "api_fault"
    unit: WorkUnit | None = None
    task: Task | None = None
    kind: str = "rate_limited"
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
    model_calls: int = field(default=0, init=False)
    taken: bool = field(default=False, init=False)
    event: InjectionEvent | None = field(default=None, init=False)
    protocol: ClassVar[str] = API

    @property
    def fault(self) -> ApiFault:
        return API_FAULTS[self.kind]

    def take(self, ctx: EpisodeContext) -> bool:
        """Counts one model call; True when it is the one to fault (it is then taken)."""
        self.model_calls += 1
        if self.taken or ctx.tool_calls_seen == 0:
            return False
        self.taken = True
        return True

    def release(self) -> None:
        """The taken call failed by itself (no real completion to fault): the next one is
        the target."""
        if self.event is None:
            self.taken = False

    def applied(self, ctx: EpisodeContext, original: ModelOutput, injected: dict[str, Any],
                received: dict[str, Any] | None = None) -> InjectionEvent:
        """Record the fault: `original` the real completion, `injected` what the client
        got, `received` the completion it got (None: only an error)."""
        self.event = InjectionEvent(
            step=ctx.step, protocol=API, error_type=self.kind, status="applied",
            call_index=self.model_calls, original=completion_content(original),
            injected=injected, received=injected if received is None else received)
        ctx.events.append(self.event)
        return self.event

    def retried(self, output: ModelOutput) -> None:
        """The client sent the faulted request again and got `output`."""
        if self.event is not None:
            self.event.retried = True
            self.event.received = completion_content(output)

    def wrap_model(self, ctx: EpisodeContext, model: Model) -> Model:
        return ApiFaultModel(model, self, ctx)

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        if self.event is not None:
            return
        ctx.events.append(InjectionEvent(
            step=ctx.step, protocol=API, error_type=self.kind,
            status="no_tool_call" if ctx.tool_calls_seen == 0 else "no_model_call"))

    async def fail_natively(self, ctx: EpisodeContext, model: Model, real: ModelOutput,
                            again: Callable[[], Awaitable[ModelOutput]]) -> ModelOutput:
        """The fault on a native call whose real completion is `real`: a cut completion,
        or the provider's retryable failure run through `model`'s retry policy (`again`
        is the retry: a real call)."""
        spec = self.fault
        if spec.model_error is None:
            cut = cut_output(real, self.kind)
            content = completion_content(cut)
            flag = {"finish_reason": "length"} if self.kind == "truncated" else {"cut": True}
            self.applied(ctx, real, {**content, **flag}, content)
            return cut
        body = error_body(self.kind)["error"]
        self.applied(ctx, real, {"error": {"status": spec.http_status, **body}})
        first = True

        async def attempt() -> ModelOutput:
            nonlocal first
            if first:
                first = False
                raise RetryableError(spec.model_error or "server",
                                     f"HTTP {spec.http_status}: {body['message']}",
                                     RETRY_AFTER_S if spec.http_status == 429 else None)
            return await again()

        policy = getattr(model, "retry", None)
        out, attempts = await call_with_retries(
            attempt, policy if isinstance(policy, RetryPolicy) else RetryPolicy(),
            random.Random(0), self.sleep)  # a ModelError: the policy gave up, as for a real one
        self.retried(out)
        return out.model_copy(update={"raw": {**(out.raw or {}), "attempts": attempts,
                                              "api_fault": self.kind}})


class ApiFaultModel:
    """The episode's model with `hooks`' fault in front of it (`wrap_model`); every other
    call, and every attribute, is the model's own."""

    def __init__(self, inner: Model, hooks: ApiFaultHooks, ctx: EpisodeContext) -> None:
        self.inner = inner
        self.hooks = hooks
        self.ctx = ctx

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def simulated(self) -> bool:
        return self.inner.simulated

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def generate(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> ModelOutput:
        if not self.hooks.take(self.ctx):
            return await self.inner.generate(messages, tools, config)
        try:
            real = await self.inner.generate(messages, tools, config)
        except ModelError:
            self.hooks.release()
            raise
        return await self.hooks.fail_natively(
            self.ctx, self.inner, real,
            lambda: self.inner.generate(messages, tools, config))
