"""Importers/exporters for other formats: the paper's released CSVs in, Inspect AI logs out
(`_inspect.py`, which imports inspect_ai only when an export runs)."""

from agentprop.interop._agenthallu import (
    ImportResult,
    ReleaseFormatError,
    import_agenthallu,
    infer_domain,
    read_release,
)
from agentprop.interop._inspect import InspectLog, export_inspect

__all__ = [
    "ImportResult",
    "InspectLog",
    "ReleaseFormatError",
    "export_inspect",
    "import_agenthallu",
    "infer_domain",
    "read_release",
]
