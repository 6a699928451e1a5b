"""Write the report folder atomically: build in a temp folder, then swap it in."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from agentprop.analysis import AnalysisResult, numbers_manifest
from agentprop.report._figures import render_figures
from agentprop.report._html import render_html
from agentprop.report._section import report_sections
from agentprop.report._tables import display_table, hidden_metrics, to_latex, to_markdown
from agentprop.safety import neutralise_cell, term_safe

N_EXAMPLES = 30
SETTINGS = "analysis.json"
"""How the report's numbers were computed ({"n_resamples", "seed"}, and "noticed": the LLM
classifier whose stored readings gave `noticed`, when one did), so `agentprop verify`
recomputes them with the same settings."""


def numbers_json(manifest: Mapping[str, Any]) -> str:
    """numbers.json's text: the one serialisation the report and `agentprop verify` share
    (verify compares bytes)."""
    return json.dumps(manifest, indent=2, allow_nan=False)


def model_labels(result: AnalysisResult, keys: Sequence[str]) -> dict[str, str]:
    """Model keys marked "(simulated)" where the model is a simulation.

    The mark goes right after the model name ("sim/x (simulated)|error_type"), so a reader
    of a per-type row sees it next to the model and not after the error type.
    """
    sims = set(result.info.get("simulated_models") or [])
    out = {}
    for k in keys:
        first, sep, rest = str(k).partition("|")
        model = first.split("@", 1)[0]  # an interceptor evaluation key: model@run
        out[k] = f"{first} (simulated){sep}{rest}" if model in sims else str(k)
    return out


def pick_examples(stages: pd.DataFrame, n: int = N_EXAMPLES) -> pd.DataFrame:
    """A few answers per model (first traces in order) for the reader to look at."""
    cols = ["trace_id", "model", "condition", "S3", "answer"]
    if stages.empty or "answer" not in stages:
        return pd.DataFrame(columns=cols)
    per = max(1, n // max(1, stages["model"].nunique()))
    return stages.groupby("model", sort=True).head(per)[cols].head(n)


def build_report(
    result: AnalysisResult,
    out_dir: str | Path,
    *,
    stages: pd.DataFrame | None = None,
    runs: Sequence[Mapping[str, Any]] = (),
    rationales: Mapping[str, str] | None = None,
) -> Path:
    """Write out_dir/{index.html, numbers.json, figures/, tables/} and return index.html.

    The folder is built next to `out_dir` and renamed into place, so a reader never sees a
    half-written report and a failure leaves the previous one intact.
    """
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".report-", dir=out.parent))
    try:
        keys = [k for df in result.tables.values() if not df.empty for k in df["key"].unique()]
        labels = model_labels(result, keys)

        def label(k: str) -> str:  # a name's control characters drawn as escapes
            return term_safe(labels.get(k, k))

        pngs = render_figures(result, tmp / "figures", label)
        (tmp / "tables").mkdir()
        shown: dict[str, pd.DataFrame] = {}
        hidden = hidden_metrics(result.info)
        for section in report_sections():
            name = section.name
            df = result.tables.get(name)
            if df is None:
                continue
            t = section.reader(df) if section.reader else \
                display_table(df, name, labels=labels, hidden=hidden.get(name))
            shown[name] = t
            _write_csv(df, tmp / "tables" / f"{name}.csv")
            (tmp / "tables" / f"{name}.md").write_text(
                f"## {section.title}\n\n" + to_markdown(t), encoding="utf-8")
            (tmp / "tables" / f"{name}.tex").write_text(to_latex(t, section.title),
                                                         encoding="utf-8")
        manifest = numbers_manifest(result)
        (tmp / "numbers.json").write_text(numbers_json(manifest), encoding="utf-8")
        settings = {k: result.info.get(k) for k in ("n_resamples", "seed")}
        if result.info.get("noticed_classifier"):  # verify reads the same readings
            settings["noticed"] = result.info["noticed_classifier"]
        (tmp / SETTINGS).write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        st = stages if stages is not None else pd.DataFrame()
        examples = pick_examples(st)
        examples = examples.assign(rationale=[(rationales or {}).get(t, "")
                                              for t in examples["trace_id"]])
        html = render_html(result, shown, pngs, runs=runs, examples=examples, stages=st)
        (tmp / "index.html").write_text(html, encoding="utf-8")
        old = None
        if out.exists():
            old = out.with_name(out.name + ".old")
            if old.exists():
                shutil.rmtree(old)
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out / "index.html"


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    """A table as CSV with its text cells neutralised (`agentprop.safety.neutralise_cell`):
    model, agent and condition names are the user's text, and a spreadsheet would run one
    that starts like a formula. Numbers are written as they are."""
    text = df.select_dtypes(include=["object", "string"]).columns
    safe = df.copy()
    for col in text:
        safe[col] = safe[col].map(neutralise_cell)
    safe.to_csv(path, index=False)
