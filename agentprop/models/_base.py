"""The model contract every provider implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from agentprop.core import Message, ModelOutput, ToolSpec
from agentprop.errors import AgentpropError


class GenerateConfig(BaseModel):
    """Sampling settings. Defaults: deterministic where the API allows."""

    temperature: float | None = 0.0
    max_tokens: int | None = 1024
    seed: int | None = 0
    timeout_s: float = 60.0
    tool_choice: str | dict[str, Any] | None = None
    """OpenAI's `tool_choice` when tools are offered: None sends "auto" (servers differ on
    the default), "none", "required", or {"type": "function", "function": {"name": N}}."""
    extra: dict[str, Any] = Field(default_factory=dict)


class ModelError(AgentpropError):
    """A provider failure that survived the retries. `kind` is e.g. rate_limit, server,
    timeout, connection, bad_response, auth, bad_request."""

    def __init__(self, kind: str, message: str, attempts: int = 1) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.attempts = attempts

    def user_message(self) -> str:
        return f"model error ({self.kind}): {self.message}"


@runtime_checkable
class Model(Protocol):
    """`async generate(messages, tools, config) -> ModelOutput`; raises ModelError."""

    @property
    def id(self) -> str: ...

    @property
    def simulated(self) -> bool: ...

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput: ...
