"""Test plugin: the shared tiny domain (agentprop.testing), a tiny suite and a scripted
`fake/<name>` provider.

Imported by the runner tests and, via PYTHONPATH, by `agentprop run` subprocesses.
Options of the fake provider: delay_s (per call), fail ("connection" etc.: every call
raises ModelError), fail_task (only for that task's query), leak (put the value of
the env var TEST_LEAK_VAR into error messages, like an SDK echoing a key), real (not
simulated).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from agentprop.core import (
    Message,
    ModelOutput,
    ToolCall,
    ToolSpec,
    Usage,
)
from agentprop.models import PROVIDERS, GenerateConfig, ModelError, register_provider
from agentprop.suite import Suite
from agentprop.testing import register_tiny_domain, tiny_tasks

register_tiny_domain()


def tiny_suite(n: int = 24) -> Suite:
    return Suite(tiny_tasks(n), seed=1)


def write_suite(path: Path, n: int = 24) -> Path:
    tiny_suite(n).to_jsonl(path)
    return path


class FakeModel:
    """Looks up the query's city, then answers with the observed temperature."""

    def __init__(self, name: str, *, delay_s: float = 0.0, fail: str | None = None,
                 fail_task: str | None = None, leak: bool = False, real: bool = False,
                 **_: Any) -> None:
        self.name = name
        self.delay_s = float(delay_s)
        self.fail = fail
        self.fail_task = fail_task
        self.leak = leak
        self.simulated = not real
        self.calls = 0

    @property
    def id(self) -> str:
        return f"fake/{self.name}"

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        self.calls += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        query = messages[1].content or ""
        if self.fail and (self.fail_task is None or f"Task {self.fail_task}:" in query):
            secret = os.environ.get("TEST_LEAK_VAR", "") if self.leak else ""
            raise ModelError(self.fail, f"cannot connect {secret}".strip(), attempts=3)
        usage = Usage(input_tokens=100, output_tokens=10)
        tool_msgs = [m for m in messages if m.role == "tool"]
        if not tool_msgs:
            city = query.rstrip("?").split()[-1]
            return ModelOutput(tool_calls=[ToolCall(name="lookup", arguments={"city": city})],
                               usage=usage, cost=0.001)
        return ModelOutput(text=f"It is {tool_msgs[-1].content}.", usage=usage, cost=0.001)


if "fake" not in PROVIDERS:
    register_provider("fake")(FakeModel)
