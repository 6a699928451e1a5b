"""What a dialect is: the contract between the agent loop (`_loop.py`) and the ways tools
and calls are expressed to a model (native function calling there, ReAct in `_text.py`).
Its own module so both dialects depend on it and neither on the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from agentprop.core import CallIssueKind, Message, ModelOutput, Task, ToolCall, ToolSpec
from agentprop.domains import Observation


@dataclass
class CallIssue:
    """A tool call that did not arrive as a valid call, as a dialect found it (recorded
    as a `CallIssueEvent`; the loop adds ``unknown_tool`` itself). `index` is the call's
    position in `Turn.calls` when it is there (answered, or run if executed)."""

    kind: CallIssueKind
    tool: str | None
    raw: str
    detail: str = ""
    index: int | None = None
    executed: bool = False


@dataclass
class Turn:
    """A model turn as a dialect understood it: tool calls to run, or a final answer.
    `notes` are format errors reported back to the model as observations (text mode).
    `broken` maps the index of a call in `calls` whose arguments did not parse to the
    parser's message: the loop answers it with an error observation and never runs it.
    `issues` are what to record about calls that did not arrive as calls."""

    calls: list[ToolCall] = field(default_factory=list)
    final: str | None = None
    notes: list[str] = field(default_factory=list)
    thought: str = ""
    broken: dict[int, str] = field(default_factory=dict)
    issues: list[CallIssue] = field(default_factory=list)


class Dialect(Protocol):
    """How tools, calls and observations are expressed to the model."""

    def initial_messages(self, task: Task, specs: list[ToolSpec]) -> list[Message]: ...

    def model_tools(self, specs: list[ToolSpec]) -> list[ToolSpec]: ...

    def read(self, output: ModelOutput, step: int) -> Turn: ...

    def assistant_message(
        self, output: ModelOutput, turn: Turn, history: list[ToolCall]
    ) -> Message: ...

    def observation_messages(
        self, history: list[ToolCall], observations: list[Observation], notes: list[str]
    ) -> list[Message]: ...
