"""Hand-built stage tables for the analysis tests (columns of stages.stage_table)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agentprop.analysis.stages import STAGE_COLUMNS, with_outcomes

COLUMNS = list(STAGE_COLUMNS)


def row(model: str, task: str, *, cond: str = "p2:semantic_wrong", s1: Any = False,
        s2: Any = False, s3: Any = False, arm: str = "", abstained: bool = False,
        no_tool: Any = False, corrected: Any = False, opportunity: Any = True,
        domain: str = "weather", error: bool = False, seed: int = 0,
        trace_id: str | None = None, noticed: Any = False,
        kind: str | None = None, undelivered: bool = False) -> dict[str, Any]:
    et = cond.split(":", 1)[1] if cond.startswith("p2:") else None
    return {
        "trace_id": trace_id or f"{model}-{task}-{cond}-{arm}-{seed}", "run_id": "r",
        "model": model, "task_id": task, "domain": domain, "split": "test",
        "difficulty": "easy", "condition": cond, "error_type": et, "seed": seed, "arm": arm,
        "status": "error" if error else "ok", "simulated": model.startswith("sim/"),
        "opportunity": opportunity if cond != "baseline" else False, "no_tool_call": no_tool,
        "S1": s1, "S2": s2, "corrected": corrected, "S3": s3, "abstained": abstained,
        "error": error, "noticed": noticed, "undelivered_call": undelivered,
        "leaked_call": undelivered, "unknown_tool": False, "bad_arguments": False,
        "noticed_kind": kind if kind is not None else ("mention" if noticed else None),
    }


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in ("opportunity", "no_tool_call", "S1", "S2", "corrected", "noticed", "S3",
              "leaked_call", "unknown_tool", "bad_arguments", "undelivered_call"):
        df[c] = df[c].astype("boolean")
    for c in ("simulated", "abstained", "error"):
        df[c] = df[c].astype(bool)
    df["seed"] = df["seed"].astype("int64")
    df["error_type"] = df["error_type"].astype(object)
    return with_outcomes(df)
