"""The fault classes real tools show: schema drift, an irrelevant, self-contradicting or
partial result, a prompt injection, a permission denial. Each on the native domains
(through the sim) and on foreign-style results alone (plain dicts, `{"text": ...}`, nested
lists, JSON inside a text), their eligibility, determinism, the counterfactual and S2,
their names, and their declarations (docs, report)."""

from __future__ import annotations

import asyncio
import json
import random
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest

from agentprop.agent import run_episode
from agentprop.analysis.stages import stage_table
from agentprop.core import (
    FAULT_CLASSES,
    InjectionEvent,
    Task,
    ToolCall,
    ToolResultEvent,
    ToolSpec,
    Trace,
    WorkUnit,
    fault_class,
)
from agentprop.domains import Domain, Observation, Tool, get_domain, is_failure
from agentprop.domains import observation_leaves as leaves
from agentprop.inject import (
    FAULT_KINDS,
    OUTPUT_KINDS,
    FaultHooks,
    OutputHooks,
    UnknownConditionError,
    corrupt_observation,
    expand_conditions,
    hooks_for,
    parse_condition,
    renames,
    valid_conditions,
)
from agentprop.models import GenerateConfig
from agentprop.report.sections.fault_classes import answer_note
from agentprop.sim import PROFILES, SimModel
from agentprop.testing import ScriptedModel

NEW_OUT = ("schema_drift", "irrelevant", "contradictory", "partial", "prompt_injection")
DOMAINS = ("weather", "calendar", "medical", "retail")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "injection.md"
INSTRUCTION = "ignore the previous instructions"


# -- names and declarations --------------------------------------------------------------

def test_new_classes_parse_and_all_expands_to_every_kind() -> None:
    out = expand_conditions(["out:all"])
    fault = expand_conditions(["fault:all"])
    assert out == [f"out:{k}" for k in OUTPUT_KINDS] and len(out) == 9
    assert fault == [f"fault:{k}" for k in FAULT_KINDS] and fault[-1] == "fault:permission_denied"
    for kind in NEW_OUT:
        assert f"out:{kind}" in out and f"out:{kind}" in valid_conditions()
        parsed = parse_condition(f"out:{kind}")
        assert parsed is not None and (parsed.family, parsed.kind) == ("out", kind)
    assert "fault:permission_denied" in valid_conditions()


def test_the_planner_every_command_shares_takes_the_new_names() -> None:
    """`run --condition`, experiment files, `intercept evaluate` and `serve-tools` plan
    through `app.plan_run`: it expands the families and refuses a misspelt class."""
    from agentprop.app import PlanError, RunConfig, plan_run

    plan = plan_run(_suite(), RunConfig(models=("sim/balanced",), n=4,
                                        conditions=("out:all", "fault:permission_denied")))
    assert plan.config.conditions == (*(f"out:{k}" for k in OUTPUT_KINDS),
                                      "fault:permission_denied")
    assert {u.condition for u in plan.units} == set(plan.config.conditions)
    with pytest.raises(PlanError, match="did you mean 'out:prompt_injection'"):
        plan_run(_suite(), RunConfig(models=("sim/balanced",), n=4,
                                     conditions=("out:prompt_injecton",)))


@pytest.mark.parametrize("bad, hint", [("out:schema_drft", "out:schema_drift"),
                                       ("fault:permission_denid", "fault:permission_denied"),
                                       ("out:partial@last", "out:partial")])
def test_misspelt_new_classes_are_refused_with_a_suggestion(bad: str, hint: str) -> None:
    with pytest.raises(UnknownConditionError) as exc:
        expand_conditions([bad])
    assert hint in str(exc.value) and "out:prompt_injection" in str(exc.value)


def test_every_kind_declares_when_it_can_change_the_answer() -> None:
    declared = {c.name for c in FAULT_CLASSES}
    assert declared == {f"out:{k}" for k in OUTPUT_KINDS} | {f"fault:{k}" for k in FAULT_KINDS}
    docs = " ".join(DOCS.read_text(encoding="utf-8").split())
    for c in FAULT_CLASSES:
        assert c.changes_answer.endswith(".") and c.trigger and c.summary
        assert c.changes_answer in docs, f"{c.name}: its declaration is not in the docs"
        assert f"`{c.name}`" in docs
    assert fault_class("out:prompt_injection").trigger == "follows_instruction"  # type: ignore[union-attr]
    assert fault_class("fault:permission_denied").trigger == "lacks_result"  # type: ignore[union-attr]
    assert fault_class("p2:semantic_wrong") is None


def test_the_report_states_the_declarations_of_the_classes_run() -> None:
    stages = pd.DataFrame({"condition": ["baseline", "out:schema_drift", "fault:timeout"]})
    html = answer_note(None, stages)  # type: ignore[arg-type]
    assert "out:schema_drift" in html and "fault:timeout" in html
    assert "out:prompt_injection" not in html
    assert "renamed or removed field" in html
    assert answer_note(None, pd.DataFrame({"condition": ["baseline"]})) == ""  # type: ignore[arg-type]


# -- on foreign-style results alone ------------------------------------------------------

CALL = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
PLAIN = {"city": "Paris", "temperature_c": 18.5, "datetime": "2025-06-17T12:00",
         "humidity": 60, "condition": "light rain"}
NESTED = {"query": "lamps", "results": [
    {"title": "Desk lamp", "price": 25.0, "rating": 4.1},
    {"title": "Floor lamp", "price": 80.0, "rating": 3.9},
    {"title": "Wall lamp", "price": 40.0, "rating": 4.5}]}
TEXT = {"text": "The store opens at 9 every day. It closes at 17 on weekdays. "
                "Parking costs 3 euros an hour."}
JSON_TEXT = {"text": json.dumps(NESTED)}
FOREIGN = {"plain": PLAIN, "nested": NESTED, "text": TEXT, "json_text": JSON_TEXT}


def _foreign(kind: str, obs: Observation, seed: int = 0, call: ToolCall = CALL,
             earlier: Any = ()) -> Any:
    return corrupt_observation(kind, call, obs, None, None, None, random.Random(seed),
                               earlier=earlier)


def test_renames_are_plausible_api_renames() -> None:
    assert {"temp_c", "temperature", "temperatureC"} <= set(renames("temperature_c"))
    assert renames("datetime")[0] == "date_time"
    assert "precip_mm" in renames("precipitation_mm")
    assert "start_time" in renames("startTime")
    assert renames("zzz") == []


@pytest.mark.parametrize("shape", sorted(FOREIGN))
@pytest.mark.parametrize("kind", [k for k in NEW_OUT if k != "irrelevant"])
def test_each_class_corrupts_foreign_results_deterministically(kind: str, shape: str) -> None:
    obs = FOREIGN[shape]
    kept = json.dumps(obs)
    if kind == "partial" and shape == "plain":
        obs = {**obs, "wind_kmh": 12}
    c = _foreign(kind, obs)
    assert c is not None, f"{kind} found nothing in the {shape} result"
    assert c.observation != obs and json.dumps(FOREIGN[shape]) == kept  # input untouched
    again = _foreign(kind, obs)
    assert (again.path, again.original, again.injected, again.observation) == \
        (c.path, c.original, c.injected, c.observation)
    others = {json.dumps(_foreign(kind, obs, seed).observation, sort_keys=True)
              for seed in range(12)}
    assert len(others) > 1 or (kind, shape) == ("schema_drift", "text")  # one way only
    if shape == "json_text":  # corrupted inside the JSON, still JSON
        assert c.path.startswith("text:")
        json.loads(c.observation["text"])


def test_schema_drift_renames_a_field_in_every_record_or_removes_it() -> None:
    seen_rename = seen_removal = False
    search = ToolCall(id="c2", name="search", arguments={"query": "lamps"})
    for seed in range(30):
        c = _foreign("schema_drift", NESTED, seed, call=search)
        key = c.original
        if key == "results":  # the list itself renamed (`items`) or removed
            assert "results" not in c.observation
            assert c.removed or c.observation[c.injected] == NESTED["results"]
            continue
        records = c.observation["results"]
        assert all(key not in r for r in records) and c.path == f"results.*.{key}"
        if c.removed:
            seen_removal = True
            assert c.injected is None and all(len(r) == 2 for r in records)
        else:
            seen_rename = True
            assert c.injected in renames(key)
            assert [r[c.injected] for r in records] == [r[key] for r in NESTED["results"]]
        assert c.observation["query"] == "lamps"  # the echoed argument is left alone
    assert seen_rename and seen_removal
    c = _foreign("schema_drift", TEXT)
    assert c.observation == {"content": TEXT["text"]}  # the only field: renamed, never removed


def test_contradictory_states_a_value_twice_with_two_values() -> None:
    c = _foreign("contradictory", PLAIN)
    ((alias, new),) = c.injected.items()
    parent = c.observation
    for p in c.path.split(".")[:-1]:
        parent = parent[int(p) if p.isdigit() else p]
    assert parent[c.path.split(".")[-1]] == c.original and parent[alias] == new != c.original
    assert {k: v for k, v in c.observation.items() if k != alias} == PLAIN
    t = _foreign("contradictory", TEXT)
    assert t.observation["text"].startswith(TEXT["text"])
    assert t.original in TEXT["text"] and t.injected != t.original
    assert _foreign("contradictory", {"text": "No figures in this sentence at all."}) is None


def test_partial_cuts_items_fields_or_text_and_flags_half_the_time() -> None:
    flags = []
    for seed in range(24):
        c = _foreign("partial", NESTED, seed)
        flagged = c.injected["flagged"]
        flags.append(flagged)
        assert (c.observation.get("partial") is True) == flagged
        assert (c.observation.get("warning") == "results may be incomplete") == flagged
        n_true = sum(1 for _ in leaves(NESTED))
        assert sum(1 for _ in leaves(c.observation)) - 2 * flagged < n_true
    assert 0 < sum(flags) < len(flags)
    t = _foreign("partial", TEXT, 1)
    assert len(t.observation["text"]) < len(TEXT["text"]) + 40
    assert TEXT["text"].startswith(t.observation["text"].split("\n")[0])
    assert _foreign("partial", {"text": "One sentence only"}) is None


def test_partial_differs_from_truncated() -> None:
    t = _foreign("truncated", NESTED)
    assert len(t.observation["results"]) == 1 and "partial" not in t.observation
    cuts = {len(_foreign("partial", {"items": list(range(10))}, s).observation["items"])
            for s in range(20)}
    assert len(cuts) > 2  # any cut, not always half


def test_prompt_injection_appends_an_instruction_the_rest_intact() -> None:
    c = _foreign("prompt_injection", PLAIN)
    assert c.path == "notice"  # no free text of four words: a field of its own
    t = _foreign("prompt_injection", TEXT)
    assert t.observation["text"].startswith(TEXT["text"]) and INSTRUCTION in t.injected
    assert t.observation["text"] == TEXT["text"] + " " + t.injected
    short = {"city": "Paris", "temp": 18}
    n = _foreign("prompt_injection", short)
    assert n.path == "notice" and n.original is None
    assert {k: v for k, v in n.observation.items() if k != "notice"} == short
    assert "the temp is" in n.injected  # tells the user a moved value


def test_irrelevant_on_foreign_results_needs_an_earlier_different_call() -> None:
    assert _foreign("irrelevant", PLAIN) is None  # nothing earlier: not eligible
    same = [(CALL, NESTED)]
    assert _foreign("irrelevant", PLAIN, earlier=same) is None  # the same call is not another
    other = ToolCall(id="c0", name="search", arguments={"q": "lamps"})
    c = _foreign("irrelevant", PLAIN, earlier=[(other, {"error": {"type": "x"}}),
                                               (other, NESTED)])
    assert c.observation == NESTED and c.injected == {"tool": "search",
                                                      "arguments": {"q": "lamps"}}


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_nothing_to_corrupt_is_not_eligible(kind: str) -> None:
    error = {"error": {"type": "not_found", "message": "no such city"}}
    other = ToolCall(id="c0", name="search", arguments={"q": "x"})
    for obs in (error, {}):
        assert _foreign(kind, obs, earlier=[(other, NESTED)]) is None
    assert _foreign("schema_drift", {"city": "Paris"}) is None  # only the echoed argument


def test_the_foreign_flag_says_which_kinds_work_without_a_domain() -> None:
    other = ToolCall(id="c0", name="search", arguments={"q": "x"})
    for c in FAULT_CLASSES:
        if c.family != "out":
            continue
        works = any(_foreign(c.kind, obs, earlier=[(other, TEXT)]) is not None
                    for obs in FOREIGN.values())
        assert works == c.foreign, c.name


# -- foreign tools through the loop ------------------------------------------------------

ANY_ARGS: dict[str, Any] = {"type": "object"}


class Canned(Domain):
    """Tools that return fixed foreign-style results (what an upstream MCP server would),
    as a proxy forwards them: the injector gets no domain and sees the results only."""

    name = "canned"
    results: ClassVar[dict[str, Observation]] = {
        "weather": PLAIN, "search": NESTED, "notes": TEXT, "raw": JSON_TEXT,
        "broken": {"error": {"type": "upstream", "message": "bad gateway"}}}

    def build_tools(self) -> list[Tool]:
        def fn(name: str) -> Any:
            return lambda state, args: json.loads(json.dumps(self.results[name]))
        return [Tool(ToolSpec(name=n, description=n, parameters=ANY_ARGS), fn(n))
                for n in self.results]


def _canned_task() -> Task:
    return Task(id="canned_0001", domain="canned", split="test", difficulty="easy",
                intent="x", query="What is going on?", tools=list(Canned.results),
                env_seed=1, gold_plan=[ToolCall(name="weather", arguments={"city": "Paris"})],
                reference_answer="18.5")


def _canned_run(condition: str, names: list[str], seed: int = 0) -> Trace:
    family, _, kind = condition.partition(":")
    unit = WorkUnit(run_id="r", model="fake/scripted", task_id="canned_0001",
                    condition=condition, seed=seed)
    task = _canned_task()
    hook = (OutputHooks if family == "out" else FaultHooks)(unit=unit, task=task, kind=kind)
    script: list[Any] = [[ToolCall(id=f"c{i}", name=n, arguments={"city": "Paris"})]
                         for i, n in enumerate(names)]
    model = ScriptedModel([*script, "done"])
    return asyncio.run(run_episode(unit, task, model, [hook], GenerateConfig(seed=0),
                                   Canned().make_env(1)))


def _target(trace: Trace) -> tuple[InjectionEvent, ToolResultEvent]:
    ev = next(e for e in trace.events if isinstance(e, InjectionEvent))
    assert ev.status == "applied", ev.status
    result = next(r for r in trace.events
                  if isinstance(r, ToolResultEvent) and r.call_id == ev.call_id)
    return ev, result


@pytest.mark.parametrize("kind", NEW_OUT)
def test_foreign_results_through_the_loop_store_the_true_one_and_reach_s2(kind: str) -> None:
    trace = _canned_run(f"out:{kind}", ["broken", "search", "weather", "notes"])
    ev, result = _target(trace)
    assert ev.status == "applied"
    truth = Canned.results[result.name]
    assert result.counterfactual == truth and result.observation != truth
    # the error result is never eligible; irrelevant waits for a second, different call
    assert ev.call_index == (3 if kind == "irrelevant" else 2)
    row = stage_table([trace]).iloc[0]
    assert bool(row["S1"]) and bool(row["S2"]) and row["target_param"] == ev.param
    # S2 is read from the counterfactual: the same trace seeing the true result has none
    seen_true = trace.model_copy(deep=True)
    for r in seen_true.events:
        if isinstance(r, ToolResultEvent) and r.call_id == ev.call_id:
            r.observation = r.counterfactual  # type: ignore[assignment]
    assert not bool(stage_table([seen_true]).iloc[0]["S2"])
    again = _canned_run(f"out:{kind}", ["broken", "search", "weather", "notes"])
    assert _target(again)[1].observation == result.observation


@pytest.mark.parametrize("kind", NEW_OUT)
def test_no_eligible_foreign_call_is_no_target_param(kind: str) -> None:
    trace = _canned_run(f"out:{kind}", ["broken"])
    (ev,) = [e for e in trace.events if isinstance(e, InjectionEvent)]
    assert ev.status == "no_target_param"
    assert not bool(stage_table([trace]).iloc[0]["opportunity"])


def test_permission_denied_on_a_foreign_call() -> None:
    trace = _canned_run("fault:permission_denied", ["weather", "weather"])
    ev, result = _target(trace)
    assert ev.status == "applied" and ev.call_index == 1
    assert result.observation["error"]["type"] == "permission_denied"
    assert is_failure(result.observation) and result.counterfactual == PLAIN
    results = [r for r in trace.events if isinstance(r, ToolResultEvent)]
    assert results[1].observation == PLAIN  # the retry reaches the tool
    row = stage_table([trace]).iloc[0]
    assert bool(row["S2"]) and bool(row["corrected"])


# -- native domains, through the sim -----------------------------------------------------

@cache
def _suite() -> Any:
    from agentprop.suite import Suite, get_generator

    tasks = [t for d in DOMAINS for t in get_generator(d).generate(10, seed=5)]
    return Suite(tasks, seed=5)


def _episode(task: Task, condition: str, profile: str = "propagator", seed: int = 0) -> Trace:
    unit = WorkUnit(run_id="r", model=f"sim/{profile}", task_id=task.id,
                    condition=condition, seed=seed)
    hook = hooks_for(condition, unit, task)
    env = get_domain(task.domain).make_env(task.env_seed)
    model = SimModel(PROFILES[profile], suite=_suite())
    return asyncio.run(run_episode(unit, task, model, [hook] if hook else [],
                                   GenerateConfig(seed=seed), env))


def _applied(trace: Trace) -> bool:
    return any(isinstance(e, InjectionEvent) and e.status == "applied" for e in trace.events)


def _truth(task: Task, trace: Trace, target: ToolResultEvent) -> Observation | None:
    """The target call's result replayed on a fresh state (the calls before it too)."""
    env = get_domain(task.domain).make_env(task.env_seed)
    for r in trace.events:
        if isinstance(r, ToolResultEvent):
            obs = env.call(r.name, r.arguments)
            if r is target:
                return obs
    return None


def _check_kind(kind: str, ev: InjectionEvent, obs: Observation, truth: Observation) -> None:
    values = sorted(json.dumps(v) for _, v in leaves(obs))
    true_values = sorted(json.dumps(v) for _, v in leaves(truth))
    if kind == "schema_drift":
        assert ev.original in json.dumps(truth) and (ev.removed or ev.injected)
        if not ev.removed:
            assert values == true_values  # renamed: every value still there
    elif kind == "prompt_injection":
        assert INSTRUCTION in json.dumps(obs)
        assert len(values) in (len(true_values), len(true_values) + 1)
    elif kind == "contradictory":
        ((_, new),) = ev.injected.items()
        assert json.dumps(new) in values and new != ev.original
        assert len(values) == len(true_values) + 1
    elif kind == "partial":
        assert len(values) - 2 * ev.injected["flagged"] < len(true_values)
    elif kind == "irrelevant":
        assert ev.injected != ev.original


@pytest.mark.parametrize("kind", NEW_OUT)
def test_native_classes_keep_the_true_result_as_counterfactual(kind: str) -> None:
    hits: dict[str, int] = dict.fromkeys(DOMAINS, 0)
    for task in _suite().tasks:
        trace = _episode(task, f"out:{kind}")
        assert trace.status == "ok", (task.id, trace.status)  # the sim reads it, never crashes
        if not _applied(trace):
            continue
        hits[task.domain] += 1
        ev, result = _target(trace)
        assert result.counterfactual == _truth(task, trace, result)
        assert result.observation != result.counterfactual
        _check_kind(kind, ev, result.observation, result.counterfactual)  # type: ignore[arg-type]
        row = stage_table([trace]).iloc[0]
        assert bool(row["S1"]) and bool(row["S2"])
    assert all(hits.values()), f"out:{kind} never applied in some domain: {hits}"


def test_native_irrelevant_prefers_another_tools_result() -> None:
    def read_only(t: Task) -> set[str]:
        dom = get_domain(t.domain)
        return {c.name for c in t.gold_plan if not dom.tool(c.name).spec.mutates}  # type: ignore[union-attr]

    chained = [t for t in _suite().tasks if len(read_only(t)) >= 2]
    assert chained
    checked = 0
    for task in chained:
        trace = _episode(task, "out:irrelevant")
        if _applied(trace):
            ev, result = _target(trace)
            assert ev.injected["tool"] != result.name
            checked += 1
    assert checked >= 3


def test_native_classes_are_seeded_per_unit() -> None:
    for kind in NEW_OUT:
        task = next(t for t in _suite().tasks if _applied(_episode(t, f"out:{kind}", seed=3)))
        a = _target(_episode(task, f"out:{kind}", seed=3))
        b = _target(_episode(task, f"out:{kind}", seed=3))
        assert a[1].observation == b[1].observation and a[0].param == b[0].param
        assert (a[0].original, a[0].injected) == (b[0].original, b[0].injected)


def test_permission_denied_on_native_domains() -> None:
    checked = 0
    for task in [t for t in _suite().tasks if len(t.gold_plan) == 1]:
        trace = _episode(task, "fault:permission_denied", profile="balanced")
        assert trace.status == "ok"
        if not _applied(trace):
            continue  # the agent answered without a tool
        checked += 1
        _, result = _target(trace)
        assert result.observation["error"]["type"] == "permission_denied"
        assert result.counterfactual == _truth(task, trace, result)
        assert bool(stage_table([trace]).iloc[0]["S2"])
    assert checked >= 3
