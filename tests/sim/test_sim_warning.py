"""How a simulated agent reacts to an interceptor warning (warn mode), from messages only."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from simfakes import TOOLS, execute, run_fake_episode, wrong_city

from agentprop.core import Message, Task, ToolCall
from agentprop.intercept import WARNING_PREFIX
from agentprop.models import GenerateConfig, Model, get_model
from agentprop.sim import PROFILES, SimModel, SimProfile
from agentprop.sim._server import ServerConfig, ServerThread

WARNING = f"{WARNING_PREFIX} Before you answer, check your work. Something looks wrong."


def prof(**kw: Any) -> SimProfile:
    base = dict(name="t", p_no_tool=0.0, p_notice=0.0, p_correct_anyway=0.0, base_error=0.0,
                p_uncertain_words=0.0, verbosity="normal")
    return SimProfile(**{**base, **kw})


async def warned_episode(model: Model, task: Task, *, seed: int = 0, corrupt: bool = True,
                         warning: str = WARNING, max_steps: int = 10) -> dict[str, Any]:
    """Like the warn-mode loop: the first answer is held back and `warning` added as a
    user message; the first call is corrupted (wrong city) when `corrupt`."""
    messages = [Message(role="system", content="You are a helpful assistant."),
                Message(role="user", content=task.query)]
    calls: list[ToolCall] = []
    answers: list[str | None] = []
    after: list[ToolCall] = []  # calls made after the warning
    for _ in range(max_steps):
        out = await model.generate(messages, TOOLS, GenerateConfig(seed=seed))
        if not out.tool_calls:
            answers.append(out.text)
            messages.append(Message(role="assistant", content=out.text))
            if len(answers) == 2:
                break
            messages.append(Message(role="user", content=warning))
            continue
        executed = [wrong_city(c) if corrupt and not calls and i == 0 else c
                    for i, c in enumerate(out.tool_calls)]
        calls.extend(executed)
        if answers:
            after.extend(executed)
        messages.append(Message(role="assistant", content=out.text, tool_calls=executed))
        for c in executed:
            messages.append(Message(role="tool", tool_call_id=c.id, name=c.name,
                                    content=json.dumps(execute(c.name, c.arguments))))
    return {"answers": answers, "calls": calls, "after": after, "messages": messages}


async def test_heeding_requeries_the_mismatching_call_and_answers_anew(fake_suite,
                                                                       fake_generators):
    m = SimModel(prof(p_heed_warning=1.0), suite=fake_suite, generators=fake_generators)
    for task in fake_suite.tasks[:6]:
        ep = await warned_episode(m, task)
        first, second = ep["answers"]
        right = f"Based on the tool results: {task.reference_answer}"
        assert first != right  # the corruption propagated (no notice)
        assert [(c.name, c.arguments) for c in ep["after"]] == [
            (task.gold_plan[0].name, task.gold_plan[0].arguments)]
        assert second == right
        assert len({c.id for c in ep["calls"]}) == len(ep["calls"])


async def test_heeding_with_nothing_to_fix_makes_no_call(fake_suite, fake_generators):
    m = SimModel(prof(p_heed_warning=1.0), suite=fake_suite, generators=fake_generators)
    task = fake_suite.tasks[2]
    ep = await warned_episode(m, task, corrupt=False)
    assert ep["after"] == [] and ep["answers"][0] == ep["answers"][1]


async def test_not_heeding_repeats_the_answer(fake_suite, fake_generators):
    m = SimModel(prof(p_heed_warning=0.0), suite=fake_suite, generators=fake_generators)
    for task in fake_suite.tasks[:6]:
        ep = await warned_episode(m, task)
        assert ep["after"] == []
        right = f"Based on the tool results: {task.reference_answer}"
        assert ep["answers"][0] == ep["answers"][1] != right


async def test_only_a_message_with_the_prefix_is_a_warning(fake_suite, fake_generators):
    m = SimModel(prof(p_heed_warning=1.0), suite=fake_suite, generators=fake_generators)
    task = fake_suite.tasks[0]
    ep = await warned_episode(m, task, warning="Are you sure? Please check again.")
    assert ep["after"] == [] and ep["answers"][0] == ep["answers"][1]


async def test_heed_probability_is_drawn_once_per_episode(fake_suite, fake_generators):
    m = SimModel(prof(name="half", p_heed_warning=0.5), suite=fake_suite,
                 generators=fake_generators)
    heeded = n = 0
    for seed in range(4):
        for task in fake_suite.tasks:
            ep = await warned_episode(m, task, seed=seed)
            n += 1
            heeded += bool(ep["after"])
    assert heeded / n == pytest.approx(0.5, abs=0.08)


@pytest.mark.parametrize("name", sorted(PROFILES))
async def test_heed_parameter_changes_nothing_without_a_warning(name, fake_suite,
                                                                fake_generators):
    base = PROFILES[name]
    variants = [base.model_copy(update={"p_heed_warning": v}) for v in (0.0, 1.0)]
    models = [SimModel(p, suite=fake_suite, generators=fake_generators) for p in variants]
    for task in fake_suite.tasks[:12]:
        for corrupt in (None, wrong_city):
            a, b = [await run_fake_episode(mm, task, seed=2, corrupt=corrupt) for mm in models]
            assert a["answer"] == b["answer"] and a["texts"] == b["texts"]
            assert [c.model_dump() for c in a["calls"]] == [c.model_dump() for c in b["calls"]]


def test_profiles_heed_as_described():
    heed = {k: p.p_heed_warning for k, p in PROFILES.items()}
    assert heed["oracle"] == 1.0
    assert heed["self-correcting"] > heed["balanced"] > heed["propagator"]
    assert heed["balanced"] > heed["tool-averse"]
    assert all("warning" in p.description for p in PROFILES.values())


async def test_http_and_in_process_agree_after_a_warning(fake_suite, fake_generators):
    with ServerThread(ServerConfig(port=0), suite=fake_suite,
                      generators=fake_generators) as srv:
        for name in ("balanced", "self-correcting"):
            remote = get_model(f"openai/{name}", base_url=srv.base_url, retry_base_s=0.005)
            local = SimModel(PROFILES[name], suite=fake_suite, generators=fake_generators)
            for task in fake_suite.tasks[:8]:
                a = await warned_episode(remote, task, seed=1)
                b = await warned_episode(local, task, seed=1)
                assert a["answers"] == b["answers"]
                assert [c.model_dump() for c in a["calls"]] == [
                    c.model_dump() for c in b["calls"]]


def test_importing_sim_does_not_import_the_interceptor():
    code = ("import sys, agentprop.sim; "
            "print('agentprop.intercept' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
