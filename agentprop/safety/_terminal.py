"""Stored text shown in a terminal: control characters are escaped, never sent raw.

Model output, tool observations and annotator names are stored as given; an ESC in them
would let stored text drive the user's terminal (move the cursor, rewrite earlier lines,
set the window title, write to the clipboard). `term_safe` renders C0/C1 controls (except
newline and tab), DEL and the bidirectional overrides (which reorder what is shown) as
visible escapes such as ``\\x1b``. `has_control_chars` is the test names must pass.
"""

from __future__ import annotations

import re

# C0 controls but \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def term_safe(text: str) -> str:
    """`text` with control characters (not newline or tab) shown as escapes."""
    return _CONTROL.sub(_escape, text)


def has_control_chars(text: str) -> bool:
    """Whether `text` holds any control character, newline and tab included (names are
    one line)."""
    return _ANY_CONTROL.search(text) is not None
