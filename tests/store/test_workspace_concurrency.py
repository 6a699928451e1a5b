"""Several processes opening one new workspace at once (e.g. two `agentprop run` commands
started together) all succeed: creating the schema is race-free."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3

from agentprop.store import Workspace
from agentprop.store._workspace import DB_NAME, SCHEMA_VERSION


def _open(path: str, barrier: object, out: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    try:
        Workspace(path).close()
        out.put("")  # type: ignore[attr-defined]
    except Exception as e:  # reported to the parent
        out.put(repr(e))  # type: ignore[attr-defined]


def test_concurrent_creation_of_one_workspace(tmp_path):
    ctx = mp.get_context("fork")
    errors: list[str] = []
    for i in range(8):
        barrier, out = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_open, args=(str(tmp_path / f"w{i}"), barrier, out))
                 for _ in range(4)]
        for p in procs:
            p.start()
        errors += [e for e in (out.get(timeout=60) for _ in procs) if e]
        for p in procs:
            p.join(timeout=60)
    assert errors == []
    with Workspace(tmp_path / "w0", create=False) as ws:
        assert ws.get_meta("schema_version") == SCHEMA_VERSION


def test_open_while_another_process_is_creating_the_schema(tmp_path):
    # What a second process sees between the first one's CREATE TABLEs and its version row.
    (tmp_path / "w").mkdir()
    con = sqlite3.connect(tmp_path / "w" / DB_NAME)
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.commit()
    con.close()
    with Workspace(tmp_path / "w") as ws:
        assert ws.get_meta("schema_version") == SCHEMA_VERSION
        assert ws.count_traces() == 0
