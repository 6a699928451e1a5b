"""Names in narrow places (a table column, a figure's tick label): broken at their own
separators instead of cut, so a model, judge or condition name is always read whole."""

from __future__ import annotations

import re

_AFTER_SEPARATOR = re.compile(r"(?<=[/:_,|.\- ])")


def stack(name: str, width: int) -> str:
    """`name` over lines of at most `width` characters, broken after its separators
    (`/ : _ , | - .` and spaces) and only where needed: a column header or a cell of a
    narrow column then shows the whole name (`p2:missing_` / `required`) where rich would
    cut it (`p2:missing_r…`). A part longer than `width` keeps a line of its own."""
    lines: list[str] = []
    line = ""
    for part in _AFTER_SEPARATOR.split(name):
        if line and len(line) + len(part.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
    lines.append(line.rstrip())
    return "\n".join(ln for ln in lines if ln)


__all__ = ["stack"]
