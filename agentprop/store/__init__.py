"""The SQLite workspace and its exports."""

from agentprop.store._export import CSV_COLUMNS, FORMATS, ExportError, export_traces, flat_row
from agentprop.store._workspace import (
    DB_NAME,
    SCHEMA_VERSION,
    VerdictRow,
    Workspace,
    WorkspaceDamagedError,
    WorkspaceError,
    damage_report,
    describe_database_error,
)
from agentprop.store._writer import BatchWriter, TraceWriter, VerdictWriter

__all__ = [
    "CSV_COLUMNS",
    "DB_NAME",
    "FORMATS",
    "SCHEMA_VERSION",
    "BatchWriter",
    "ExportError",
    "TraceWriter",
    "VerdictRow",
    "VerdictWriter",
    "Workspace",
    "WorkspaceDamagedError",
    "WorkspaceError",
    "damage_report",
    "describe_database_error",
    "export_traces",
    "flat_row",
]
