"""A rate that cannot be observed is undefined with its reason, never 0: `noticed` reads
the agent's model turns, which an external agent run without the gateway does not record.
`stages`, `analyze --json` (numbers.json) and the report all say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentprop.analysis.noticing import UNOBSERVABLE
from tests.hostile._helpers import invoke

AGENTS = str(Path(__file__).with_name("_agents.py"))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("unobservable") / "w"
    result = invoke("run", "--agent", f"{AGENTS}:gold", "-w", str(ws), "-n", "6", "-d",
                    "weather", "-c", "baseline", "-c", "p2:semantic_wrong", "--json")
    assert result.exit_code == 0, result.output
    assert invoke("judge", "-w", str(ws), "-j", "facts", "--json").exit_code == 0
    return ws


def test_stages_say_noticed_is_not_observable(workspace: Path) -> None:
    result = invoke("stages", "-w", str(workspace), "--json")
    (group,) = json.loads(result.stdout)["groups"]
    assert group["n_S2"] > 0 and group["corrected"] is not None  # what calls show is there
    assert group["noticed"] is None and group["noticed_n"] == 0
    assert group["noticed_note"] == UNOBSERVABLE
    text = " ".join(invoke("stages", "-w", str(workspace)).stdout.split())
    assert f"noticed: undefined, {UNOBSERVABLE}" in text


def test_numbers_and_the_report_say_it_too(workspace: Path) -> None:
    numbers = json.loads(invoke("analyze", "-w", str(workspace), "--json").stdout)
    for name in ("propagation.noticed", "propagation.noticed_false_alarm",
                 "stopping.propagated", "stopping.noticed_recovered"):
        assert numbers[name]["value"] is None, name
        assert numbers[name]["note"] == UNOBSERVABLE, name
    assert numbers["propagation.noticed"]["n"] == 0
    assert numbers["stopping.propagated"]["n"] == numbers["propagation.n_S2"]["value"]
    assert invoke("report", "-w", str(workspace)).exit_code == 0
    page = (workspace / "report" / "index.html").read_text()
    assert "Undefined: noticed, noticed_requery" in page and UNOBSERVABLE in page
    stored = json.loads((workspace / "report" / "numbers.json").read_text())
    assert stored["propagation.noticed"]["note"] == UNOBSERVABLE
