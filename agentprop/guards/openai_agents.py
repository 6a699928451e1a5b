"""An agentprop `Guard` inside an OpenAI Agents SDK run: a tool input guardrail, a tool
output guardrail, run hooks that record the model's turns, and `GuardedRun.run` for the
answer point, so the decision code agentprop's own loop runs is what runs in the SDK.

- tool_call (tool input guardrail): reject → the tool does not run; the model sees the
  guard's message as the tool's error result (`reject_content`). abstain → the run stops
  (`raise_exception`) and `run()` returns the abstention.
- tool_result (tool output guardrail): reject → the model sees the message instead of the
  result; abstain → the run stops and `run()` returns the abstention. **retry cannot be
  expressed**: an SDK tool guardrail runs after the tool and can allow, replace the output
  or raise, never run the tool again. The result passes unchanged and the decision is
  kept in `GuardedRun.unexpressed` (use a guard that rejects with a "call it again"
  message, or retry inside the tool, to get the same effect).
- answer (`GuardedRun.run`, after `Runner.run`): reject → the run goes on from its history
  with the message as a user turn (at most `max_rejects` times; then it abstains);
  abstain → `run()` returns an `agentprop.external.Abstention`. An SDK output guardrail
  could only raise, never replace the answer, hence a wrapper.

The tool guardrails apply to MCP tools: the SDK turns an MCP server's tools into
`FunctionTool`s carrying the server's `tool_input_guardrails`/`tool_output_guardrails`
(`attach` sets them on a server or on function tools). One `GuardedRun` holds one run's
history: make one per run (per episode); runs never share state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents import (
    Agent,
    RunContextWrapper,
    RunHooks,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
)
from agents.items import ModelResponse

from agentprop.agent import observation_text
from agentprop.core import GuardAction, GuardPoint, ToolCall
from agentprop.external import Abstention
from agentprop.guards._common import (
    Turn,
    abstention_text,
    ask,
    content_text,
    default_guard,
    observation_of,
    parse_arguments,
    to_events,
)
from agentprop.intercept import GUARD_ERROR, Decision, Guard, GuardView, InterceptConfig


def turns_of_output(items: list[Any]) -> list[Turn]:
    """One model response's output items (messages, function calls) as one assistant turn."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in items:
        kind = getattr(item, "type", None)
        if kind == "message":
            texts += [content_text(c.text) for c in getattr(item, "content", [])
                      if getattr(c, "text", None)]
        elif kind == "function_call":
            calls.append(ToolCall(id=item.call_id, name=item.name,
                                  arguments=parse_arguments(item.arguments)))
    return [Turn("assistant", text="".join(texts), calls=tuple(calls))]


class _Turns(RunHooks[Any]):
    """Records each model response of the run into the `GuardedRun`'s history."""

    def __init__(self, run: GuardedRun) -> None:
        self.run = run

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Agent[Any],
                         response: ModelResponse) -> None:
        self.run.turns += turns_of_output(list(response.output))


@dataclass
class GuardedRun:
    """One run of an SDK agent under `guard` (see the module docstring)."""

    query: str
    guard: Guard = field(default_factory=default_guard)
    name: str = "agentprop_guard"
    max_rejects: int = 2
    turns: list[Turn] = field(default_factory=list)
    """The run's history so far, in agentprop's neutral form."""
    abstained: Decision | None = None
    unexpressed: list[Decision] = field(default_factory=list)
    """Decisions the SDK cannot carry out (a retry at tool_result)."""

    def __post_init__(self) -> None:
        self.tool_input_guardrails: list[ToolInputGuardrail[Any]] = [
            ToolInputGuardrail(self._on_input, name=self.name)]
        self.tool_output_guardrails: list[ToolOutputGuardrail[Any]] = [
            ToolOutputGuardrail(self._on_output, name=self.name)]
        self.hooks = _Turns(self)

    def attach(self, *targets: Any) -> None:
        """Install the tool guardrails on MCP servers or function tools (before the run)."""
        for t in targets:
            t.tool_input_guardrails = [*(t.tool_input_guardrails or []),
                                       *self.tool_input_guardrails]
            t.tool_output_guardrails = [*(t.tool_output_guardrails or []),
                                        *self.tool_output_guardrails]

    def _view(self, point: GuardPoint, **about: Any) -> GuardView:
        return GuardView(point=point, query=self.query,
                         events=to_events(self.turns, self.name), **about)

    def _record(self, point: GuardPoint, action: GuardAction, d: Decision,
                call_id: str = "") -> None:
        self.turns.append(Turn("guard", text=d.reason, call_id=call_id, point=point,
                               action=action))

    @staticmethod
    def _call(data: ToolInputGuardrailData) -> ToolCall:
        ctx = data.context
        return ToolCall(id=ctx.tool_call_id, name=ctx.tool_name,
                        arguments=parse_arguments(ctx.tool_arguments))

    def _stop(self, point: GuardPoint, call: ToolCall, d: Decision
              ) -> ToolGuardrailFunctionOutput:
        self._record(point, d.action, d, call.id)  # type: ignore[arg-type]
        if d.action == "abstain":
            self.abstained = d
            return ToolGuardrailFunctionOutput.raise_exception(output_info=d.reason)
        error = {"error": {"type": GUARD_ERROR,
                           "message": d.message or "the guard stopped this call"}}
        # what the model sees instead, as agentprop's loop records it
        self.turns.append(Turn("tool", call_id=call.id, name=call.name, observation=error))
        return ToolGuardrailFunctionOutput.reject_content(observation_text(error),
                                                          output_info=d.reason)

    def _on_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        call = self._call(data)
        d = ask(self.guard, self._view("tool_call", call=call))
        if d.action in ("reject", "abstain"):
            return self._stop("tool_call", call, d)
        return ToolGuardrailFunctionOutput.allow()

    def _on_output(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        call = self._call(data)
        obs = observation_of(data.output)
        d = ask(self.guard, self._view("tool_result", call=call, observation=obs))
        if d.action in ("reject", "abstain"):
            return self._stop("tool_result", call, d)
        if d.action == "retry":
            self.unexpressed.append(d)
        self.turns.append(Turn("tool", call_id=call.id, name=call.name, observation=obs))
        return ToolGuardrailFunctionOutput.allow()

    def _abstention(self) -> Abstention:
        d = self.abstained or Decision.abstain()
        return Abstention(abstention_text(d), d.reason)

    async def run(self, agent: Agent[Any], **kwargs: Any) -> str:
        """`Runner.run(agent, query)` with the answer point; the final answer text, or an
        `Abstention`. `kwargs` go to `Runner.run` (max_turns, context...)."""
        given: Any = self.query
        rejected = 0
        while True:
            try:
                result = await Runner.run(agent, given, hooks=self.hooks, **kwargs)
            except (ToolInputGuardrailTripwireTriggered, ToolOutputGuardrailTripwireTriggered):
                if self.abstained is None:
                    raise  # another guardrail's tripwire: not ours to turn into an answer
                return self._abstention()
            answer = content_text(result.final_output) if not isinstance(
                result.final_output, str) else result.final_output
            d = ask(self.guard, self._view("answer", answer=answer))
            if d.action == "reject" and rejected < self.max_rejects:
                rejected += 1
                self._record("answer", "reject", d)
                given = [*result.to_input_list(), {"role": "user", "content": d.message}]
                continue
            if d.action in ("reject", "abstain"):
                self._record("answer", "abstain", d)
                self.abstained = d.as_abstention()
                return self._abstention()
            return answer


def guarded_run(query: str, guard: Guard | None = None, *,
                config: InterceptConfig | None = None, name: str = "agentprop_guard",
                max_rejects: int = 2) -> GuardedRun:
    """A `GuardedRun` of `guard` (default: the interceptor, with `config`'s thresholds)."""
    return GuardedRun(query=query, guard=guard or default_guard(config), name=name,
                      max_rejects=max_rejects)
