"""The SQLite workspace: runs, immutable traces, verdicts, labels, response cache."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentprop.core import Label, RunSpec, Trace, Verdict, VerdictRow

SCHEMA_VERSION = 1
DB_NAME = "agentprop.sqlite"

"""A verdict without its payload: (trace_id, judge, correct, ensemble members' votes)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, created_at TEXT, manifest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS traces (
    id TEXT PRIMARY KEY, run_id TEXT NOT NULL, model TEXT NOT NULL, task_id TEXT NOT NULL,
    domain TEXT, split TEXT, difficulty TEXT, condition TEXT NOT NULL, seed INTEGER NOT NULL,
    arm TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, simulated INTEGER NOT NULL,
    started_at TEXT, ended_at TEXT, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_run ON traces(run_id, model, condition);
CREATE TABLE IF NOT EXISTS verdicts (
    trace_id TEXT NOT NULL, judge TEXT NOT NULL, correct INTEGER, data TEXT NOT NULL,
    PRIMARY KEY (trace_id, judge)
);
CREATE TABLE IF NOT EXISTS labels (
    trace_id TEXT NOT NULL, annotator TEXT NOT NULL, label TEXT NOT NULL, time TEXT,
    note TEXT NOT NULL DEFAULT '', PRIMARY KEY (trace_id, annotator)
);
CREATE TABLE IF NOT EXISTS label_sample (
    trace_id TEXT PRIMARY KEY, position INTEGER NOT NULL, stratum TEXT NOT NULL,
    overlap INTEGER NOT NULL DEFAULT 0, annotators TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _set_wal(conn: sqlite3.Connection, attempts: int = 100) -> None:
    """Switch to WAL. SQLite does not call the busy handler for this pragma, so processes
    opening a new workspace at the same moment get "database is locked": wait and retry."""
    for attempt in range(attempts):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


class WorkspaceError(Exception):
    """A workspace that cannot be opened or used; the message is one line for the user."""


class Workspace:
    """A workspace folder holding one SQLite database (WAL) and a `report/` folder.

    Traces are written once (`put_traces` ignores ids already stored, so a resumed run
    never duplicates). One connection per Workspace object; open one per thread.
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.db_path = self.path / DB_NAME
        if self.path.exists() and not self.path.is_dir():
            raise WorkspaceError(f"workspace path {self.path} exists and is not a folder")
        if not self.db_path.exists():
            if not create:
                raise WorkspaceError(f"no workspace at {self.path} (no {DB_NAME})")
            try:
                self.path.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise WorkspaceError(f"cannot create workspace {self.path}: {e.strerror}") from None
        try:
            self.conn = sqlite3.connect(self.db_path, timeout=30.0, check_same_thread=False)
            _set_wal(self.conn)
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._init_schema()
        except sqlite3.DatabaseError as e:
            raise WorkspaceError(f"cannot open workspace database {self.db_path}: {e}") from None

    def _init_schema(self) -> None:
        cur = self.conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'")
        # Another process may be creating this workspace right now: CREATE IF NOT EXISTS and
        # INSERT OR IGNORE make creating it twice harmless, and a meta table without a
        # version row is one whose creation has not finished yet.
        if cur.fetchone() is None or self.get_meta("schema_version") is None:
            self.conn.executescript(_SCHEMA)
            with self.conn:
                self.conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (json.dumps(SCHEMA_VERSION),),
                )
        version = self.get_meta("schema_version")
        if version != SCHEMA_VERSION:
            raise WorkspaceError(
                f"workspace {self.path} has schema version {version}, this agentprop "
                f"needs {SCHEMA_VERSION}; use a new workspace or a matching agentprop version"
            )

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def report_dir(self) -> Path:
        return self.path / "report"

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All-or-nothing writes."""
        with self.conn:
            yield self.conn

    # -- meta -----------------------------------------------------------------------------
    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value: Any) -> None:
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    # -- runs -----------------------------------------------------------------------------
    def put_run(self, run: RunSpec) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?)",
                (run.id, run.created_at.isoformat(), run.model_dump_json()),
            )

    def get_run(self, run_id: str) -> RunSpec | None:
        row = self.conn.execute("SELECT manifest FROM runs WHERE id=?", (run_id,)).fetchone()
        return RunSpec.model_validate_json(row[0]) if row else None

    def runs(self) -> list[RunSpec]:
        rows = self.conn.execute("SELECT manifest FROM runs ORDER BY created_at").fetchall()
        return [RunSpec.model_validate_json(r[0]) for r in rows]

    # -- traces ---------------------------------------------------------------------------
    def put_traces(self, traces: Sequence[Trace]) -> int:
        """Store traces in one transaction; ids already stored are left as they are."""
        rows = [
            (
                t.id,
                t.run_id,
                t.model,
                t.task_id,
                t.domain,
                t.split,
                t.difficulty,
                t.condition,
                t.seed,
                t.arm,
                t.status,
                int(t.simulated),
                t.started_at.isoformat(),
                t.ended_at.isoformat() if t.ended_at else None,
                t.model_dump_json(),
            )
            for t in traces
        ]
        with self.conn:
            cur = self.conn.executemany(
                "INSERT OR IGNORE INTO traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows
            )
        return cur.rowcount

    def trace_ids(self, run_id: str | None = None) -> set[str]:
        if run_id is None:
            rows = self.conn.execute("SELECT id FROM traces").fetchall()
        else:
            rows = self.conn.execute("SELECT id FROM traces WHERE run_id=?", (run_id,)).fetchall()
        return {r[0] for r in rows}

    def get_trace(self, trace_id: str) -> Trace | None:
        row = self.conn.execute("SELECT data FROM traces WHERE id=?", (trace_id,)).fetchone()
        return Trace.model_validate_json(row[0]) if row else None

    def count_traces(self, **filters: Any) -> int:
        where, params = _where(filters)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM traces{where}", params).fetchone()[0])

    def iter_traces(self, **filters: Any) -> Iterator[Trace]:
        """Traces in insertion order, filtered by column equality (a list value means IN)."""
        where, params = _where(filters)
        cur = self.conn.execute(f"SELECT data FROM traces{where} ORDER BY rowid", params)
        for (data,) in cur:
            yield Trace.model_validate_json(data)

    def trace_rows(self, **filters: Any) -> list[dict[str, Any]]:
        """The indexed columns of traces (no events), cheap for listings."""
        where, params = _where(filters)
        cur = self.conn.execute(
            "SELECT id, run_id, model, task_id, domain, split, difficulty, condition, seed, arm,"
            f" status, simulated, started_at, ended_at FROM traces{where} ORDER BY rowid",
            params,
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur]

    # -- verdicts -------------------------------------------------------------------------
    def put_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        rows = [
            (
                v.trace_id,
                v.judge,
                None if v.correct is None else int(v.correct),
                v.model_dump_json(),
            )
            for v in verdicts
        ]
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?)", rows)

    def verdicts(self, judge: str | None = None) -> list[Verdict]:
        if judge is None:
            cur = self.conn.execute("SELECT data FROM verdicts")
        else:
            cur = self.conn.execute("SELECT data FROM verdicts WHERE judge=?", (judge,))
        return [Verdict.model_validate_json(r[0]) for r in cur]

    def verdicts_of(self, trace_id: str) -> list[Verdict]:
        """Every judge's verdict on one trace."""
        cur = self.conn.execute("SELECT data FROM verdicts WHERE trace_id=? ORDER BY judge",
                                (trace_id,))
        return [Verdict.model_validate_json(r[0]) for r in cur]

    def rationales(self, judge: str, trace_ids: Iterable[str]) -> dict[str, str]:
        """A judge's one-line rationale (`raw.summary`) per trace, where it gave one."""
        out: dict[str, str] = {}
        for tid in trace_ids:
            row = self.conn.execute(
                "SELECT json_extract(data, '$.raw.summary') FROM verdicts WHERE trace_id=? "
                "AND judge=?", (tid, judge)).fetchone()
            if row and isinstance(row[0], str):
                out[tid] = row[0]
        return out

    def verdict_rows(self, judge: str | None = None) -> list[VerdictRow]:
        """(trace_id, judge, correct, members) per verdict, in `verdicts()` order, without
        parsing the rest of the payload (a facts verdict's `raw` holds every check): what
        the analysis needs, at a fraction of the memory of Verdict objects."""
        sql = "SELECT trace_id, judge, correct, json_extract(data, '$.members') FROM verdicts"
        cur = (self.conn.execute(sql + " ORDER BY rowid") if judge is None
               else self.conn.execute(sql + " WHERE judge=? ORDER BY rowid", (judge,)))
        # one str object per distinct id and judge (a trace has a row per judge)
        strings: dict[str, str] = {}
        return [
            (strings.setdefault(tid, tid), strings.setdefault(name, name),
             None if correct is None else bool(correct),
             json.loads(members) if members and members != "{}" else {})
            for tid, name, correct, members in cur
        ]

    def judged_ids(self, judge: str) -> set[str]:
        cur = self.conn.execute("SELECT trace_id FROM verdicts WHERE judge=?", (judge,))
        return {r[0] for r in cur}

    def judges(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT judge FROM verdicts ORDER BY 1")]

    # -- labels ---------------------------------------------------------------------------
    def put_labels(self, labels: Iterable[Label]) -> None:
        """All-or-nothing; a later label by the same annotator replaces the earlier one."""
        rows = [(x.trace_id, x.annotator, x.label, x.time.isoformat(), x.note) for x in labels]
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO labels VALUES (?,?,?,?,?)", rows)

    def labels(self, annotator: str | None = None) -> list[Label]:
        q = "SELECT trace_id, annotator, label, time, note FROM labels"
        cur = (
            self.conn.execute(q + " WHERE annotator=? ORDER BY time", (annotator,))
            if annotator
            else self.conn.execute(q + " ORDER BY time")
        )
        return [Label(trace_id=r[0], annotator=r[1], label=r[2], time=r[3], note=r[4]) for r in cur]

    def put_label_sample(self, rows: Sequence[dict[str, Any]]) -> None:
        """Replace the label sample. Rows: trace_id, position, stratum, overlap, annotators."""
        with self.conn:
            self.conn.execute("DELETE FROM label_sample")
            self.conn.executemany(
                "INSERT INTO label_sample VALUES (:trace_id, :position, :stratum, :overlap,"
                " :annotators)",
                [{"overlap": 0, "annotators": "", **r} for r in rows],
            )

    def label_sample(self) -> list[dict[str, Any]]:
        cur = self.conn.execute(
            "SELECT trace_id, position, stratum, overlap, annotators FROM label_sample"
            " ORDER BY position"
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur]

    # -- response cache -------------------------------------------------------------------
    def cache_get(self, key: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT value FROM cache WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def cache_put(self, key: str, value: dict[str, Any]) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO cache VALUES (?, ?)", (key, json.dumps(value))
            )


_COLUMNS = {
    "id",
    "run_id",
    "model",
    "task_id",
    "domain",
    "split",
    "difficulty",
    "condition",
    "seed",
    "arm",
    "status",
    "simulated",
}


def _where(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for col, val in filters.items():
        if val is None:
            continue
        if col not in _COLUMNS:
            raise ValueError(f"cannot filter traces by {col!r}")
        if isinstance(val, list | tuple | set):
            vals = list(val)
            if not vals:
                clauses.append("0")
                continue
            clauses.append(f"{col} IN ({','.join('?' * len(vals))})")
            params.extend(vals)
        else:
            clauses.append(f"{col}=?")
            params.append(val)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params
