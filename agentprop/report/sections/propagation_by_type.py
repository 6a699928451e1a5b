"""Report section: Propagation per model and error type."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext, propagation_by_type
from agentprop.report._section import Section, register
from agentprop.report._tables import constant_rates


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return propagation_by_type(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed)


SECTION = register(Section(
    name="propagation_by_type",
    title="Propagation per model and error type",
    compute=compute,
    order=30,
    explain="The same rates split by the injected error type.",
    hidden=constant_rates,
    columns=("n", "p_S1", "p_S2", "r_23", "inj_to_err", "noticed", "recovered",
             "no_tool_share"),
    key_columns=("model", "error type"),
    key_separator="|",
))
