"""Report section: the real (not simulated) models, marked as such, and how their episodes
went: answered, forced to answer, out of steps, failed; calls, tokens and time per call."""

from __future__ import annotations

from html import escape

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, real_model_table
from agentprop.report._section import Section, anchor, register

NAME = "real_models"


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    t = real_model_table(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed)
    return None if t.empty else t


def _described(res: AnalysisResult) -> list[dict[str, object]]:
    return list(res.info.get("models") or [])


def lead(res: AnalysisResult, stages: pd.DataFrame) -> str:
    """What each real model is (its own description), and the warning a tiny one needs."""
    items = "".join(
        f"<li><b>{escape(str(m['model']))}</b>: {escape(str(m['description']))}</li>"
        for m in _described(res))
    out = (f"<p><b>Real model output.</b> These traces come from a real model, not a "
           f"simulated agent.</p><ul>{items}</ul>" if items else
           "<p><b>Real model output.</b> These traces come from a real model, not a "
           "simulated agent.</p>")
    tiny = [str(m["model"]) for m in _described(res) if m.get("tiny")]
    if tiny:
        out += (f"<p class='warn'>{escape(', '.join(tiny))}: a tiny model (under a billion "
                "parameters). It calls tools but rarely answers well, so its rates show the "
                "pipeline meeting real output, not a capable agent; read its judge agreement "
                "with the prevalence in mind (most of its answers are wrong).</p>")
        jt = res.tables.get("judges")
        judges = sorted({str(j) for j in jt["judge"]} if jt is not None and not jt.empty
                        else set())
        on_tiny = [j for j in judges if any(m in j for m in tiny)]
        if on_tiny:
            out += (f"<p class='warn'>{escape(', '.join(on_tiny))}: a judge on a tiny "
                    "model. Its verdicts show the judging path on a real model, not a usable "
                    "judge; its replies that are neither YES nor NO are unscored, left out "
                    "of its κ and counted (judge_unscored in Judge reliability).</p>")
    return out


def judge_note(res: AnalysisResult, judge: str) -> str:
    """A judge built on a tiny real model says so where the page names it."""
    tiny = [str(m["model"]) for m in _described(res) if m.get("tiny")]
    hit = next((m for m in tiny if m in judge), None)
    return (f"{judge} runs on {hit}, a tiny model: its verdicts show the judging path on a "
            "real model, not a usable judge; replies that are neither YES nor NO are "
            "unscored and counted" if hit else "")


def fact(res: AnalysisResult) -> str:
    t = res.tables.get(NAME)
    if t is None or t.empty:
        return ""
    models = sorted(set(t["model"]))
    return (f"real models: {escape(', '.join(models))} "
            f'(<a href="#{anchor(NAME)}">how their episodes went</a>)')


SECTION = register(Section(
    name=NAME,
    title="Real models: how their episodes went",
    compute=compute,
    order=5,  # first: a reader must know which numbers come from a real model
    explain=("Per real (not simulated) model, over every trace: the share of episodes "
             "with a final answer, with a forced one (asked once more without tools at "
             "the step limit, run --answer-on-step-limit), ended at the step limit without "
             "one, and ended by an error; model calls, executed tool calls and tokens per "
             "episode; seconds inside the model per call. CIs resample tasks."),
    columns=("episodes", "answered", "forced", "step_limit", "failed", "model_calls",
             "tool_calls", "tokens", "s_per_call"),
    counts=("episodes",),
    lead=lead,
    fact=fact,
    judge_note=judge_note,
))
