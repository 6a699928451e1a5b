"""What a dialect is: the contract between the agent loop (`_loop.py`) and the ways tools
and calls are expressed to a model (native function calling there, ReAct in `_text.py`).
Its own module so both dialects depend on it and neither on the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from agentprop.core import Message, ModelOutput, Task, ToolCall, ToolSpec
from agentprop.domains import Observation


@dataclass
class Turn:
    """A model turn as a dialect understood it: tool calls to run, or a final answer.
    `notes` are format errors reported back to the model as observations (text mode)."""

    calls: list[ToolCall] = field(default_factory=list)
    final: str | None = None
    notes: list[str] = field(default_factory=list)
    thought: str = ""


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
