"""The dry-run plan per model: `--json` rows, and the table in 80 non-tty columns names
every model and step in full."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "configs" / "paper.yaml"
PAPER_MODELS = ["openai/gpt-4o-mini", "openai/gpt-4.1-mini", "openai/gpt-4.1-nano",
                "openai/gpt-3.5-turbo", "google/gemini-2.0-flash",
                "openrouter/deepseek/deepseek-chat", "openai/gpt-4o", "openai/o3-mini",
                "google/gemini-2.5-flash"]


@pytest.fixture(scope="module")
def plan_json() -> dict:
    result = CliRunner().invoke(app, ["experiment", "run", str(PAPER), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_rows_per_step_and_model_add_up(plan_json: dict) -> None:
    rows, steps = plan_json["rows"], {s["name"]: s for s in plan_json["steps"]}
    assert {r["model"] for r in rows if r["model"]} == set(PAPER_MODELS)
    for name, step in steps.items():
        mine = [r for r in rows if r["step"] == name]
        assert mine, name
        for key in ("model_calls", "input_tokens", "output_tokens"):
            assert sum(r[key] for r in mine) == step[key], (name, key)
        assert sum(r["cost_usd"] for r in mine) == pytest.approx(step["cost_usd"], abs=1e-3)
    p2 = [r for r in rows if r["step"] == "p2-main"]
    assert [r["model"] for r in p2] == PAPER_MODELS[:6]
    assert all(r["units"] == 800 and r["cost_usd"] > 0 for r in p2)  # 200 tasks × 4 types
    judge = [r for r in rows if r["step"].startswith("judge ensemble")]
    assert [r["model"] for r in judge] == ["openai/gpt-4o", "google/gemini-2.5-flash",
                                           "openai/gpt-4o-mini"]
    totals = {r["model"]: r for r in plan_json["model_totals"]}
    assert set(totals) == set(PAPER_MODELS)
    assert sum(r["cost_usd"] for r in totals.values()) == pytest.approx(
        plan_json["totals"]["cost_usd"], abs=1e-2)
    assert totals["openai/o3-mini"]["units"] == 50


def test_table_fits_80_columns_and_cuts_no_name(plan_json: dict) -> None:
    # a real non-tty process: rich falls back to 80 columns
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-c", "from agentprop.cli import main; main()",
                           "experiment", "run", str(PAPER), "--dry-run"],
                          capture_output=True, text=True, env=env, check=True)
    lines = done.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    assert "…" not in done.stdout
    flat = " ".join(ln.strip() for ln in lines)
    for model in PAPER_MODELS:
        assert model in done.stdout, model
    for step in plan_json["steps"]:
        words = step["name"].replace(",", " ").replace(":", " ").split()
        assert all(w in flat for w in words), step["name"]
    assert f"{plan_json['totals']['cost_usd']:,.2f}" in done.stdout
