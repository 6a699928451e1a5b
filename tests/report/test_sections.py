"""A report section is one module: the module docs/architecture.md shows, imported, puts its
analysis in numbers.json and its table, explanation and figure in the report, with no other
file touched; and every built-in section module registers the section named like the file."""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import pkgutil
import sys
from pathlib import Path

import pytest

from agentprop.analysis import AnalysisInput, Estimate, build_input
from agentprop.core import FinalEvent, ToolCall, ToolCallEvent, ToolResultEvent, Trace, Verdict
from agentprop.report import SECTIONS, Cell, Section, analyze, build_report, report_sections
from agentprop.report._tables import metric_kind

ROOT = Path(__file__).resolve().parents[2]


def _doc_example() -> str:
    """The section module docs/architecture.md shows under "a report section"."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    part = doc.split("### a report section", 1)[1]
    return part.split("```python\n", 1)[1].split("```", 1)[0]


def _trace(model: str, task: str, answer: str) -> Trace:
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    return Trace(id=f"{model}-{task}", run_id="r", model=model, task_id=task,
                 domain="weather", split="test", difficulty="easy", condition="baseline",
                 events=[ToolCallEvent(step=0, call=call),
                         ToolResultEvent(step=0, call_id="c1", name="get_weather",
                                         arguments={"city": "Paris"},
                                         observation={"temp_c": 14}),
                         FinalEvent(step=1, answer=answer)])


def _input() -> AnalysisInput:
    traces = [_trace(m, f"weather_{k:03d}", "x" * (k + len(m))) for m in ("sim/a", "sim/b")
              for k in range(4)]
    return build_input(traces, [Verdict(trace_id=t.id, judge="facts", correct=True)
                                for t in traces])


def test_a_new_section_module_is_in_numbers_tables_figures_and_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report_sections()  # the built-in ones registered first, so the copy below holds them
    monkeypatch.setattr(SECTIONS, "_items", dict(SECTIONS._items))  # undone after the test
    path = tmp_path / "my_section.py"
    path.write_text(_doc_example(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("my_section", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "my_section", module)
    spec.loader.exec_module(module)  # importing the module registers the section

    result = analyze(_input(), n_resamples=20)
    # the test traces are not simulated, so the real-model part comes first
    assert list(result.tables)[:4] == ["real_models", "stopping", "answer_length", "propagation"]
    index = build_report(result, tmp_path / "report")
    out = tmp_path / "report"
    numbers = json.loads((out / "numbers.json").read_text(encoding="utf-8"))
    assert numbers["answer_length.answer_chars[sim/a]"] == {"value": 6.5, "n": 4, "ci": None}
    assert (out / "tables" / "answer_length.md").read_text(encoding="utf-8").startswith(
        "## Answer length per model")
    assert (out / "tables" / "answer_length.csv").exists()
    assert (out / "figures" / "answer_length_bars.png").exists()
    html = index.read_text(encoding="utf-8")
    assert '<h2 id="sec-answer_length">Answer length per model</h2>' in html
    assert '<a href="#sec-answer_length">' in html and "Mean characters per answer." in html
    assert "<th>answer_<wbr>chars</th>" in html and "Answer length per model." in html
    assert html.index('id="sec-answer_length"') < html.index('id="sec-propagation"')


def test_the_new_section_is_gone_once_unregistered() -> None:
    assert "answer_length" not in SECTIONS
    assert "answer_length" not in analyze(_input(), n_resamples=20).tables


def test_each_built_in_module_registers_its_own_section() -> None:
    import agentprop.report.sections as package

    names = [m.name for m in pkgutil.iter_modules(package.__path__)]
    assert len(names) >= 12
    for name in names:
        module = importlib.import_module(f"{package.__name__}.{name}")
        assert module.SECTION.name == name and SECTIONS.get(name) is module.SECTION
    orders = [s.order for s in report_sections()]
    assert len(set(orders)) == len(orders)  # the reading order is never a tie


def test_cells_are_typed_and_read_as_their_kind() -> None:
    assert str(Cell(Estimate(0.5, 10, 0.4, 0.6))) == "0.500 [0.400, 0.600] (n=10)"
    assert str(Cell(Estimate(math.nan, 0))) == "undefined (n=0)"
    assert str(Cell(Estimate(12.0, 0), "count")) == "12"
    assert str(Cell(Estimate(math.nan, 0), "count")) == "—"
    assert str(Cell(Estimate(0.0004, 30), "p_value")) == "4.0e-04 (n=30)"
    own = Section(name="x", title="X", compute=lambda ctx: None, order=999,
                  counts=("n_calls",), p_values=("perm_p",))
    assert [metric_kind(m, own) for m in ("n_calls", "perm_p", "n", "rate")] == \
        ["count", "p_value", "count", "estimate"]
    assert metric_kind("n_calls") == "estimate"  # a section's own counts are its own
