"""Report section: Interceptor threshold sweep."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, lookup, sweep_table
from agentprop.analysis._ltt import GUARANTEE_METRICS, with_guarantee
from agentprop.report._figures import subplots
from agentprop.report._section import Section, SectionFigure, register


def best_config(df: pd.DataFrame | None) -> tuple[str, str]:
    """(config, "F1 = …") of the sweep's best configuration, or ("", "")."""
    if df is None or df.empty:
        return "", ""
    b = df[df["metric"] == "best_f1"]
    if b.empty:
        return "", ""
    return str(b["note"].iloc[0]), f"F1 = {float(b['value'].iloc[0]):.3f}"


def repeats(df: pd.DataFrame | None) -> dict[str, list[str]]:
    """Rows that repeat an earlier one (the same traces flagged), by the sentence saying
    why: {"flags the same traces as X: no trace has an L1 count of 2": [configs]}."""
    if df is None or df.empty:
        return {}
    out: dict[str, list[str]] = {}
    for r in df[df["note"].astype(str).str.startswith("flags the same")].itertuples():
        keys = out.setdefault(str(r.note), [])
        if str(r.key) not in keys:
            keys.append(str(r.key))
    return out


def _rate(df: pd.DataFrame, metric: str) -> str:
    """"0.042 (n = 120)" of one guarantee row, "— (n = 0)" when undefined."""
    r = df[df["metric"] == metric].iloc[0]
    value = "—" if pd.isna(r["value"]) else f"{float(r['value']):.3f}"
    return f"{value} (n = {int(r['n'])})"


def guarantee_note(df: pd.DataFrame | None) -> str:
    """The Learn-then-Test promise and what it realised (HTML), or "" without one."""
    if df is None or df.empty or not (df["metric"] == "ltt_alpha").any():
        return ""
    alpha, delta = lookup(df, "ltt_alpha"), lookup(df, "ltt_delta")
    p = lookup(df, "ltt_p_value")
    config = str(df.loc[df["metric"] == "ltt_alpha", "note"].iloc[0])
    return (f"<p>Chosen by Learn-then-Test (highlighted): <b>"
            f"{escape(config)}</b>, so that P(abstain | the answer "
            f"would be right) ≤ α = {alpha:g} with confidence 1 − δ = {1 - delta:g} "
            f"(p = {p:.3g}, Bonferroni over the grid). False-abstain rate on val "
            f"{escape(_rate(df, 'false_abstain_val'))}; realised on the held-out split "
            f"{escape(_rate(df, 'false_abstain_held_out'))}, on its clean baseline traces "
            f"{escape(_rate(df, 'false_abstain_baseline'))}. AURC of the signal strength "
            f"(lower is better): val {escape(_rate(df, 'aurc_val'))}, held-out "
            f"{escape(_rate(df, 'aurc_held_out'))}.</p>")


def best_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    df = result.tables.get("interceptor_sweep")
    best, text = best_config(df)
    out = guarantee_note(df)
    if best and not out:
        out = (f"<p>Best configuration by F1 (highlighted): <b>{escape(best)}</b> "
               f"({escape(text)}).</p>")
    same = repeats(df)
    if same:
        out += ("<p>Rows that repeat an earlier row (the same traces flagged, so the same "
                "numbers):</p><ul>" + "".join(
                    f"<li><b>{escape(', '.join(keys))}</b> {escape(why)}</li>"
                    for why, keys in same.items()) + "</ul>")
    return out


def risk_coverage(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Selective risk against coverage when the interceptor abstains on the most
    suspicious traces first (signal strength), on val and on the held-out split: the
    curves the AURC is the area under. Lower is better; the risk at coverage 1 is the
    un-intercepted hallucination rate."""
    curves = res.info.get("risk_coverage") or {}
    if not curves:
        return None
    fig, ax = subplots((6.0, 4.0))
    for (split, c), colour in zip(curves.items(), ("#1f77b4", "#ff7f0e"), strict=False):
        aurc = c.get("aurc")
        name = f"{split} (AURC {aurc:.3f}, n = {c.get('n')})" if aurc is not None else split
        ax.step(c["coverage"], c["risk"], where="post", color=colour, label=name)
        ax.plot(c["coverage"], c["risk"], "o", color=colour, markersize=3)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("coverage (share of traces answered)", fontsize=9)
    ax.set_ylabel("selective risk (wrong among answered)", fontsize=9)
    ax.set_title("Interceptor risk–coverage (abstain on the most suspicious first)",
                 fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    fig.tight_layout()
    return fig


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return with_guarantee(sweep_table(ctx.inp.sweep), ctx.inp.sweep_guarantee)


SECTION = register(Section(
    name="interceptor_sweep",
    title="Interceptor threshold sweep",
    compute=compute,
    order=100,
    explain=("Offline replay of interceptor thresholds over stored un-intercepted traces (no "
             "model is called). Positive = the answer is wrong under the primary judge; a "
             "configuration predicts positive when the interceptor fires. abstention = share "
             "of traces where it fires; n = traces replayed."),
    lead=best_note,
    highlight=lambda df: best_config(df)[0],
    page_hide=("best_f1", *GUARANTEE_METRICS),
    p_values=("ltt_p_value",),
    page_pooled=False,
    columns=("precision", "recall", "f1", "abstention", "best_f1"),
    key_columns=("configuration",),
    figures=(
        SectionFigure("risk_coverage",
                      "Risk–coverage of the interceptor's signal strength (with a "
                      "Learn-then-Test guarantee).", risk_coverage),
    ),
))
