"""Report section: your tools (the user's MCP server and questions, `run --upstream --tasks`).

Shown only when a run had an upstream or the workspace holds the user's tasks; the numbers
are `analysis.user_tools_table` (S2 proven for read-only tools, undefined and counted for
the others; the S3 rate beyond the clean-run noise floor). Here: the server and its tools,
the figure (PNG and 80-column text).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from html import escape
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, user_tools_table
from agentprop.report._figures import subplots
from agentprop.report._section import Section, SectionFigure, register

NAME = "your_tools"
BY_CONSTRUCTION = ("out:", "fault:")
"""Conditions that corrupt the observation itself: S2 = S1 (r_12 = 1) by construction."""
CHART_WIDTH = 80


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    """The section's table, or None when the workspace is not about the user's tools."""
    inp = ctx.inp
    if not inp.workspace.user_tools and not inp.queries:
        return None
    table = user_tools_table(ctx.stages, inp.queries, inp.agree,
                             n_resamples=ctx.n_resamples, seed=ctx.seed)
    return None if table.empty else table


# -- the figure: S3 rate per condition (dot and whisker) over the floor (a band) -------------

def _per_model(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """model → its floor row and its conditions' S3 rate rows (the figure's data)."""
    out: dict[str, dict[str, Any]] = {}
    for model, g in table.groupby("model", sort=True):
        floor = g[(g["metric"] == "noise_floor")]
        rates = g[(g["metric"] == "s3_rate")]
        out[str(model)] = {"floor": floor.iloc[0] if len(floor) else None,
                           "rates": rates.reset_index(drop=True)}
    return out


def _defined(x: Any) -> bool:
    return x is not None and isinstance(x, float | int) and math.isfinite(float(x))


def text_chart(table: pd.DataFrame, width: int = CHART_WIDTH) -> str:
    """The figure as text, each line at most `width` columns: per condition its S3 rate
    (●) and CI (├─┤) on a 0–1 axis, the floor's CI shaded (░) with the floor at │."""
    label_w = 22
    axis = width - label_w - 3
    lines: list[str] = []

    def col(v: float) -> int:
        return min(axis - 1, max(0, round(v * (axis - 1))))

    for model, data in _per_model(table).items():
        lines.append(f"{model}"[:width])
        floor = data["floor"]
        base = [" "] * axis
        if floor is not None and _defined(floor["value"]):
            if _defined(floor["ci_lo"]) and _defined(floor["ci_hi"]):
                for i in range(col(floor["ci_lo"]), col(floor["ci_hi"]) + 1):
                    base[i] = "░"
            base[col(floor["value"])] = "│"
            lines.append(f"{'noise floor':<{label_w}} |{''.join(base)}|"[:width])
        else:
            why = str(floor["note"]) if floor is not None else "no clean runs"
            lines.append(f"{'noise floor':<{label_w}}  undefined: {why}"[:width])
        for r in data["rates"].itertuples():
            cond = str(r.condition)[:label_w]
            if not _defined(r.value):
                why = f": {r.note}" if r.note else ""
                lines.append(f"{cond:<{label_w}}  S3 undefined{why}"[:width])
                continue
            cells = list(base)
            if _defined(r.ci_lo) and _defined(r.ci_hi):
                lo, hi = col(r.ci_lo), col(r.ci_hi)
                for i in range(lo, hi + 1):
                    cells[i] = "─"
                cells[lo], cells[hi] = "├", "┤"
            cells[col(r.value)] = "●"
            lines.append(f"{cond:<{label_w}} |{''.join(cells)}|")
        ticks = [" "] * (axis + 2)
        for v, t in ((0.0, "0"), (0.5, "0.5"), (1.0, "1")):
            at = col(v) + 1 - (len(t) - 1 if v == 1.0 else len(t) // 2)
            ticks[at:at + len(t)] = list(t)
        lines.append(f"{'':<{label_w}} {''.join(ticks)}"[:width])
    return "\n".join(lines)


def figure(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """S3 rate per condition with its 95 % CI, over the noise floor as a band."""
    table = res.tables.get(NAME)
    if table is None or table.empty:
        return None
    models = _per_model(table)
    n = max((len(m["rates"]) for m in models.values()), default=0)
    if n == 0:
        return None
    fig, ax = subplots((7, 1.2 + 0.45 * n * len(models)))
    y = 0
    ticks, names = [], []
    for model, data in models.items():
        floor = data["floor"]
        top = y + len(data["rates"])
        if floor is not None and _defined(floor["value"]):
            if _defined(floor["ci_lo"]) and _defined(floor["ci_hi"]):
                ax.fill_betweenx([y - 0.5, top - 0.5], floor["ci_lo"], floor["ci_hi"],
                                 color="0.85", label="floor's 95% CI" if y == 0 else None)
            ax.vlines(floor["value"], y - 0.5, top - 0.5, color="0.4", linestyles="--",
                      label="clean-run noise floor" if y == 0 else None)
        for r in data["rates"].itertuples():
            if _defined(r.value):
                err = [[r.value - r.ci_lo], [r.ci_hi - r.value]] if _defined(r.ci_lo) else None
                ax.errorbar(r.value, y, xerr=err, fmt="o", color="C0", capsize=3)
            ticks.append(y)
            names.append(f"{label(model)} · {r.condition}")
            y += 1
    ax.set_yticks(ticks, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-0.03, 1.03)  # a rate of 0 or 1 stays visible
    ax.set_xlabel("S3 rate (answer wrong / differs from the clean answer), 95% CI")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0),
                  ncol=2)
    fig.tight_layout()
    return fig


# -- the page --------------------------------------------------------------------------------

def _tools_line(tools: Mapping[str, Any]) -> str:
    if not tools:
        return ("its tools' read-only flags were not recorded (a run made before agentprop "
                "recorded them); S2 is undefined for the traces listed with a reason")
    ro = [n for n, v in sorted(tools.items()) if v]
    rw = [n for n, v in sorted(tools.items()) if not v]
    return (f"read-only (counterfactual made, S2 proven): {', '.join(ro) or 'none'}; "
            f"not read-only (no second call, S2 undefined): {', '.join(rw) or 'none'}")


def lead(result: AnalysisResult, stages: pd.DataFrame) -> str:
    """The server, its tools, what is constant by construction, and the chart as text."""
    facts = result.info.get("user_tools") or {}
    parts = []
    if facts:
        server = facts.get("upstream_server") or "the upstream"
        parts.append(f"Server {server}: <code>{escape(str(facts.get('upstream', '')))}</code>"
                     f" ({escape(_tools_line(facts.get('upstream_tools') or {}))}).")
    table = result.tables.get(NAME)
    if table is not None:
        conds = set(table["condition"].astype(str))
        if any(c.startswith(BY_CONSTRUCTION) for c in conds):
            parts.append("For out:* and fault:* the corrupted result is what the agent sees, "
                         "so S2 = S1 there (r_12 = 1 by construction); it is not plotted.")
        chart = text_chart(table)
        if chart:
            parts.append(f"<pre>{escape(chart)}</pre>")
    return "".join(f"<p>{p}</p>" if not p.startswith("<pre>") else p for p in parts)


SECTION = register(Section(
    name=NAME,
    title="Your tools: propagation on your server, beyond the clean-run noise floor",
    compute=compute,
    order=15,
    explain=("Per model and condition on your questions: units; p_S1 = injection applied; "
             "p_S2 = visible effect, proven by a counterfactual call, so only for read-only "
             "tools (for the others S2 is undefined, with the number of traces and the "
             "reason); s3_rate = P(S3 | S1), the answer wrong or, for a question without a "
             "reference, different from the clean answer at the same seed; noise_floor (row "
             "baseline) = how often two clean answers to the same question disagree, "
             "averaged over questions (needs at least 2 seeds and the agreement judge); "
             "beyond_floor = s3_rate − noise_floor, its CI from one bootstrap over "
             "questions for both terms."),
    columns=("units", "n_error", "p_S1", "p_S2", "n_s2_withheld", "s3_rate", "noise_floor",
             "beyond_floor", "floor_pairs", "floor_undecidable"),
    counts=("units", "n_s2_withheld", "floor_pairs", "floor_undecidable"),
    key_columns=("model", "condition"),
    key_separator="|",
    lead=lead,
    figures=(SectionFigure("your_tools_floor",
                           "S3 rate per condition (dot, 95% CI) over the clean-run noise "
                           "floor (band: its 95% CI; dashed: the floor).", figure),),
))
