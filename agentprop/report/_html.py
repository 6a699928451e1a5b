"""The one-page, self-contained HTML report. Every piece of text is HTML-escaped."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import pandas as pd

from agentprop.analysis import AnalysisResult

TITLES = {
    "propagation": "Propagation per model (stage reach and hop rates)",
    "propagation_by_type": "Propagation per model and error type",
    "rejection_recovery": "Rejection vs recovery",
    "baseline_vs_p2": "Baseline vs P2 correctness",
    "interceptor": "Interceptor A/B (paired control vs treatment)",
    "interceptor_sweep": "Interceptor threshold sweep",
    "judges": "Judge reliability",
    "calibration": "Human calibration factors of the primary judge",
    "replication": "Cross-domain replication (held-out retail vs core domains)",
}

EXPLAIN = {
    "propagation": "p_S1 = P(injection applied | opportunity), p_S2 = P(visible effect), "
                   "r_23 = P(wrong answer | S2), inj_to_err = P(wrong | S1). Calibrated rates "
                   "are named by method: the paper's (P(human correct | judge correct/wrong)) "
                   "and Rogan–Gladen (sensitivity/specificity).",
    "rejection_recovery": "Paper-compatible: rejection = 1 − p_S1, recovery = 1 − r_23. Ours "
                          "keeps no-tool traces apart (never counted as rejection).",
    "baseline_vs_p2": "Paper's definition: all baseline traces vs P2 traces with S1. Ours: "
                      "the same tasks in both (matched), Δ with a paired bootstrap by task.",
    "interceptor": "Hallucination = wrong and not abstained. Saved: control hallucinated, "
                   "treatment did not; broken: the reverse.",
}

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;
color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.note{background:#fff6d5;border-left:4px solid #e0b000;padding:.5em 1em}
.sim{color:#a33;font-weight:600}code,pre{background:#f5f5f5;padding:2px 4px}
pre{white-space:pre-wrap;font-size:11px}img{max-width:100%}
.answer{text-align:left;max-width:520px;white-space:pre-wrap}
"""


def _table_html(t: pd.DataFrame) -> str:
    if t.empty:
        return "<p><em>No data for this analysis in this workspace.</em></p>"
    head = "".join(f"<th>{escape(str(c))}</th>" for c in [t.index.name or "", *t.columns])
    body = []
    for idx, r in t.iterrows():
        cells = "".join(f"<td>{escape(str(v))}</td>" for v in r.tolist())
        body.append(f"<tr><td>{escape(str(idx))}</td>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _img(name: str, png: bytes) -> str:
    data = base64.b64encode(png).decode()
    return (f'<figure><img alt="{escape(name)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(name)} (also figures/{escape(name)}.png/.svg)"
            "</figcaption></figure>")


def _notes(df: pd.DataFrame | None) -> str:
    if df is None or df.empty:
        return ""
    notes = sorted({n for n in df["note"].astype(str) if n.startswith("warning")})
    return "".join(f'<p class="note">{escape(n)}</p>' for n in notes)


def simulation_check_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The simulation check as a display table (one row per model × metric)."""

    def f(v: Any) -> str:
        return "—" if v is None or (isinstance(v, float) and v != v) else f"{float(v):.3f}"

    out = pd.DataFrame(
        [
            {
                "model": r["model"],
                "metric": r["metric"],
                "true": f(r["true"]),
                "estimate": f(r["estimate"]),
                "95% CI": f"[{f(r['ci_lo'])}, {f(r['ci_hi'])}]",
                "n": r["n"],
                "covered": "yes" if r["covered"] else "NO",
                "note": r.get("note") or "",
            }
            for r in rows
        ]
    )
    return out.set_index("model") if not out.empty else out


def _simulation_check_html(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    covered = sum(bool(r["covered"]) for r in rows)
    judge = rows[0].get("judge", "")
    return (
        "<h2>Simulation check (known truth)</h2>"
        "<p>Simulated agents have stated parameters, so the pipeline must recover them: "
        f"{covered} of {len(rows)} true values lie inside their 95% bootstrap CI (S3 by the "
        f"<b>{escape(str(judge))}</b> judge; p2:semantic_wrong traces). A true value outside "
        "its CI is a measurement problem to investigate, not a finding.</p>"
        + _table_html(simulation_check_frame(rows))
    )


def render_html(
    result: AnalysisResult,
    tables: Mapping[str, pd.DataFrame],
    pngs: Mapping[str, bytes],
    *,
    runs: Sequence[Mapping[str, Any]],
    examples: pd.DataFrame,
    figure_sections: Mapping[str, Sequence[str]],
) -> str:
    info = result.info
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             "<title>agentprop report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>agentprop report</h1>"]
    facts = [f"Primary judge (S3): <b>{escape(str(info.get('primary_judge')))}</b>",
             f"traces: {escape(str(info.get('n_traces')))}",
             f"bootstrap: {escape(str(info.get('n_resamples')))} resamples, seed "
             f"{escape(str(info.get('seed')))}, 95% percentile CIs",
             "propagation conditions: "
             + escape(", ".join(info.get("propagation_conditions") or []) or "none")]
    if info.get("imported"):
        facts.insert(0, "<b>Data imported from the paper's release</b> ("
                     f"{escape(str(info['imported']))}, MIT licence): stage semantics of the "
                     "release (S1 = eps ≥ 1, S2 = eps ≥ 2, S3 = not ensemble_correct); the "
                     "release's interceptor runs were judged by its heuristic.")
    sims = info.get("simulated_models") or []
    if sims:
        facts.append('<span class="sim">simulated models (not real LLMs): '
                     + escape(", ".join(sims)) + "</span>")
    parts.append("<ul>" + "".join(f"<li>{f}</li>" for f in facts) + "</ul>")
    if not info.get("has_labels"):
        ref = info.get("agreement_reference")
        ref_txt = (f"Judge agreement below uses the <b>{escape(str(ref))}</b> judge as the "
                   "stated reference." if ref else "Judge agreement is shown against the LLM "
                   "majority only.")
        parts.append(
            '<p class="note">There are no human labels in this workspace, so no judge is '
            "validated against humans and no rate is human-calibrated. " + ref_txt +
            " To collect labels: <code>agentprop label sample --workspace W</code>, then "
            "<code>agentprop label serve --workspace W</code>.</p>")
    parts.append(_simulation_check_html(info.get("simulation_check") or []))
    for section, t in tables.items():
        parts.append(f"<h2>{escape(TITLES.get(section, section))}</h2>")
        if section in EXPLAIN:
            parts.append(f"<p>{escape(EXPLAIN[section])}</p>")
        parts.append(_notes(result.tables.get(section)))
        parts.append(_table_html(t))
        for name in figure_sections.get(section, []):
            if name in pngs:
                parts.append(_img(name, pngs[name]))
        parts.append(f"<p>Tables: tables/{escape(section)}.md | .tex | .csv</p>")
    parts.append("<h2>Sample answers</h2>")
    if examples.empty:
        parts.append("<p><em>No answers.</em></p>")
    else:
        rows = []
        for r in examples.itertuples(index=False):
            rows.append("<tr>" + "".join(
                f"<td>{escape(str(v))}</td>" for v in (r.trace_id, r.model, r.condition, r.S3)
            ) + f'<td class="answer">{escape(str(r.answer))}</td></tr>')
        parts.append("<table><tr><th>trace</th><th>model</th><th>condition</th>"
                     "<th>S3 (wrong)</th><th>answer</th></tr>" + "".join(rows) + "</table>")
    parts.append("<h2>Run manifest</h2>")
    parts.append("<pre>" + escape(json.dumps(list(runs), indent=2, default=str)) + "</pre>")
    parts.append("<p>All numbers: numbers.json (names documented in docs/numbers.md).</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
