"""Judge throughput: the facts judge over every reference answer of the suite, and
judge_workspace with facts + heuristic + a three-member sim-judge ensemble over N traces
(first run, then a cached rerun after deleting the verdicts).

    python bench/bench_judges.py [--n 2000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from agentprop.core import FinalEvent, Trace
from agentprop.judges import check_answer, judge_workspace, query_vocabulary
from agentprop.store import Workspace
from agentprop.suite import load_suite

ENSEMBLE = "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    n = ap.parse_args().n
    suite = load_suite()
    vocab = query_vocabulary(suite.tasks)
    t0 = time.perf_counter()
    ok = sum(check_answer(t, t.reference_answer, vocabulary=vocab)[0] is True
             for t in suite.tasks)
    dt = time.perf_counter() - t0
    print(f"facts on {len(suite)} references: {ok} correct, {len(suite) / dt:,.0f} answers/s")
    with tempfile.TemporaryDirectory() as d:
        ws = Workspace(Path(d) / "w")
        tasks = suite.tasks[:n]
        ws.put_traces([
            Trace(id=f"t{i}", run_id="bench", model="sim/x", task_id=t.id, domain=t.domain,
                  split=t.split, difficulty=t.difficulty,
                  events=[FinalEvent(step=0, answer=t.reference_answer if i % 3 else "No.")])
            for i, t in enumerate(tasks)
        ])
        for label in ("first run", "cached rerun"):
            t0 = time.perf_counter()
            s = judge_workspace(ws, ["facts", "heuristic", ENSEMBLE], suite=suite,
                                progress=False)
            dt = time.perf_counter() - t0
            e = s.judges[ENSEMBLE]
            print(f"judge_workspace {label}: {len(tasks)} traces x 3 judges in {dt:.1f} s "
                  f"({len(tasks) / dt:,.0f} traces/s); ensemble calls {e.model_calls}, "
                  f"cached {e.cached_calls}")
            with ws.transaction() as conn:
                conn.execute("DELETE FROM verdicts")


if __name__ == "__main__":
    main()
