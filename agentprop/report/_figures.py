"""Drawing the sections' figures (matplotlib, Agg backend), each saved as PNG and SVG, and
the small helpers the sections' figure functions share."""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Callable, Sequence
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


def error_bars_within(sub: pd.DataFrame, bottom: np.ndarray | float = 0.0,
                      top: float = 1.0) -> np.ndarray:
    """`error_bars` for bars drawn from `bottom` (a stacked segment), cut to end inside
    [0, `top`]: a share's interval never reaches past the whole it is part of."""
    v = np.nan_to_num(sub["value"].to_numpy(dtype=float))
    err = error_bars(sub)
    base = bottom + v
    lower = np.minimum(err[0], np.maximum(base, 0.0))
    upper = np.minimum(err[1], np.maximum(top - base, 0.0))
    return np.vstack([lower, upper])


def mark_bars(ax: Any, x: Sequence[float], values: Sequence[float], width: float,
              color: str) -> None:
    """Make the bars no one would see visible: a value of exactly 0 gets a thick line
    at the base and a "0", an undefined one (NaN) "n/a", each over its bar's place."""
    for xi, v in zip(x, values, strict=True):
        if v == 0 or (isinstance(v, float) and math.isnan(v)):
            if v == 0:
                ax.plot([xi - width / 2, xi + width / 2], [0, 0], color=color, lw=3,
                        solid_capstyle="butt", clip_on=False, zorder=3)
            ax.annotate("0" if v == 0 else "n/a", (xi, 0), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=7,
                        color="#333", zorder=4,
                        bbox={"boxstyle": "square,pad=0.15", "fc": "white", "ec": "none"})


def subplots(figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """A new figure and its axes (pyplot on the Agg backend, closed after saving)."""
    return plt.subplots(figsize=figsize)


def panels(n: int, panel: tuple[float, float], per_row: int = 3
           ) -> tuple[Figure, list[Any]]:
    """A figure of `n` panels of size `panel` (inches), at most `per_row` to a row, all
    sharing the y axis (one per model: no panel's labels crowd another's, and the page
    does not shrink a long row of them to illegible type). Unused cells are hidden."""
    cols = max(1, min(per_row, n))
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(panel[0] * cols + 1.2, panel[1] * rows),
                             sharey=True, squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


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
