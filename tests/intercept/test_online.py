"""The interceptor as a hook in the real agent loop; online == offline replay (abstain)."""

from __future__ import annotations

import asyncio

import pytest

from agentprop.core import FinalEvent, InterceptEvent, ModelOutput
from agentprop.intercept import (
    ABSTENTION_TEXT,
    WARNING_PREFIX,
    InterceptConfig,
    Interceptor,
    default_configs,
    replay,
)

from ._fakes import TASK, answer, call, run

SCRIPTS: dict[str, list[ModelOutput]] = {
    "clean": [call(), answer("Paris, 2025-06-17: 14.6 °C (58 °F), 3 mm of rain.")],
    "tool_error_then_fabricate": [call(city="X"), answer("It will be 22 °C in Paris.")],
    "keywords": [
        call(city="X", text="The city might be wrong or unknown."),
        call(reasoning="That call gave an error; the city was invalid."),
        answer("It will be 14.6 °C."),
    ],
    "unsupported_number": [call(), answer("It will be 19 °C with 40 mm of rain.")],
    "number_in_question": [call(), answer("For your 3 meetings: 15 °C at 14:30.")],
    "no_tool": [answer("It is usually 21 °C in June.")],
}


def _intercepts(events: list) -> list[InterceptEvent]:  # type: ignore[type-arg]
    return [e for e in events if isinstance(e, InterceptEvent)]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
async def test_online_equals_offline_replay_in_abstain_mode(name: str) -> None:
    script = SCRIPTS[name]
    control = await run(script, [], arm="control")
    assert control.final is not None and not control.final.abstained
    for cfg in [*default_configs(), InterceptConfig(tau_l1=1, tau_l2=1, l3=True)]:
        treated = await run(script, [Interceptor(cfg)], arm="treatment")
        offline = replay(control, cfg, task=TASK)
        fin = treated.final
        assert fin is not None
        assert fin.abstained == offline.abstained == offline.fires, (name, cfg.label)
        events = _intercepts(treated.events)
        assert [e.layer for e in events] == offline.layers
        assert all(e.decision == "abstain" for e in events)
        if offline.fires:
            assert fin.answer == ABSTENTION_TEXT and fin.reason == offline.reason
        else:
            assert fin.answer == control.final.answer
        # replaying the treatment trace itself recovers the same decision
        assert replay(treated, cfg, task=TASK).layers == offline.layers
        # without the task, the question comes from the trace's first user message
        assert replay(control, cfg).layers == offline.layers


async def test_expected_decisions_of_the_scripts() -> None:
    cfg = InterceptConfig()  # tau_l1=1, tau_l2=2, l3 on
    layers = {n: replay(await run(s, []), cfg).layers for n, s in SCRIPTS.items()}
    assert layers == {
        "clean": [],
        "tool_error_then_fabricate": ["L1", "L3"],
        "keywords": ["L1", "L2"],
        "unsupported_number": ["L3"],
        "number_in_question": [],
        "no_tool": [],
    }


async def test_warn_mode_warns_once_then_lets_a_fixed_answer_pass() -> None:
    cfg = InterceptConfig(mode="warn")
    script = [call(city="X"), answer("It will be 22 °C."), call(), answer("It is 14.6 °C.")]
    trace = await run(script, [Interceptor(cfg)], arm="treatment")
    warnings = [m for m in trace.messages if (m.content or "").startswith(WARNING_PREFIX)]
    assert len(warnings) == 1 and warnings[0].role == "user"
    assert "L1" in (warnings[0].content or "") and "22" in (warnings[0].content or "")
    events = _intercepts(trace.events)
    assert [(e.decision, e.layer) for e in events] == [("warn", "L1"), ("warn", "L3")]
    assert trace.final is not None and not trace.final.abstained
    assert trace.final.answer == "It is 14.6 °C."


async def test_warn_mode_abstains_when_it_fires_again() -> None:
    cfg = InterceptConfig(mode="warn")
    script = [call(city="X"), answer("It will be 22 °C."), answer("Still 22 °C.")]
    trace = await run(script, [Interceptor(cfg)], arm="treatment")
    events = _intercepts(trace.events)
    assert [e.decision for e in events] == ["warn", "warn", "abstain"]
    # after the warning only new evidence counts: the old tool error is not re-counted
    assert events[-1].layer == "L3"
    assert isinstance(trace.final, FinalEvent) and trace.final.abstained


async def test_one_instance_keeps_concurrent_episodes_apart() -> None:
    hook = Interceptor(InterceptConfig())
    bad, good = await asyncio.gather(
        run(SCRIPTS["tool_error_then_fabricate"], [hook], arm="treatment"),
        run(SCRIPTS["clean"], [hook], arm="treatment"),
    )
    assert bad.final is not None and bad.final.abstained
    assert good.final is not None and not good.final.abstained
    assert not hook._episodes  # state dropped at episode end
