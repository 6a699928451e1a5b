"""The integrity check on open is skipped only for a database exactly as a clean check or
agentprop's own writes left it (store/_sound.py): any change from outside is checked."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentprop.store import Workspace, _workspace
from agentprop.store._sound import MEMO_NAME
from agentprop.store._workspace import WorkspaceDamagedError
from tests.store.test_stored_stages import _traces


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The databases quick_check read, in order."""
    seen: list[Path] = []
    real = _workspace.integrity_problem

    def counted(conn: sqlite3.Connection) -> str | None:
        seen.append(Path(conn.execute("PRAGMA database_list").fetchone()[2]))
        return real(conn)

    monkeypatch.setattr(_workspace, "integrity_problem", counted)
    return seen


def _written(path: Path) -> Path:
    with Workspace(path) as ws:
        ws.put_traces(_traces())
    return path


def test_own_writes_and_a_clean_check_are_remembered(tmp_path: Path, checks: list[Path]
                                                     ) -> None:
    ws = _written(tmp_path / "ws")
    assert (ws / MEMO_NAME).exists()
    for _ in range(2):  # as the writer left it: nothing to check
        Workspace(ws).close()
    assert checks == []
    other = sqlite3.connect(ws / "agentprop.sqlite")  # a change agentprop did not make
    with other:
        other.execute("UPDATE traces SET seed = seed + 1")
    other.close()
    Workspace(ws).close()
    Workspace(ws).close()  # the clean check was remembered
    assert len(checks) == 1


def test_a_copy_is_checked(tmp_path: Path, checks: list[Path]) -> None:
    ws = _written(tmp_path / "ws")
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy)  # the memo comes along, but the file is another one
    Workspace(copy).close()
    assert [p.parent for p in checks] == [copy.resolve()]


def test_damage_after_a_clean_close_is_found(tmp_path: Path) -> None:
    ws = _written(tmp_path / "ws")
    db = ws / "agentprop.sqlite"
    data = bytearray(db.read_bytes())
    rng = random.Random(3)
    for page in (1, 2):
        data[page * 4096:(page + 1) * 4096] = rng.randbytes(4096)
    db.write_bytes(bytes(data))
    with pytest.raises(WorkspaceDamagedError):
        Workspace(ws)


def test_reading_leaves_the_memo_alone(tmp_path: Path) -> None:
    ws = _written(tmp_path / "ws")
    before = (ws / MEMO_NAME).stat().st_mtime_ns
    with Workspace(ws) as w:
        assert w.count_traces() == 12
    assert (ws / MEMO_NAME).stat().st_mtime_ns == before
