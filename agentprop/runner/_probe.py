"""The tool-calling integrity preflight: before the first unit, a few probe requests per
model with the run's own tools (docs/real-servers.md).

Servers lose tool calls silently: one drops `tools` when the chat template has none,
one returns the call as JSON text, one reads a missing `tool_choice` as "none", one dies
on a JSON Schema `pattern`. A run against such a server records thousands of "the model
called no tool". The probe asks, per model:

1. **forced**: for every tool the run may offer (its own schema, in a request shaped like
   the run's: system prompt, a run task's query, that task's tools), a forced
   ``tool_choice`` returns a structured call whose arguments parse and validate against
   the schema (the environment's own validator); stops at the first failure;
2. **round trip**: the first forced call, executed in a fresh environment and sent back
   as a tool result (with the assistant message as the run sends it), is accepted and
   answered;
3. **auto**: with ``tool_choice="auto"`` (the run's default) the model calls a tool for
   a run task's query.

The verdict (`core.ToolProbe.verdict`) comes from the first check; `strict` refuses a
model that fails it (`ProbeRefused`, exit 2), `warn` reports and runs. A model the first
request cannot reach at all (connection refused, key refused) stops the run in either
mode with one line (`RunAborted`): no episode could run. The result is
stored in the run manifest (`RunSpec.preflight`). Probes skip the response cache (they
test the endpoint now) and retry at most once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentprop.agent import NativeDialect, leaked_calls, observation_text
from agentprop.core import Message, ModelOutput, Task, ToolCall, ToolProbe, ToolSpec
from agentprop.domains import get_domain
from agentprop.models import GenerateConfig, Model, ModelError, RetryPolicy
from agentprop.runner._errors import RunAborted, RunError

ProbeMode = Literal["strict", "warn", "off"]
PROBE_MODES: tuple[str, ...] = ("strict", "warn", "off")
UNREACHABLE = ("connection", "auth")
"""Error kinds of a first probe request that mean no episode can run either."""
PROBE_MAX_TOKENS = 256
"""Output budget of a probe request: a forced call's arguments fit in it."""

VERDICT_TEXT = {
    "native": "native tool calls",
    "invalid_arguments": "tool calls with invalid arguments",
    "leaked": "calls leaked into text",
    "no_calls": "no tool calls",
    "error": "error",
}


class ProbeRefused(RunError):
    """`--preflight strict` and a model that failed the forced check: nothing runs."""

    exit_code = 2


@dataclass
class _Target:
    """One tool to force, with the run task whose request carries it."""

    task: Task
    specs: list[ToolSpec]
    tool: str


@dataclass
class _Probe:
    model: Model
    config: GenerateConfig
    record: ToolProbe
    started: float = field(default_factory=time.perf_counter)

    async def ask(self, messages: list[Message], tools: list[ToolSpec],
                  choice: str | None) -> ModelOutput:
        self.record.requests += 1
        cfg = self.config.model_copy(update={"tool_choice": choice})
        out = await self.model.generate(messages, tools, cfg)
        self.record.cost += out.cost
        return out

    def fail(self, verdict: str, detail: str) -> ToolProbe:
        self.record.verdict = verdict  # type: ignore[assignment]
        self.record.detail = self.record.detail or detail
        return self.done()

    def done(self) -> ToolProbe:
        self.record.seconds = round(time.perf_counter() - self.started, 3)
        return self.record


def probe_targets(tasks: Sequence[Task]) -> list[_Target]:
    """Every tool the run may offer, each with the run task to carry it: one whose gold
    plan starts with the tool, else one that uses it, else the first that offers it."""
    out: dict[tuple[str, str], _Target] = {}
    rank: dict[tuple[str, str], int] = {}
    for task in tasks:
        specs = get_domain(task.domain).tool_specs(task.tools)
        used = [c.name for c in task.gold_plan]
        for spec in specs:
            key = (task.domain, spec.name)
            r = 0 if used[:1] == [spec.name] else 1 if spec.name in used else 2
            if key not in out or r < rank[key]:
                out[key], rank[key] = _Target(task, specs, spec.name), r
    return list(out.values())


def _messages(task: Task, specs: list[ToolSpec]) -> list[Message]:
    return NativeDialect(specs).initial_messages(task, specs)


def _check_call(target: _Target, out: ModelOutput) -> tuple[str, str, ToolCall | None]:
    """(verdict, detail, the call) of one forced reply."""
    where = f"{target.task.domain}.{target.tool}"
    bad = out.unparsed_calls
    if out.tool_calls:
        call = next((c for c in out.tool_calls if c.name == target.tool), out.tool_calls[0])
        tool = get_domain(target.task.domain).tool(call.name)
        if tool is None:
            return "invalid_arguments", f"{where}: called an unknown tool {call.name!r}", None
        invalid = tool.validate(call.arguments)
        if invalid is not None:
            return ("invalid_arguments",
                    f"{where}: arguments fail the schema ({invalid['error']['message']})", None)
        return "native", "", call
    if bad:
        return "invalid_arguments", f"{where}: arguments do not parse ({bad[0].error})", None
    if leaked_calls(out.text, target.specs):
        return "leaked", f"{where}: the call came back as text: {_clip(out.text)}", None
    what = "an empty reply" if not (out.text or "").strip() else f"text: {_clip(out.text)}"
    return "no_calls", f"{where}: no tool call, {what}", None


def _clip(text: str | None, n: int = 60) -> str:
    one = " ".join((text or "").split())
    return repr(one if len(one) <= n else one[: n - 1] + "…")


@contextlib.contextmanager
def _probing(model: Model) -> Iterator[None]:
    """No response cache and at most two attempts while probing (restored after)."""
    cache = getattr(model, "cache", None)
    retry = getattr(model, "retry", None)
    if cache is not None:
        model.cache = None  # type: ignore[attr-defined]
    if isinstance(retry, RetryPolicy):
        model.retry = RetryPolicy(max_attempts=min(2, retry.max_attempts),  # type: ignore[attr-defined]
                                  base_delay_s=retry.base_delay_s,
                                  max_delay_s=retry.max_delay_s)
    try:
        yield
    finally:
        if cache is not None:
            model.cache = cache  # type: ignore[attr-defined]
        if retry is not None:
            model.retry = retry  # type: ignore[attr-defined]


async def probe_model(model: Model, tasks: Sequence[Task], config: GenerateConfig
                      ) -> ToolProbe:
    """The preflight of one model over the run's `tasks` (see the module docstring)."""
    targets = probe_targets(tasks)
    max_tokens = min(config.max_tokens or PROBE_MAX_TOKENS, PROBE_MAX_TOKENS)
    p = _Probe(model, config.model_copy(update={"max_tokens": max_tokens}),
               ToolProbe(model=model.id, verdict="native", tools=len(targets)))
    if not targets:
        return p.fail("no_calls", "the run offers no tools")
    first: tuple[_Target, ToolCall] | None = None
    with _probing(model):
        for t in targets:
            try:
                out = await p.ask(_messages(t.task, t.specs), t.specs, t.tool)
            except ModelError as e:
                if e.kind == "context_overflow":  # every episode's first request is longer
                    raise RunError(f"model {model.id}: {e.message}: the run's prompts do "
                                   "not fit its context; nothing was run (a local model "
                                   "takes -o n_ctx=N)") from None
                p.record.reached = p.record.requests > 1 or e.kind not in UNREACHABLE
                return p.fail("error", f"{t.task.domain}.{t.tool}: {e.message}")
            verdict, detail, call = _check_call(t, out)
            if call is None:
                return p.fail(verdict, detail)
            p.record.tools_passed += 1
            first = first or (t, call)
        assert first is not None
        await _roundtrip(p, *first)
        await _auto(p, tasks)
    return p.done()


async def _roundtrip(p: _Probe, target: _Target, call: ToolCall) -> None:
    """Check 2: the executed call's result, sent back as the run sends it, is answered."""
    task = target.task
    env = get_domain(task.domain).make_env(task.env_seed)
    call = call if call.id else call.model_copy(update={"id": "call_probe_0"})
    history = [*_messages(task, target.specs),
               Message(role="assistant", content=None, tool_calls=[call]),
               Message(role="tool", tool_call_id=call.id, name=call.name,
                       content=observation_text(env.call(call.name, call.arguments)))]
    try:
        await p.ask(history, target.specs, None)
        p.record.roundtrip = True
    except ModelError as e:
        p.record.roundtrip = False
        p.record.detail = f"round trip: {e.message}"


async def _auto(p: _Probe, tasks: Sequence[Task]) -> None:
    """Check 3: with the run's default tool choice, a call for a run task's query."""
    task = next((t for t in tasks if t.gold_plan), tasks[0])
    specs = get_domain(task.domain).tool_specs(task.tools)
    try:
        out = await p.ask(_messages(task, specs), specs, None)
    except ModelError as e:
        p.record.auto_call = False
        p.record.detail = p.record.detail or f"auto: {e.message}"
        return
    p.record.auto_call = bool(out.tool_calls)


async def probe_models(models: Mapping[str, Model], tasks: Mapping[str, Sequence[Task]],
                       config: GenerateConfig) -> list[ToolProbe]:
    """The preflight of every model (concurrently; each model's probes in sequence)."""
    ids = [m for m in models if tasks.get(m)]
    found = await asyncio.gather(*(probe_model(models[m], tasks[m], config) for m in ids))
    return list(found)


def probe_line(probe: ToolProbe) -> str:
    """The one line per model the commands print."""
    head = f"preflight {probe.model}: {VERDICT_TEXT[probe.verdict]}"
    if probe.verdict != "native":
        return f"{head} ({probe.detail})" if probe.detail else head
    parts = [f"{probe.tools_passed}/{probe.tools} tools forced"]
    if probe.roundtrip is not None:
        parts.append("round trip ok" if probe.roundtrip else "round trip FAILED")
    if probe.auto_call is not None:
        parts.append("auto: a call" if probe.auto_call else "auto: no call")
    line = f"{head} ({', '.join(parts)}; {probe.seconds:.1f} s)"
    return f"{line}; {probe.detail}" if probe.detail else line


def stop_unreachable(probes: Sequence[ToolProbe]) -> None:
    """RunAborted (one line) for the first model the probe could not reach at all: every
    episode would fail the same way (every mode but ``off``)."""
    dead = next((p for p in probes if not p.reached), None)
    if dead is not None:
        raise RunAborted(f"{probe_line(dead)}; nothing was run")


def refuse(probes: Sequence[ToolProbe]) -> None:
    """`strict`: ProbeRefused naming the first model that failed the forced check."""
    bad = next((p for p in probes if p.verdict != "native"), None)
    if bad is not None:
        raise ProbeRefused(f"--preflight strict: {bad.model} failed the tool-call check "
                           f"({VERDICT_TEXT[bad.verdict]}); nothing was run "
                           "(--preflight warn runs anyway)")


def check_mode(mode: str) -> ProbeMode:
    """The mode, or a RunError naming the valid ones."""
    if mode not in PROBE_MODES:
        raise RunError(f"invalid --preflight {mode!r}: use {', '.join(PROBE_MODES)}")
    return mode  # type: ignore[return-value]
