"""Tasks, tools and the facts a correct answer must state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Split = Literal["val", "test"]
Difficulty = Literal["easy", "medium", "hard"]
FactKind = Literal[
    "number", "entity", "date", "time", "id", "text", "state", "decision", "polar"
]
FactRole = Literal["asked", "context"]


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
    """One fact of a task's truth, in structured form for programmatic judging.

    `value` is the canonical value (a float for numbers, ISO ``YYYY-MM-DD`` for dates,
    ``HH:MM`` for times, a bool for polar facts, the winning option for decisions);
    `aliases` are other accepted spellings of an entity; `tolerance` is absolute, in `unit`.

    The fields below say what the facts judge needs to grade like a careful human
    (docs/judges.md):

    - `role`: ``asked`` — the question asks for it (the decision, the requested values, the
      outcome of the requested action), so a correct answer states it; ``context`` — true
      and checkable, but the answer may leave it out (it must not contradict it).
    - `about`: the entity the value belongs to, by anchor category (``city``, ``date``,
      ``event``, ``drug``, ``product``, ``patient``, ``doctor``, ``subject``) → the names
      that designate it; a value counts only when the answer attributes it to that entity.
      Several names under one category are alternatives (an entity's aliases, or either
      drug of an interacting pair).
    - `options`: for a decision, every candidate the question names.
    - `relation`: for a decision or polar fact, the cue family that states it (``warmer``,
      ``cheaper``, ``warmest``, ``rain``, ``created``, ``deleted``, ``moved``, ``booked``,
      ``ordered``...); for an entity or text fact, the closed scale its value is read on
      (``severity``, ``condition``, ``trend``).
    - `yes_option`: for a decision asked as a yes/no question, the option "yes" picks.
    - `exact`: a number the user needs exactly (an order total, a count): a figure marked as
      approximate does not state it.
    - `accepts`: other values that state a number fact as well (a forecast day's high for
      "how warm").
    - `group`: facts that together make one complete list (a patient's medications, a day's
      events): naming an item of the same kind outside the list is a false claim.
    """

    kind: FactKind
    key: str
    value: str | float | int | bool
    unit: str | None = None
    tolerance: float | None = None
    aliases: list[str] = Field(default_factory=list)
    role: FactRole = "asked"
    about: dict[str, list[str]] = Field(default_factory=dict)
    options: list[str] = Field(default_factory=list)
    relation: str | None = None
    yes_option: str | None = None
    exact: bool = False
    accepts: list[float] = Field(default_factory=list)
    group: str | None = None


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
    asks: list[str] = Field(default_factory=list)
    """What the query asks for, as fact key patterns (fnmatch): the facts they match are
    ``asked``, the others ``context``. Set by the generator from the query's phrasing."""
    meta: dict[str, Any] = Field(default_factory=dict)
