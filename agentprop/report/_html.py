"""The one-page, self-contained HTML report. Every piece of text is HTML-escaped.

Reader tables come in as key × metric `Cell`s (an `Estimate` and its metric), and each
section's `Section` says how to show them; this module only lays them out: wide tables are
split into column groups, row keys with several parts (model and error type, judge and
reference) get one column each, all-undefined columns and pooled-only rows are moved out of
the grid, and each estimate is shown as the value with its CI on one line and n under it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import pandas as pd

from agentprop.analysis import SMALL_N, AnalysisResult
from agentprop.report._section import Section, anchor, report_sections
from agentprop.report._tables import Cell, n_text

MAX_COLS = 7

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;
color:#222;line-height:1.4}
h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
nav.toc{background:#f7f7f7;border:1px solid #e3e3e3;padding:.4em 1em;display:inline-block}
nav.toc ol{margin:.3em 0;padding-left:1.4em;columns:2;column-gap:2.5em}nav.toc li{margin:.1em 0}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3;font-weight:600}
td.k,th.k{text-align:left;max-width:260px}
td.num{white-space:nowrap}
.ci{color:#555}.n{display:block;color:#888;font-size:10px}
.undef{color:#999;font-style:italic}
td.few{color:#999}td.few .n{color:#b35900}
tr.pooled td{border-top:2px solid #999;font-weight:600}
tr.best td{background:#eaf6e6}
.note{background:#fff6d5;border-left:4px solid #e0b000;padding:.5em 1em}
.muted{color:#666;font-size:13px}
.sim{color:#a33;font-weight:600}code,pre{background:#f5f5f5;padding:2px 4px}
pre{white-space:pre-wrap;font-size:11px}
figure{margin:.5em 0 1em}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#555;font-size:13px}
table.answers td,table.answers th{text-align:left}td.answer{max-width:620px;white-space:pre-wrap}
td.bad{color:#a33;font-weight:600}
details summary{cursor:pointer}
"""

def _header(name: str) -> str:
    """A metric name that may wrap after its underscores."""
    return escape(name).replace("_", "_<wbr>")


def _breakable(text: str) -> str:
    """Long names (ensembles of judges) may wrap after commas."""
    return escape(text).replace(",", ",<wbr>")


def _cell(cell: Cell | None, show_n: bool = True) -> str:
    """One estimate: value and CI on one line, n under them (unless stated once)."""
    if cell is None:
        return '<td class="num"></td>'
    v, ci, n = cell.parts
    if n is None:  # a count
        return f'<td class="num">{escape(v)}</td>'
    value = f'<span class="undef">{escape(v)}</span>' if v == "undefined" else escape(v)
    ci_html = f' <span class="ci">[{escape(ci)}]</span>' if ci else ""
    shown = n_text(n, v)
    few = shown != f"n={n}"  # under the small-sample floor: greyed, and it says so
    n_html = (f'<span class="n">{escape(shown)}</span>' if show_n or few else "")
    return f'<td class="num{" few" if few else ""}">{value}{ci_html}{n_html}</td>'


def _filled(cell: Cell | None) -> bool:
    return cell is not None and cell.filled


def _unavailable(t: pd.DataFrame) -> list[str]:
    """Columns that are undefined with n = 0 (or empty) in every row: no data at all."""
    return [str(c) for c in t.columns if all(v is None or v.no_data for v in t[c])]


def _split_rows(t: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(grid rows, summary rows): summary rows (e.g. "pooled" with only a correlation)
    share no filled column with the first row, so they would leave a mostly empty grid."""
    if len(t) < 2:
        return t, t.iloc[0:0]

    def filled(r: pd.Series) -> set[str]:
        return {str(c) for c, v in r.items() if _filled(v)}

    first = filled(t.iloc[0])
    summary = [i for i in range(len(t)) if not (filled(t.iloc[i]) & first)]
    if not summary:
        return t, t.iloc[0:0]
    rest = [i for i in range(len(t)) if i not in summary]
    main, extra = t.iloc[rest], t.iloc[summary]
    extra_cols = set().union(*(filled(extra.iloc[i]) for i in range(len(extra))))
    main = main[[c for c in main.columns if str(c) not in extra_cols]]
    return main, extra[[c for c in extra.columns if str(c) in extra_cols]]


def _groups(section: Section, cols: Sequence[str]) -> list[list[str]]:
    """Column groups for one section: the stated ones, then the rest in chunks."""
    left = list(cols)
    out: list[list[str]] = []
    for g in section.groups:
        got = [c for c in g if c in left]
        if got:
            out.append(got)
            left = [c for c in left if c not in got]
    while left:
        out.append(left[:MAX_COLS])
        left = left[MAX_COLS:]
    return out


def _key_parts(section: Section, label: str) -> list[str]:
    names, sep = section.key_columns, section.key_separator
    if len(names) == 1:
        return [label]
    parts = label.split(sep, len(names) - 1) if sep in label else [label]
    parts += [""] * (len(names) - len(parts))
    first = section.key_first
    return [parts[first], *parts[:first], *parts[first + 1:]]


def _key_names(section: Section) -> list[str]:
    names = list(section.key_columns)
    first = section.key_first
    return [names[first], *names[:first], *names[first + 1:]]


def _shared_n(t: pd.DataFrame) -> str:
    """The n of every estimate in the table when it is one and the same, else ""."""
    ns = {str(n) for v in t.to_numpy().ravel() if v is not None and (n := v.parts[2]) is not None}
    return ns.pop() if len(ns) == 1 and t.size > 4 else ""


def _grid(section: Section, t: pd.DataFrame, cols: Sequence[str], best: str = "",
          show_n: bool = True) -> str:
    names = _key_names(section)
    head = "".join(f'<th class="k">{escape(n)}</th>' for n in names)
    head += "".join(f"<th>{_header(str(c))}</th>" for c in cols)
    keys = [_key_parts(section, str(i)) for i in t.index]
    # the first key column spans its consecutive equal rows when the key has several parts
    spans: list[int] = []
    for i, k in enumerate(keys):
        if len(names) > 1 and i and k[0] == keys[i - 1][0] and k[0]:
            spans.append(0)
            j = i - 1
            while spans[j] == 0:
                j -= 1
            spans[j] += 1
        else:
            spans.append(1)
    body = []
    for i, (label, r) in enumerate(t[list(cols)].iterrows()):
        k = keys[i]
        cells = ""
        for p, part in enumerate(k):
            if p == 0 and spans[i] == 0:
                continue
            span = f' rowspan="{spans[i]}"' if p == 0 and spans[i] > 1 else ""
            cells += f'<td class="k"{span}>{_breakable(part)}</td>'
        cells += "".join(_cell(v, show_n) for v in r.tolist())
        cls = ' class="pooled"' if str(label) == "pooled" else \
            (' class="best"' if best and str(label) == best else "")
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _summary(extra: pd.DataFrame) -> str:
    rows = []
    for label, r in extra.iterrows():
        for c, v in r.items():
            if not _filled(v):
                continue
            name = "pooled (all models)" if str(label) == "pooled" else str(label)
            rows.append(f'<tr><td class="k">{escape(name)}</td><td class="k">'
                        f"{escape(str(c))}</td>{_cell(v)}</tr>")
    return ('<table><tr><th class="k">over</th><th class="k">metric</th><th>estimate</th>'
            "</tr>" + "".join(rows) + "</table>")


def _table_html(t: pd.DataFrame, section: Section, best: str = "") -> str:
    """A reader table: split into column groups and summary rows, undefined columns named."""
    if t.empty:
        return "<p><em>No data for this analysis in this workspace.</em></p>"
    parts = []
    gone = _unavailable(t)
    main = t[[c for c in t.columns if str(c) not in gone]]
    if not section.page_pooled:  # the section's lead states the pooled values
        main = main[[str(i) != "pooled" for i in main.index]]
        main = main[[c for c in main.columns if str(c) not in section.page_hide]]
        extra = main.iloc[0:0]
    else:
        main = main[[c for c in main.columns if str(c) not in section.page_hide]]
        main, extra = _split_rows(main)
    shared = _shared_n(main) if len(main.columns) else ""
    if len(main.columns):
        for g in _groups(section, [str(c) for c in main.columns]):
            parts.append(_grid(section, main, g, best, show_n=not shared))
    if shared:
        parts.append(f'<p class="muted">n = {escape(shared)} for every estimate above.</p>')
    if len(extra):
        parts.append(_summary(extra))
    if gone:
        parts.append('<p class="muted">No data here (n = 0 in every row): '
                     + escape(", ".join(gone)) + ".</p>")
    return "".join(parts)


def _img(name: str, caption: str, png: bytes) -> str:
    data = base64.b64encode(png).decode()
    return (f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(caption)} <span class=\"muted\">(figures/{escape(name)}"
            ".png, .svg)</span></figcaption></figure>")


def _notes(df: pd.DataFrame | None) -> str:
    """A section's warnings, and why its undefined values are undefined (their reason,
    with the metrics it applies to)."""
    if df is None or df.empty:
        return ""
    notes = sorted({n for n in df["note"].astype(str) if n.startswith("warning")})
    parts = [f'<p class="note">{escape(n)}</p>' for n in notes]
    undefined = df[df["value"].isna() & (df["note"].astype(str) != "")
                   & ~df["note"].astype(str).str.startswith("warning")]
    for why, g in undefined.groupby(undefined["note"].astype(str), sort=True):
        metrics = ", ".join(dict.fromkeys(g["metric"].astype(str)))
        parts.append(f'<p class="note">Undefined: {escape(metrics)}: {escape(why)}.</p>')
    return "".join(parts)


def _s3_text(v: Any) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and v != v):
        return "unjudged"
    return "wrong" if bool(v) else "correct"


def judge_notes(result: AnalysisResult, judge: str) -> str:
    """What the sections state about a judge where the page names it (its measured
    validity, from the judge_validity section)."""
    return "".join(s.judge_note(result, judge) for s in report_sections())


def render_html(
    result: AnalysisResult,
    tables: Mapping[str, pd.DataFrame],
    pngs: Mapping[str, bytes],
    *,
    runs: Sequence[Mapping[str, Any]],
    examples: pd.DataFrame,
    stages: pd.DataFrame | None = None,
) -> str:
    """The page: the facts about the input, then each section of `tables` (its reader
    table) in reading order, sample answers and the run manifest."""
    info = result.info
    st = stages if stages is not None else pd.DataFrame()
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             "<title>agentprop report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>agentprop report</h1>"]
    rehearsal = info.get("rehearsal")
    if rehearsal:  # first, before any number: these are simulated answers
        parts[2] = "<title>REHEARSAL — agentprop report</title>"
        parts[3] = parts[3] + (
            "<p class='sim'><b>REHEARSAL — not results.</b> Every model name in this report "
            "was answered by a simulated agent or judge behind its provider's SDK on a local"
            f" serve-sim (scale {escape(str(rehearsal.get('scale')))}, profile "
            f"{escape(str(rehearsal.get('default_profile')))}); the run tested keys, "
            "providers, judges and this report, not the models.</p>")
    primary = str(info.get("primary_judge"))
    judged = bool(info.get("primary_verdicts", 1))
    facts = [f"Primary judge (S3): <b>{escape(primary)}</b>"
             + (judge_notes(result, primary) if judged else
                f" — <b>no verdicts yet</b>: run <code>agentprop judge -w W -j "
                f"{escape(primary)}</code> (nothing that rests on S3 can be read below)"),
             f"traces: {escape(str(info.get('n_traces')))}",
             f"bootstrap: {escape(str(info.get('n_resamples')))} resamples, seed "
             f"{escape(str(info.get('seed')))}, 95% percentile CIs",
             "propagation conditions: "
             + escape(", ".join(info.get("propagation_conditions") or []) or "none"),
             f"an estimate over fewer than {SMALL_N} units is greyed and marked "
             "<i>too few</i>: read it as a hint, not a measurement"]
    if info.get("imported"):
        facts.insert(0, "<b>Data imported from the paper's release</b> ("
                     f"{escape(str(info['imported']))}, MIT licence): stage semantics of the "
                     "release (S1 = eps ≥ 1, S2 = eps ≥ 2, S3 = not ensemble_correct); the "
                     "release's interceptor runs were judged by its heuristic.")
    sims = info.get("simulated_models") or []
    if sims:
        facts.append('<span class="sim">simulated models (not real LLMs): '
                     + escape(", ".join(sims)) + "</span>")
    facts += [f for s in report_sections() if s.name in result.tables and (f := s.fact(result))]
    parts.append("<ul>" + "".join(f"<li>{f}</li>" for f in facts) + "</ul>")
    if not judged:
        parts.append(
            f'<p class="note"><b>No verdicts yet:</b> run <code>agentprop judge -w W -j '
            f"{escape(primary)}</code>, then <code>agentprop report -w W</code>. Until then "
            "no answer is graded: S3, r_23, recovery and every rate after them are "
            "undefined, and where the error stops is undecided.</p>")
    if not info.get("has_labels"):
        ref = info.get("agreement_reference")
        ref_txt = (f"Judge agreement below uses the <b>{escape(str(ref))}</b> judge as the "
                   "stated reference" + judge_notes(result, str(ref)) + "."
                   if ref else "Judge agreement is shown against the LLM majority only.")
        parts.append(
            '<p class="note">There are no human labels in this workspace, so no judge is '
            "validated against humans and no rate is human-calibrated. " + ref_txt +
            " To collect labels: <code>agentprop label sample --workspace W</code>, then "
            "<code>agentprop label serve --workspace W</code>.</p>")

    order = [s for s in report_sections() if s.name in tables and s.page]
    toc = [(s.name, s.title) for s in order]
    toc += [("examples", "Sample answers"), ("manifest", "Run manifest")]
    parts.append('<nav class="toc"><b>Contents</b><ol>' + "".join(
        f'<li><a href="#{anchor(s)}">{escape(title)}</a></li>' for s, title in toc)
        + "</ol></nav>")

    for section in order:
        name = section.name
        df = result.tables.get(name)
        parts.append(f'<h2 id="{anchor(name)}">{escape(section.title)}</h2>')
        if section.explain:
            parts.append(f"<p>{escape(section.explain)}</p>")
        lead = section.lead(result, st)
        if lead:
            parts.append(lead)
        best = section.highlight(df) if section.highlight and df is not None else ""
        parts.append(_notes(df))
        parts.append(section.page_table(tables[name]) if section.page_table
                     else _table_html(tables[name], section, best))
        for figure in section.figures:
            if figure.name in pngs:
                parts.append(_img(figure.name, figure.caption, pngs[figure.name]))
        parts.append(f'<p class="muted">Tables: tables/{escape(name)}.md | .tex | .csv</p>')
    parts.append(f'<h2 id="{anchor("examples")}">Sample answers</h2>')
    if examples.empty:
        parts.append("<p><em>No answers.</em></p>")
    else:
        rows = []
        for r in examples.itertuples(index=False):
            s3 = _s3_text(r.S3)
            bad = ' class="bad"' if s3 == "wrong" else ""
            rows.append(
                f"<tr><td><code>{escape(str(r.trace_id))}</code></td>"
                f"<td>{escape(str(r.model))}</td><td>{escape(str(r.condition))}</td>"
                f"<td{bad}>{escape(s3)}</td>"
                f'<td class="answer">{escape(str(r.answer))}</td>'
                f'<td class="why">{escape(str(getattr(r, "rationale", "") or ""))}</td></tr>')
        parts.append('<table class="answers"><tr><th>trace</th><th>model</th>'
                     "<th>condition</th><th>S3 (primary judge)</th><th>answer</th>"
                     "<th>why (primary judge)</th></tr>" + "".join(rows) + "</table>")
    parts.append(f'<h2 id="{anchor("manifest")}">Run manifest</h2>')
    parts.append(f"<details><summary>{len(runs)} run(s): configuration as recorded "
                 "(click to show)</summary><pre>"
                 + escape(json.dumps(list(runs), indent=2, default=str)) + "</pre></details>")
    parts.append("<p>All numbers: numbers.json (names documented in docs/numbers.md).</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
