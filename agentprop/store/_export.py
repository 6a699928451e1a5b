"""Exports of a workspace's traces: JSONL (lossless), CSV (flat), Parquet (flat + full JSON).

CSV text cells that a spreadsheet would run as a formula (leading ``=``, ``+``, ``-``,
``@``, tab, carriage return) get a leading ``'`` (`agentprop.safety.neutralise_cell`);
JSONL and Parquet keep every value exact.

Every export is written to a temporary file beside the target and renamed into place, so
an interrupted export never leaves a truncated file under the requested name.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from agentprop.safety import neutralise_cell
from agentprop.store._workspace import Workspace, WorkspaceError, _where

ExportFormat = Literal["jsonl", "csv", "parquet"]
FORMATS: tuple[str, ...] = ("jsonl", "csv", "parquet")

CSV_COLUMNS = [
    "id",
    "run_id",
    "model",
    "task_id",
    "domain",
    "split",
    "difficulty",
    "condition",
    "seed",
    "arm",
    "status",
    "simulated",
    "final_answer",
    "abstained",
    "n_tool_calls",
    "n_model_calls",
    "input_tokens",
    "output_tokens",
    "cost",
    "started_at",
    "ended_at",
]


class ExportError(WorkspaceError):
    """An export that cannot be written (bad format, missing folder, missing pyarrow)."""


def _raw_traces(ws: Workspace, filters: dict[str, Any]) -> Iterator[str]:
    where, params = _where(filters)
    cur = ws.conn.execute(f"SELECT data FROM traces{where} ORDER BY rowid", params)
    for (data,) in cur:
        yield data


def flat_row(data: dict[str, Any]) -> dict[str, Any]:
    """The flat columns of one trace (as stored JSON), computed without revalidation."""
    final = None
    n_tools = n_calls = tin = tout = 0
    cost = 0.0
    for ev in data.get("events", []):
        kind = ev.get("type")
        if kind == "final":
            final = ev
        elif kind == "tool_call":
            n_tools += 1
        elif kind == "model_call":
            n_calls += 1
            out = ev.get("output") or {}
            usage = out.get("usage") or {}
            tin += int(usage.get("input_tokens") or 0)
            tout += int(usage.get("output_tokens") or 0)
            cost += float(out.get("cost") or 0.0)
    row = {c: data.get(c) for c in CSV_COLUMNS[:12]}
    row.update(
        final_answer=final.get("answer") if final else None,
        abstained=bool(final.get("abstained")) if final else False,
        n_tool_calls=n_tools,
        n_model_calls=n_calls,
        input_tokens=tin,
        output_tokens=tout,
        cost=round(cost, 8),
        started_at=data.get("started_at"),
        ended_at=data.get("ended_at"),
    )
    return row


def export_traces(workspace: Workspace, fmt: str, out: str | Path, **filters: Any) -> int:
    """Write the workspace's traces (optionally filtered by column) to `out`; returns the
    number written. jsonl: one full trace per line; csv: flat columns; parquet: flat
    columns plus the full trace JSON in `data`."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (use one of: {', '.join(FORMATS)})")
    out = Path(out)
    if not out.parent.is_dir():
        raise ExportError(f"output folder {out.parent} does not exist")
    if out.is_dir():
        raise ExportError(f"output path {out} is a folder")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ExportError(
                "parquet export needs pyarrow: pip install 'agentprop[parquet]'"
            ) from None
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if fmt == "jsonl":
            n = _write_jsonl(workspace, filters, tmp)
        elif fmt == "csv":
            n = _write_csv(workspace, filters, tmp)
        else:
            n = _write_parquet(workspace, filters, tmp)
        os.replace(tmp, out)
    except OSError as e:
        raise ExportError(f"cannot write {out}: {e.strerror or e}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return n


def _write_jsonl(ws: Workspace, filters: dict[str, Any], path: Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for data in _raw_traces(ws, filters):
            f.write(data)
            f.write("\n")
            n += 1
    return n


def _write_csv(ws: Workspace, filters: dict[str, Any], path: Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for data in _raw_traces(ws, filters):
            w.writerow({k: neutralise_cell(v) for k, v in flat_row(json.loads(data)).items()})
            n += 1
    return n


def _write_parquet(ws: Workspace, filters: dict[str, Any], path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {
        "seed": pa.int64(),
        "simulated": pa.bool_(),
        "abstained": pa.bool_(),
        "n_tool_calls": pa.int64(),
        "n_model_calls": pa.int64(),
        "input_tokens": pa.int64(),
        "output_tokens": pa.int64(),
        "cost": pa.float64(),
    }
    schema = pa.schema(
        [pa.field(c, types.get(c, pa.string())) for c in CSV_COLUMNS]
        + [pa.field("data", pa.string())]
    )
    n = 0
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict[str, Any]] = []
        for data in _raw_traces(ws, filters):
            row = flat_row(json.loads(data))
            row["simulated"] = bool(row["simulated"])
            row["data"] = data
            batch.append(row)
            if len(batch) >= 1000:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                n += len(batch)
                batch = []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            n += len(batch)
    return n
