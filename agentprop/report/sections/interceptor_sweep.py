"""Report section: Interceptor threshold sweep."""

from __future__ import annotations

from html import escape

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, sweep_table
from agentprop.report._section import Section, register


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


def best_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    df = result.tables.get("interceptor_sweep")
    best, text = best_config(df)
    out = ""
    if best:
        out = (f"<p>Best configuration by F1 (highlighted): <b>{escape(best)}</b> "
               f"({escape(text)}).</p>")
    same = repeats(df)
    if same:
        out += ("<p>Rows that repeat an earlier row (the same traces flagged, so the same "
                "numbers):</p><ul>" + "".join(
                    f"<li><b>{escape(', '.join(keys))}</b> {escape(why)}</li>"
                    for why, keys in same.items()) + "</ul>")
    return out


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return sweep_table(ctx.inp.sweep)


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
    page_hide=("best_f1",),
    page_pooled=False,
    columns=("precision", "recall", "f1", "abstention", "best_f1"),
    key_columns=("configuration",),
))
