"""A report section as one unit: what it computes, and how it is titled, explained, shown and
drawn.

Each module in agentprop/report/sections/ makes one `Section` and `register`s it; the
analysis (`analyze`), numbers.json, the tables, the figures, the HTML page and `agentprop
analyze` all read the registry, so adding a section is adding one module there (a plugin may
register one too). The page reads the sections in `order`; numbers.json lists them that way.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import N_RESAMPLES, SEED, AnalysisInput, AnalysisResult, run_sections
from agentprop.analysis import SectionCompute as SectionCompute
from agentprop.core import Registry

Draw = Callable[[AnalysisResult, Callable[[str], str]], Figure | None]
"""A figure from the analysis result and the row-key labeller (None: nothing to draw)."""


@dataclass(frozen=True)
class SectionFigure:
    """One figure of a section, saved as figures/<name>.png and .svg."""

    name: str
    caption: str
    draw: Draw


def no_hidden(info: Mapping[str, Any]) -> set[str]:
    return set()


def no_lead(result: AnalysisResult, stages: pd.DataFrame) -> str:
    return ""


def no_fact(result: AnalysisResult) -> str:
    return ""


def no_judge_note(result: AnalysisResult, judge: str) -> str:
    return ""


def anchor(name: str) -> str:
    """The page's anchor of a section (or of another part of the page)."""
    return "sec-" + re.sub(r"[^a-z0-9_-]", "-", name.lower())


@dataclass(frozen=True)
class Section:
    """Everything about one section; only `name`, `title`, `compute` and `order` are needed."""

    name: str
    """The section's name in numbers.json (`name.metric[key]`) and tables/<name>.*."""
    title: str
    compute: SectionCompute
    """The analysis (a pure function of `analysis.AnalysisContext`): a tidy table, or None
    when the section does not apply to this input."""
    order: int
    """Position in the page's reading order (and in numbers.json): the headline propagation
    numbers (10–60), how far to trust the judge (70–80), the interceptor (90–110),
    replication (120); the simulation check (900) and the judge validity (910), measured
    outside this workspace's analysis, follow every section."""
    explain: str = ""
    """What the numbers mean, shown under the title."""
    columns: tuple[str, ...] = ()
    """The metrics shown, in this order (the others stay in the CSV); () shows them all."""
    counts: tuple[str, ...] = ()
    """Metrics shown as whole numbers, besides the shared ones (`_tables.COUNT_METRICS`)."""
    p_values: tuple[str, ...] = ()
    """Metrics shown as p-values, besides the shared ones (`_tables.P_METRICS`)."""
    key_columns: tuple[str, ...] = ("model",)
    """The row key split into these columns on the page, at `key_separator`."""
    key_separator: str = ""
    key_first: int = 0
    """The key part shown first (rows are grouped by it)."""
    groups: tuple[tuple[str, ...], ...] = ()
    """Column groups of a wide table, one page table each (the rest in chunks after them)."""
    figures: tuple[SectionFigure, ...] = ()
    hidden: Callable[[Mapping[str, Any]], set[str]] = no_hidden
    """Metrics not shown given the result's info (they stay in numbers.json and the CSV)."""
    lead: Callable[[AnalysisResult, pd.DataFrame], str] = no_lead
    """HTML (escaped) shown after the explanation, from the result and the stage table."""
    highlight: Callable[[pd.DataFrame], str] | None = None
    """The key of the row the page highlights, from the section's tidy table."""
    page_hide: tuple[str, ...] = ()
    """Metrics the page leaves out of its grid because its lead states them."""
    page_pooled: bool = True
    """False: the page leaves the pooled row out (its lead states it)."""
    reader: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    """The reader table (md, tex, the page) from the tidy table, for a section whose rows
    are not key × metric estimates (the simulation check: true value, estimate, covered);
    None: the key × metric `Cell`s of `_tables.display_table`."""
    page_table: Callable[[pd.DataFrame], str] | None = None
    """HTML (escaped) of the page's table, from the `reader` table; None: the page lays out
    the key × metric cells."""
    page: bool = True
    """False: the page has no part of its own for the section (its numbers are stated in the
    page's text, through `fact` or `judge_note`); numbers.json and tables/ keep it."""
    fact: Callable[[AnalysisResult], str] = no_fact
    """HTML (escaped): a line of the page's list of facts about the input ("" for none)."""
    judge_note: Callable[[AnalysisResult, str], str] = no_judge_note
    """HTML (escaped) stated after a judge's name where the page names the primary or the
    reference judge ("" for none)."""


SECTIONS: Registry[Section] = Registry("report section")


def register(section: Section) -> Section:
    """Add a section to the report (at import of its module)."""
    return SECTIONS.register(section.name)(section)


def report_sections() -> list[Section]:
    """Every section in reading order: the built-in modules', then plugins'."""
    _load_builtin()
    return sorted((SECTIONS.get(n) for n in SECTIONS), key=lambda s: (s.order, s.name))


def get_section(name: str) -> Section | None:
    _load_builtin()
    return SECTIONS.get(name) if name in SECTIONS else None


def title_of(name: str) -> str:
    section = get_section(name)
    return section.title if section else name


def analyze(inp: AnalysisInput, *, n_resamples: int = N_RESAMPLES,
            seed: int = SEED) -> AnalysisResult:
    """Every section's analysis on one input (each with its own Generator seeded `seed`)."""
    return run_sections(inp, {s.name: s.compute for s in report_sections()},
                        n_resamples=n_resamples, seed=seed)


def _load_builtin() -> None:
    # Importing a module of report/sections/ registers its section; every module there is
    # one, so a new file is found without a list to update.
    package = importlib.import_module("agentprop.report.sections")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    from agentprop.plugins import load_plugins

    load_plugins()  # installed plugin packages register theirs (agentprop/plugins.py)
