"""What the tool-calling preflight costs (issue 26 item 4): wall time and requests per
model, in-process (sim), over HTTP (serve-sim), and against a real llama_cpp.server.

    python bench/bench_probe.py                       # sim and serve-sim
    python bench/bench_probe.py --llama http://127.0.0.1:8080/v1

The tasks: three of each of the five domains (19 tools) for the simulated endpoints; for
llama_cpp.server, one weather task with its five tools (no JSON Schema `pattern`, which
kills that server) and one with two of them.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from agentprop.models import GenerateConfig, get_model
from agentprop.runner import probe_line, probe_model
from agentprop.sim import SimModel, get_profile
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.suite import load_suite

DOMAINS = ("weather", "calendar", "retail", "medical", "knowledge")


async def timed(model: object, tasks: list, config: GenerateConfig, repeat: int) -> None:
    walls, probe = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        probe = await probe_model(model, tasks, config)  # type: ignore[arg-type]
        walls.append(time.perf_counter() - t0)
    assert probe is not None
    print(f"  {probe_line(probe)}")
    print(f"  median {statistics.median(walls) * 1000:.1f} ms over {repeat} probes, "
          f"{probe.requests} requests each")


async def main() -> None:
    suite = load_suite()
    tasks = [t for d in DOMAINS for t in [x for x in suite.tasks if x.domain == d][:3]]
    print("in-process sim/balanced, 19 tools:")
    await timed(SimModel(get_profile("balanced"), suite=suite), tasks, GenerateConfig(), 5)
    with ServerThread(ServerConfig(port=0), suite=suite) as srv:
        print("openai/balanced over HTTP against serve-sim, 19 tools:")
        await timed(get_model("openai/balanced", base_url=srv.base_url), tasks,
                    GenerateConfig(), 5)
    if "--llama" in sys.argv:
        url = sys.argv[sys.argv.index("--llama") + 1]
        weather = next(t for t in suite.tasks if t.domain == "weather"
                       and t.gold_plan[0].name == "get_weather" and len(t.tools) == 5)
        m = get_model("openai/smollm2", base_url=url, max_attempts=1)
        cfg = GenerateConfig(timeout_s=600, max_tokens=64)
        print("llama_cpp.server (SmolLM2-135M), weather, 2 tools:")
        two = weather.model_copy(update={"tools": ["get_weather", "get_forecast"]})
        await timed(m, [two], cfg, 1)
        print("llama_cpp.server (SmolLM2-135M), weather, 5 tools:")
        await timed(m, [weather], cfg, 1)


if __name__ == "__main__":
    asyncio.run(main())
