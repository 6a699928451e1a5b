"""The Inspect AI approver: Inspect's history as trace events, a guard's decisions as
Inspect's, and whole offline evals (mockllm) where the guard rejects, terminates or allows."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task, eval
from inspect_ai._util.registry import registry_info  # the name a policy file uses
from inspect_ai.approval import ApprovalPolicy, read_approval_policies
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, ToolCall, ToolCallError, ToolCallView, tool

from agentprop.core import LoadError, ModelCallEvent, ToolCallEvent, ToolResultEvent
from agentprop.guards.inspect_approver import (
    approval_of,
    guard_approver,
    history_events,
)
from agentprop.intercept import Decision, GuardView

MOCK = "mockllm/model"
ROOT = Path(__file__).resolve().parents[2]


def _call(id: str, city: str) -> ToolCall:
    return ToolCall(id=id, function="lookup", arguments={"city": city})


def _history() -> list[ChatMessage]:
    return [
        ChatMessageSystem(content="be brief"),
        ChatMessageUser(content="How warm is it in Paris?"),
        ChatMessageAssistant(content=[ContentReasoning(reasoning="look it up"),
                                      ContentText(text="checking")],
                             tool_calls=[_call("c1", "Pariss"), _call("c2", "Paris")]),
        ChatMessageTool(content="", tool_call_id="c1", function="lookup",
                        error=ToolCallError("unknown", "no such city")),
        ChatMessageTool(content='{"city": "Paris", "temp": 12}', tool_call_id="c2",
                        function="lookup"),
        ChatMessageAssistant(content="", tool_calls=[_call("c3", "Lyon")]),
        ChatMessageTool(content="sunny, 14 degrees", tool_call_id="c3", function="lookup"),
        ChatMessageTool(content="[1, 2]", tool_call_id="c4", function="lookup"),
    ]


def test_history_becomes_the_events_of_agentprops_loop() -> None:
    events = history_events(_history())
    assert [type(e) for e in events] == [
        ModelCallEvent, ToolCallEvent, ToolCallEvent, ToolResultEvent, ToolResultEvent,
        ModelCallEvent, ToolCallEvent, ToolResultEvent, ToolResultEvent]
    first, later = events[0], events[5]
    assert isinstance(first, ModelCallEvent) and isinstance(later, ModelCallEvent)
    assert (first.step, later.step) == (0, 1)
    assert first.output.reasoning == "look it up" and first.output.text == "checking"
    assert [c.id for c in first.output.tool_calls] == ["c1", "c2"]
    assert later.output.text is None
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(r.call_id, r.step, r.name) for r in results] == [
        ("c1", 0, "lookup"), ("c2", 0, "lookup"), ("c3", 1, "lookup"), ("c4", 1, "lookup")]
    assert [r.arguments for r in results] == [
        {"city": "Pariss"}, {"city": "Paris"}, {"city": "Lyon"}, {}]  # c4: no such call
    err, obj, text, other = (r.observation for r in results)
    assert set(err) == {"error"} and set(err["error"]) == {"type", "message"}
    assert err["error"]["type"] == "unknown"
    assert obj == {"city": "Paris", "temp": 12}
    assert text == {"text": "sunny, 14 degrees"}
    assert other == {"text": "[1, 2]"}  # not an object: the text, as every adapter keeps it
    # the interceptor's layers read them as they read a stored trace
    view = GuardView(point="tool_call", query="q", events=events)
    assert view.signals().l1_count == 1


def test_each_decision_maps_to_inspects() -> None:
    assert approval_of(None, "g").decision == "approve"
    assert approval_of(Decision.allow(), "g").decision == "approve"
    rejected = approval_of(Decision.reject("use the exact city", "typo"), "g")
    assert (rejected.decision, rejected.explanation) == ("reject", "use the exact city")
    assert rejected.metadata == {"guard": "g", "action": "reject", "reason": "typo"}
    stopped = approval_of(Decision.abstain("L1"), "g")
    assert stopped.decision == "terminate" and stopped.metadata is not None
    assert stopped.metadata["action"] == "abstain"
    assert approval_of(Decision.retry("flaky"), "g").decision == "approve"


# -- whole evals, offline --------------------------------------------------------------------


def _lookup(ran: list[str]) -> Tool:
    @tool
    def lookup() -> Tool:
        async def execute(city: str) -> str:
            """Current temperature of a city.

            Args:
                city: The city's name.
            """
            ran.append(city)
            if city != "Paris":
                return json.dumps({"error": {"type": "not_found", "message": city}})
            return json.dumps({"city": city, "temp": 12})
        return execute
    return lookup()


def _model(*cities: str) -> Any:
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tiktoken
    outputs = [ModelOutput.for_tool_call(MOCK, "lookup", {"city": c}) for c in cities]
    outputs.append(ModelOutput.from_content(MOCK, "12 degrees"))
    for o in outputs:
        o.usage = usage
    return get_model(MOCK, custom_outputs=outputs)


def _run(tmp_path: Path, approval: list[ApprovalPolicy] | None, ran: list[str],
         *cities: str) -> EvalSample:
    task = Task(dataset=[Sample(input="How warm is it in Paris?")],
                solver=[use_tools(_lookup(ran)), generate()])
    log = eval(task, model=_model(*cities), approval=approval, display="none",
               log_dir=str(tmp_path))[0]
    assert log.status == "success" and log.samples, log.error
    return log.samples[0]


def reject_typos(view: GuardView) -> Decision | None:
    if view.call is not None and view.call.arguments.get("city") == "Pariss":
        return Decision.reject("that city does not exist", "typo")
    return None


def test_a_rejected_call_does_not_run_and_the_model_sees_why(tmp_path: Path) -> None:
    ran: list[str] = []
    sample = _run(tmp_path, [ApprovalPolicy(guard_approver(reject_typos), "*")], ran,
                  "Pariss", "Paris")
    assert ran == ["Paris"]
    tools = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert [m.error.type if m.error else None for m in tools] == ["approval", None]
    assert tools[0].error is not None
    assert tools[0].error.message == "that city does not exist"
    assert sample.limit is None and sample.messages[-1].role == "assistant"


def test_an_abstention_ends_the_sample_before_the_call(tmp_path: Path) -> None:
    """The default guard: one tool error so far (L1), so the next call ends the sample."""
    ran: list[str] = []
    sample = _run(tmp_path, [ApprovalPolicy(guard_approver(), "*")], ran, "Pariss", "Paris")
    assert ran == ["Pariss"]
    assert sample.limit is not None
    last = sample.messages[-1]
    assert isinstance(last, ChatMessageAssistant) and last.tool_calls
    assert not any(m.role == "assistant" and not m.tool_calls for m in sample.messages)


def test_a_guard_that_allows_changes_nothing(tmp_path: Path) -> None:
    seen: list[GuardView] = []

    def watch(view: GuardView) -> None:
        seen.append(view)

    ran_free: list[str] = []
    free = _run(tmp_path, None, ran_free, "Pariss", "Paris")
    ran_guarded: list[str] = []
    guarded = _run(tmp_path, [ApprovalPolicy(guard_approver(watch), "*")], ran_guarded,
                   "Pariss", "Paris")
    assert ran_guarded == ran_free == ["Pariss", "Paris"]
    assert [(m.role, m.text) for m in guarded.messages] == \
        [(m.role, m.text) for m in free.messages]
    assert guarded.limit is None
    # the guard was asked before each call, with the episode so far
    assert [v.point for v in seen] == ["tool_call", "tool_call"]
    assert [v.call.arguments["city"] for v in seen if v.call] == ["Pariss", "Paris"]
    assert seen[0].query == "How warm is it in Paris?"
    assert [len(v.results) for v in seen] == [0, 1]
    assert seen[1].signals().l1_count == 1


# -- named from text: a policy file ----------------------------------------------------------


def test_a_policy_file_names_the_approver_and_a_guard_function(tmp_path: Path) -> None:
    name = registry_info(guard_approver).name
    policy = tmp_path / "approval.yaml"
    policy.write_text(
        f"approvers:\n  - name: {name}\n    tools: '*'\n"
        f"    guard: {__name__}:reject_typos\n    config: tau_l1=2\n")
    (p,) = read_approval_policies(str(policy))
    assert p.tools == "*"
    ran: list[str] = []
    sample = _run(tmp_path, [p], ran, "Pariss", "Paris")
    assert ran == ["Paris"]
    assert any(isinstance(m, ChatMessageTool) and m.error for m in sample.messages)


async def test_text_guards_are_guard_functions_not_builtins() -> None:
    with pytest.raises(LoadError):
        guard_approver("retry")
    with pytest.raises(LoadError):
        guard_approver(f"{__name__}:MOCK")  # not a function
    approve = guard_approver(f"{__name__}:reject_typos", name="typos")
    verdict = await approve("", _call("c9", "Pariss"), ToolCallView(), _history()[:2])
    assert verdict.decision == "reject"
    assert verdict.metadata is not None and verdict.metadata["guard"] == "typos"


def test_the_entry_point_lets_a_policy_file_name_it_unimported(tmp_path: Path) -> None:
    """The entry point pyproject.toml declares, as an installed distribution's metadata:
    Inspect loads the module when a policy names `agentprop/guard_approver`."""
    try:
        importlib.metadata.distribution("agentprop")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the registry's namespace needs agentprop installed")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry = declared["project"]["entry-points"]["inspect_ai"]["agentprop"]
    dist = tmp_path / "agentprop_ep-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: agentprop-ep\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[inspect_ai]\nagentprop = {entry}\n")
    policy = tmp_path / "approval.yaml"
    policy.write_text("approvers:\n  - name: agentprop/guard_approver\n    tools: '*'\n")
    code = ("import sys\nfrom inspect_ai.approval import read_approval_policies\n"
            "assert 'agentprop.guards.inspect_approver' not in sys.modules\n"
            f"print(len(read_approval_policies({str(policy)!r})))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "1"), done.stderr[-2000:]
