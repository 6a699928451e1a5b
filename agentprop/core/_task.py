"""Tasks, tools and the facts a correct answer must state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Split = Literal["val", "test"]
Difficulty = Literal["easy", "medium", "hard"]
FactKind = Literal[
    "number", "entity", "date", "time", "id", "text", "state", "decision", "polar"
]
FactRole = Literal["asked", "context"]


def pop_meta_key(data: Any, key: str) -> tuple[dict[str, Any], Any] | None:
    """For a model's raw input that still carries `key` in its ``meta`` (a field that used
    to live there): a copy without it, and its value; None when there is nothing to lift.
    Each model decides how the value fills its field."""
    if not (isinstance(data, dict) and isinstance(data.get("meta"), dict)
            and key in data["meta"]):
        return None
    meta = dict(data["meta"])
    value = meta.pop(key)
    return {**data, "meta": meta}, value


class ToolSpec(BaseModel):
    """A tool as the model sees it, plus what the injector may target.

    `critical_params` maps a parameter name to the entity kind its value is drawn from
    (``city``, ``date``, ``patient_id``...); `semantic_wrong` replaces such a parameter by
    another real entity of that kind from the domain's world.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    """Tool name the model calls."""
    description: str
    """Shown to the model."""
    parameters: dict[str, Any]
    """JSON Schema of the arguments (validated before execution)."""
    critical_params: dict[str, str] = Field(default_factory=dict)
    """Parameter → entity kind the injector may corrupt."""
    mutates: bool = False
    """True when the tool changes the environment state."""


class ToolCall(BaseModel):
    """A tool call proposed by a model or listed in a gold plan."""

    id: str = ""
    """Provider call id (empty in gold plans)."""
    name: str
    """Tool name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Arguments as JSON."""


class Fact(BaseModel):
    """One fact of a task's truth, in structured form for programmatic judging.

    `value` is the canonical value (a float for numbers, ISO ``YYYY-MM-DD`` for dates,
    ``HH:MM`` for times, a bool for polar facts, the winning option for decisions);
    `aliases` are other accepted spellings of an entity; `tolerance` is absolute, in `unit`.

    The fields after `aliases` say what the facts judge needs to grade like a careful human
    (docs/judges.md).
    """

    kind: FactKind
    """How the value is read: number, entity, date, time, id, text, state, decision or polar."""
    key: str
    """Name of the fact (matched by `Task.asks` patterns)."""
    value: str | float | int | bool
    """The canonical value."""
    unit: str | None = None
    """Unit of a number (``°C``, ``USD``...)."""
    tolerance: float | None = None
    """Absolute tolerance of a number, in `unit`."""
    aliases: list[str] = Field(default_factory=list)
    """Other accepted spellings of an entity."""
    role: FactRole = "asked"
    """``asked``: the question asks for it (the decision, the requested values, the outcome of
    the requested action), so a correct answer states it; ``context``: true and checkable, but
    the answer may leave it out (it must not contradict it)."""
    about: dict[str, list[str]] = Field(default_factory=dict)
    """The entity the value belongs to, by anchor category (``city``, ``date``, ``event``,
    ``drug``, ``product``, ``patient``, ``doctor``, ``subject``) → the names that designate
    it; a value counts only when the answer attributes it to that entity. Several names under
    one category are alternatives (an entity's aliases, or either drug of an interacting
    pair)."""
    options: list[str] = Field(default_factory=list)
    """For a decision: every candidate the question names."""
    relation: str | None = None
    """For a decision or polar fact: the cue family that states it (``warmer``, ``cheaper``,
    ``warmest``, ``rain``, ``created``, ``deleted``, ``moved``, ``booked``, ``ordered``...);
    for an entity or text fact: the closed scale its value is read on (``severity``,
    ``condition``, ``trend``)."""
    yes_option: str | None = None
    """For a decision asked as a yes/no question: the option "yes" picks."""
    exact: bool = False
    """A number the user needs exactly (an order total, a count): a figure marked as
    approximate does not state it."""
    accepts: list[float] = Field(default_factory=list)
    """Other values that state a number fact as well (a forecast day's high for "how
    warm")."""
    group: str | None = None
    """Facts that together make one complete list (a patient's medications, a day's events):
    naming an item of the same kind outside the list is a false claim."""


class Task(BaseModel):
    """A query, the tools to answer it, and the gold plan whose execution defines the answer."""

    id: str
    """Stable task id (``<domain>_<nnnn>``)."""
    domain: str
    """Domain name."""
    split: Split
    """val (tuning) or test (reporting)."""
    difficulty: Difficulty
    """easy, medium or hard."""
    intent: str
    """The suite intent that generated it."""
    query: str
    """The user's question."""
    tools: list[str]
    """Names of the domain tools offered."""
    env_seed: int
    """Seed of the environment."""
    gold_plan: list[ToolCall]
    """The calls whose execution defines the answer."""
    reference_answer: str
    """The answer rendered from the gold plan's observations."""
    expected_facts: list[Fact] = Field(default_factory=list)
    """The facts a correct answer states (facts judge)."""
    expected_state: dict[str, Any] | None = None
    """For state-changing tasks: the state the gold plan leaves."""
    asks: list[str] = Field(default_factory=list)
    """What the query asks for, as fact key patterns (fnmatch): the facts they match are
    ``asked``, the others ``context``. Set by the generator from the query's phrasing."""
    query_entities: dict[str, Any] = Field(default_factory=dict)
    """What the query names, by key: a tool parameter or observation echo key (``city``,
    ``date``, ``patient_id``, ``query``...) → the value the user wrote. Simulated agents
    copy these and the suite's checks use them. Persisted as ``meta["query_entities"]``
    (the suite file format and checksum are unchanged); read from there on load."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Generator-specific extras (e.g. ``answer_field``); nothing cross-package reads it."""

    @model_validator(mode="before")
    @classmethod
    def _lift_query_entities(cls, data: Any) -> Any:
        """Tasks written before the field existed, and drafts, carry it in `meta`."""
        popped = pop_meta_key(data, "query_entities")
        if popped is None:
            return data
        data, lifted = popped
        if not data.get("query_entities"):
            data["query_entities"] = lifted or {}
        return data
