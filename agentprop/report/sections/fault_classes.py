"""Report section: fault classes side by side (call position, several parameters, corrupted
output, tool failures)."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis import AnalysisContext, fault_class_table
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return fault_class_table(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed)


SECTION = register(Section(
    name="fault_classes",
    title=("Fault classes side by side (call position, several parameters, corrupted output, "
           "tool failures, model-API faults)"),
    compute=compute,
    order=40,
    explain=("Every injected condition per model: p2:<type>@last/@random/@n=K (which call is "
             "corrupted), p2:multi=K (several parameters), out:* (the tool ran, the agent saw "
             "a corrupted result) and fault:* (a timeout, server error, rate limit or empty "
             "result). For out:* and fault:* the arguments are right, so S1 is the corrupted "
             "result reaching the agent and correction_rate is re-issuing the same call (a "
             "retry). fabricated = P(the answer states a graded fact no observation "
             "supports), over traces where it is defined: the headline under fault:*, where "
             "the question is whether the agent retries, abstains (noticed_abstain) or "
             "invents the answer. api:* (one model call answered 429 or 500, cut, or "
             "stopped mid-way): S2 is what the agent ended up with differing from the real "
             "completion, so a 429 its client retried into the same completion is not S2 "
             "(docs/injection.md)."),
    columns=("n", "p_S2", "r_23", "noticed", "correction_rate", "noticed_abstain",
             "fabricated", "fabricated_given_S2", "no_tool_share"),
    key_columns=("model", "condition"),
    key_separator="|",
))
