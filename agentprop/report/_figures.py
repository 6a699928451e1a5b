"""Drawing the sections' figures (matplotlib, Agg backend), each saved as PNG and SVG, and
the small helpers the sections' figure functions share."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisResult
from agentprop.report._section import report_sections


def select(df: pd.DataFrame | None, metric: str, per_key: bool = True) -> pd.DataFrame:
    if df is None or df.empty:
        return pd.DataFrame(columns=["key", "value", "n", "ci_lo", "ci_hi"])
    sub = df[df["metric"] == metric]
    return sub[sub["key"] != ""] if per_key else sub


def wrap(name: str, width: int = 28) -> str:
    """Long judge/ensemble names broken over lines (at commas first) so no label is cut."""
    text = str(name).replace(",", ", ")
    lines = textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines) or str(name)


def error_bars(sub: pd.DataFrame) -> np.ndarray:
    v, lo, hi = (sub[c].to_numpy(dtype=float) for c in ("value", "ci_lo", "ci_hi"))
    lo = np.where(np.isnan(lo), v, lo)
    hi = np.where(np.isnan(hi), v, hi)
    return np.nan_to_num(np.vstack([v - lo, hi - v]))


def subplots(figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """A new figure and its axes (pyplot on the Agg backend, closed after saving)."""
    return plt.subplots(figsize=figsize)


def render_figures(res: AnalysisResult, out: Path,
                   label: Callable[[str], str]) -> dict[str, bytes]:
    """Write figures/NAME.png and .svg of every section's figures under `out`; return PNG
    bytes by name."""
    out.mkdir(parents=True, exist_ok=True)
    pngs: dict[str, bytes] = {}
    for figure in (f for s in report_sections() for f in s.figures):
        name = figure.name
        fig = figure.draw(res, label)
        if fig is None:
            continue
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        pngs[name] = buf.getvalue()
        (out / f"{name}.png").write_bytes(pngs[name])
        fig.savefig(out / f"{name}.svg", format="svg")
        plt.close(fig)
    return pngs
