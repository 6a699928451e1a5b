"""What a unit will likely cost, and the cost guard (`--max-cost`).

One home for the per-unit estimate: the dry-run plan and the guard use the same figures.
The guard counts what this invocation spent (reported usage × the price table) plus what
the units in flight will likely still spend; a unit starts only if that plus its own
estimate stays within the limit. Estimates start from the plan's per-step token sizes
and switch to the mean cost of the model's finished units once there are some, so an
early underestimate cannot carry the run far past the limit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from agentprop.core import Task, Usage, WorkUnit
from agentprop.models._prices import PriceTable, price_table

# Rough per-call token sizes: system prompt + tool schemas + growing history in, a short
# tool call or answer out.
AGENT_INPUT_TOKENS_FIRST = 650
AGENT_INPUT_TOKENS_PER_STEP = 180
AGENT_OUTPUT_TOKENS = 90


@dataclass(frozen=True)
class UnitEstimate:
    calls: int
    input_tokens: int
    output_tokens: int


def estimate_unit(task: Task | None) -> UnitEstimate:
    """Calls and tokens of one episode: one call per gold-plan step plus the answer."""
    steps = (len(task.gold_plan) if task else 2) + 1
    tin = sum(AGENT_INPUT_TOKENS_FIRST + AGENT_INPUT_TOKENS_PER_STEP * k for k in range(steps))
    return UnitEstimate(steps, tin, AGENT_OUTPUT_TOKENS * steps)


def is_free(model: str) -> bool:
    """Simulated models cost nothing."""
    return model.startswith(("sim/", "sim-judge/"))


class CostGuard:
    """`may_start(unit)` reserves the unit's estimate when it fits under `max_cost`;
    `finished(unit, cost)` replaces the reservation by what was spent."""

    def __init__(self, max_cost: float, tasks: dict[str, Task],
                 prices: PriceTable | None = None) -> None:
        if max_cost < 0:
            raise ValueError("the cost limit must be >= 0")
        self.max_cost = max_cost
        self.tasks = tasks
        self.prices = prices or price_table(None)
        self.spent = 0.0
        self.in_flight = 0.0
        self.stopped = False
        self._done: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self._reserved: dict[str, float] = {}

    def estimate(self, unit: WorkUnit) -> float:
        if is_free(unit.model):
            return 0.0
        n, total = self._done[unit.model]
        if n:
            return total / n
        e = estimate_unit(self.tasks.get(unit.task_id))
        return self.prices.cost(unit.model, Usage(input_tokens=e.input_tokens,
                                                  output_tokens=e.output_tokens))

    def may_start(self, unit: WorkUnit) -> bool:
        if self.stopped:
            return False
        est = self.estimate(unit)
        if self.spent + self.in_flight + est > self.max_cost:
            self.stopped = True  # no new unit starts from here on
            return False
        self._reserved[unit.key] = est
        self.in_flight += est
        return True

    def finished(self, unit: WorkUnit, cost: float) -> None:
        self.in_flight -= self._reserved.pop(unit.key, 0.0)
        self.spent += cost
        stats = self._done[unit.model]
        stats[0] += 1
        stats[1] += cost
