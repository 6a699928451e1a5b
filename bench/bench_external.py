"""External agents (issue 13): the MCP boundary's overhead and episodes in flight.

    python bench/bench_external.py mcp [--calls 1000]
    python bench/bench_external.py episodes [--units 256] [--concurrency 64] [--latency-ms 200]

`mcp`: `agentprop serve-tools` (streamable HTTP) in a subprocess, one episode, and a plain
`mcp` client session calling the task's first tool `--calls` times in sequence. The
overhead per call is the round trip minus the same call run in-process through the same
boundary (`EpisodeRecorder.call_tool`: hooks, environment, events). Target: <= 5 ms.

`episodes`: `agentprop serve-sim --latency-ms 200` in a subprocess as the LLM, and
`examples/mcp_client.py:agent` run through `run_units` (the `run --agent` path) with
`--concurrency` episodes in flight. The ideal rate is concurrency / (model calls per
episode x latency); the report gives the measured rate and its share of the ideal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from agentprop.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):
        try:
            httpx.get(url, timeout=0.5)
            return
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise SystemExit("server exited") from None
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


async def bench_mcp(calls: int) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from agentprop.cli._suite import get_suite
    from agentprop.core import WorkUnit
    from agentprop.domains import get_domain
    from agentprop.external import EpisodeRecorder

    port = free_port()
    with tempfile.TemporaryDirectory() as ws:
        proc = subprocess.Popen(
            [*CLI, "serve-tools", "-w", ws, "-n", "1", "-d", "weather", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_http(f"http://127.0.0.1:{port}/health", proc)
            (ep,) = httpx.get(f"http://127.0.0.1:{port}/episodes").json()
            async with (streamable_http_client(ep["mcp_url"]) as (read, write, _),
                        ClientSession(read, write) as s):
                await s.initialize()
                tool = (await s.list_tools()).tools[0]
                task = get_suite(None).get(ep["task_id"])
                gold = next(c for c in task.gold_plan if c.name == tool.name)
                for _ in range(20):  # warm-up
                    await s.call_tool(tool.name, gold.arguments)
                lat = []
                cpu0, srv0 = time.process_time(), proc_cpu(proc.pid)
                for _ in range(calls):
                    t0 = time.perf_counter()
                    await s.call_tool(tool.name, gold.arguments)
                    lat.append(time.perf_counter() - t0)
                client_cpu = (time.process_time() - cpu0) / calls * 1e3
                server_cpu = (proc_cpu(proc.pid) - srv0) / calls * 1e3
                await s.call_tool("submit_answer", {"answer": "bench"})
            proc.wait(60)
        finally:
            if proc.poll() is None:
                proc.kill()
    rec = EpisodeRecorder(WorkUnit(run_id="b", model="b", task_id=task.id), task,
                          get_domain(task.domain).make_env(task.env_seed))
    direct = []
    for _ in range(calls):
        t0 = time.perf_counter()
        await rec.call_tool(tool.name, gold.arguments)
        direct.append(time.perf_counter() - t0)
    med, mean = statistics.median(lat) * 1e3, statistics.fmean(lat) * 1e3
    d = statistics.median(direct) * 1e3
    p95 = sorted(lat)[int(0.95 * len(lat))] * 1e3
    print(json.dumps({"calls": calls, "tool": tool.name, "round_trip_median_ms": round(med, 2),
                      "round_trip_mean_ms": round(mean, 2), "round_trip_p95_ms": round(p95, 2),
                      "in_process_median_ms": round(d, 3),
                      "overhead_median_ms": round(med - d, 2),
                      "overhead_mean_ms": round(mean - statistics.fmean(direct) * 1e3, 2),
                      "client_cpu_ms_per_call": round(client_cpu, 2),
                      "server_cpu_ms_per_call": round(server_cpu, 2),
                      "load": load()}))


def bench_episodes(units: int, concurrency: int, latency_ms: float) -> None:
    from agentprop.cli._suite import get_suite
    from agentprop.external import AgentExecutor, load_agent
    from agentprop.inject import expand_conditions, is_injectable
    from agentprop.runner import plan_units, run_units_sync
    from agentprop.store import Workspace

    port = free_port()
    sim = subprocess.Popen([*CLI, "serve-sim", "--port", str(port), "--latency-ms",
                            str(latency_ms)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", sim)
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        suite = get_suite(None)
        tasks = [t for t in suite.tasks if t.split == "test" and is_injectable(t)]
        conds = expand_conditions(["baseline", "p2:all"])
        plan = plan_units("bench-ext", ["mcp_client.agent"], tasks, conds)[:units]
        fn, _ = load_agent(str(ROOT / "examples" / "mcp_client.py") + ":agent")
        with tempfile.TemporaryDirectory() as d:
            ws = Workspace(Path(d) / "w")
            t0 = time.perf_counter()
            summary = run_units_sync(plan, workspace=ws, suite=suite, executor=AgentExecutor(fn),
                                     concurrency=concurrency, progress=False, in_history=False)
            wall = time.perf_counter() - t0
            ws.close()
        stats = httpx.get(f"http://127.0.0.1:{port}/stats").json()
    finally:
        sim.kill()
    calls = stats["requests"] - 1  # the /health probe
    per_ep = calls / max(summary.completed, 1)
    ideal = concurrency / (per_ep * latency_ms / 1000.0)
    rate = summary.completed / wall
    print(json.dumps({"units": summary.completed, "errors": summary.errors,
                      "concurrency": concurrency, "latency_ms": latency_ms,
                      "model_calls": calls, "calls_per_episode": round(per_ep, 2),
                      "wall_s": round(wall, 2), "episodes_per_s": round(rate, 2),
                      "ideal_episodes_per_s": round(ideal, 2),
                      "share_of_ideal": round(rate / ideal, 3), "load": load()}))


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    m = sub.add_parser("mcp")
    m.add_argument("--calls", type=int, default=1000)
    e = sub.add_parser("episodes")
    e.add_argument("--units", type=int, default=256)
    e.add_argument("--concurrency", type=int, default=64)
    e.add_argument("--latency-ms", type=float, default=200.0)
    args = ap.parse_args()
    if args.what == "mcp":
        asyncio.run(bench_mcp(args.calls))
    else:
        bench_episodes(args.units, args.concurrency, args.latency_ms)


if __name__ == "__main__":
    main()
