"""Benchmark of a real local model (issue 26): llama.cpp speed, seconds per episode, peak RSS,
the HTTP cost of serving the same model (serve-local: llama-cpp-python's server), and
agentprop's own overhead per episode as a share of model time (goal: under 1 %).

    python bench/bench_local.py [--episodes 6] [--threads N] [--no-server]

Episodes: weather tasks under baseline, 3 model calls then a forced answer, one at a time
(the demo's settings). Overhead = episode wall time − time inside the model's generate
calls, over the model time. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _llama_speed(threads: int) -> dict[str, float]:
    """Prompt and generation tokens/s of the bare model (a fresh context each time)."""
    from llama_cpp import Llama

    from agentprop.models._local import PACKAGED

    llm = Llama(str(PACKAGED["smollm2-135m"].path()), n_ctx=4096, n_threads=threads,
                n_threads_batch=threads, verbose=False, seed=0)
    prompt = ("<|im_start|>system\n" + "You answer with the tools provided. " * 120
              + "<|im_end|>\n<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
              "<|im_start|>assistant\n")
    tokens = llm.tokenize(prompt.encode(), special=True)
    best_p, best_g = 0.0, 0.0
    for _ in range(2):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(tokens)
        best_p = max(best_p, len(tokens) / (time.perf_counter() - t0))
        llm.reset()
        llm.eval(tokens)
        t0 = time.perf_counter()
        out = llm.create_completion(prompt=prompt, max_tokens=96, temperature=0,
                                    stop=["<|never|>"])
        n = out["usage"]["completion_tokens"]
        best_g = max(best_g, n / (time.perf_counter() - t0))
    return {"prompt_tokens_per_s": round(best_p, 1), "gen_tokens_per_s": round(best_g, 1),
            "prompt_tokens": len(tokens)}


class _Timed:
    """Wraps a Model and sums the wall time spent inside its generate calls."""

    def __init__(self, model: Any) -> None:
        self.model, self.inside = model, 0.0
        self.id, self.simulated = model.id, model.simulated

    async def generate(self, *a: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return await self.model.generate(*a)
        finally:
            self.inside += time.perf_counter() - t0

    def open(self, concurrency: int | None = None) -> None:
        opener = getattr(self.model, "open", None)
        if opener:
            opener(concurrency)

    async def aclose(self) -> None:
        closer = getattr(self.model, "aclose", None)
        if closer:
            await closer()


def _episodes(model: Any, model_id: str, n: int) -> dict[str, float]:
    from agentprop.app import RunConfig, plan_run
    from agentprop.models import GenerateConfig
    from agentprop.runner import run_units
    from agentprop.store import Workspace
    from agentprop.suite import load_suite

    suite = load_suite()
    cfg = RunConfig(models=(model_id,), domains=("weather",), split="test", n=n,
                    run_id="bench-local")
    plan = plan_run(suite, cfg)
    timed = _Timed(model)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws", create=True)
        t0 = time.perf_counter()
        summary = asyncio.run(run_units(
            plan.units, workspace=ws, suite=suite, models={model_id: timed},
            concurrency=1, progress=False, use_cache=False, max_steps=3,
            answer_on_step_limit=True, config=GenerateConfig(timeout_s=900)))
        wall = time.perf_counter() - t0
        calls = summary.model_calls
        ws.close()
    return {"episodes": summary.completed, "model_calls": calls,
            "s_per_episode": round(wall / max(1, summary.completed), 2),
            "model_s": round(timed.inside, 2), "wall_s": round(wall, 2),
            "overhead_share": round((wall - timed.inside) / timed.inside, 4)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=6)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--no-server", action="store_true")
    args = ap.parse_args()
    from agentprop.models import get_model
    from agentprop.models._local import threads

    n_threads = args.threads or threads()
    load = os.getloadavg()[0]
    out: dict[str, Any] = {"threads": n_threads, "load_before": round(load, 2)}
    out.update(_llama_speed(n_threads))
    model = get_model("local/smollm2-135m", n_threads=n_threads)
    out["in_process"] = _episodes(model, "local/smollm2-135m", args.episodes)
    if not args.no_server:
        port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-local",
             "--port", str(port), "-o", f"n_threads={n_threads}"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.5)
            served = get_model("openai/smollm2-135m", base_url=f"http://127.0.0.1:{port}/v1",
                               max_attempts=1)
            out["server"] = _episodes(served, "local/smollm2-135m", args.episodes)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        ip, sv = out["in_process"], out["server"]
        out["http_cost_s_per_call"] = round(
            (sv["model_s"] - ip["model_s"]) / max(1, sv["model_calls"]), 3)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
