"""The model contract every provider implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from agentprop.core import Message, ModelOutput, ToolSpec
from agentprop.errors import AgentpropError

TOOL_CHOICE_KEYWORDS = ("auto", "none", "required")
"""The `GenerateConfig.tool_choice` values that are not a tool name."""


class GenerateConfig(BaseModel):
    """Sampling settings. Defaults: deterministic where the API allows."""

    temperature: float | None = 0.0
    max_tokens: int | None = 1024
    seed: int | None = 0
    timeout_s: float = 60.0
    extra: dict[str, Any] = Field(default_factory=dict)
    tool_choice: str | None = None
    """Whether the model may, must or must not call a tool: ``auto``, ``none``,
    ``required``, or the name of the one tool it must call. None: the provider's own
    choice (the `openai/` provider then sends ``auto`` whenever tools are offered, since
    servers differ on the default: llama-cpp-python reads a missing value as ``none``)."""

    @model_serializer(mode="wrap")
    def _omit_unset_choice(self, handler: SerializerFunctionWrapHandler) -> Any:
        """An unset `tool_choice` is left out of the dump, so request hashes and response
        cache keys of runs made before the field existed stay the same."""
        data = handler(self)
        if isinstance(data, dict) and data.get("tool_choice") is None:
            data.pop("tool_choice", None)
        return data


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
