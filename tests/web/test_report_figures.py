"""Every figure of the report, looked at in a real Chromium (Debian's; no download).

Two reports (a small simulated study with an interceptor evaluation, and the paper's
imported release, whose stage rates are measured rather than constant) are rendered;
the page is screenshot whole with every figure loaded, and each figure's SVG is opened
on its own: the bounding box of every text (tick labels, titles, legends, value marks)
must lie inside the figure and overlap no other. Matplotlib writes each text as a group
`text_N` whose first child is a comment holding the text, so the boxes are what is drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app

RELEASE = Path(__file__).resolve().parents[1] / "fixtures" / "agenthallu-release"
STUDY = """\
name: figures
models:
  - id: sim/tool-averse
  - id: sim/propagator
  - id: sim/self-correcting
  - id: sim/balanced
runs:
  - name: core
    models: [sim/tool-averse, sim/propagator, sim/self-correcting, sim/balanced]
    domains: [calendar, weather, medical]
    n: 9
    conditions: [baseline, p2:all]
judges: [heuristic, facts]
primary_judge: facts
sweep:
  models: [sim/propagator]
  split: val
  n: 9
  conditions: [p2:semantic_wrong, p2:type_mismatch]
evaluate:
  models: [sim/propagator, sim/tool-averse, sim/self-correcting, sim/balanced]
  n: 9
  conditions: [p2:semantic_wrong, p2:type_mismatch]
  config: tau_l1=1,tau_l2=2,l3=on
"""

BOXES = """() => {
  const root = document.documentElement.getBoundingClientRect();
  const out = [];
  for (const g of document.querySelectorAll('g[id^="text_"]')) {
    const r = g.getBoundingClientRect();
    let label = '';
    for (const n of g.childNodes) if (n.nodeType === 8) { label = n.textContent.trim(); break; }
    if (r.width > 0 && r.height > 0)
      out.push({label, x: r.left, y: r.top, w: r.width, h: r.height});
  }
  return {w: root.width, h: root.height, boxes: out};
}"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("figures")
    runner = CliRunner()
    (d / "study.yaml").write_text(STUDY, encoding="utf-8")
    res = runner.invoke(app, ["experiment", "run", str(d / "study.yaml"), "-w",
                              str(d / "sim"), "--json", "--resamples", "200"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["import", "agenthallu", str(RELEASE), "-w", str(d / "paper")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", "-w", str(d / "paper"), "--resamples", "200"])
    assert res.exit_code == 0, res.output
    return [d / "sim" / "report", d / "paper" / "report"]


def overlaps(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes share more than half a pixel each way."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if dx > 0.5 and dy > 0.5:
                out.append((a["label"], b["label"]))
    return out


def test_the_overlap_check_finds_overlapping_labels() -> None:
    a = {"label": "sim/propagator|p2:semantic_wrong", "x": 0, "y": 0, "w": 120, "h": 10}
    b = {"label": "sim/propagator|p2:type_mismatch", "x": 100, "y": 0, "w": 120, "h": 10}
    c = {"label": "0.2", "x": 300, "y": 0, "w": 20, "h": 10}
    assert overlaps([a, b, c]) == [(a["label"], b["label"])]


@pytest.mark.browser
def test_every_figure_is_legible(reports: list[Path], tmp_path: Path,
                                 chromium: tuple[str, list[str]]) -> None:
    from playwright.sync_api import sync_playwright

    svgs = [f for r in reports for f in sorted((r / "figures").glob("*.svg"))]
    names = {f.stem for f in svgs}
    # the figures a study and the release draw between them: every kind is looked at
    assert {"stopping_funnel", "interceptor_effect", "judge_kappa", "confusion_matrix",
            "rejection_vs_recovery", "stage_reach"} <= names, names
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium[0], args=chromium[1],
                                    headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for report in reports:  # the page whole, every figure loaded
                page.goto((report / "index.html").as_uri())
                shot = tmp_path / f"{report.parent.name}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
                widths = page.eval_on_selector_all(
                    "figure img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
                assert widths and all(w > 0 for w in widths), widths
            for svg in svgs:
                page.goto(svg.as_uri())
                drawn = page.evaluate(BOXES)
                boxes = drawn["boxes"]
                assert boxes, svg.name
                for a, b in overlaps(boxes):
                    problems.append(f"{svg.parent.parent.parent.name}/{svg.name}: "
                                    f"{a!r} overlaps {b!r}")
                for bx in boxes:
                    if bx["x"] < -1 or bx["y"] < -1 or bx["x"] + bx["w"] > drawn["w"] + 1 \
                            or bx["y"] + bx["h"] > drawn["h"] + 1:
                        problems.append(f"{svg.name}: {bx['label']!r} cut by the edge")
                if svg.stem == "interceptor_effect":
                    _zero_is_drawn(svg, [b["label"] for b in boxes])
        finally:
            browser.close()
    assert problems == []


def _zero_is_drawn(svg: Path, labels: list[str]) -> None:
    """A hallucination rate of exactly 0 has its "0" mark (a zero-height bar is drawn)."""
    numbers = json.loads((svg.parent.parent / "numbers.json").read_text(encoding="utf-8"))
    zero = any(v["value"] == 0 for k, v in numbers.items()
               if k.startswith(("interceptor.hallucination_control",
                                "interceptor.hallucination_treatment")))
    assert ("0" in labels) == zero, (zero, labels)
