"""The mitigation × fault-class matrix on simulated agents (#23 item 3): wall time, and the
cells that show what the fault model states (retry fixes transient faults and cannot touch
a wrong result; the abstaining layers catch only what they can see).

    python bench/bench_matrix.py [--n 40] [--profile propagator --profile self-correcting]

Last line: one JSON object (episodes, wall_s, episodes_per_s, and per profile the Δ of
four cells and each mitigation's false-alarm rate on clean runs)."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from agentprop.app._matrix import run_matrix
from agentprop.intercept import InterceptConfig
from agentprop.sim import PROFILES, SimAgent, SimModel
from agentprop.store import Workspace
from agentprop.suite import load_suite

CELLS = (("retry", "fault:timeout"), ("retry", "out:wrong_value"),
         ("interceptor", "p2:type_mismatch"), ("interceptor", "p2:semantic_wrong"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=40, help="tasks per cell")
    ap.add_argument("--profile", action="append", default=None)
    args = ap.parse_args()
    profiles = args.profile or ["propagator", "self-correcting"]
    suite = load_suite()
    agent = SimAgent(suite)
    models = {f"sim/{p}": SimModel(PROFILES[p], agent=agent) for p in profiles}
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w") as ws:
        start = time.perf_counter()
        out = run_matrix(ws, suite=suite, models=list(models), config=InterceptConfig(),
                         n=args.n, seed=0, concurrency=32, runtime_models=models)
        wall = time.perf_counter() - start
        episodes = ws.count_traces()
    summary: dict[str, Any] = {"episodes": episodes, "wall_s": round(wall, 1),
                               "episodes_per_s": round(episodes / wall, 1)}
    for model in models:
        mine = {(c["mitigation"], c["condition"]): c for c in out["cells"]
                if c["model"] == model}
        clean = {g: c["false_alarm_rate"] for (g, cond), c in mine.items()
                 if cond == "baseline"}
        summary[model] = {
            **{f"{g}|{c}": mine[(g, c)]["delta_hallucination"] for g, c in CELLS},
            "false_alarm_clean": {g: None if v is None else round(v, 3)
                                  for g, v in clean.items()},
        }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
