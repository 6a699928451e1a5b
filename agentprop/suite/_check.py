"""`suite check`: replay every gold plan in a fresh environment and verify the task."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentprop.core import Fact, Task
from agentprop.domains import Observation, get_domain, is_error
from agentprop.suite._suite import Suite, get_generator


@dataclass(frozen=True)
class CheckFailure:
    task_id: str
    problem: str


def execute_gold_plan(task: Task) -> tuple[list[Observation], dict[str, Any]]:
    """Run the gold plan in a fresh environment; the observations and the final state."""
    env = get_domain(task.domain).make_env(task.env_seed)
    observations = [env.call(call.name, call.arguments) for call in task.gold_plan]
    return observations, env.snapshot()


def number_spellings(value: float) -> set[str]:
    """The ways a reference may print a number (14, 14.0, 14.5, 1,250.00...)."""
    out = {f"{value:g}", f"{value:.1f}", f"{value:.2f}", f"{value:,.2f}", f"{value:,.1f}"}
    if float(value).is_integer():
        out |= {str(int(value)), f"{int(value):,}"}
    return out


def fact_in_text(fact: Fact, text: str) -> bool:
    """Whether `text` states `fact` literally (used to check references, not answers; a
    yes/no fact is stated in words, so it is not checked here)."""
    low = text.lower()
    if fact.kind in ("state", "polar"):
        return True
    if (
        fact.kind == "number"
        and isinstance(fact.value, int | float)
        and not isinstance(fact.value, bool)
    ):
        return any(s in text for s in number_spellings(float(fact.value)))
    candidates = [str(fact.value), *fact.aliases]
    return any(c.lower() in low for c in candidates)


def state_matches(expected: object, actual: object) -> bool:
    """Subset match: every key/item of `expected` is present and equal in `actual`; an
    empty expected list means "none" (the actual list must be empty too), since a subset
    match could not otherwise say that nothing may be booked."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and state_matches(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        if not expected:
            return actual == []
        return isinstance(actual, list) and all(
            any(state_matches(e, a) for a in actual) for e in expected
        )
    return bool(expected == actual)


def check_task(task: Task) -> list[CheckFailure]:
    fails: list[CheckFailure] = []

    def bad(msg: str) -> None:
        fails.append(CheckFailure(task.id, msg))

    domain = get_domain(task.domain)
    if not task.gold_plan:
        bad("empty gold plan")
        return fails
    observations, state = execute_gold_plan(task)
    for i, (call, obs) in enumerate(zip(task.gold_plan, observations, strict=True)):
        if is_error(obs):
            bad(f"gold call {i + 1} ({call.name}) returned an error: {obs['error']}")
    for fact in task.expected_facts:
        if fact.role == "asked" and not fact_in_text(fact, task.reference_answer):
            bad(f"asked fact {fact.key}={fact.value!r} not in the reference")
    for problem in asked_problems(task, domain.injectable):
        bad(problem)
    rendered = get_generator(task.domain).render_answer(task, observations)
    if rendered != task.reference_answer:
        bad("reference differs from the answer rendered from the gold plan's observations")
    if task.expected_state is not None and not state_matches(task.expected_state, state):
        bad("expected state not reached by the gold plan")
    if domain.injectable:
        first = task.gold_plan[0]
        tool = domain.tool(first.name)
        critical = set(tool.spec.critical_params) if tool else set()
        if not critical & set(first.arguments):
            bad(f"first gold call {first.name} has no critical parameter")
    return fails


# the words that name each kind of choice, and the words that make it the question
_CHOICE_WORDS = {
    "warmer": r"warmer|beats", "warmest": r"warmest|hottest",
    "cheaper": r"cheaper|less expensive|costs less",
    "cheapest": r"cheapest|least expensive|lowest-priced|costs the least",
    "best_rated": r"best-rated|highest-rated|top-rated", "driest": r"driest",
}
_ASKING = r"which|whichever|what's the|what is the|find(?: me)? the|pick|choose|where is it" \
          r"|when will it|(?:order|buy) \w+(?: units)? of (?:the|your)|is \w+ (?:\w+ )?"


def decision_question(task: Task, fact: Fact) -> bool:
    """Whether the query asks for `fact`'s choice ("Which is cheaper, A or B?", "order 4
    of whichever is cheaper") rather than taking it as given ("How many units of the
    cheapest tent are in stock?")."""
    words = _CHOICE_WORDS.get(str(fact.relation))
    if words is None:
        return False
    rx = rf"\b(?:{_ASKING})\b[^.?!]*?\b(?:{words})\b"
    return re.search(rx, task.query, re.IGNORECASE) is not None


def asked_problems(task: Task, injectable: bool) -> list[str]:
    """An injectable task must ask for something, and a question that asks for a choice
    must have its decision asked (the decision is what the user wants)."""
    out = []
    if injectable and task.expected_facts and not any(
            f.role == "asked" for f in task.expected_facts):
        out.append("no asked fact")
    for f in task.expected_facts:
        if f.kind == "decision" and f.role != "asked" and decision_question(task, f):
            out.append(f"decision {f.key} is asked by the query but not an asked fact")
    return out


def check_suite(suite: Suite) -> list[CheckFailure]:
    """Every failure across the suite (empty = all tasks pass)."""
    out: list[CheckFailure] = []
    for task in suite.tasks:
        out.extend(check_task(task))
    return out
