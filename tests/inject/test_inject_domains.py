"""Every error type on every real domain: the corruption is of the intended kind."""

from __future__ import annotations

import importlib
from collections import Counter
from typing import Any

import pytest

from agentprop.core import InjectionEvent, Task, ToolCall, WorkUnit
from agentprop.domains import DOMAINS, Domain, Environment, is_error
from agentprop.inject import ERROR_TYPES, InjectionHooks, get_protocol, unit_rng
from agentprop.inject._protocols import Corruption

DOMAIN_NAMES = ("weather", "calendar", "medical", "retail", "knowledge")
INJECTABLE = ("weather", "calendar", "medical", "retail")
N_TASKS = 40


def _domain(name: str) -> Domain:
    try:
        importlib.import_module(f"agentprop.domains.{name}")
    except ModuleNotFoundError:
        pytest.skip(f"domain {name} not written yet")
    return DOMAINS.get(name)()


def _tasks(name: str) -> list[Task]:
    try:
        from agentprop.suite import get_generator

        return get_generator(name).generate(N_TASKS, seed=11)
    except ImportError as e:
        pytest.skip(f"task generators not written yet ({e})")


def _unit(task: Task, error_type: str, seed: int = 0) -> WorkUnit:
    return WorkUnit(run_id="r", model="sim/x", task_id=task.id, condition=f"p2:{error_type}",
                    seed=seed)


def _first_injection(
    domain: Domain, task: Task, error_type: str, seed: int = 0
) -> tuple[ToolCall, Corruption, Environment] | None:
    """Walk the gold plan as an agent would; corrupt the first eligible call."""
    env = domain.make_env(task.env_seed)
    protocol = get_protocol(error_type)
    for call in task.gold_plan:
        tool = domain.tool(call.name)
        assert tool is not None
        found = protocol.corrupt(call, tool, domain, env, unit_rng(_unit(task, error_type, seed),
                                                                    error_type))
        if found is not None:
            return call, found, env
        env.call(call.name, call.arguments)
    return None


@pytest.mark.parametrize("error_type", ERROR_TYPES)
@pytest.mark.parametrize("name", INJECTABLE)
def test_corruption_is_of_intended_kind(name: str, error_type: str) -> None:
    domain, tasks = _domain(name), _tasks(name)
    applied = 0
    params: Counter[str] = Counter()
    for task in tasks:
        got = _first_injection(domain, task, error_type)
        if got is None:
            continue
        call, c, env = got
        applied += 1
        params[f"{call.name}.{c.param}"] += 1
        tool = domain.tool(call.name)
        assert tool is not None
        original_obs = env.copy().call(call.name, call.arguments)
        obs = env.copy().call(call.name, c.arguments)
        if error_type == "semantic_wrong":
            assert c.param in tool.spec.critical_params
            assert c.injected != c.original and not c.removed
            assert tool.validate(c.arguments) is None, (task.id, c)
            # a real entity: it executes like the original did (no validation/not_found)
            if not is_error(original_obs):
                assert not is_error(obs) or obs["error"]["type"] not in (
                    "validation", "not_found"), (task.id, c, obs)
        else:
            assert is_error(obs) and obs["error"]["type"] == "validation", (task.id, c, obs)
            if error_type == "missing_required":
                assert c.removed and c.param not in c.arguments
                assert c.param in tool.spec.parameters.get("required", [])
            else:
                assert c.arguments[c.param] == c.injected
                assert _jtype(c.injected) != _jtype(c.original) or error_type == "out_of_range"
                if error_type == "out_of_range":
                    assert _jtype(c.injected) == _jtype(c.original)
    # every task's gold plan offers a semantic/missing/type target; out_of_range needs a
    # constrained parameter, which most tools have
    minimum = 0.5 if error_type == "out_of_range" else 1.0
    assert applied >= minimum * len(tasks), (applied, params)


def _jtype(v: Any) -> str:
    return "number" if isinstance(v, int | float) and not isinstance(v, bool) else type(v).__name__


@pytest.mark.parametrize("error_type", ERROR_TYPES)
@pytest.mark.parametrize("name", INJECTABLE)
def test_deterministic_per_unit(name: str, error_type: str) -> None:
    domain, tasks = _domain(name), _tasks(name)[:10]
    for task in tasks:
        a = _first_injection(domain, task, error_type)
        b = _first_injection(domain, task, error_type)
        assert (a is None) == (b is None)
        if a and b:
            assert a[1] == b[1]
    if error_type == "semantic_wrong":
        variants = {
            repr(got[1]) for s in range(6) if (got := _first_injection(domain, tasks[0],
                                                                       error_type, seed=s))
        }
        assert len(variants) > 1


@pytest.mark.parametrize("name", DOMAIN_NAMES)
def test_knowledge_is_never_injected(name: str) -> None:
    from agentprop.agent import EpisodeContext

    domain, tasks = _domain(name), _tasks(name)[:5]
    for task in tasks:
        hooks = InjectionHooks(unit=_unit(task, "semantic_wrong"), task=task, domain=domain,
                               protocol=get_protocol("semantic_wrong"),
                               error_type="semantic_wrong")
        env = domain.make_env(task.env_seed)
        ctx = EpisodeContext(unit=hooks.unit, task=task, env=env, messages=[], events=[])  # type: ignore[arg-type]
        rewrites = [hooks.before_tool_call(ctx, c) for c in task.gold_plan]
        hooks.on_episode_end(ctx)
        (inj,) = [e for e in ctx.events if isinstance(e, InjectionEvent)]
        if domain.injectable:
            assert inj.status == "applied" and sum(r is not None for r in rewrites) == 1
        else:
            assert inj.status == "no_target_param" and rewrites == [None] * len(rewrites)
