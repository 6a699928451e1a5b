"""`agentprop models list` and `agentprop serve-sim` from the command line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.sim import PROFILES


def test_models_list_json():
    res = CliRunner().invoke(app, ["models", "list", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {"openai", "openrouter", "anthropic", "google", "sim"} <= {
        p["name"] for p in data["providers"]}
    profiles = {p["id"]: p for p in data["sim_profiles"]}
    assert set(profiles) == {f"sim/{n}" for n in PROFILES}
    tp = profiles["sim/propagator"]
    assert tp["p_notice"] == PROFILES["propagator"].p_notice
    assert tp["true_rates"]["r_23"] == PROFILES["propagator"].true_rates()["r_23"]


def test_models_list_table():
    res = CliRunner().invoke(app, ["models", "list"])
    assert res.exit_code == 0 and "sim/" in res.stdout


def test_serve_sim_bad_input_is_one_line():
    for args in (["--fail-rate", "2"], ["--faults", "429,explode"], ["--latency-ms", "-1"]):
        res = CliRunner().invoke(app, ["serve-sim", *args])
        assert res.exit_code == 2
        assert "error:" in res.output and "Traceback" not in res.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_sim_subprocess(tmp_path, fake_suite):
    suite_file = tmp_path / "suite.jsonl"
    fake_suite.to_jsonl(suite_file)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-sim",
         "--port", str(port), "--suite", str(suite_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60  # a loaded machine starts Python slowly
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/health", timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        models = httpx.get(base + "/v1/models").json()
        assert {m["id"] for m in models["data"]} == set(PROFILES)
        task = fake_suite.tasks[0]
        r = httpx.post(base + "/v1/chat/completions", json={
            "model": "oracle", "messages": [{"role": "user", "content": task.query}],
            "tools": [{"type": "function", "function": {"name": "get_weather",
                                                        "parameters": {"type": "object"}}}]})
        call = r.json()["choices"][0]["message"]["tool_calls"][0]
        assert json.loads(call["function"]["arguments"]) == task.gold_plan[0].arguments
        assert httpx.get(base + "/stats").json()["chat_completions"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # never leave a server behind
            proc.kill()
            proc.wait()
            raise
