"""The label planner's arithmetic (analysis/_labelplan.py) against the estimator it plans
for, and the cells of a rate's traces (labels/_plan.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agentprop.analysis._labelplan import Cell, neyman_split, pilot_cell, plan
from agentprop.analysis._ppi import PPIData, ppi_estimate
from agentprop.labels._plan import PlanError, canonical_rate, plan_labels, rate_cells
from tests.analysis.test_corrected import _stages

# the paper's pooled r_23: 158 S2 traces, 123 judged wrong by its ensemble; its labels say
# P(human correct | ensemble correct) = 0.76 and P(human correct | ensemble wrong) = 0.25
PAPER = [Cell("wrong", 123, 0, 0.75, "paper"), Cell("right", 35, 0, 0.24, "paper")]


def test_the_papers_r23_worked_example() -> None:
    """docs/labels.md: ±0.05 is out of reach of 158 traces (all labelled: ±0.075);
    ±0.10 needs 81 labels, 63 where the ensemble said wrong and 18 where it said right."""
    p = plan("pooled", PAPER, 0.05)
    assert not p.reachable and p.need == 158
    assert p.expected_half_width == pytest.approx(0.0750, abs=5e-4)
    p = plan("pooled", PAPER, 0.10)
    assert p.reachable and [c.need for c in p.cells] == [63, 18]
    assert p.expected_half_width <= 0.10
    # the worst case (no pilot, μ = ½) needs more
    assert plan("pooled", [Cell("wrong", 123), Cell("right", 35)], 0.10).need == 97


def test_the_plan_gives_the_half_width_the_estimator_reports() -> None:
    """Labels drawn as planned, estimated by stratified PPI++: the mean half-width of the
    interval is the planned one (within 5 %)."""
    rng = np.random.default_rng(0)
    cells = [Cell("yes", 400, 0, 0.8), Cell("no", 200, 0, 0.15)]
    p = plan("g", cells, 0.06)
    halves = []
    for _ in range(300):
        y_all = np.concatenate([rng.random(400) < 0.8, rng.random(200) < 0.15]).astype(float)
        f_all = np.repeat([1.0, 0.0], [400, 200])
        cell_of = np.repeat(["yes", "no"], [400, 200])
        pick = np.concatenate([rng.choice(400, p.cells[0].need, replace=False),
                               400 + rng.choice(200, p.cells[1].need, replace=False)])
        lab = np.zeros(600, bool)
        lab[pick] = True
        r = ppi_estimate(PPIData.of(y_all[lab], f_all[lab], f_all[~lab], cells=cell_of[lab],
                                    cells_u=cell_of[~lab]))
        halves.append((r.hi - r.lo) / 2)
    assert np.mean(halves) == pytest.approx(p.expected_half_width, rel=0.05)
    assert p.expected_half_width <= 0.06


def test_neyman_split_keeps_floors_and_caps() -> None:
    cells = [Cell("a", 5, 0, 0.5), Cell("b", 1000, 0, 0.5), Cell("c", 50, 30, 0.1),
             Cell("d", 0)]
    need = neyman_split(cells, 100)
    assert need[0] <= 5 and need[1] <= 1000 and need[2] >= 30 and need[3] == 0
    assert need[1] > need[0]
    assert sum(need) >= 100


def test_pilot_cells_smooth_and_assumptions_are_stated() -> None:
    c = pilot_cell("k", 40, [True, True, True], verdict=True, assume_accuracy=None)
    assert c.rate == pytest.approx(3.5 / 4) and c.sd > 0 and "pilot: 3 of 3" in c.source
    c = pilot_cell("k", 40, [], verdict=False, assume_accuracy=0.9)
    assert c.rate == pytest.approx(0.1) and "right 90%" in c.source
    c = pilot_cell("k", 40, [], verdict=True, assume_accuracy=None)
    assert c.rate == 0.5 and "worst case" in c.source


def test_rates_by_any_of_their_names() -> None:
    assert canonical_rate("R23") == "r_23" and canonical_rate("delta") == "delta_hallucination"
    with pytest.raises(PlanError, match="did you mean"):
        canonical_rate("noticd")


def test_the_arms_cells_and_the_delta_plan() -> None:
    st = _stages(arms=True)
    cells = rate_cells(st, "delta_hallucination")
    assert [c.group for c in cells] == ["m/a|control", "m/a|treatment", "m/b|control",
                                        "m/b|treatment"]
    ids = {t for c in cells for v in c.cells.values() for t in v}
    arm = st.set_index("trace_id")["arm"]
    assert ids and all(arm[t] in ("control", "treatment") for t in ids)
    assert not any(st.set_index("trace_id").loc[list(ids), "abstained"])  # known, not cells
    no_labels = pd.DataFrame(columns=["trace_id", "annotator", "label", "question"])
    delta = plan_labels(st, no_labels, "delta", 0.2)
    assert all(p.half_width == pytest.approx(0.2 / math.sqrt(2)) for p in delta)
