"""Report section: fault classes side by side (call position, several parameters, corrupted
output, tool failures)."""

from __future__ import annotations

from html import escape

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, fault_class_table
from agentprop.core import FAULT_CLASSES
from agentprop.report._section import Section, register


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return fault_class_table(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed)


def answer_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    """When each out:/fault: class run here can change the answer (its declaration,
    `core.FAULT_CLASSES`): a low S3 rate under a class that needs the agent to read a
    renamed field or follow an instruction says something else than under a timeout."""
    names = ({str(x) for x in stages["condition"].dropna().unique()} if "condition" in stages
             else set())
    declared = [c for c in FAULT_CLASSES if c.name in names]
    if not declared:
        return ""
    items = "".join(f"<li><b>{escape(c.name)}</b>: {escape(c.summary)}. "
                    f"{escape(c.changes_answer)}</li>" for c in declared)
    return f"<p>When each class can change the answer:</p><ul>{items}</ul>"


SECTION = register(Section(
    name="fault_classes",
    title=("Fault classes side by side (call position, several parameters, corrupted output, "
           "tool failures, model-API faults)"),
    compute=compute,
    order=40,
    explain=("Every injected condition per model: p2:<type>@last/@random/@n=K (which call is "
             "corrupted), p2:multi=K (several parameters), out:* (the tool ran, the agent saw "
             "a corrupted result: a wrong value, another entity's or date's result, a cut "
             "list, a renamed or removed field, an irrelevant, self-contradicting or partial "
             "result, an injected instruction) and fault:* (a timeout, server error, rate "
             "limit, permission denial or empty result). For out:* and fault:* the arguments "
             "are right, so S1 is the corrupted result reaching the agent and correction_rate "
             "is re-issuing the same call (a retry). fabricated = P(the answer states a "
             "graded fact no observation supports), over traces where it is defined: the "
             "headline under fault:*, where the question is whether the agent retries, "
             "abstains (noticed_abstain) or "
             "invents the answer. api:* (one model call answered 429 or 500, cut, or "
             "stopped mid-way): S2 is what the agent ended up with differing from the real "
             "completion, so a 429 its client retried into the same completion is not S2 "
             "(docs/injection.md)."),
    columns=("n", "p_S2", "r_23", "noticed", "correction_rate", "noticed_abstain",
             "fabricated", "fabricated_given_S2", "no_tool_share"),
    key_columns=("model", "condition"),
    key_separator="|",
    lead=answer_note,
))
