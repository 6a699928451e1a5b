"""HTTP throughput: `agentprop serve-sim --latency-ms 200` in a subprocess, 1,000 model calls
through our openai provider (the real openai SDK) at concurrency 64, no cache. The ideal is
concurrency / latency = 64 / 0.2 s = 320 calls/s; target >= 85 % of it.

    python bench/bench_http.py [--calls 1000] [--concurrency 64] [--latency-ms 200]
                               [--units N]   # also drive N full units through the runner

Each call is a real request of the suite: a task's query, its domain's tools and, for
every other call, a history with one executed tool call (so the server's sim policy and the
client's conversion both do real work).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from agentprop.core import Message
from agentprop.domains import get_domain
from agentprop.models import GenerateConfig, get_model
from agentprop.suite import load_suite


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, latency_ms: float) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-sim",
         "--port", str(port), "--latency-ms", str(latency_ms)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=0.5)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                err = proc.stderr.read().decode()[-500:] if proc.stderr else ""
                raise SystemExit(f"serve-sim failed: {err}") from None
            time.sleep(0.1)
    raise SystemExit("serve-sim did not start")


def requests(n: int) -> list[tuple[list[Message], list]]:
    """n realistic requests: first turns and second turns over the test split."""
    suite = load_suite()
    tasks = suite.select(split="test")
    out = []
    for i in range(n):
        t = tasks[i % len(tasks)]
        dom = get_domain(t.domain)
        tools = dom.tool_specs(t.tools)
        msgs = [Message(role="system", content="You are a helpful assistant with tools."),
                Message(role="user", content=t.query)]
        if i % 2 and t.gold_plan:
            c = t.gold_plan[0].model_copy(update={"id": "call_sim_0_0"})
            obs = dom.make_env(t.env_seed).call(c.name, c.arguments)
            msgs += [Message(role="assistant", tool_calls=[c]),
                     Message(role="tool", tool_call_id=c.id, content=json.dumps(obs))]
        out.append((msgs, tools))
    return out


async def raw_calls(base_url: str, reqs: list, concurrency: int) -> dict[str, float]:
    model = get_model("openai/balanced", base_url=base_url, max_connections=concurrency)
    config = GenerateConfig(seed=0, timeout_s=30)
    latencies: list[float] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(reqs)):
        queue.put_nowait(i)
    errors = 0

    async def worker() -> None:
        nonlocal errors
        while not queue.empty():
            msgs, tools = reqs[queue.get_nowait()]
            t0 = time.perf_counter()
            try:
                await model.generate(msgs, tools, config)
            except Exception:
                errors += 1
            latencies.append(time.perf_counter() - t0)

    # warm-up: open the connections
    await asyncio.gather(*(model.generate(*reqs[i], config) for i in range(concurrency)))
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    lat = sorted(latencies)
    return {"calls": len(reqs), "errors": errors, "wall_s": wall,
            "calls_per_s": len(reqs) / wall, "p50_ms": 1000 * statistics.median(lat),
            "p95_ms": 1000 * lat[int(0.95 * (len(lat) - 1))],
            "client_cpu_ms_per_call": 1000 * cpu / len(reqs)}


def run_units_bench(base_url: str, n: int, concurrency: int) -> dict[str, float]:
    """Full units through the runner (agent loop, tools, storage) over HTTP."""
    from agentprop.runner import plan_units, run_units
    from agentprop.store import Workspace

    suite = load_suite()
    tasks = suite.select(split="test")[:n]
    units = plan_units("bench-http", ["openai/balanced"], tasks, ["baseline"])
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws")
        t0 = time.perf_counter()
        s = asyncio.run(run_units(units, workspace=ws, suite=suite, concurrency=concurrency,
                                  model_options={"base_url": base_url,
                                                 "max_connections": concurrency},
                                  progress=False, use_cache=False))
        wall = time.perf_counter() - t0
        ws.close()
    return {"units": len(units), "completed": s.completed, "errors": s.errors,
            "model_calls": s.model_calls, "wall_s": wall,
            "calls_per_s": s.model_calls / wall,
            "efficiency": s.model_calls / wall / (concurrency / 0.2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--latency-ms", type=float, default=200.0)
    ap.add_argument("--units", type=int, default=0)
    args = ap.parse_args()

    reqs = requests(args.calls)
    port = free_port()
    proc = start_server(port, args.latency_ms)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        res = asyncio.run(raw_calls(base_url, reqs, args.concurrency))
        ideal = args.concurrency / (args.latency_ms / 1000.0)
        res["ideal_calls_per_s"] = ideal
        res["efficiency"] = res["calls_per_s"] / ideal
        print(json.dumps({k: round(v, 3) for k, v in res.items()}, indent=2))
        if args.units:
            res = run_units_bench(base_url, args.units, args.concurrency)
            print(json.dumps({k: round(v, 3) for k, v in res.items()}, indent=2))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
