"""Blind labelling: the label app shows nothing that tells the condition or the corruption
(the agent's proposed arguments, the injection, the condition's name, the interceptor's
reason) unless the annotator opts in, and every label records which view it was made in."""

from __future__ import annotations

import csv
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    Label,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)
from agentprop.labels import export_labels, import_labels
from agentprop.store import Workspace
from tests.judges.conftest import WEATHER

# what was executed (Paris) is what the agent saw, and stays; how it came about does not
REVEALING = ("proposed", "London&quot;}", "p2:semantic_wrong", "semantic_wrong", "injected",
             "L1: 1 tool error")


def _injected(tid: str, abstained: bool = False) -> Trace:
    """The agent proposed London; the injection executed Paris; the interceptor abstained."""
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "London"})
    events = [
        ToolCallEvent(step=0, call=call),
        InjectionEvent(step=0, protocol="p2", error_type="semantic_wrong", status="applied",
                       call_id="c1", tool="get_weather", param="city", original="London",
                       injected="Paris"),
        ToolResultEvent(step=0, call_id="c1", name="get_weather",
                        arguments={"city": "Paris"}, observation={"temp_c": 21},
                        counterfactual={"temp_c": 14}),
        FinalEvent(step=1, answer="It is 21 °C.", abstained=abstained,
                   reason="L1: 1 tool error observation(s)" if abstained else None),
    ]
    return Trace(id=tid, run_id="r", model="sim/x", task_id=WEATHER.id, domain="weather",
                 split="test", difficulty="easy", condition="p2:semantic_wrong",
                 arm="treatment" if abstained else "", events=events)


@pytest.fixture
def served(tmp_path: Path, label_app: Any) -> Iterator[tuple[str, Path]]:
    ws = Workspace(tmp_path / "w")
    traces = [_injected("tr-1"), _injected("tr-2", abstained=True)]
    ws.put_traces(traces)
    ws.put_label_sample([{"trace_id": t.id, "position": i, "stratum": "s", "overlap": 1}
                         for i, t in enumerate(traces)])
    ws.close()
    with label_app(tmp_path / "w") as url:
        yield url, tmp_path / "w"


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode())


def _post(url: str, **form: str) -> None:
    data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(url + "/label", data=data, method="POST")
    with urllib.request.urlopen(req, timeout=10):
        pass


def test_the_default_view_is_blind(served: tuple[str, Path]) -> None:
    url, _ = served
    for tid in ("tr-1", "tr-2"):
        page = _get(f"{url}/label?annotator=ada&trace={tid}")
        # what the agent saw stays: the executed call and its observation
        assert "get_weather" in page and "temp_c" in page
        for word in REVEALING:
            assert word not in page, (tid, word)
        assert 'id="unblind"' in page and 'name="view" value="blind"' in page
    assert "(the agent abstained)" in _get(f"{url}/label?annotator=ada&trace=tr-2")


def test_the_full_view_is_an_opt_in_that_shows_the_injection(
        served: tuple[str, Path]) -> None:
    url, _ = served
    page = _get(f"{url}/label?annotator=ada&trace=tr-2&view=full")
    assert "[proposed: {&quot;city&quot;: &quot;London&quot;}]" in page
    assert "injected p2:semantic_wrong: semantic_wrong (applied) on get_weather.city: " \
           "&quot;London&quot; → &quot;Paris&quot;" in page
    assert "L1: 1 tool error" in page
    assert 'id="blind"' in page and 'name="view" value="full"' in page
    # the choice stays on while moving through the items
    page = _get(f"{url}/label?annotator=ada&trace=tr-1&view=full")
    assert "view=full" in page.split('id="next"')[1].split(">")[0]


def test_each_label_records_its_view_and_the_export_says_it(served: tuple[str, Path],
                                                              tmp_path: Path) -> None:
    url, wsp = served
    _post(url, annotator="ada", trace="tr-1", label="incorrect", view="blind")
    _post(url, annotator="ada", trace="tr-2", label="correct", view="full")
    _post(url, annotator="bob", trace="tr-1", label="correct")  # an old form: blind
    with Workspace(wsp) as ws:
        views = {(x.trace_id, x.annotator): x.view for x in ws.labels()}
        assert views == {("tr-1", "ada"): "blind", ("tr-2", "ada"): "full",
                         ("tr-1", "bob"): "blind"}
        out = tmp_path / "labels.csv"
        assert export_labels(ws, out) == 3
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {(r["trace_id"], r["annotator"], r["view"]) for r in rows} == {
        ("tr-1", "ada", "blind"), ("tr-2", "ada", "full"), ("tr-1", "bob", "blind")}
    # the export imports again, views included; a label without a view is "not recorded"
    with Workspace(tmp_path / "again") as ws2:
        ws2.put_traces([_injected("tr-1"), _injected("tr-2", abstained=True)])
        assert import_labels(out, ws2) == 3
        assert {x.view for x in ws2.labels()} == {"blind", "full"}
        ws2.put_labels([Label(trace_id="tr-2", annotator="cy", label="correct")])
        assert {x.annotator: x.view for x in ws2.labels()}["cy"] is None


def test_a_workspace_made_before_views_gains_the_column(tmp_path: Path) -> None:
    """Labels written before the `view` column existed read as not recorded."""
    import sqlite3

    Workspace(tmp_path / "old").close()
    db = tmp_path / "old" / "agentprop.sqlite"
    con = sqlite3.connect(db)
    with con:
        con.execute("DROP TABLE labels")
        con.execute("CREATE TABLE labels (trace_id TEXT NOT NULL, annotator TEXT NOT NULL, "
                    "label TEXT NOT NULL, time TEXT, note TEXT NOT NULL DEFAULT '', "
                    "PRIMARY KEY (trace_id, annotator))")
        con.execute("INSERT INTO labels VALUES ('t', 'ada', 'correct', "
                    "'2026-01-01T00:00:00+00:00', '')")
    con.close()
    with Workspace(tmp_path / "old") as ws:
        assert [x.view for x in ws.labels()] == [None]
        ws.put_labels([Label(trace_id="u", annotator="ada", label="unsure", view="blind")])
        assert {x.trace_id: x.view for x in ws.labels()} == {"t": None, "u": "blind"}
