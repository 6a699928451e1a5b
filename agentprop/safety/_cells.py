"""Cells of exported tables: CSV cells that a spreadsheet would run as a formula, and
Markdown cells that a renderer would run as HTML or a link.

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as
a formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)``, DDE payloads).
Model answers and annotator notes are untrusted text, so every CSV export passes its
text cells through `neutralise_cell`, which prefixes a single quote as OWASP recommends
(the spreadsheet then shows the text as typed). `restore_cell` undoes it on import, so an
exported label file imports back unchanged. JSONL and Parquet exports stay exact.

A Markdown table cell is rendered by GitHub, editors and static-site tools, most of which
pass raw HTML through: `markdown_cell` escapes HTML (``<script>``), Markdown's own
syntax (links, emphasis, code, the cell separator) and shows control characters (ESC,
bidirectional overrides) as visible escapes, so a name reads as typed.
"""

from __future__ import annotations

import html
import re
from typing import Any

from agentprop.safety._terminal import term_safe

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


_MD_SPECIAL = re.compile(r"([\\`|])")
_MD_LINK = re.compile(r"\]([(\[])")


def markdown_cell(text: str) -> str:
    """`text` safe as one Markdown table cell: control characters shown as escapes, HTML
    escaped (``<script>``, autolinks), a link's ``](`` or ``][`` broken, backslashes,
    backticks and the cell separator escaped, line breaks as spaces. Other characters
    (``_``, ``[0.4, 0.6]``) stay as they are: in a cell they do no harm."""
    text = term_safe(" ".join(str(text).splitlines()))
    text = _MD_LINK.sub(r"]\\\1", _MD_SPECIAL.sub(r"\\\1", text))
    return html.escape(text, quote=False)
