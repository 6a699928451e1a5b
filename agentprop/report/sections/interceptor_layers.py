"""Report section: Which interceptor layer catches which fault class."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext, interceptor_layers
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return interceptor_layers(ctx.inp.layer_hits, n_resamples=ctx.n_resamples,
                              seed=ctx.seed)


SECTION = register(Section(
    name="interceptor_layers",
    title="Which interceptor layer catches which fault class",
    compute=compute,
    order=110,
    explain=("Offline replay of the sweep's chosen thresholds, all three layers on, over "
             "every injected un-intercepted trace whose corruption was applied: the share on "
             "which L1 (tool errors), L2 (doubt words in the reasoning) and L3 (an answer "
             "figure no observation supports) fire, per fault class, and caught_wrong = the "
             "share of wrong answers any layer catches. Where all three are low the "
             "interceptor is blind to that fault class."),
    columns=("L1", "L2", "L3", "any", "caught_wrong"),
    key_columns=("condition",),
))
