"""Report section: Cross-domain replication (held-out retail vs core domains)."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext, cross_domain
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return cross_domain(ctx.stages, conditions=ctx.conditions, n_resamples=ctx.n_resamples,
                        seed=ctx.seed)


SECTION = register(Section(
    name="replication",
    title="Cross-domain replication (held-out retail vs core domains)",
    compute=compute,
    order=120,
    explain=("Per model on the core domains and on held-out retail; the pooled row gives the "
             "rank correlations between the two (bootstrap over models)."),
    columns=("correct_core", "correct_retail", "inj_to_err_core", "inj_to_err_retail",
             "spearman_correct", "kendall_correct", "spearman_inj_to_err",
             "kendall_inj_to_err"),
))
