"""The cost guard (`--max-cost`): no unit starts once the estimated spend would pass the
limit, the units left are reported, and a rerun with a higher limit resumes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_fakes import FakeModel, tiny_suite

from agentprop.core import Usage
from agentprop.models import PriceTable
from agentprop.runner import RunError, plan_units, run_units
from agentprop.runner._budget import CostGuard, estimate_unit
from agentprop.store import Workspace

SUITE = tiny_suite(24)


async def test_guard_stops_then_a_higher_limit_resumes(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    model = FakeModel("a", real=True)  # every call costs $0.001, two calls a unit
    units = plan_units("r", ["fake/a"], SUITE.tasks, ["baseline"])
    s = await run_units(units, workspace=ws, suite=SUITE, models={"fake/a": model},
                        concurrency=1, progress=False, max_cost=0.011)
    assert s.completed == 5 and s.not_started == 19 and s.max_cost == 0.011
    assert s.cost == pytest.approx(0.010) and s.cost <= 0.011
    assert ws.count_traces(run_id="r") == 5
    again = await run_units(units, workspace=ws, suite=SUITE, models={"fake/a": model},
                            concurrency=1, progress=False, max_cost=1.0)
    assert (again.skipped, again.completed, again.not_started) == (5, 19, 0)
    assert ws.count_traces(run_id="r") == 24 and model.calls == 48  # nothing twice
    with pytest.raises(RunError, match="cost limit"):
        await run_units(units, workspace=ws, suite=SUITE, models={"fake/a": model},
                        max_cost=-1.0, progress=False)
    ws.close()


async def test_units_in_flight_count_against_the_limit(tmp_path: Path) -> None:
    """With 8 concurrent episodes, the guard reserves each started unit's estimate: the
    spend stays within the limit instead of overshooting by the units in flight."""
    ws = Workspace(tmp_path / "ws")
    model = FakeModel("a", real=True, delay_s=0.005)
    units = plan_units("r", ["fake/a"], SUITE.tasks, ["baseline"])
    guard_limit = 0.02
    s = await run_units(units, workspace=ws, suite=SUITE, models={"fake/a": model},
                        concurrency=8, progress=False, max_cost=guard_limit)
    assert s.completed + s.not_started == 24 and s.not_started > 0
    # the first wave starts on the price table's estimate; later units on the mean spent
    assert s.cost <= guard_limit + 8 * 0.002
    ws.close()


def test_guard_uses_the_price_table_before_any_unit_finished() -> None:
    tasks = {t.id: t for t in SUITE.tasks}
    prices = PriceTable({"gpt-4o": (2.5, 10.0)})
    unit = plan_units("r", ["openai/gpt-4o"], SUITE.tasks[:1], ["baseline"])[0]
    e = estimate_unit(tasks[unit.task_id])
    expected = prices.cost("openai/gpt-4o", Usage(input_tokens=e.input_tokens,
                                                  output_tokens=e.output_tokens))
    guard = CostGuard(expected * 1.5, tasks, prices)
    assert expected > 0 and guard.estimate(unit) == pytest.approx(expected)
    assert guard.may_start(unit)
    assert not guard.may_start(unit.model_copy(update={"seed": 1}))  # 2 × est > limit
    assert guard.stopped
    sim = plan_units("r", ["sim/balanced"], SUITE.tasks[:1], ["baseline"])[0]
    assert CostGuard(0.0, tasks, prices).may_start(sim)  # simulated models are free
