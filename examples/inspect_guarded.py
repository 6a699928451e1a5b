"""An Inspect AI task whose tool calls an agentprop guard approves (docs/guardrails.md,
"Inspect AI approver"). Offline: the tools are agentprop's simulated weather domain and the
model is Inspect's `mockllm`, scripted to mistype a city, get a tool error, and call again.

    pip install 'agentprop[inspect]'
    python examples/inspect_guarded.py

It runs the same sample twice, as agentprop measures any guard: a control whose approver
allows every call, and a treatment under `guard_approver()` (the default guard: the
interceptor's L1/L2 before each call). The control answers from the second call; the
treatment ends the sample at that call, because the episode already holds a tool error.
With a real model, pass `--model provider/name` (and drop the script).

Any other domain works too: `domain_tools` wraps every tool of `agentprop.domains`, and
`domain_env` builds a fresh world per sample, as agentprop's runner does.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.approval import ApprovalPolicy
from inspect_ai.dataset import Sample
from inspect_ai.event import ApprovalEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import ToolDef, ToolParams

from agentprop.domains import Environment, Tool, get_domain
from agentprop.guards.inspect_approver import guard_approver
from agentprop.intercept import Decision, GuardView

QUERY = "What was the temperature in Paris on 2025-06-01?"
MOCK = "mockllm/model"


def _tool_def(env: Environment, tool: Tool) -> ToolDef:
    async def execute(**arguments: Any) -> str:
        # agentprop's observation as JSON, errors included: the approver reads it back
        return json.dumps(await env.acall(tool.name, arguments))

    return ToolDef(execute, name=tool.name, description=tool.spec.description,
                   parameters=ToolParams.model_validate(tool.spec.parameters))


def domain_tools(env: Environment) -> list[ToolDef]:
    """Every tool of the environment's domain as an Inspect tool over that environment."""
    return [_tool_def(env, t) for t in env.domain.tools]


@solver
def domain_env(domain: str = "weather") -> Solver:
    """A fresh world of `domain` per sample (its epoch is the seed), with its tools."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.tools = list(domain_tools(get_domain(domain).make_env(state.epoch)))
        return state

    return solve


def scripted_model() -> Model:
    """A typo, then the right call, then an answer. Every output has usage set: without
    it, mockllm counts tokens with tiktoken, which downloads its encoding."""
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    outputs = [
        ModelOutput.for_tool_call(MOCK, "get_weather", {"city": "Pariss", "date": "2025-06-01"}),
        ModelOutput.for_tool_call(MOCK, "get_weather", {"city": "Paris", "date": "2025-06-01"}),
        ModelOutput.from_content(MOCK, "It was 15.9 °C in Paris on 2025-06-01."),
    ]
    for o in outputs:
        o.usage = usage
    return get_model(MOCK, custom_outputs=outputs)


def allow_all(view: GuardView) -> Decision | None:
    """The control arm: a guard that never acts."""
    return None


def run(arm: str, model: Model | str, log_dir: str) -> EvalSample:
    guard = allow_all if arm == "control" else None  # None: the default guard
    task = Task(dataset=[Sample(input=QUERY)], solver=[domain_env("weather"), generate()])
    log = eval(task, model=model, display="none", log_dir=log_dir,
               approval=[ApprovalPolicy(guard_approver(guard, name=arm), "*")])[0]
    assert log.samples, log.error
    return log.samples[0]


def summary(arm: str, sample: EvalSample) -> str:
    calls = sum(len(m.tool_calls or []) for m in sample.messages if m.role == "assistant")
    acted = [e for e in sample.events if isinstance(e, ApprovalEvent) and e.decision != "approve"]
    why = f" ({acted[-1].decision}: {acted[-1].explanation})" if acted else ""
    ended = "ended by the approver" if sample.limit \
        else f"answered {sample.output.completion!r}"
    return f"{arm}: {calls} tool call(s) proposed; {ended}{why}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="an Inspect model (default: the offline script)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        for arm in ("control", "treatment"):
            model = args.model or scripted_model()
            print(summary(arm, run(arm, model, log_dir)))


if __name__ == "__main__":
    main()
