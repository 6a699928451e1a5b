"""The shared test doubles behave as their docstrings promise (other tests rely on them)."""

from __future__ import annotations

import pytest

from agentprop.agent import run_episode
from agentprop.core import ModelOutput, ToolCall, WorkUnit
from agentprop.models import GenerateConfig, ModelError
from agentprop.store import Workspace
from agentprop.testing import ScriptedModel, TinyDomain, tiny_task, tiny_temperature


async def test_scripted_model_plays_then_repeats_or_falls_back() -> None:
    call = [ToolCall(id="c1", name="lookup", arguments={"city": "Oslo"})]
    repeat = ScriptedModel([call, "it is 12"])
    outs = [await repeat.generate([], [], GenerateConfig()) for _ in range(3)]
    assert outs[0].tool_calls == call and [o.text for o in outs[1:]] == ["it is 12", "it is 12"]
    fallback = ScriptedModel([call], after="done")
    await fallback.generate([], [], GenerateConfig())
    assert (await fallback.generate([], [], GenerateConfig())).text == "done"
    assert fallback.calls == 2 and len(fallback.seen) == 2
    with pytest.raises(ModelError):
        await ScriptedModel([ModelError("timeout", "slow")]).generate([], [], GenerateConfig())


async def test_tiny_domain_episode_answers_from_the_tool() -> None:
    task = tiny_task(3, "Oslo")
    model = ScriptedModel([task.gold_plan, ModelOutput(text=f"{tiny_temperature('Oslo')} C")])
    unit = WorkUnit(run_id="r", model=model.id, task_id=task.id)
    env = TinyDomain().make_env(task.env_seed)
    trace = await run_episode(unit, task, model, [], GenerateConfig(), env)
    assert trace.status == "ok" and trace.final_answer == "12 C"
    assert [m.role for m in model.seen[1]][-1] == "tool"


def test_workspace_fixture_is_empty_and_writable(workspace: Workspace) -> None:
    assert workspace.count_traces() == 0 and workspace.path.is_dir()
