"""Report section: Baseline vs P2 correctness."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext, baseline_vs_p2
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    st = ctx.stages
    if ctx.inp.unreferenced and not st.empty:
        # the user's questions without a reference: the clean answer is the reference
        st = st[~st["task_id"].astype(str).isin(ctx.inp.unreferenced)]
    return baseline_vs_p2(st, conditions=ctx.conditions, n_resamples=ctx.n_resamples,
                          seed=ctx.seed)


SECTION = register(Section(
    name="baseline_vs_p2",
    title="Baseline vs P2 correctness",
    compute=compute,
    order=60,
    explain=("Paper's definition: all baseline traces vs P2 traces with S1. Ours: the same "
             "tasks in both (matched), Δ with a paired bootstrap by task. Questions of "
             "your own without a reference are left out: their reference is the clean "
             "answer itself, which a clean run always matches."),
    columns=("baseline_correct", "p2_injected_correct", "p2_all_correct",
             "matched_baseline_correct", "matched_p2_injected_correct", "matched_delta"),
))
