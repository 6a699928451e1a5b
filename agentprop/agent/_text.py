"""Text-mode (ReAct) dialect for models without native function calling.

The prompt shows every tool's JSON Schema. The parser is strict in the one way that matters
for measurement: when a turn contains an `Action:`, the action runs and a "Final Answer:"
in the same turn is ignored. (The paper's scripts checked for "Final Answer:" first, and so
recorded thousands of episodes in which no tool ever ran.) Observations the model writes
itself are discarded.
"""

from __future__ import annotations

import json
import re
from datetime import date

from agentprop.agent._dialect import CallIssue, Turn
from agentprop.core import REFERENCE_DATE, Message, ModelOutput, Task, ToolCall, ToolSpec
from agentprop.domains import Observation, error_observation

_ACTION = re.compile(r"^[ \t]*\**Action\**[ \t]*:[ \t]*(?P<name>.*)$", re.M | re.I)
_INPUT = re.compile(r"^[ \t]*\**Action[ \t]*Input\**[ \t]*:", re.M | re.I)
_FINAL = re.compile(r"^[ \t]*\**Final[ \t]*Answer\**[ \t]*:", re.M | re.I)
_OBSERVATION = re.compile(r"^[ \t]*\**Observation\**[ \t]*:", re.M | re.I)
_DECODER = json.JSONDecoder()


def text_system_prompt(specs: list[ToolSpec]) -> str:
    weekday = date.fromisoformat(REFERENCE_DATE).strftime("%A")
    tools = "\n\n".join(
        f"{s.name}: {s.description}\nParameters (JSON Schema): "
        f"{json.dumps(s.parameters, separators=(',', ':'))}"
        for s in specs
    )
    return (
        "You are a helpful assistant that answers the user's question using tools. "
        f"Today is {weekday}, {REFERENCE_DATE}.\n\n"
        f"You have access to these tools:\n\n{tools}\n\n"
        "To call a tool, write exactly:\n"
        "Thought: <your reasoning>\n"
        "Action: <tool name>\n"
        "Action Input: <the arguments as one JSON object>\n\n"
        'Then stop: the result comes back as "Observation: ...". You may call several '
        "tools in one turn by repeating the Action and Action Input lines. Never write an "
        "Observation yourself and never give a Final Answer in a turn that has an Action.\n\n"
        "When you know the answer, write:\n"
        "Thought: <your reasoning>\n"
        "Final Answer: <your answer to the user>"
    )


def parse_react(text: str | None, step: int = 0) -> Turn:
    """Parse one model turn. Actions win over a same-turn final answer."""
    text = text or ""
    obs = _OBSERVATION.search(text)
    acting = text[: obs.start()] if obs else text
    actions = list(_ACTION.finditer(acting))
    if not actions:
        final = _FINAL.search(text)
        answer = text[final.end() :] if final else text
        return Turn(final=answer.strip(), thought=text[: final.start()].strip() if final else "")
    turn = Turn(thought=acting[: actions[0].start()].strip())
    for i, m in enumerate(actions):
        name = m.group("name").strip().strip("`'\"*").removesuffix("()").strip()
        end = actions[i + 1].start() if i + 1 < len(actions) else len(acting)
        segment = acting[m.end() : end]
        if not name:
            turn.notes.append("an Action line names no tool")
            continue
        inp = _INPUT.search(segment)
        if inp is None:
            turn.notes.append(f"Action {name!r} has no Action Input line with a JSON object")
            continue
        raw = segment[inp.end() :].strip()
        raw = raw.removeprefix("```json").removeprefix("```").strip()
        try:
            args, _ = _DECODER.raw_decode(raw)
        except json.JSONDecodeError as e:
            turn.notes.append(f"Action Input for {name!r} is not valid JSON ({e.msg})")
            turn.issues.append(CallIssue("bad_arguments", name, raw, e.msg))
            continue
        if not isinstance(args, dict):
            turn.notes.append(f"Action Input for {name!r} must be a JSON object")
            turn.issues.append(CallIssue("bad_arguments", name, raw,
                                         "the arguments are not a JSON object"))
            continue
        turn.calls.append(ToolCall(id=f"call_{step}_{len(turn.calls)}", name=name, arguments=args))
    return turn


def _render_call(call: ToolCall) -> str:
    return f"Action: {call.name}\nAction Input: {json.dumps(call.arguments, ensure_ascii=False)}"


class TextDialect:
    """ReAct in plain text: schemas in the system prompt, observations as user messages."""

    def initial_messages(self, task: Task, specs: list[ToolSpec]) -> list[Message]:
        return [
            Message(role="system", content=text_system_prompt(specs)),
            Message(role="user", content=task.query),
        ]

    def model_tools(self, specs: list[ToolSpec]) -> list[ToolSpec]:
        return []

    def read(self, output: ModelOutput, step: int) -> Turn:
        return parse_react(output.text, step)

    def assistant_message(
        self, output: ModelOutput, turn: Turn, history: list[ToolCall]
    ) -> Message:
        if not turn.calls and not turn.notes:
            return Message(role="assistant", content=output.text, reasoning=output.reasoning)
        parts = (
            [f"Thought: {turn.thought.removeprefix('Thought:').strip()}"] if turn.thought else []
        )
        parts += [_render_call(c) for c in history]
        if not history:  # only malformed actions: keep what the model wrote, minus fake output
            text = output.text or ""
            obs = _OBSERVATION.search(text)
            parts = [(text[: obs.start()] if obs else text).strip()]
        return Message(role="assistant", content="\n".join(parts), reasoning=output.reasoning)

    def observation_messages(
        self, history: list[ToolCall], observations: list[Observation], notes: list[str]
    ) -> list[Message]:
        lines = [
            f"Observation: {json.dumps(o, ensure_ascii=False, default=str)}" for o in observations
        ]
        lines += [f"Observation: {json.dumps(error_observation('format', n))}" for n in notes]
        return [Message(role="user", content="\n".join(lines))]
