"""The tool-calling integrity preflight (runner/_probe.py): every serve-sim failure mode
is caught, a dead server is a dead server, strict refuses before anything is written,
warn records the result in the run manifest; and against the real llama_cpp.server."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from typer.testing import CliRunner

from agentprop.analysis.stages import stage_table
from agentprop.cli import app
from agentprop.core import Task
from agentprop.domains import get_domain
from agentprop.models import GenerateConfig, get_model
from agentprop.models._openai_format import to_openai_tools
from agentprop.runner import ProbeRefused, probe_model, run_units
from agentprop.runner._probe import probe_targets
from agentprop.sim import SimModel, get_profile
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.store import Workspace
from agentprop.suite import Suite, load_suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite()


def domain_tasks(suite: Suite, domain: str, n: int = 2) -> list[Task]:
    return [t for t in suite.tasks if t.domain == domain][:n]


def openai(url: str, profile: str = "balanced") -> object:
    return get_model(f"openai/{profile}", base_url=url, max_attempts=1, retry_base_s=0.01)


@pytest.mark.parametrize(("quirk", "verdict", "says"), [
    ("drop-tools", "no_calls", "no tool call, text"),
    ("json-content", "leaked", "came back as text"),
    ("empty-reply", "no_calls", "an empty reply"),
])
async def test_the_preflight_catches_each_server_failure(suite, quirk, verdict, says):
    tasks = domain_tasks(suite, "weather")
    with ServerThread(ServerConfig(port=0, quirks=(quirk,)), suite=suite) as srv:
        probe = await probe_model(openai(srv.base_url), tasks, GenerateConfig())
    assert probe.verdict == verdict and probe.tools_passed == 0
    assert says in probe.detail and probe.detail.startswith("weather.")
    assert probe.roundtrip is None and probe.auto_call is None  # stopped at the first check


async def test_a_healthy_server_passes_with_every_tool_of_the_run(suite):
    tasks = [*domain_tasks(suite, "calendar"), *domain_tasks(suite, "retail")]
    offered = {(t.domain, s.name) for t in tasks
               for s in get_domain(t.domain).tool_specs(t.tools)}
    with ServerThread(ServerConfig(port=0), suite=suite) as srv:
        probe = await probe_model(openai(srv.base_url), tasks, GenerateConfig())
        forced = srv.stats["chat_completions"]
    assert probe.verdict == "native" and probe.tools == probe.tools_passed == len(offered)
    assert probe.roundtrip is True and probe.auto_call is True and probe.detail == ""
    assert forced == probe.requests == len(offered) + 2


async def test_a_server_that_defaults_to_none_still_gets_calls_because_auto_is_sent(suite):
    tasks = domain_tasks(suite, "weather", 1)
    with ServerThread(ServerConfig(port=0, quirks=("default-none",)), suite=suite) as srv:
        probe = await probe_model(openai(srv.base_url), tasks, GenerateConfig())
        specs = get_domain("weather").tool_specs(tasks[0].tools)
        old = httpx.post(srv.base_url + "/chat/completions", json={
            "model": "balanced", "tools": to_openai_tools(specs),
            "messages": [{"role": "user", "content": tasks[0].query}]}).json()
    assert probe.verdict == "native" and probe.auto_call is True
    assert not old["choices"][0]["message"].get("tool_calls")  # the quirk, without auto


async def test_simulated_models_pass_quickly(suite):
    tasks = [t for d in ("weather", "calendar", "retail", "medical", "knowledge")
             for t in domain_tasks(suite, d, 3)]
    t0 = time.perf_counter()
    probe = await probe_model(SimModel(get_profile("balanced"), suite=suite), tasks,
                              GenerateConfig())
    assert probe.verdict == "native" and probe.tools == len(probe_targets(tasks)) == 19
    assert time.perf_counter() - t0 < 5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def hang_up_server() -> Iterator[str]:
    """Accepts each connection, reads the request, and closes without answering: a
    server process that dies mid-request."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    stop = threading.Event()

    def serve() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    conn.recv(65536)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(2)
        sock.close()


async def test_a_dead_server_is_reported_as_dead_never_as_a_timeout(suite):
    tasks = domain_tasks(suite, "weather", 1)
    refused = await probe_model(openai(f"http://127.0.0.1:{_free_port()}/v1"), tasks,
                                GenerateConfig())
    assert refused.verdict == "error" and "connection refused" in refused.detail
    with hang_up_server() as url:
        reset = await probe_model(openai(url), tasks, GenerateConfig(timeout_s=20))
    assert reset.verdict == "error" and "connection reset" in reset.detail
    for p in (refused, reset):
        assert "timed out" not in p.detail and "timeout" not in p.detail
        assert not p.reached  # the run stops with this one line (stop_unreachable)


async def test_strict_refuses_before_anything_is_written_and_warn_records(suite, tmp_path):
    from agentprop.runner import plan_units

    tasks = domain_tasks(suite, "weather")
    with ServerThread(ServerConfig(port=0, quirks=("json-content",)), suite=suite) as srv:
        options = {"base_url": srv.base_url, "max_attempts": 1}
        units = plan_units("r1", ["openai/balanced"], [t.id for t in tasks],
                           ["baseline", "p2:semantic_wrong"], [0])
        ws = Workspace(tmp_path / "w", create=True)
        with pytest.raises(ProbeRefused) as ei:
            await run_units(units, workspace=ws, suite=suite, model_options=options,
                            progress=False, probe="strict", use_cache=False)
        assert ei.value.exit_code == 2 and "failed the tool-call check" in str(ei.value)
        assert ws.count_traces() == 0 and ws.runs() == []
        seen = []
        summary = await run_units(units, workspace=ws, suite=suite, model_options=options,
                                  progress=False, probe="warn", on_probe=seen.append,
                                  use_cache=False)
    assert [p.verdict for p in seen] == ["leaked"] == [p.verdict for p in summary.preflight]
    [run] = ws.runs()
    assert [p.verdict for p in run.preflight] == ["leaked"]
    assert run.config["preflight"] == "warn"
    st = stage_table(ws.iter_traces())
    ws.close()
    # every episode's calls came back as text: counted as leaked, never as "no tool call"
    assert st["leaked_call"].all() and st["undelivered_call"].all()
    assert not st["no_tool_call"].any()
    assert set(st.loc[st["condition"] != "baseline", "stopped_at"]) == {"undelivered_call"}
    # `agentprop stages` counts them per model, over every trace
    import json

    res = CliRunner().invoke(app, ["stages", "-w", str(tmp_path / "w"), "--json"])
    per = json.loads(res.stdout)["call_delivery"]["openai/balanced"]
    assert per["n_leaked_call"]["value"] == len(st) == per["n"]["value"]
    assert per["leaked_call"]["value"] == 1.0 and per["no_tool_call"]["value"] == 0.0
    text = CliRunner().invoke(app, ["stages", "-w", str(tmp_path / "w")]).stdout
    assert "leaked into text" in text and "none arrived" in text


def test_the_commands_take_preflight_and_say_one_line_each(suite, tmp_path):
    runner = CliRunner()
    bad = runner.invoke(app, ["run", "-m", "sim/balanced", "-w", str(tmp_path / "x"),
                              "--preflight", "strickt"])
    assert bad.exit_code == 2 and "did you mean 'strict'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    for cmd in (["intercept", "evaluate", "-m", "sim/balanced", "--config",
                 "tau_l1=1,tau_l2=2,l3=on"], ["experiment", "run", "x.yaml"]):
        res = runner.invoke(app, [*cmd, "-w", str(tmp_path / "y"), "--preflight", "of"])
        assert res.exit_code == 2 and "did you mean 'off'" in res.stderr, res.output
    with ServerThread(ServerConfig(port=0, quirks=("empty-reply",)), suite=suite) as srv:
        ws = tmp_path / "w"
        res = runner.invoke(app, ["run", "-m", "openai/balanced", "--base-url",
                                  srv.base_url, "-w", str(ws), "-n", "2", "-d", "weather",
                                  "--preflight", "strict"])
    # the preflight line wraps at 80 columns; the error is the last line of its own
    probe, _, error = res.stderr.strip().rpartition("\nerror: ")
    assert res.exit_code == 2, res.output
    assert " ".join(probe.split()).startswith("preflight openai/balanced: no tool calls")
    assert error.startswith("--preflight strict: openai/balanced")
    assert not (ws / "agentprop.sqlite").exists() or Workspace(ws).count_traces() == 0


# -- the real server ------------------------------------------------------------------

async def test_preflight_against_llama_cpp_server(llama_server, suite):
    """Forced calls are grammar-constrained there: always structured calls. Whether the
    values validate is the model's; the round trip must be answered."""
    # two of the weather tools (no `pattern`, which kills this server: next test), so the
    # probe is four requests on a slow machine
    task = next(t for t in domain_tasks(suite, "weather", 40)
                if t.gold_plan[0].name == "get_weather")
    task = task.model_copy(update={"tools": ["get_weather", "get_forecast"]})
    m = get_model("openai/smollm2", base_url=llama_server, max_attempts=1)
    probe = await probe_model(m, [task], GenerateConfig(timeout_s=300, max_tokens=64))
    assert probe.verdict in ("native", "invalid_arguments"), probe.detail
    assert probe.requests >= 1
    if probe.verdict == "native":
        assert probe.tools_passed == probe.tools == 2 and probe.requests == 4
        assert probe.roundtrip is True and probe.auto_call is not None


async def test_a_server_killed_by_a_tool_schema_is_reported_dead(fresh_llama_server, suite):
    """A JSON Schema `pattern` with \\d crashes llama-cpp-python's grammar builder and the
    process dies: the preflight names the tool and says the server is gone."""
    url, proc = fresh_llama_server
    task = next(t for t in domain_tasks(suite, "calendar", 40) if "create_event" in t.tools)
    m = get_model("openai/smollm2", base_url=url, max_attempts=1)
    probe = await probe_model(m, [task], GenerateConfig(timeout_s=300))
    await asyncio.sleep(1)
    if proc.poll() is None:
        pytest.skip("this llama-cpp-python survives a `pattern`: nothing to report")
    assert probe.verdict == "error"
    assert "refused" in probe.detail or "reset" in probe.detail
    assert "timed out" not in probe.detail and probe.detail.startswith("calendar.")


async def test_a_resumed_run_gets_the_latest_preflight_in_its_manifest(suite, tmp_path):
    from agentprop.runner import plan_units

    tasks = domain_tasks(suite, "retail", 2)
    ws = Workspace(tmp_path / "w", create=True)
    first = plan_units("r1", ["sim/balanced"], [tasks[0].id], ["baseline"], [0])
    await run_units(first, workspace=ws, suite=suite, progress=False, probe="off")
    assert ws.get_run("r1").preflight == []  # type: ignore[union-attr]
    both = plan_units("r1", ["sim/balanced"], [t.id for t in tasks], ["baseline"], [0])
    await run_units(both, workspace=ws, suite=suite, progress=False, probe="warn")
    [probe] = ws.get_run("r1").preflight  # type: ignore[union-attr]
    assert probe.model == "sim/balanced" and probe.verdict == "native"
    assert ws.count_traces() == 2
    ws.close()
