"""Tasks, tools and the facts a correct answer must state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Split = Literal["val", "test"]
Difficulty = Literal["easy", "medium", "hard"]
FactKind = Literal["number", "entity", "date", "time", "id", "text", "state"]


class ToolSpec(BaseModel):
    """A tool as the model sees it, plus what the injector may target.

    `critical_params` maps a parameter name to the entity kind its value is drawn from
    (``city``, ``date``, ``patient_id``...); `semantic_wrong` replaces such a parameter by
    another real entity of that kind from the domain's world.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]
    critical_params: dict[str, str] = Field(default_factory=dict)
    mutates: bool = False


class ToolCall(BaseModel):
    """A tool call proposed by a model or listed in a gold plan."""

    id: str = ""
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Fact(BaseModel):
    """One fact a correct answer states, in structured form for programmatic judging.

    `value` is the canonical value (a float for numbers, ISO ``YYYY-MM-DD`` for dates,
    ``HH:MM`` for times); `aliases` are other accepted spellings of entities;
    `tolerance` is absolute, in `unit`.
    """

    kind: FactKind
    key: str
    value: str | float | int | bool
    unit: str | None = None
    tolerance: float | None = None
    aliases: list[str] = Field(default_factory=list)


class Task(BaseModel):
    """A query, the tools to answer it, and the gold plan whose execution defines the answer."""

    id: str
    domain: str
    split: Split
    difficulty: Difficulty
    intent: str
    query: str
    tools: list[str]
    env_seed: int
    gold_plan: list[ToolCall]
    reference_answer: str
    expected_facts: list[Fact] = Field(default_factory=list)
    expected_state: dict[str, Any] | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
