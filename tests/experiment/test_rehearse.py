"""`experiment run configs/paper.yaml --rehearse --scale`: the whole study through every
provider's SDK against a local serve-sim, offline, marked as a rehearsal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.experiment import load_config
from agentprop.experiment._rehearse import point_at, scale_config
from agentprop.store import Workspace
from agentprop.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "configs" / "paper.yaml"


def test_paper_rehearsal_runs_offline_and_says_so(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY",
                "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(key, raising=False)  # no key needed: everything is loopback
    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["experiment", "run", str(PAPER), "--rehearse",
                                      "--scale", "0.002", "--resamples", "20", "-w", str(ws),
                                      "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["rehearsal"] is True and out["errors"] == 0 and out["completed"] > 0
    html = Path(out["report"]).read_text(encoding="utf-8")
    body = html.split("<body>", 1)[1]
    first = re.sub(r"<[^>]+>", "", body.split("</p>", 1)[0]).strip()
    assert first.startswith("REHEARSAL — not results")
    with Workspace(ws, create=False) as w:
        assert w.get_meta("rehearsal")["scale"] == 0.002
        models = {r["model"] for r in w.trace_rows()}
        judges = set(w.judges())
    cfg = load_config(PAPER)
    assert models == {m.id for m in cfg.models}  # the real names, each through its SDK
    assert cfg.primary_judge in judges  # the LLM ensemble judged, over HTTP too


def test_scale_and_provider_urls() -> None:
    cfg = load_config(PAPER)
    suite = load_suite()
    small = scale_config(cfg, suite, 0.05)
    assert [b.n for b in small.runs] == [10, 3, 10, 5, 15]  # knowledge: 5 % of its 100
    assert small.evaluate is not None and small.evaluate.n == 30
    assert small.labels is not None and small.labels.n == 5
    cfg.models.append(cfg.models[0].model_copy(update={"id": "anthropic/claude-3-haiku"}))
    local = point_at(cfg, "http://127.0.0.1:1/v1", "http://127.0.0.1:1")
    urls = {m.id.split("/")[0]: m.base_url for m in local.models}
    assert urls == {"openai": "http://127.0.0.1:1/v1", "openrouter": "http://127.0.0.1:1/v1",
                    "google": "http://127.0.0.1:1", "anthropic": "http://127.0.0.1:1"}
