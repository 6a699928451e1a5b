"""Tidy analysis tables → reader tables (key × metric `Cell`s: an `Estimate` and how its
metric reads), written as "value [lo, hi] (n=…)" text in md/tex and the terminal; the HTML
page lays out the same cells from their numbers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from agentprop.analysis import Estimate, below_floor
from agentprop.report._section import Section, get_section, report_sections
from agentprop.safety import markdown_cell

COUNT_METRICS = {"n", "n_S1", "n_S2", "n_pairs", "saved", "broken", "tp", "fp", "fn", "tn",
                 "n_labels", "n_error", "n_tasks", "n_no_stage_info", "n_undecided",
                 "false_alarms", "n_control_correct"}

CONSTANT_NOTE = "1 by construction: the runtime applies the corruption"


def constant_rates(info: Mapping[str, object]) -> set[str]:
    """The rates constant by construction in this workspace's own runs (see
    `analysis.constant_by_construction`): sections hide them."""
    return set(info.get("constant_by_construction") or [])  # type: ignore[call-overload]


def hidden_metrics(info: Mapping[str, object]) -> dict[str, set[str]]:
    """Per section, the metrics not shown (each section's `hidden`, e.g. those constant by
    construction in this workspace's own runs); they stay in numbers.json and the CSV."""
    return {s.name: hidden for s in report_sections() if (hidden := s.hidden(info))}


def constant_sentence(info: Mapping[str, object]) -> str:
    """The one sentence that says which rates are constant and why ("" if none)."""
    const = list(info.get("constant_by_construction") or [])  # type: ignore[call-overload]
    if not const:
        return ""
    names = ", ".join(const[:-1]) + (" and " if len(const) > 1 else "") + const[-1]
    extra = (" (so the paper's rejection = 1 − p_S1 is 0; here rejection is noticed)"
             if "p_S1" in const else "")
    return f"{names} are {CONSTANT_NOTE}{extra}; they are not shown, numbers.json keeps them."


P_METRICS = {"spearman_p", "spearman_p_ours", "mcnemar_p", "mcnemar_midp", "ztest_p"}

CellKind = Literal["estimate", "count", "p_value"]


def metric_kind(metric: str, section: Section | None = None) -> CellKind:
    """How a metric reads: a count, a p-value, or an estimate (value [CI] (n)); the shared
    names above, plus a section's own `counts` and `p_values`."""
    if metric in COUNT_METRICS or (section is not None and metric in section.counts):
        return "count"
    if metric in P_METRICS or (section is not None and metric in section.p_values):
        return "p_value"
    return "estimate"


def cell_parts(kind: CellKind, value: float, n: int, lo: float,
               hi: float) -> tuple[str, str, int | None]:
    """(value, "lo, hi" or "", n or None for a count): the one formatting of a number."""
    if kind == "count":
        return ("—" if math.isnan(value) else f"{int(value)}"), "", None
    if math.isnan(value):
        return "undefined", "", n
    if kind == "p_value":
        return (f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"), "", n
    ci = "" if math.isnan(lo) or math.isnan(hi) else f"{lo:.3f}, {hi:.3f}"
    return f"{value:.3f}", ci, n


def n_text(n: int | None, value: str = "") -> str:
    """ "n=12", or "n=3, too few" when a defined estimate rests on fewer units than the
    small-sample floor (`analysis.SMALL_N`, stated once on the page): a headline number
    over one trace reads as what it is."""
    if n is None:
        return ""
    few = below_floor(n) and value not in ("", "undefined")
    return f"n={n}, too few" if few else f"n={n}"


def _text(parts: tuple[str, str, int | None]) -> str:
    v, ci, count = parts
    return v + (f" [{ci}]" if ci else "") + (f" ({n_text(count, v)})" if count is not None
                                             else "")


def fmt_cell(metric: str, value: float, n: int, lo: float, hi: float) -> str:
    """One number as a reader sees it; undefined values say so, with their n."""
    return _text(cell_parts(metric_kind(metric), value, n, lo, hi))


@dataclass(frozen=True)
class Cell:
    """One shown estimate of a reader table: the page lays it out from these numbers, the
    text tables print `str(cell)`."""

    est: Estimate
    kind: CellKind = "estimate"

    @property
    def parts(self) -> tuple[str, str, int | None]:
        e = self.est
        return cell_parts(self.kind, e.value, e.n, e.lo, e.hi)

    @property
    def is_count(self) -> bool:
        return self.kind == "count"

    @property
    def filled(self) -> bool:
        """False for a count without a value ("—")."""
        return not (self.is_count and math.isnan(self.est.value))

    @property
    def no_data(self) -> bool:
        """Nothing measured: an empty count, or an estimate undefined with n = 0."""
        return not self.filled or (not self.is_count and math.isnan(self.est.value)
                                   and self.est.n == 0)

    def __str__(self) -> str:
        return _text(self.parts)


def cell_text(cell: Cell | None) -> str:
    return "" if cell is None else str(cell)


def display_table(df: pd.DataFrame, section: str, *,
                  labels: dict[str, str] | None = None,
                  hidden: set[str] | None = None) -> pd.DataFrame:
    """key × metric `Cell`s (None where a key lacks the metric) of one section, in the
    section's `columns` (empty frame if nothing to show); `hidden` metrics are left out (see
    `hidden_metrics`)."""
    if df is None or df.empty:
        return pd.DataFrame()
    section_def = get_section(section)
    shown = list(section_def.columns) if section_def and section_def.columns else \
        sorted(df["metric"].unique())
    metrics = [m for m in shown if m in set(df["metric"]) and m not in (hidden or set())]
    sub = df[df["metric"].isin(metrics)]
    keys = list(dict.fromkeys(sub["key"]))
    rows = [(labels or {}).get(k, k) or "pooled" for k in keys]
    cells: dict[tuple[str, str], Cell] = {}
    for r in sub.to_dict("records"):
        k = str(r["key"])
        metric = str(r["metric"])
        cells[((labels or {}).get(k, k) or "pooled", metric)] = Cell(
            Estimate(float(r["value"]), int(r["n"]), float(r["ci_lo"]), float(r["ci_hi"])),
            metric_kind(metric, section_def))
    out = pd.DataFrame([[cells.get((label, m)) for m in metrics] for label in rows],
                       index=rows, columns=metrics, dtype=object)
    out.index.name = "key"
    return out


def to_markdown(t: pd.DataFrame) -> str:
    """A Markdown table. Names (keys, headers, a reader's text cells) are escaped by
    `safety.markdown_cell`: a model or agent name holding ``<script>``, a link or ESC reads
    as typed; the formatted numbers are ours."""
    if t.empty:
        return "_no data_\n"
    cols = [str(t.index.name or ""), *map(str, t.columns)]
    lines = ["| " + " | ".join(markdown_cell(c) for c in cols) + " |",
             "|" + "---|" * len(cols)]
    for idx, r in t.iterrows():
        cells = [markdown_cell(str(idx)),
                 *(cell_text(v).replace("|", "\\|") if isinstance(v, Cell) or v is None
                   else markdown_cell(str(v)) for v in r.tolist())]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
        "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(c, c) for c in s)


def to_latex(t: pd.DataFrame, caption: str) -> str:
    """A booktabs table (needs \\usepackage{booktabs})."""
    if t.empty:
        return f"% {tex_escape(caption)}: no data\n"
    cols: Sequence[str] = [str(t.index.name or ""), *map(str, t.columns)]
    out = ["\\begin{table}[t]", "\\centering", "\\small",
           f"\\caption{{{tex_escape(caption)}}}",
           "\\begin{tabular}{l" + "r" * len(t.columns) + "}", "\\toprule",
           " & ".join(tex_escape(c) for c in cols) + " \\\\", "\\midrule"]
    for idx, r in t.iterrows():
        out.append(" & ".join(tex_escape(c) for c in [str(idx), *map(cell_text, r.tolist())])
                   + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(out) + "\n"
