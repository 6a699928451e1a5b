"""Executors (issue 25 items 2-3): episodes on one core (asyncio), on worker processes
(processes) and on Ray, as a user runs them: `agentprop serve-sim --latency-ms 200` in one
process and the exact `agentprop run ... --executor K --json` command in another.

    python bench/bench_executors.py http [--limit 1000] [--concurrency 64] [--repeat 1]
    python bench/bench_executors.py agent [--limit 256] [--concurrency 64] [--repeat 1]
    python bench/bench_executors.py write [--traces 2000]

`http`: `run --model openai/balanced` against serve-sim, the summary's model_calls /
wall_s as a share of C / L (wall_s counts from the start of the run, workers' start-up
included), the whole command's time, and `steady`: calls over the span from the first
episode's start to the last one's end. `agent`: `run --agent
examples/mcp_client.py:agent` (a plain MCP client with the openai SDK) with serve-sim as
its LLM: episodes per second. `executors` picks which ones (default all three; processes
and ray with --workers 2). `write`: the driver's cost per unit (pickling the unit and
task it sends, unpickling the trace it gets back, counting it, the batching writer's
INSERT with the trace's stage row, computed by the driver or by the worker), the ceiling
of any number of workers or machines feeding one driver.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_throughput import CLI, cpu_s, free_port, start_server

ROOT = Path(__file__).resolve().parents[1]


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def one(kind: str, port: int, server: subprocess.Popen[bytes], args: argparse.Namespace,
        agent: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        who = (["--agent", str(ROOT / "examples" / "mcp_client.py") + ":agent"] if agent
               else ["--model", "openai/balanced", "--base-url",
                     f"http://127.0.0.1:{port}/v1", "--no-cache"])
        cmd = [*CLI, "run", *who, "--split", "test", "--limit", str(args.limit),
               "--concurrency", str(args.concurrency), "--json", "--preflight", "off",
               "--executor", kind, "-w", str(Path(tmp) / "ws")]
        if kind != "asyncio":
            cmd += ["--workers", str(args.workers)]
        env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
               "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-bench")}
        httpx.post(f"http://127.0.0.1:{port}/stats/reset")
        s0, t0 = cpu_s(server.pid), time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        elapsed, s1 = time.perf_counter() - t0, cpu_s(server.pid)
        if done.returncode != 0:
            raise SystemExit(f"{kind} failed: {done.stderr[-800:]}")
        summary = json.loads(done.stdout)
        calls = httpx.get(f"http://127.0.0.1:{port}/stats").json()["requests"]
        span = episode_span(Path(tmp) / "ws")
    out: dict[str, object] = {"executor": kind, "units": summary["completed"],
                              "errors": summary["errors"], "lost": summary.get("lost"),
                              "wall_s": round(summary["wall_s"], 2),
                              "command_s": round(elapsed, 2),
                              "server_cpu_s": round(s1 - s0, 1), "load": load()}
    if agent:
        out["model_calls"] = calls
        out["episodes_per_s"] = round(summary["completed"] / summary["wall_s"], 2)
        out["episodes_per_s_command"] = round(summary["completed"] / elapsed, 2)
    else:
        ideal = args.concurrency / (args.latency_ms / 1000.0)
        rate = summary["model_calls"] / summary["wall_s"]
        out.update(model_calls=summary["model_calls"], calls_per_s=round(rate, 1),
                   steady=round(summary["model_calls"] / span / ideal, 3),
                   ideal=ideal, of_ideal=round(rate / ideal, 3),
                   of_ideal_command=round(summary["model_calls"] / elapsed / ideal, 3))
    return out


def episode_span(workspace: Path) -> float:
    """Seconds from the first episode's start to the last one's end (the steady state:
    the command's and the workers' start-up left out)."""
    from agentprop.store import Workspace

    ws = Workspace(workspace)
    traces = [t for i in ws.trace_ids() if (t := ws.get_trace(i)) is not None]
    ws.close()
    start = min(t.started_at for t in traces)
    end = max(t.ended_at or t.started_at for t in traces)
    return max((end - start).total_seconds(), 1e-9)


def write_cost(n: int) -> None:
    """The driver's work per unit, in-process: pickle the (unit, task) it sends, unpickle
    the trace it gets back, count it, write it with its stage row (batched). Twice: the
    row computed by the driver (`driver_rows`, before workers computed them) and the row
    computed by the worker and sent with its trace (`worker_rows`, today's pools)."""
    from agentprop.analysis._stored import PrecomputedRows
    from agentprop.cli._suite import get_suite
    from agentprop.runner import RunSummary, plan_units, run_units_sync
    from agentprop.runner._run import _stage_rows
    from agentprop.store import TraceWriter, Workspace

    suite = get_suite(None)
    tasks = [t for t in suite.tasks if t.split == "test"][: n // 2]
    units = plan_units("w", ["sim/balanced"], tasks, ["baseline", "p2:type_mismatch"],
                       seeds=[0])[:n]
    with tempfile.TemporaryDirectory() as d:
        src = Workspace(Path(d) / "src")
        run_units_sync(units, workspace=src, suite=suite, progress=False)
        traces = [src.get_trace(i) for i in sorted(src.trace_ids("w"))]
        sent = [(u, suite.get(u.task_id)) for u in units]
        src.close()
        context, recorder = _stage_rows(get_suite(None))
        with_rows = [pickle.dumps((t, recorder(t))) for t in traces]
        out: dict[str, object] = {"traces": len(traces), "pickled_kb_per_trace": round(
            sum(map(len, with_rows)) / len(with_rows) / 1024, 1)}
        for mode in ("driver_rows", "worker_rows"):
            context, recorder = _stage_rows(get_suite(None))  # no reading cached yet
            rows = PrecomputedRows(recorder)
            dst = Workspace(Path(d) / mode)
            summary = RunSummary()
            t0, c0 = time.perf_counter(), time.process_time()
            writer = TraceWriter(dst.path, batch_size=64, interval_s=0.5,
                                 stages=(context, rows))
            for i, b in enumerate(with_rows):
                pickle.dumps((i, *sent[i]))  # the unit and its task, sent to a worker
                trace, row = pickle.loads(b)
                if mode == "worker_rows":
                    rows.give(trace, row)
                summary.count(trace)
                writer.put(trace)
            writer.close()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            dst.close()
            out[mode] = {"driver_ms_per_trace": round(wall / len(traces) * 1e3, 3),
                         "driver_cpu_ms_per_trace": round(cpu / len(traces) * 1e3, 3),
                         "ceiling_traces_per_s": round(len(traces) / wall)}
    print(json.dumps({**out, "load": load()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("what", choices=["http", "agent", "write"])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--latency-ms", type=float, default=200.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--traces", type=int, default=2000)
    ap.add_argument("--executors", default="asyncio,processes,ray")
    args = ap.parse_args()
    if args.what == "write":
        write_cost(args.traces)
        return
    if args.limit is None:
        args.limit = 1000 if args.what == "http" else 256
    port = free_port()
    server = start_server(port, ["--latency-ms", str(args.latency_ms)])
    try:
        for _ in range(args.repeat):  # interleaved, so each executor sees the same load
            for kind in args.executors.split(","):
                print(json.dumps(one(kind, port, server, args, args.what == "agent")),
                      flush=True)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
