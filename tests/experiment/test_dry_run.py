"""`experiment run configs/paper.yaml --dry-run`: the paper's plan, costed, with no network."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "configs" / "paper.yaml"
MAIN = ["gpt-4o-mini", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-3.5-turbo", "gemini-2.0-flash",
        "deepseek-chat"]


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every outgoing connection attempt is recorded and refused."""
    attempts: list[object] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    # if anything did try, it would go to a closed loopback port, never the internet
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    for key in ("OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY",
                "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(key, "test-key-not-real")
    return attempts




def _dry_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Any:
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(
        app, ["experiment", "run", str(PAPER), "--dry-run", *extra], catch_exceptions=False
    )


def test_paper_dry_run_plan_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: list[object]
) -> None:
    ws = tmp_path / "ws"
    res = _dry_run(tmp_path, monkeypatch, "--json", "--workspace", str(ws))
    assert res.exit_code == 0, res.stderr
    assert no_network == []
    # no workspace: neither the one given nor the file's default (agentprop-runs/paper)
    assert list(tmp_path.iterdir()) == []

    plan = json.loads(res.stdout)
    steps = {s["name"]: s for s in plan["steps"]}
    for s in plan["steps"]:
        assert {"name", "kind", "n_units", "model_calls", "input_tokens", "output_tokens",
                "cost_usd"} <= set(s)
    # the paper's design
    p2 = steps["p2-main"]
    assert p2["n_units"] == 6 * 200 * 4 == 4800
    assert len(p2["models"]) == 6 and all(any(m.endswith(x) for x in MAIN) for m in p2["models"])
    assert steps["p2-frontier"]["n_units"] == 3 * 50 == 150
    assert steps["baseline"]["n_units"] == 6 * 200
    assert steps["interceptor-evaluate"]["n_units"] == 2 * 600 * 2 == 2400
    assert steps["interceptor-evaluate"]["kind"] == "evaluate"
    assert sorted(steps["interceptor-evaluate"]["models"]) == [
        "google/gemini-2.0-flash", "openai/gpt-4o-mini"]
    assert steps["retail"]["n_units"] == 3 * 300 * 2 == 1800
    assert steps["interceptor-sweep-traces"]["n_units"] > 0

    agent = [s for s in plan["steps"] if s["kind"] in ("run", "evaluate")]
    for s in agent:
        # real models: every unit makes at least one call and costs money
        assert s["model_calls"] >= s["n_units"] > 0
        assert s["input_tokens"] > 0 and s["output_tokens"] > 0
        assert s["cost_usd"] > 0, s["name"]
    ensemble = [s for s in plan["steps"] if s["name"].startswith("judge ensemble:")]
    assert len(ensemble) == 1
    n_agent = sum(s["n_units"] for s in agent)
    assert ensemble[0]["model_calls"] == 3 * n_agent and ensemble[0]["cost_usd"] > 0
    rule_judges = [s for s in plan["steps"] if s["name"] in ("judge heuristic", "judge facts")]
    assert len(rule_judges) == 2
    assert all(s["model_calls"] == 0 and s["cost_usd"] == 0 for s in rule_judges)

    totals = plan["totals"]
    for k in ("model_calls", "input_tokens", "output_tokens"):
        assert totals[k] == sum(s[k] for s in plan["steps"])
    assert totals["cost_usd"] == pytest.approx(sum(s["cost_usd"] for s in plan["steps"]), abs=1e-3)
    assert totals["cost_usd"] > 0
    episodes = sum(s["n_units"] for s in plan["steps"] if s["kind"] in ("run", "evaluate"))
    assert totals["units"] == episodes == n_agent


def test_paper_dry_run_table_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: list[object]
) -> None:
    res = _dry_run(tmp_path, monkeypatch)
    assert res.exit_code == 0, res.stderr
    assert no_network == []
    assert list(tmp_path.iterdir()) == []
    assert "p2-main" in res.stdout and "total" in res.stdout and "4,800" in res.stdout


def test_demo_config_dry_run_costs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: list[object]
) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(
        app, ["experiment", "run", str(ROOT / "configs" / "demo.yaml"), "--dry-run", "--json"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.stderr
    plan = json.loads(res.stdout)
    assert plan["totals"]["cost_usd"] == 0 and plan["totals"]["model_calls"] > 0
    assert no_network == [] and list(tmp_path.iterdir()) == []


def test_the_guard_sees_a_real_client(no_network: list[object]) -> None:
    """The no-network fixture would notice an HTTP client (so the tests above can fail)."""
    import httpx

    with pytest.raises(httpx.HTTPError):
        httpx.get("http://127.0.0.1:9/v1/models", timeout=1)
    assert no_network
