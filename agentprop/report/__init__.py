"""The report: its sections (report/sections/, one module each, registered in `SECTIONS`),
their analysis (`analyze`), tables (md/tex/csv), figures (png/svg), one self-contained HTML
page and the numbers manifest, written atomically to a workspace's report/ folder."""

from agentprop.report._build import (
    SETTINGS,
    build_report,
    model_labels,
    numbers_json,
    pick_examples,
)
from agentprop.report._section import (
    SECTIONS,
    Section,
    SectionFigure,
    analyze,
    get_section,
    register,
    report_sections,
    title_of,
)
from agentprop.report._tables import (
    Cell,
    constant_sentence,
    display_table,
    fmt_cell,
    hidden_metrics,
    to_latex,
    to_markdown,
)

__all__ = [
    "SECTIONS",
    "SETTINGS",
    "Cell",
    "Section",
    "SectionFigure",
    "analyze",
    "build_report",
    "constant_sentence",
    "display_table",
    "fmt_cell",
    "get_section",
    "hidden_metrics",
    "model_labels",
    "numbers_json",
    "pick_examples",
    "register",
    "report_sections",
    "title_of",
    "to_latex",
    "to_markdown",
]
