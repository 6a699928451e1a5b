"""The one planner: domain checks, condition expansion, task sampling, units, estimates."""

from __future__ import annotations

import pytest

from agentprop.app import PlanError, RunConfig, check_domains, estimate, plan_run
from agentprop.inject import is_injectable
from agentprop.suite import CORE_DOMAINS, Suite, load_suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(None)


def test_unknown_domain_is_one_message(suite: Suite) -> None:
    with pytest.raises(PlanError,
                       match=r"^unknown domain 'calender'; did you mean 'calendar'\? \(known: "):
        check_domains(suite, ["calender"])
    with pytest.raises(PlanError, match="unknown domain"):
        plan_run(suite, RunConfig(models=("sim/balanced",), domains=("calender",)))


def test_conditions_expand_and_bad_ones_are_plan_errors(suite: Suite) -> None:
    plan = plan_run(suite, RunConfig(models=("sim/balanced",), conditions=("p2:all",), n=4,
                                     run_id="r"))
    assert len(plan.config.conditions) == 4 and all(
        c.startswith("p2:") for c in plan.config.conditions)
    with pytest.raises(PlanError, match="unknown condition 'p2:nope'"):
        plan_run(suite, RunConfig(models=("sim/balanced",), conditions=("p2:nope",)))


def test_default_domains_are_the_core_ones(suite: Suite) -> None:
    plan = plan_run(suite, RunConfig(models=("m",), split="val", run_id="r"))
    assert set(plan.config.domains or ()) == set(CORE_DOMAINS)
    assert {t.domain for t in plan.tasks} <= set(CORE_DOMAINS)


def test_injected_units_only_on_injectable_tasks(suite: Suite) -> None:
    cfg = RunConfig(models=("m",), conditions=("baseline", "p2:semantic_wrong"), n=12,
                    domains=("knowledge", "weather"), run_id="r")
    plan = plan_run(suite, cfg)
    injectable = {t.id: is_injectable(t) for t in plan.tasks}
    assert not all(injectable.values())  # knowledge tasks are sampled ...
    assert all(injectable[u.task_id] for u in plan.units if u.condition != "baseline")
    assert sum(u.condition == "baseline" for u in plan.units) == len(plan.tasks)
    sampled = plan_run(suite, RunConfig(**{**cfg.__dict__, "sample_injectable": True}))
    assert all(is_injectable(t) for t in sampled.tasks)  # ... unless asked otherwise


def test_run_id_given_derived_or_hashed(suite: Suite) -> None:
    cfg = RunConfig(models=("m",), n=2)
    assert plan_run(suite, cfg).run_id == plan_run(suite, cfg).run_id
    assert plan_run(suite, cfg, lambda c: "x-" + c.models[0]).run_id == "x-m"
    given = plan_run(suite, RunConfig(models=("m",), n=2, run_id="mine"))
    assert {u.run_id for u in given.units} == {"mine"}


def test_bad_seed_is_a_plan_error(suite: Suite) -> None:
    with pytest.raises(PlanError, match="invalid seed"):
        plan_run(suite, RunConfig(models=("m",), n=1, seeds=(2**31,), run_id="r"))


def test_estimate_sums_per_model_and_names_unpriced(suite: Suite) -> None:
    plan = plan_run(suite, RunConfig(models=("sim/balanced", "acme/unknown-model"), n=3,
                                     run_id="r"))
    est = estimate(plan.units, suite, models=["sim/balanced", "acme/unknown-model"])
    rows = {r.model: r for r in est.per_model}
    assert rows["sim/balanced"].units == rows["acme/unknown-model"].units == 3
    assert rows["sim/balanced"].cost_usd == 0.0 and rows["sim/balanced"].model_calls > 3
    assert est.unpriced == ["acme/unknown-model"]
