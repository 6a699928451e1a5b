"""The simulated agents: determinism, gold-plan following, noticing, and known rates."""

from __future__ import annotations

import json

import pytest
from simfakes import TOOLS, run_fake_episode, wrong_city

from agentprop.core import Message, ToolCall, UnknownNameError
from agentprop.models import GenerateConfig, get_model
from agentprop.sim import PROFILES, SimModel, SimProfile, mismatch, perturb


def sim(profile: SimProfile, suite, gens) -> SimModel:
    return SimModel(profile, suite=suite, generators=gens)


def prof(**kw) -> SimProfile:
    base = dict(name="t", p_no_tool=0.0, p_notice=0.0, p_correct_anyway=0.0, base_error=0.0,
                p_uncertain_words=0.0, verbosity="terse")
    return SimProfile(**{**base, **kw})


def test_profiles_span_the_paper():
    assert {"tool-averse", "propagator", "self-correcting", "balanced"} <= set(PROFILES)
    assert PROFILES["tool-averse"].p_no_tool > 0.3
    assert PROFILES["propagator"].true_rates()["r_23"] > 0.9
    assert PROFILES["self-correcting"].p_notice > 0.5
    for p in PROFILES.values():
        r = p.true_rates()
        assert r["recovery"] == pytest.approx(1 - r["r_23"])
        assert 0 <= r["r_23"] <= 1


def test_registry_and_unknown_profile(fake_suite):
    m = get_model("sim/balanced", suite=fake_suite, cache=None, base_url="ignored")
    assert m.id == "sim/balanced" and m.simulated is True
    with pytest.raises(UnknownNameError, match=r"unknown sim profile .nope.*balanced"):
        get_model("sim/nope")


async def test_oracle_follows_gold_plan_and_answers_reference(fake_suite, fake_generators):
    m = sim(PROFILES["oracle"], fake_suite, fake_generators)
    for task in fake_suite.tasks[:6]:
        ep = await run_fake_episode(m, task)
        assert [(c.name, c.arguments) for c in ep["calls"]] == [
            (c.name, c.arguments) for c in task.gold_plan]
        assert ep["answer"] == task.reference_answer
        assert len({c.id for c in ep["calls"]}) == len(ep["calls"])


async def test_same_request_same_response(fake_suite, fake_generators):
    m = sim(PROFILES["balanced"], fake_suite, fake_generators)
    task = fake_suite.tasks[2]
    msgs = [Message(role="user", content=task.query)]
    a = await m.generate(msgs, TOOLS, GenerateConfig(seed=3))
    b = await m.generate(msgs, TOOLS, GenerateConfig(seed=3))
    assert a.model_dump() == b.model_dump()
    assert a.usage.input_tokens > 0 and a.usage.output_tokens > 0


async def test_unknown_query_and_no_tools(fake_suite, fake_generators):
    m = sim(PROFILES["oracle"], fake_suite, fake_generators)
    out = await m.generate([Message(role="user", content="Who won the 1950 World Cup?")],
                           TOOLS, GenerateConfig())
    assert out.text == "I don't know." and not out.tool_calls
    task = fake_suite.tasks[0]
    out = await m.generate([Message(role="user", content=task.query)], [], GenerateConfig())
    assert not out.tool_calls and out.text  # cannot call a tool it was not offered


async def test_noticing_requeries_with_the_right_arguments(fake_suite, fake_generators):
    m = sim(prof(p_notice=1.0), fake_suite, fake_generators)
    task = fake_suite.tasks[0]
    ep = await run_fake_episode(m, task, corrupt=wrong_city)
    assert ep["calls"][0].arguments["city"] != task.gold_plan[0].arguments["city"]
    assert ep["calls"][1].arguments == task.gold_plan[0].arguments
    assert "looks wrong" in ep["texts"][0]
    assert ep["answer"] == task.reference_answer


async def test_unnoticed_corruption_propagates(fake_suite, fake_generators):
    m = sim(prof(), fake_suite, fake_generators)
    task = fake_suite.tasks[0]
    ep = await run_fake_episode(m, task, corrupt=wrong_city)
    assert len(ep["calls"]) == len(task.gold_plan)
    assert ep["answer"] != task.reference_answer
    assert ep["calls"][0].arguments["city"] in ep["answer"]
    anyway = sim(prof(p_correct_anyway=1.0), fake_suite, fake_generators)
    ep = await run_fake_episode(anyway, task, corrupt=wrong_city)
    assert ep["answer"] == task.reference_answer


def test_mismatch_uses_only_what_the_agent_sees(fake_suite):
    task = fake_suite.tasks[0]
    city, d = task.gold_plan[0].arguments["city"], task.gold_plan[0].arguments["date"]
    assert mismatch({"city": city, "date": d, "temperature": 3}, task, 0) is None
    assert mismatch({"city": city.upper(), "date": d}, task, 0) is None
    assert "Oslo" in (mismatch({"city": "Oslo", "date": d}, task, 0) or "") or city == "Oslo"
    assert mismatch({"error": {"type": "validation", "message": "x"}}, task, 0)


def test_perturb_makes_answers_wrong():
    assert perturb("It will be 14 °C on 2025-06-17.") == "It will be 19 °C on 2025-06-17."
    assert perturb("Meeting on 2025-06-17.") == "Meeting on 2025-06-18."
    assert perturb("Paris is sunny.") != "Paris is sunny."


async def test_policy_ignores_injection_data_in_messages(fake_suite, fake_generators):
    """Only messages matter: an observation that merely *carries* extra keys (as if a
    counterfactual leaked) changes nothing."""
    m = sim(prof(), fake_suite, fake_generators)
    task = fake_suite.tasks[0]
    call = ToolCall(id="call_sim_0_0", name="get_weather", arguments=task.gold_plan[0].arguments)
    obs = {"city": call.arguments["city"], "date": call.arguments["date"], "temperature": 9,
           "condition": "rain"}
    base = [Message(role="user", content=task.query),
            Message(role="assistant", tool_calls=[call])]
    leaked = {**obs, "counterfactual": {}}
    a = await m.generate([*base, Message(role="tool", tool_call_id=call.id,
                                         content=json.dumps(obs))], TOOLS, GenerateConfig())
    b = await m.generate([*base, Message(role="tool", tool_call_id=call.id,
                                         content=json.dumps(leaked))], TOOLS, GenerateConfig())
    assert a.text == b.text


async def test_rates_match_true_rates(fake_suite, fake_generators):
    """Run many episodes with a corruption on every first call; the observed shares
    should match `true_rates()` within sampling error."""
    p = prof(name="rates", p_no_tool=0.2, p_notice=0.4, p_correct_anyway=0.3, base_error=0.1)
    m = sim(p, fake_suite, fake_generators)
    n = no_tool = corrected = wrong = 0
    for seed in range(12):
        for task in fake_suite.tasks:
            ep = await run_fake_episode(m, task, seed=seed, corrupt=wrong_city)
            n += 1
            if not ep["calls"]:
                no_tool += 1
                continue
            gold = task.gold_plan[0].arguments
            corrected += any(c.arguments == gold for c in ep["calls"][1:2])
            wrong += ep["answer"] != task.reference_answer
    s2 = n - no_tool
    truth = p.true_rates()
    assert no_tool / n == pytest.approx(truth["no_tool"], abs=0.04)
    assert corrected / s2 == pytest.approx(truth["correction_given_S2"], abs=0.05)
    assert wrong / s2 == pytest.approx(truth["r_23"], abs=0.05)


async def test_uncertainty_words_more_often_after_bad_observation(fake_suite, fake_generators):
    m = sim(prof(p_uncertain_words=0.3, verbosity="normal"), fake_suite, fake_generators)
    two_step = [t for t in fake_suite.tasks if len(t.gold_plan) == 2]
    clean = bad = 0
    for seed in range(10):
        for task in two_step:
            ep = await run_fake_episode(m, task, seed=seed)
            clean += sum("wrong" in t for t in ep["texts"])
            ep = await run_fake_episode(m, task, seed=seed, corrupt=wrong_city)
            bad += sum("wrong" in t for t in ep["texts"])
    assert bad > clean * 1.4 > 0
