"""Which state of a workspace's database is known to be sound, so that opening it again
does not read the whole file: SQLite's quick_check is linear in the file (≈ 12 s for a
million traces, 3.4 GB; bench/README.md), and every command ran it on open.

A state is the database file's and its WAL's identity, size and times (ctime included,
which no tool can set back). It is remembered in a file beside the database when a
writable workspace is closed after a clean check on open or after writing through it
(SQLite's own writes leave a sound file). The next open skips the check only if the state
is exactly the same, so any change from outside (a copy, a crash's leftover WAL, a stray
write, a restored backup) is checked again. What it cannot see is damage that changes
none of these (a disk failing under an unchanged file): SQLite reports that when it reads
the damaged page, and the command stops with one line naming the damaged workspace.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path

MEMO_NAME = ".agentprop-sound"


def file_state(db: Path) -> list[int] | None:
    """The database's and its WAL's device, inode, size, mtime and ctime (ns); None when
    the database cannot be read."""
    out: list[int] = []
    for path in (db, db.with_name(db.name + "-wal")):
        try:
            s = path.stat()
        except FileNotFoundError:
            if path == db:
                return None
            continue
        except OSError:
            return None
        out += [s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns]
    return out


def known_sound(db: Path) -> bool:
    """Whether the database is in the state last remembered as sound."""
    state = file_state(db)
    try:
        memo = json.loads((db.parent / MEMO_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return state is not None and memo == {"state": state}


def remember_sound(db: Path, state: list[int] | None = None) -> None:
    """Remember `state` (default: the current one) as sound. Best effort: a folder the
    user may not write keeps checking on every open."""
    state = file_state(db) if state is None else state
    if state is None:
        return
    memo = db.parent / MEMO_NAME
    text = json.dumps({"state": state})
    with contextlib.suppress(OSError):
        if memo.read_text(encoding="utf-8") == text:
            return
    # one temporary file per thread: a run's writer thread closes its own connection
    tmp = memo.with_name(f"{MEMO_NAME}.{os.getpid()}.{threading.get_ident()}.tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, memo)
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)
