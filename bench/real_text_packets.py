"""Labelling packets of real model text (issue 26 item 8), made before any detector is read.

    python bench/real_text_packets.py WORKSPACE [WORKSPACE ...] --out DIR

Writes DIR/answers.jsonl (every final answer: the question, the truth — reference answer
and the gold plan's observations —, what the agent's tools returned, the answer) and
DIR/texts.jsonl (every model text after the reference step of an injected trace, and after
the first observation of a baseline trace, as `analysis.noticing` reads them: where it
sits and whether it accompanies a call of the same tool). Neither holds a condition, an
injection, a verdict or a detector's output: graders label blind, by the rules in
tests/fixtures/judge_validation.jsonl, fabricated (docs/injection.md) and
tests/fixtures/noticed_validation.jsonl. DIR/keys.jsonl maps each item to its trace.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _text(output: Any) -> str:
    return "\n".join(t for t in (output.reasoning, output.text) if t)


def _seen(trace: Any) -> list[dict[str, Any]]:
    from agentprop.core import ToolResultEvent

    return [{"tool": e.name, "arguments": e.arguments, "result": e.observation}
            for e in trace.events if isinstance(e, ToolResultEvent)]


def _gold(task: Any) -> list[dict[str, Any]]:
    """The gold plan's calls and what they return in a fresh environment: the truth."""
    from agentprop.domains import get_domain

    env = get_domain(task.domain).make_env(task.env_seed)
    return [{"tool": c.name, "arguments": c.arguments, "result": env.call(c.name, c.arguments)}
            for c in task.gold_plan]


def _reference_index(trace: Any) -> tuple[int, str] | None:
    """The reference step as `analysis.noticing` finds it: the injected call's
    observation, or a baseline trace's first observation."""
    from agentprop.core import InjectionEvent, ToolResultEvent

    inj = next((e for e in trace.events if isinstance(e, InjectionEvent)), None)
    results = [(i, e) for i, e in enumerate(trace.events) if isinstance(e, ToolResultEvent)]
    if inj is None:
        return (results[0][0], results[0][1].name) if results else None
    if inj.status != "applied":
        return None
    hit = next(((i, r) for i, r in results if inj.call_id and r.call_id == inj.call_id), None)
    hit = hit or next(((i, r) for i, r in results if r.counterfactual is not None), None)
    return (hit[0], hit[1].name) if hit else None


def packets(workspaces: list[Path], seed: int = 0) -> tuple[list[dict[str, Any]], ...]:
    from agentprop.core import ModelCallEvent
    from agentprop.store import Workspace
    from agentprop.suite import load_suite

    suite = load_suite()
    answers, texts, keys = [], [], []
    for wp in workspaces:
        with Workspace(wp, create=False) as ws:
            traces = list(ws.iter_traces())
        for t in traces:
            task = suite.get(t.task_id)
            fin = t.final
            if task is None:
                continue
            if fin is not None and fin.answer is not None:
                answers.append({"query": task.query, "reference_answer": task.reference_answer,
                                "gold_observations": _gold(task),
                                "agent_tool_results": _seen(t), "answer": fin.answer,
                                "_trace": t.id, "_ws": wp.name})
            ref = _reference_index(t)
            if ref is None:
                continue
            at, tool = ref
            for ev in t.events[at + 1:]:
                if not isinstance(ev, ModelCallEvent):
                    continue
                text = _text(ev.output)
                if not text.strip():
                    continue
                calls = ev.output.tool_calls
                where = "beside_call" if calls else (
                    "final" if fin is not None and fin.step == ev.step else "text_turn")
                relation = (("same_tool" if any(c.name == tool for c in calls)
                             else "other_tool") if calls else None)
                texts.append({"where": where, "call": relation,
                              "tool_result_before": t.events[at].observation  # type: ignore[union-attr]
                              if hasattr(t.events[at], "observation") else None,
                              "query": task.query, "text": text,
                              "_trace": t.id, "_ws": wp.name, "_step": ev.step})
    rng = random.Random(seed)
    rng.shuffle(answers)
    rng.shuffle(texts)
    for prefix, items in (("a", answers), ("t", texts)):
        for i, item in enumerate(items, 1):
            item["id"] = f"{prefix}{i:03d}"
            keys.append({"id": item["id"], "trace_id": item.pop("_trace"),
                         "workspace": item.pop("_ws"), **({"step": item.pop("_step")}
                                                          if "_step" in item else {})})
    return answers, texts, keys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workspaces", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    answers, texts, keys = packets(args.workspaces)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, items in (("answers", answers), ("texts", texts), ("keys", keys)):
        with (args.out / f"{name}.jsonl").open("w") as f:
            for item in items:
                f.write(json.dumps(item, ensure_ascii=False, default=str) + "\n")
    print(json.dumps({"answers": len(answers), "texts": len(texts)}))


if __name__ == "__main__":
    main()
