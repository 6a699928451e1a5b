"""Report section: every rate measured through an instrument, corrected four ways."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return ctx.corrected


SECTION = register(Section(
    name="corrected_rates",
    title="Calibrated rates: instrument only, the paper's correction, Rogan–Gladen, PPI++",
    compute=compute,
    order=81,  # right after the calibration factors
    explain=(
        "Each rate measured through an imperfect instrument (the primary judge for S3 and "
        "the interceptor arms, the noticed detector, the fabricated rule), four ways: the "
        "instrument alone; the paper's correction and Rogan–Gladen, both from every label "
        "of the question (the paper's is biased when the rate's traces have another "
        "prevalence than the labels, Rogan–Gladen when the instrument errs differently "
        "there); PPI++, from the labels inside the rate's own traces with the instrument "
        "on the rest (valid whatever the instrument; 'labels only' is the same labels "
        "without it). The PPI++ interval resamples tasks when traces share one."),
    columns=("judge_only", "paper", "rogan_gladen", "ppi", "labels_only", "ppi_lambda",
             "n_labelled", "n_population"),
    counts=("n_labelled", "n_population"),
    key_columns=("rate", "group"),
    key_separator="|",
))
