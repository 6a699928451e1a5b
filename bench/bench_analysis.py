"""Benchmark: analyze + report on 20,000 synthetic traces with 1,000 bootstrap resamples.

    python bench/bench_analysis.py [--traces 20000] [--resamples 1000]

Builds trace objects with real events (tool call, injection, result with counterfactual,
the agent's answer text as a model call, final answer), verdicts of five judges
(three-member ensemble), 100 human labels and paired interceptor arms, then times:
frames (stage_table included), analyze, report. Target: the total under 15 s on a 2-core
machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from agentprop.analysis import build_input
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    Label,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Verdict,
)
from agentprop.report import analyze, build_report

MODELS = [f"sim/m{i}" for i in range(10)]
DOMAINS = ["calendar", "weather", "medical", "retail"]


def generate(n_traces: int, seed: int = 0) -> Iterator[tuple[Trace, list[Verdict]]]:
    """Each trace with its verdicts, one at a time (bench_scale.py writes a million of them
    to a workspace without holding them)."""
    rng = np.random.default_rng(seed)
    per_model = n_traces // len(MODELS)
    # per model: 40 % baseline, 40 % P2, 20 % interceptor arms (control/treatment pairs)
    for mi, model in enumerate(MODELS):
        for k in range(per_model):
            kind = k % 5
            task = f"{DOMAINS[k % 4]}_{k // 5:04d}"
            cond = "baseline" if kind < 2 else "p2:semantic_wrong"
            arm = "" if kind < 4 else ("control" if (k // 5) % 2 == 0 else "treatment")
            if arm:
                task = f"{DOMAINS[k % 4]}_{k // 10:04d}"
            call = ToolCall(id="c1", name="lookup", arguments={"q": task})
            ev: list = [ToolCallEvent(step=0, call=call)]
            s2 = rng.random() < 0.3 + 0.05 * mi
            if cond != "baseline" and rng.random() < 0.8:
                ev.append(InjectionEvent(step=0, protocol="p2", error_type="semantic_wrong",
                                         status="applied", call_id="c1", tool="lookup",
                                         param="q", original=task, injected="other"))
                ev.append(ToolResultEvent(step=0, call_id="c1", name="lookup",
                                          arguments={"q": "other"}, observation={"v": 1},
                                          counterfactual={"v": 2 if s2 else 1}))
            else:
                ev.append(ToolResultEvent(step=0, call_id="c1", name="lookup",
                                          arguments={"q": task}, observation={"v": 1}))
            abst = arm == "treatment" and rng.random() < 0.2
            # the agent's text after the observation, read by the `noticed` detector
            hedge = " The result looks off to me." if rng.random() < 0.2 else ""
            answer = (f"Based on the lookup, the value for {task} is {k % 40} units and the "
                      f"trend is stable this week.{hedge} Let me know if you need more.")
            ev.append(ModelCallEvent(step=1, request_hash="h",
                                     output=ModelOutput(text=answer)))
            ev.append(FinalEvent(step=1, answer=answer, abstained=abst))
            tid = f"{model}-{k}"
            trace = Trace(id=tid, run_id="bench", model=model, task_id=task,
                          domain=DOMAINS[k % 4], split="test", difficulty="easy",
                          condition=cond, arm=arm, simulated=True, events=ev)
            p_ok = 0.7 - 0.04 * mi - (0.3 if s2 and cond != "baseline" else 0)
            truth = bool(rng.random() < p_ok)
            votes = {f"llm{j}": bool(truth if rng.random() < 0.85 else not truth)
                     for j in range(3)}
            verdicts = [Verdict(trace_id=tid, judge="facts", correct=truth),
                        Verdict(trace_id=tid, judge="heuristic",
                                correct=bool(rng.random() < 0.6)),
                        Verdict(trace_id=tid, judge="ensemble",
                                correct=sum(votes.values()) >= 2, members=votes)]
            verdicts += [Verdict(trace_id=tid, judge=j, correct=v) for j, v in votes.items()]
            yield trace, verdicts


def labels_for(trace_ids: Sequence[str]) -> list[Label]:
    """100 human labels on evenly spaced traces (every third one "incorrect")."""
    return [Label(trace_id=tid, annotator="a", label="correct" if i % 3 else "incorrect")
            for i, tid in enumerate(trace_ids[:: max(1, len(trace_ids) // 100)][:100])]


def make(n_traces: int, seed: int = 0) -> tuple[list[Trace], list[Verdict], list[Label]]:
    traces: list[Trace] = []
    verdicts: list[Verdict] = []
    for trace, vs in generate(n_traces, seed):
        traces.append(trace)
        verdicts.extend(vs)
    return traces, verdicts, labels_for([t.id for t in traces])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=20_000)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    traces, verdicts, labels = make(args.traces)
    t0 = time.perf_counter()
    inp = build_input(traces, verdicts, labels, primary_judge="facts")
    t1 = time.perf_counter()
    res = analyze(inp, n_resamples=args.resamples)
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        build_report(res, Path(d) / "report", stages=inp.stages)
    t3 = time.perf_counter()
    print(f"traces={len(traces)} verdicts={len(verdicts)} resamples={args.resamples}")
    print(f"frames {t1 - t0:.2f}s  analyze {t2 - t1:.2f}s  report {t3 - t2:.2f}s  "
          f"total {t3 - t0:.2f}s (target < 15 s)")


if __name__ == "__main__":
    main()
