"""Spreadsheet formula injection: CSV cells that a spreadsheet would run as a formula.

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as
a formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)``, DDE payloads).
Model answers and annotator notes are untrusted text, so every CSV export passes its
text cells through `neutralise_cell`, which prefixes a single quote as OWASP recommends
(the spreadsheet then shows the text as typed). `restore_cell` undoes it on import, so an
exported label file imports back unchanged. JSONL and Parquet exports stay exact.
"""

from __future__ import annotations

from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: Any) -> Any:
    """`value` safe for a CSV cell: text that would start a formula gets a leading ``'``;
    numbers, booleans and None are returned as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def restore_cell(value: str) -> str:
    """The inverse of `neutralise_cell` for a cell read back from an export."""
    if value.startswith("'") and value[1:].startswith(FORMULA_PREFIXES):
        return value[1:]
    return value
