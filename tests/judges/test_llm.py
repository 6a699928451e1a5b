"""LLM judge and ensemble through the sim-judge models (offline)."""

from __future__ import annotations

import pytest

from agentprop.core import Message, UnknownNameError
from agentprop.judges import (
    SIM_JUDGE_PROFILES,
    EnsembleJudge,
    LLMJudge,
    SimJudgeModel,
    SimJudgeProfile,
    build_judge_messages,
    get_judge,
    majority,
    parse_judge_prompt,
    parse_yes_no,
)
from agentprop.models import get_model
from agentprop.suite import Suite
from tests.judges.conftest import MEDICAL, WEATHER, make_trace

GOOD = "Tomorrow in London: 14°C, light rain."
BAD = "Tomorrow in London: 25°C and sunny."


@pytest.mark.parametrize(("text", "expected"), [
    ("YES", True), ("no", False), ("Yes.", True), ("**NO**", False),
    ("Yes, the core fact matches.", True), ("  no\n", False),
    ("The answer is YES", None), ("YESNO", None), ("Maybe", None), ("", None), (None, None),
    ("Y E S", None),
])
def test_parse_yes_no(text: str | None, expected: bool | None) -> None:
    assert parse_yes_no(text) is expected


def test_prompt_roundtrip_full_answer() -> None:
    answer = "line one\nANSWER>>> tricky\n" + "x" * 5000
    msgs = build_judge_messages("Q?", "ref", answer)
    assert "substantively matches the reference" in (msgs[0].content or "")
    assert parse_judge_prompt(msgs) == ("Q?", "ref", answer)  # nothing truncated
    assert parse_judge_prompt([Message(role="user", content="hello")]) is None


def test_majority() -> None:
    assert majority([True, True, False]) is True
    assert majority([False, None, False]) is False
    assert majority([True, False]) is None  # even split
    assert majority([True, None, None]) is None  # more than half unscored
    assert majority([True, False, None]) is None  # tie among the scored
    assert majority([True, True, None, None]) is True  # exactly half unscored is allowed
    assert majority([]) is None


async def test_llm_judge_decides_and_stores_raw(suite: Suite) -> None:
    j = get_judge("llm:sim-judge/exact", suite=suite)
    assert j.name == "llm:sim-judge/exact"
    v = await j.judge(make_trace("a", WEATHER, GOOD), WEATHER)
    w = await j.judge(make_trace("b", WEATHER, BAD), WEATHER)
    assert (v.correct, w.correct) == (True, False)
    assert v.raw["output"] == "YES" and v.raw["simulated"] is True
    none = await j.judge(make_trace("c", WEATHER, None), WEATHER)
    assert none.correct is False and "output" not in none.raw  # no model call


async def test_garbage_and_unreachable_are_unscored(suite: Suite) -> None:
    g = await get_judge("llm:sim-judge/garbage", suite=suite).judge(
        make_trace("a", WEATHER, GOOD), WEATHER)
    assert g.correct is None and g.raw["output"]
    u = await get_judge("llm:sim-judge/unreachable", suite=suite).judge(
        make_trace("a", WEATHER, GOOD), WEATHER)
    assert u.correct is None and u.raw["error"]["kind"] == "connection" and u.raw["transient"]


def _inverted(suite: Suite) -> LLMJudge:
    p = SimJudgeProfile(name="inverted", description="always wrong", false_positive_rate=1.0,
                        false_negative_rate=1.0)
    return LLMJudge(SimJudgeModel(p, suite=suite))


async def test_ensemble_majority_members_and_even_split(suite: Suite) -> None:
    ens = get_judge("ensemble:sim-judge/exact,sim-judge/garbage", suite=suite)
    assert isinstance(ens, EnsembleJudge)
    out = await ens.judge_many(make_trace("a", MEDICAL, "Severity: major."), MEDICAL)
    main = out[0]
    assert main.correct is True
    assert main.members == {"llm:sim-judge/exact": True, "llm:sim-judge/garbage": None}
    assert {v.judge for v in out[1:]} == {"llm:sim-judge/exact", "llm:sim-judge/garbage"}
    exact = LLMJudge(get_model("sim-judge/exact", suite=suite))
    split = EnsembleJudge([exact, _inverted(suite)])
    tie = await split.judge(make_trace("a", MEDICAL, "Severity: major."), MEDICAL)
    assert tie.correct is None
    garbage = LLMJudge(get_model("sim-judge/garbage", suite=suite))
    mostly_unscored = EnsembleJudge([exact, garbage, LLMJudge(SimJudgeModel(
        SIM_JUDGE_PROFILES["garbage"].model_copy(update={"name": "garbage2"}), suite=suite))])
    v = await mostly_unscored.judge(make_trace("a", MEDICAL, "Severity: major."), MEDICAL)
    assert v.correct is None


async def test_sim_judge_rates_match_profile(suite: Suite) -> None:
    """Over many answers the flips follow the stated rates (seeded by the prompt)."""
    model = get_model("sim-judge/noisy", suite=suite)
    p = SIM_JUDGE_PROFILES["noisy"]
    from agentprop.models import GenerateConfig

    yes_on_good = no_on_good = garbage = 0
    n = 600
    for i in range(n):
        msgs = build_judge_messages(WEATHER.query, WEATHER.reference_answer, f"{GOOD} (#{i})")
        r = parse_yes_no((await model.generate(msgs, [], GenerateConfig())).text)
        yes_on_good += r is True
        no_on_good += r is False
        garbage += r is None
    assert abs(no_on_good / n - p.false_negative_rate * (1 - p.garbage_rate)) < 0.05
    assert abs(garbage / n - p.garbage_rate) < 0.03
    again = await model.generate(build_judge_messages(WEATHER.query, "r", GOOD), [],
                                 GenerateConfig())
    assert again.text == (await model.generate(build_judge_messages(WEATHER.query, "r", GOOD),
                                               [], GenerateConfig())).text


def test_unknown_names() -> None:
    for bad in ["bogus", "llm", "ensemble:sim-judge/exact", "facts:x", "llm:nope/x",
                "llm:sim-judge/nosuchprofile", "ensemble:sim-judge/exact,sim-judge/exact"]:
        with pytest.raises(UnknownNameError):
            get_judge(bad, suite=None)
