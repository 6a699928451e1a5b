"""Importers/exporters for other formats: the paper's released CSVs first."""

from agentprop.interop._agenthallu import (
    ImportResult,
    ReleaseFormatError,
    import_agenthallu,
    infer_domain,
    read_release,
)

__all__ = [
    "ImportResult",
    "ReleaseFormatError",
    "import_agenthallu",
    "infer_domain",
    "read_release",
]
