"""Report section: the tool-calling preflight and the tool calls that did not arrive as
calls, per model (docs/tool-call-outcomes.md, docs/real-servers.md)."""

from __future__ import annotations

from html import escape

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, delivery_table
from agentprop.report._section import Section, anchor, register

NAME = "tool_calls"
_VERDICTS = {"native": "native tool calls", "invalid_arguments": "calls with invalid "
             "arguments", "leaked": "calls leaked into text", "no_calls": "no tool calls",
             "error": "error"}


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    """The delivery counts per model, then each model's preflight as
    `preflight_tools_passed` (tools whose forced call passed, n = tools probed) with its
    `verdict` (None when the workspace has neither)."""
    t = delivery_table(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed)
    probes = ctx.inp.workspace.preflight
    if t.empty and not probes:
        return None
    t["verdict"] = ""
    rows = [{"model": p.model, "key": p.model, "metric": "preflight_tools_passed",
             "value": float(p.tools_passed), "n": p.tools, "ci_lo": float("nan"),
             "ci_hi": float("nan"), "note": p.detail, "verdict": p.verdict}
            for p in probes]
    return pd.concat([t, pd.DataFrame(rows, columns=t.columns)], ignore_index=True) \
        if rows else t


def lead(res: AnalysisResult, stages: pd.DataFrame) -> str:
    """The preflight, one line per model, and what the zeros of simulated agents mean."""
    probes = res.info.get("preflight") or []
    out = ""
    if probes:
        items = "".join(
            f"<li><b>{escape(p['model'])}</b>: {escape(_VERDICTS.get(p['verdict'], ''))}"
            f" ({p['tools_passed']}/{p['tools']} tools forced"
            + ("" if p.get("roundtrip") is None else
               ", round trip " + ("ok" if p["roundtrip"] else "failed"))
            + ("" if p.get("auto_call") is None else
               ", auto: " + ("a call" if p["auto_call"] else "no call"))
            + ")" + (f": {escape(p['detail'])}" if p.get("detail") else "") + "</li>"
            for p in probes)
        out += ("<p>Preflight, before the first unit: forced calls of every tool the run "
                f"offers, a tool result sent back, and tool_choice=auto.</p><ul>{items}</ul>")
    sims = set(res.info.get("simulated_models") or [])
    if sims:
        out += ("<p>Simulated agents only make structured calls of offered tools: their "
                "zeros here hold by construction.</p>")
    return out


def fact(res: AnalysisResult) -> str:
    probes = res.info.get("preflight") or []
    if not probes:
        return ""
    bad = [p["model"] for p in probes if p["verdict"] != "native"]
    what = (f"{len(bad)} of {len(probes)} models failed it ({', '.join(bad)})" if bad
            else f"all {len(probes)} models made native tool calls")
    return (f"tool-calling preflight: {escape(what)} "
            f'(<a href="#{anchor(NAME)}">details</a>)')


SECTION = register(Section(
    name=NAME,
    title="Tool calls that did not arrive as calls",
    compute=compute,
    order=65,  # after the propagation numbers: how far the endpoint delivered calls
    explain=("Per model, over every trace (baseline and injected): calls written as text "
             "instead of a structured call (leaked_call), calls of a tool that was not "
             "offered (unknown_tool), arguments that do not parse (bad_arguments), traces "
             "where the agent tried to call but no call arrived (undelivered_call), and "
             "traces with no call and no attempt (no_tool_call). Shares of traces with "
             "CIs resampling tasks; none of them is counted as rejection."),
    columns=("n", "leaked_call", "unknown_tool", "bad_arguments", "undelivered_call",
             "no_tool_call", "preflight_tools_passed"),
    counts=("n_error", "n_leaked_call", "n_unknown_tool", "n_bad_arguments",
            "n_undelivered_call", "n_no_tool_call", "preflight_tools_passed"),
    lead=lead,
    fact=fact,
))
