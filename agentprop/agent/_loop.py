"""The single agent loop: one episode of one work unit, recorded as typed events.

Native function calling is the default (the tools' JSON Schemas are shown to the model);
`text_mode=True` switches to the strict ReAct dialect in `_text.py` for models without
function calling. Both share this loop, so hooks, counterfactuals and the step limit behave
identically in either mode.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from agentprop.agent._dialect import CallIssue, Dialect, Turn
from agentprop.agent._hooks import MAX_RETRIES, AgentHooks, CallRewrite, EpisodeContext
from agentprop.agent._leaked import leaked_calls
from agentprop.agent._text import TextDialect
from agentprop.core import (
    REFERENCE_DATE,
    CallIssueEvent,
    ErrorEvent,
    FinalEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    Task,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    ToolSpec,
    Trace,
    TraceEvent,
    TraceStatus,
    WorkUnit,
    utcnow,
)
from agentprop.domains import Environment, Observation, error_observation
from agentprop.models import GenerateConfig, Model, ModelError

DEFAULT_MAX_STEPS = 10


def system_prompt() -> str:
    """The native-mode system prompt. It states "today" so relative dates are answerable."""
    weekday = date.fromisoformat(REFERENCE_DATE).strftime("%A")
    return (
        "You are a helpful assistant that answers the user's question using the tools "
        f"provided. Today is {weekday}, {REFERENCE_DATE}. Call the tools you need to look "
        "up the information; base your answer on what the tools return. When you have the "
        "answer, reply to the user in plain text without calling a tool."
    )


def observation_text(observation: Observation) -> str:
    """How an observation is shown to the model: compact JSON text."""
    return json.dumps(observation, ensure_ascii=False, default=str)


class NativeDialect:
    """OpenAI-style function calling: tool specs to the API, one `tool` message per call.

    A reply without a structured call whose text invokes an offered tool
    (`_leaked.leaked_calls`) is a leaked call: recorded, and run as a call only when
    `execute_leaked` is set (by default the reply is the final answer, as a harness that
    reads only structured calls takes it: the failure is the model's). Calls whose
    arguments did not parse (`ModelOutput.unparsed_calls`) keep their place among the
    turn's calls and are answered with an error observation, never run."""

    def __init__(self, specs: Sequence[ToolSpec] = (), *, execute_leaked: bool = False
                 ) -> None:
        self.specs = list(specs)
        self.execute_leaked = execute_leaked

    def initial_messages(self, task: Task, specs: list[ToolSpec]) -> list[Message]:
        return [
            Message(role="system", content=system_prompt()),
            Message(role="user", content=task.query),
        ]

    def model_tools(self, specs: list[ToolSpec]) -> list[ToolSpec]:
        return specs

    def read(self, output: ModelOutput, step: int) -> Turn:
        turn = Turn()
        parsed = list(output.tool_calls)[::-1]  # popped from the end, in order
        unparsed = sorted(output.unparsed_calls, key=lambda u: u.index)
        for pos in range(len(parsed) + len(unparsed)):
            if unparsed and (unparsed[0].index <= pos or not parsed):
                u = unparsed.pop(0)
                turn.broken[len(turn.calls)] = u.error
                turn.issues.append(CallIssue("bad_arguments", u.name, u.arguments, u.error,
                                             index=len(turn.calls)))
                turn.calls.append(ToolCall(id=u.id or f"call_{step}_{pos}", name=u.name))
                continue
            c = parsed.pop()
            turn.calls.append(c if c.id else c.model_copy(update={"id": f"call_{step}_{pos}"}))
        if not turn.calls:
            self._read_leaked(output.text, step, turn)
        turn.final = None if turn.calls else output.text
        return turn

    def _read_leaked(self, text: str | None, step: int, turn: Turn) -> None:
        """Record the calls `text` writes out; run them when `execute_leaked` is set."""
        for i, leak in enumerate(leaked_calls(text, self.specs)):
            run = self.execute_leaked and leak.arguments is not None
            turn.issues.append(CallIssue("leaked", leak.name, text or "", leak.form,
                                         index=len(turn.calls) if run else None,
                                         executed=run))
            if run:
                turn.calls.append(ToolCall(id=f"call_{step}_leak{i}", name=leak.name,
                                           arguments=dict(leak.arguments or {})))

    def assistant_message(
        self, output: ModelOutput, turn: Turn, history: list[ToolCall]
    ) -> Message:
        return Message(
            role="assistant", content=output.text, tool_calls=history, reasoning=output.reasoning
        )

    def observation_messages(
        self, history: list[ToolCall], observations: list[Observation], notes: list[str]
    ) -> list[Message]:
        return [
            Message(role="tool", content=observation_text(obs), tool_call_id=c.id, name=c.name)
            for c, obs in zip(history, observations, strict=True)
        ]


class _RequestHasher:
    """A stable hash of the request (model, messages, tools, config), computed incrementally.

    Messages are only ever appended, so each is serialised once (pydantic's JSON, in field
    order); the request hash chains the per-message digests after the digest of model,
    tools and config. Equal requests give equal hashes across runs and processes.
    """

    def __init__(self, model_id: str, tools: Sequence[ToolSpec], config: GenerateConfig) -> None:
        h = hashlib.sha256(model_id.encode())
        for t in tools:
            h.update(b"\x1e" + t.model_dump_json().encode())
        h.update(b"\x1d" + config.model_dump_json().encode())
        self._head = h.digest()
        self._digests: list[bytes] = []

    def __call__(self, messages: list[Message]) -> str:
        for m in messages[len(self._digests) :]:
            data = m.model_dump_json(exclude_defaults=True).encode()
            self._digests.append(hashlib.sha256(data).digest())
        return hashlib.sha256(self._head + b"".join(self._digests)).hexdigest()


def _same_call(a: ToolCall, b: ToolCall) -> bool:
    return a.name == b.name and a.arguments == b.arguments


async def _call_model(ctx: EpisodeContext, model: Model, messages: list[Message],
                      tools: list[ToolSpec], config: GenerateConfig,
                      request_hash: str) -> ModelOutput | None:
    """One model call recorded as an event; a provider failure becomes an `ErrorEvent`
    and None (a provider bug too: it must not crash a run of thousands of units)."""
    try:
        output = await model.generate(list(messages), tools, config)
    except ModelError as e:
        ctx.events.append(
            ErrorEvent(step=ctx.step, kind=e.kind, message=e.message, attempts=e.attempts))
        return None
    except Exception as e:
        ctx.events.append(ErrorEvent(step=ctx.step, kind="provider_exception",
                                     message=f"{type(e).__name__}: {e}"))
        return None
    ctx.events.append(ModelCallEvent(step=ctx.step, request_hash=request_hash, output=output))
    return output


def _final(ctx: EpisodeContext, hooks: Sequence[AgentHooks], answer: str | None, *,
           forced: bool = False) -> None:
    final = FinalEvent(step=ctx.step, answer=answer, forced=forced)
    for h in hooks:
        replaced = h.before_final(ctx, final)
        if replaced is not None:
            final = replaced
    ctx.events.append(final)


async def run_episode(
    unit: WorkUnit,
    task: Task,
    model: Model,
    hooks: Sequence[AgentHooks],
    config: GenerateConfig,
    env: Environment,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    text_mode: bool = False,
    answer_on_step_limit: bool = False,
    execute_leaked: bool = False,
) -> Trace:
    """Run one episode and return its trace (never raises for a provider failure).

    A `ModelError` (or any other exception from the provider) ends the episode with an
    `error` event and status "error"; running out of steps ends it with status
    "step_limit", or, with `answer_on_step_limit`, asks once more with tool_choice "none"
    (LangChain's "generate" early stopping) and records that answer as a forced final
    answer. Exceptions raised by hooks or by the environment are bugs and propagate.
    A call that does not arrive as a valid call (written as text, of a tool not offered,
    with arguments that do not parse) is a `CallIssueEvent`; `execute_leaked` runs calls
    written as text (native mode) as if they were structured.
    """
    started = utcnow()
    specs = env.domain.tool_specs(task.tools)
    if text_mode:
        dialect: Dialect = TextDialect()
    else:
        dialect = NativeDialect(specs, execute_leaked=execute_leaked)
    offered = {s.name for s in specs}
    model_tools = dialect.model_tools(specs)
    messages = dialect.initial_messages(task, specs)
    events: list[TraceEvent] = []
    ctx = EpisodeContext(unit=unit, task=task, env=env, messages=messages, events=events)
    hasher = _RequestHasher(model.id, model_tools, config)
    for h in hooks:  # after the hasher: a stand-in model keeps the request hashes
        model = h.wrap_model(ctx, model) or model
    used_ids: set[str] = set()
    status: TraceStatus = "step_limit"

    for step in range(max_steps):
        ctx.step = step
        output = await _call_model(ctx, model, messages, model_tools, config, hasher(messages))
        if output is None:
            status = "error"
            break
        extra = [m for h in hooks if (m := h.on_model_output(ctx, output)) is not None]
        turn = dialect.read(output, step)
        turn.calls = _unique_ids(turn.calls, used_ids, step)
        events.extend(_issue_events(turn, step))

        if turn.calls or turn.notes:
            history = list(turn.calls)
            at = len(messages)
            messages.append(dialect.assistant_message(output, turn, history))
            observations = []
            for i, proposed in enumerate(turn.calls):
                hist, obs = await _answer_call(ctx, hooks, proposed, turn.broken.get(i),
                                               offered)
                history[i] = hist
                observations.append(obs)
            # Rebuilt so the agent's history shows the calls as hooks substituted them.
            messages[at] = dialect.assistant_message(output, turn, history)
            messages.extend(dialect.observation_messages(history, observations, turn.notes))
            messages.extend(extra)
            continue

        messages.append(dialect.assistant_message(output, turn, []))
        if extra:
            messages.extend(extra)
            continue
        _final(ctx, hooks, turn.final)
        status = "ok"
        break
    else:
        status = await _after_step_limit(ctx, hooks, model, dialect, model_tools, config,
                                          hasher, max_steps, answer=answer_on_step_limit)

    return finish_episode(ctx, hooks, status, simulated=bool(model.simulated),
                          started=started, meta={"text_mode": True} if text_mode else {})


async def _after_step_limit(ctx: EpisodeContext, hooks: Sequence[AgentHooks], model: Model,
                            dialect: Dialect, tools: list[ToolSpec], config: GenerateConfig,
                            hasher: _RequestHasher, max_steps: int, *,
                            answer: bool) -> TraceStatus:
    """The step limit: a `step_limit` error, or with `answer` one more call with
    tool_choice "none" whose text, when it is text, is the (forced) final answer."""
    if answer:
        ctx.step = max_steps
        cfg = config.model_copy(update={"tool_choice": "none"})
        output = await _call_model(ctx, model, ctx.messages, tools, cfg, hasher(ctx.messages))
        if output is None:
            return "error"
        for h in hooks:
            h.on_model_output(ctx, output)
        turn = dialect.read(output, max_steps)
        ctx.events.extend(_issue_events(turn, max_steps))
        if not turn.calls and not turn.notes:
            ctx.messages.append(dialect.assistant_message(output, turn, []))
            _final(ctx, hooks, turn.final, forced=True)
            return "ok"
    ctx.events.append(ErrorEvent(step=max_steps, kind="step_limit",
                                 message=f"no final answer after {max_steps} model calls"))
    return "step_limit"


def finish_episode(ctx: EpisodeContext, hooks: Sequence[AgentHooks], status: TraceStatus, *,
                   simulated: bool, started: datetime, meta: dict[str, Any]) -> Trace:
    """End an episode (every hook's `on_episode_end`) and build its trace from the
    context: the one place a trace gets its unit's and task's fields, for the native loop
    and for an external agent's episode alike."""
    for h in hooks:
        h.on_episode_end(ctx)
    unit, task = ctx.unit, ctx.task
    return Trace.model_construct(
        id=unit.key,
        run_id=unit.run_id,
        model=unit.model,
        task_id=task.id,
        domain=task.domain,
        split=task.split,
        difficulty=task.difficulty,
        condition=unit.condition,
        seed=unit.seed,
        arm=unit.arm,
        status=status,
        simulated=simulated,
        messages=ctx.messages,
        events=ctx.events,
        started_at=started,
        ended_at=utcnow(),
        meta=meta,
    )


def _issue_events(turn: Turn, step: int) -> list[CallIssueEvent]:
    """The dialect's call issues of one turn as events (call ids as made unique)."""
    return [CallIssueEvent(step=step, kind=i.kind, tool=i.tool, raw=i.raw, detail=i.detail,
                           call_id=turn.calls[i.index].id if i.index is not None else None,
                           executed=i.executed)
            for i in turn.issues]


async def _answer_call(ctx: EpisodeContext, hooks: Sequence[AgentHooks], proposed: ToolCall,
                       broken: str | None, offered: set[str]) -> tuple[ToolCall, Observation]:
    """(history call, observation) of one call of a turn: a call whose arguments did not
    parse, or of a tool that was not offered, is answered with an error observation and
    never reaches the hooks or the environment (the latter recorded here as an
    ``unknown_tool`` issue); any other call goes through `execute_call`."""
    if broken is not None:
        return proposed, error_observation(
            "invalid_arguments", f"the arguments of {proposed.name} are not a JSON object:"
            f" {broken}")
    if proposed.name not in offered:
        ctx.events.append(CallIssueEvent(
            step=ctx.step, kind="unknown_tool", tool=proposed.name, call_id=proposed.id,
            raw=json.dumps({"name": proposed.name, "arguments": proposed.arguments},
                           ensure_ascii=False, default=str)))
        return proposed, error_observation("unknown_tool", f"no tool named {proposed.name!r}")
    return await execute_call(ctx, hooks, proposed)


def _unique_ids(calls: list[ToolCall], used: set[str], step: int) -> list[ToolCall]:
    """Tool-call ids unique within the episode. Some APIs (Gemini, some local servers) send
    none, and providers then number calls per turn, so every turn would reuse `call_0`:
    a repeated id gets the step appended, consistently in the events and the history."""
    out = []
    for c in calls:
        cid = c.id
        if cid in used:
            cid = f"{c.id}_s{step}"
            n = 1
            while cid in used:
                cid, n = f"{c.id}_s{step}_{n}", n + 1
            c = c.model_copy(update={"id": cid})
        used.add(cid)
        out.append(c)
    return out


async def execute_call(
    ctx: EpisodeContext, hooks: Sequence[AgentHooks], proposed: ToolCall
) -> tuple[ToolCall, Observation]:
    """One proposed call through the hooks and the environment. Returns (history call,
    observation). The one boundary shared by the native loop and external agents (MCP).

    Asynchronous because an environment may be another process (an upstream MCP server,
    `Environment.acall`). The counterfactual is the environment's
    (`Environment.counterfactual`): an environment that cannot make the clean call again
    without side effects withholds it, and the result event says why. A review
    (`AgentHooks.review_result`) may run the call again: each attempt is its own call and
    result event (ids ``<id>.retry<n>``), and the agent sees only the last result."""
    history, observation = await _attempt(ctx, hooks, proposed)
    attempt = 0
    while True:
        review = next((r for h in hooks
                       if (r := h.review_result(ctx, history, observation, attempt))
                       is not None), None)
        if review is not None and review.replace is not None:
            observation = review.replace
        if review is None or not review.retry or attempt >= MAX_RETRIES:
            break
        attempt += 1
        ctx.retry_of = proposed.id
        try:
            again = history.model_copy(update={"id": f"{proposed.id}.retry{attempt}"})
            _, observation = await _attempt(ctx, hooks, again)
        finally:
            ctx.retry_of = None
    result = next(e for e in reversed(ctx.events) if isinstance(e, ToolResultEvent))
    if result.observation is not observation:  # the review replaced what the agent sees
        ctx.events[ctx.events.index(result)] = result.model_copy(
            update={"observation": observation})
    for h in hooks:
        h.after_tool_result(ctx, history, observation)
    return history, observation


async def _attempt(ctx: EpisodeContext, hooks: Sequence[AgentHooks], proposed: ToolCall
                   ) -> tuple[ToolCall, Observation]:
    """One execution of `proposed` (its call and result events): (history call, the
    observation after the hooks' rewrites)."""
    ctx.events.append(ToolCallEvent(step=ctx.step, call=proposed))
    executed = history = proposed
    replaced: Observation | None = None
    for h in hooks:
        rewrite: CallRewrite | None = h.before_tool_call(ctx, executed)
        if rewrite is not None:
            executed = _with_id(rewrite.executed, proposed.id)
            history = _with_id(rewrite.history, proposed.id)
            if rewrite.observation is not None:
                replaced = rewrite.observation
    counterfactual = None
    withheld: str | None = None
    if replaced is not None:  # the call failed: it never reached the environment
        counterfactual, withheld = await _counterfactual(ctx, proposed)
        observation = replaced
    else:
        if not _same_call(executed, proposed):
            # Before the real call: a mutating tool must see the state the agent's call saw.
            counterfactual, withheld = await _counterfactual(ctx, proposed)
        observation = await ctx.env.acall(executed.name, executed.arguments)
        for h in hooks:
            seen = h.rewrite_observation(ctx, executed, observation)
            if seen is not None:
                if counterfactual is None and withheld is None:
                    counterfactual = observation
                observation = seen
    ctx.events.append(
        ToolResultEvent(
            step=ctx.step,
            call_id=proposed.id,
            name=executed.name,
            arguments=executed.arguments,
            observation=observation,
            counterfactual=counterfactual,
            counterfactual_withheld=withheld,
        )
    )
    ctx.tool_calls_seen += 1
    return history, observation


async def _counterfactual(ctx: EpisodeContext, call: ToolCall
                          ) -> tuple[Observation | None, str | None]:
    """(the clean call's observation, None), or (None, why it was not made)."""
    why = ctx.env.withholds(call.name)
    if why is not None:
        return None, why
    return await ctx.env.counterfactual(call.name, call.arguments), None


def _with_id(call: ToolCall, call_id: str) -> ToolCall:
    return call if call.id == call_id else call.model_copy(update={"id": call_id})
