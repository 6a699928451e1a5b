"""Report section: Human calibration factors of the primary judge."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return ctx.calibration.table


SECTION = register(Section(
    name="calibration",
    title="Human calibration factors of the primary judge",
    compute=compute,
    order=80,
    explain=("How often a human agrees with the primary judge, used to calibrate the "
             "propagation rates; the next section corrects every rate measured through an "
             "instrument with these labels, four ways."),
    columns=("p_human_correct_given_judge_correct", "p_human_correct_given_judge_wrong",
             "sensitivity", "specificity", "n_labels"),
    key_columns=("judge",),
))
