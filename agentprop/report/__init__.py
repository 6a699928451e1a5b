"""The report: tables (md/tex/csv), figures (png/svg), one self-contained HTML page and the
numbers manifest, written atomically to a workspace's report/ folder."""

from agentprop.report._build import build_report, model_labels, pick_examples
from agentprop.report._tables import (
    constant_sentence,
    display_table,
    fmt_cell,
    hidden_metrics,
    to_latex,
    to_markdown,
)

__all__ = [
    "build_report",
    "constant_sentence",
    "display_table",
    "fmt_cell",
    "hidden_metrics",
    "model_labels",
    "pick_examples",
    "to_latex",
    "to_markdown",
]
