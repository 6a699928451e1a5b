"""The SQLite workspace: runs, immutable traces, verdicts, labels, response cache."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agentprop.core import (
    DEFAULT_PRIMARY_JUDGE,
    DEFAULT_USER_JUDGE,
    Label,
    LabelQuestion,
    NoticedReading,
    NoticedValue,
    RunSpec,
    Task,
    Trace,
    Verdict,
    VerdictRow,
    WorkspaceMeta,
)
from agentprop.errors import AgentpropError
from agentprop.safety import encodable_json, utf8_clean
from agentprop.store._sound import known_sound, remember_sound

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
    note TEXT NOT NULL DEFAULT '', view TEXT, PRIMARY KEY (trace_id, annotator)
);
CREATE TABLE IF NOT EXISTS label_sample (
    trace_id TEXT PRIMARY KEY, position INTEGER NOT NULL, stratum TEXT NOT NULL,
    overlap INTEGER NOT NULL DEFAULT 0, annotators TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

_QUESTION_LABELS = """CREATE TABLE IF NOT EXISTS question_labels (
    trace_id TEXT NOT NULL, annotator TEXT NOT NULL, question TEXT NOT NULL,
    label TEXT NOT NULL, time TEXT, note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (trace_id, annotator, question)
)"""
"""Labels of the detectors' questions (`Label.question` other than ``answer``); made on the
first such label, so workspaces of earlier versions need no migration."""


_TASKS = """CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, data TEXT NOT NULL)"""
"""The user's own tasks (`run --tasks FILE`): stored so that `judge`, `report` and the
label app find them without the file (suite tasks are rebuilt from the seed instead)."""

_NOTICED_READINGS = """CREATE TABLE IF NOT EXISTS noticed_readings (
    trace_id TEXT NOT NULL, output INTEGER NOT NULL, classifier TEXT NOT NULL,
    reading TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (trace_id, output, classifier)
)"""
"""A text classifier's readings of the model outputs after each trace's reference step
(`core.NoticedReading`); made on the first reading, so older workspaces need no migration."""


STAGE_ROW_COLUMNS: tuple[str, ...] = (
    "error_type", "target_param", "opportunity", "no_tool_call", "leaked_call",
    "unknown_tool", "bad_arguments", "undelivered_call", "S1", "S2", "corrected", "noticed",
    "noticed_kind", "abstained", "n_injected", "fabricated", "turns_recorded", "forced",
    "model_calls", "tool_calls", "tokens", "model_s", "noticed_unscored", "s2_withheld",
    "answer", "cf_differs", "landing",
)
"""A stored stage row's values, after its trace id and context: the stage columns
computed from the trace's own events (`analysis.stages.EVENT_COLUMNS`), its final answer,
and what `agentprop report`'s invariant checks read of its events (`cf_differs`; `landing`,
a JSON list of violations)."""

_STAGES = ("CREATE TABLE IF NOT EXISTS stages (trace_id TEXT PRIMARY KEY, context TEXT NOT "
           "NULL, " + ", ".join(f'"{c}"' for c in STAGE_ROW_COLUMNS) + ")")
"""Each trace's stage row (`put_traces(stages=...)`, `put_stage_rows`), so the analysis
reads columns instead of parsing every trace. `context` names what a row was computed
with besides the trace (the stage code's version, the suite `fabricated` read against):
a row of another context is recomputed. Made when a writable workspace is opened, so
workspaces of earlier versions open and are back-filled on their first analysis."""

_STAGE_INSERT = ("INSERT OR IGNORE INTO stages VALUES ("
                 + ",".join("?" * (len(STAGE_ROW_COLUMNS) + 2)) + ")")

StageRows = Callable[[Trace], Sequence[Any]]
"""A trace's stage row: its values in `STAGE_ROW_COLUMNS` order."""


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


class WorkspaceError(AgentpropError):
    """A workspace that cannot be opened or used; the message is one line for the user."""


class WorkspaceDamagedError(WorkspaceError):
    """The database fails SQLite's integrity check; nothing more is written to it."""


def damaged_message(db_path: Path, detail: str) -> str:
    first = " ".join(detail.replace("*** in database main ***", "").split())[:120]
    return (f"workspace database {db_path} is damaged ({first}); nothing was written to it. "
            "Restore it from a backup or your exports into a new workspace")


def integrity_problem(conn: sqlite3.Connection) -> str | None:
    """SQLite's `PRAGMA quick_check` verdict: None when the file is sound, else its first
    finding. Linear in the file size: 0.07–0.15 s for a 20,000-trace workspace (bench/
    bench_workspace_open.py)."""
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.DatabaseError as e:
        return str(e)
    verdict = str(rows[0][0]) if rows else "no answer"
    return None if verdict == "ok" else verdict


def readonly_message(path: Path) -> str:
    return (f"workspace {path} is read-only and this command writes to it (reading commands "
            "work on a read-only workspace)")


def describe_database_error(path: Path, e: sqlite3.DatabaseError) -> str:
    """One line for an SQLite error met while using the workspace at `path`: damaged
    (checked with quick_check on a read-only connection), read-only, or as SQLite says."""
    db = path / DB_NAME
    name = getattr(e, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_READONLY"):
        return readonly_message(path)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return damaged_message(db, str(e))
    return damage_report(path) or f"workspace database {db}: {e}"


def damage_report(path: Path) -> str | None:
    """The damaged-workspace message when the database at `path` fails quick_check (read
    on a read-only connection, so nothing is written), else None."""
    db = path / DB_NAME
    if not db.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(str(db.resolve()))}?mode=ro", uri=True)
        try:
            problem = integrity_problem(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        problem = str(e)
    return None if problem is None else damaged_message(db, problem)


def _encodable(trace: Trace) -> tuple[Trace, str, int]:
    """(trace, its JSON, code points replaced): a trace holding text UTF-8 cannot encode
    (a lone surrogate) is stored with U+FFFD in its place and the count in its meta,
    instead of failing the writer's whole batch."""
    cleaned, data, n = encodable_json(trace)
    if not n:
        return trace, data, 0
    meta = {**cleaned.meta, "replaced_code_points": n
            + int(cleaned.meta.get("replaced_code_points") or 0)}
    cleaned = cleaned.model_copy(update={"meta": meta})
    return cleaned, cleaned.model_dump_json(), n


EMPTY_GRACE_S = 5.0
"""A zero-length database younger than this may be one another process is creating (SQLite
writes its header with the first statement): it is given that long to get one."""


def _refuse_empty(db_path: Path) -> None:
    """A zero-length database file (a failed copy, a full disk, a truncation) is not a new
    workspace: refuse it in one line instead of silently creating an empty one over it."""
    deadline = time.monotonic() + EMPTY_GRACE_S
    while True:
        try:
            st = db_path.stat()
        except FileNotFoundError:  # removed meanwhile: a new workspace after all
            return
        if st.st_size > 0:
            return
        young = time.time() - st.st_mtime < EMPTY_GRACE_S
        if not young or time.monotonic() > deadline:
            raise WorkspaceError(
                f"workspace database {db_path} is empty (0 bytes): it is not a workspace, or "
                "its data was lost (a failed copy, a full disk); restore it from a backup, "
                "or remove the file to start a new workspace")
        time.sleep(0.05)


def _run_row(run: RunSpec) -> tuple[str, str, str]:
    """A `runs` row; text UTF-8 cannot encode (an undecodable byte of a command-line
    argument arrives as a lone surrogate) is stored as U+FFFD."""
    run, data, _ = encodable_json(run)
    return run.id, run.created_at.isoformat(), data


def _writable(db_path: Path) -> bool:
    return os.access(db_path, os.W_OK) and os.access(db_path.parent, os.W_OK)


def _readonly_uri(db_path: Path) -> str:
    return f"file:{quote(str(db_path.resolve()))}?mode=ro"


def _connect_readonly(db_path: Path) -> tuple[sqlite3.Connection, str]:
    """A read-only connection and its URI. `mode=ro` needs the WAL index (-shm) to exist
    or be creatable; on a read-only folder without one, `immutable=1` reads the file as
    is, which is exact unless a -wal file holds changes not yet in the database."""
    uri = _readonly_uri(db_path)
    conn = sqlite3.connect(uri, uri=True, timeout=30.0, check_same_thread=False)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn, uri
    except sqlite3.OperationalError:
        conn.close()
    wal = db_path.with_name(db_path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise WorkspaceError(f"workspace {db_path.parent} is read-only and its {wal.name} holds"
                             " changes not yet in the database; open it once with write access")
    uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False), uri


class Workspace:
    """A workspace folder holding one SQLite database (WAL) and a `report/` folder.

    Traces are written once (`put_traces` ignores ids already stored, so a resumed run
    never duplicates). One connection per Workspace object; open one per thread.
    An existing database is integrity-checked on open (`check`; a damaged one raises
    WorkspaceDamagedError before anything is read or written). A database the user may
    not write is opened read-only: reading works, a write raises sqlite3's
    "readonly database" error.
    """

    def __init__(self, path: str | Path, *, create: bool = True, check: bool = True) -> None:
        self.path = Path(path)
        self.db_path = self.path / DB_NAME
        if self.path.exists() and not self.path.is_dir():
            raise WorkspaceError(f"workspace path {self.path} exists and is not a folder")
        if self.db_path.exists():
            _refuse_empty(self.db_path)
        existed = self.db_path.exists()
        if not existed:
            if not create:
                raise WorkspaceError(f"no workspace at {self.path} (no {DB_NAME})")
            try:
                self.path.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise WorkspaceError(f"cannot create workspace {self.path}: {e.strerror}") from None
        self.readonly = existed and not _writable(self.db_path)
        self.replaced = 0
        """Code points UTF-8 cannot encode that `put_traces` replaced (this object)."""
        try:
            if self.readonly:
                self.conn, self._read_uri = _connect_readonly(self.db_path)
            else:
                self.conn = sqlite3.connect(self.db_path, timeout=30.0, check_same_thread=False)
                self._read_uri = _readonly_uri(self.db_path)
            self._checked = False
            if check and existed and not known_sound(self.db_path):
                problem = integrity_problem(self.conn)
                if problem is not None:
                    self.conn.close()
                    raise WorkspaceDamagedError(damaged_message(self.db_path, problem))
                self._checked = True
            if not self.readonly:
                _set_wal(self.conn)
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self._init_schema()
        except sqlite3.DatabaseError as e:
            raise WorkspaceError(describe_database_error(self.path, e)) from None

    def require_writable(self) -> Workspace:
        """Self, or WorkspaceError when the workspace was opened read-only: a writing
        command fails before it does any work."""
        if self.readonly:
            self.close()
            raise WorkspaceError(readonly_message(self.path))
        return self

    def _init_schema(self) -> None:
        cur = self.conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'")
        # Another process may be creating this workspace right now: CREATE IF NOT EXISTS and
        # INSERT OR IGNORE make creating it twice harmless, and a meta table without a
        # version row is one whose creation has not finished yet.
        if not self.readonly and (cur.fetchone() is None or self._version() is None):
            self.conn.executescript(_SCHEMA)
            with self.conn:
                self.conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (json.dumps(SCHEMA_VERSION),),
                )
        version = self._version()
        if version != SCHEMA_VERSION:
            raise WorkspaceError(
                f"workspace {self.path} has schema version {version}, this agentprop "
                f"needs {SCHEMA_VERSION}; use a new workspace or a matching agentprop version"
            )
        self._label_view = self._add_label_view()
        if not self.readonly:
            self.conn.execute(_STAGES)

    def _add_label_view(self) -> bool:
        """Whether `labels` has its `view` column, adding it to a workspace made before it
        (an added nullable column: older labels read as view None, "not recorded")."""
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(labels)")}
        if "view" in cols:
            return True
        if self.readonly:
            return False
        with contextlib.suppress(sqlite3.OperationalError), self.conn:  # added meanwhile
            self.conn.execute("ALTER TABLE labels ADD COLUMN view TEXT")
        return True

    def _version(self) -> Any:
        try:
            return self.get_meta("schema_version")
        except ValueError:  # not JSON: not a version any agentprop wrote
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            raise WorkspaceError(
                f"workspace {self.path} has an unreadable schema version {row[0]!r:.40}; it "
                "was not written by agentprop, or it is damaged"
            ) from None

    def close(self) -> None:
        """Close the connection; when the file was checked on open or written through it,
        the state it leaves is remembered as sound (`_sound`), so the next open need not
        read the whole file to check it."""
        sound = not self.readonly and (self._checked or self.conn.total_changes > 0)
        self.conn.close()
        if sound:
            remember_sound(self.db_path)

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
    def meta(self) -> WorkspaceMeta:
        """Every meta key, typed (unknown keys in the table are ignored)."""
        rows = self.conn.execute("SELECT key, value FROM meta").fetchall()
        fields = WorkspaceMeta.model_fields
        return WorkspaceMeta.model_validate({k: json.loads(v) for k, v in rows if k in fields})

    def update_meta(self, **values: Any) -> None:
        """Write meta keys, named and typed as in `WorkspaceMeta` (validated before writing)."""
        WorkspaceMeta.model_validate(values)  # a wrong type fails before anything is written
        for key, value in values.items():
            self.set_meta(key, value)

    def primary_judge(self) -> str:
        """The workspace's primary judge, else `DEFAULT_USER_JUDGE` for the user's own
        questions (no graded facts), else `DEFAULT_PRIMARY_JUDGE`."""
        return self.meta().primary_judge or (
            DEFAULT_USER_JUDGE if self.has_user_tasks() else DEFAULT_PRIMARY_JUDGE)

    def has_user_tasks(self) -> bool:
        """Whether the workspace stores the user's own questions (`run --tasks`)."""
        return self._has_table("tasks") and self.conn.execute(
            "SELECT 1 FROM tasks LIMIT 1").fetchone() is not None

    def get_meta(self, key: str, default: Any = None) -> Any:
        """One meta value by its `WorkspaceMeta` name (prefer `meta()`)."""
        _check_meta_key(key)
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value: Any) -> None:
        """Write one meta value by its `WorkspaceMeta` name (prefer `update_meta`)."""
        _check_meta_key(key)
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    # -- runs -----------------------------------------------------------------------------
    def put_run(self, run: RunSpec) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?)",
                _run_row(run),
            )

    def get_run(self, run_id: str) -> RunSpec | None:
        row = self.conn.execute("SELECT manifest FROM runs WHERE id=?", (run_id,)).fetchone()
        return RunSpec.model_validate_json(row[0]) if row else None

    def runs(self) -> list[RunSpec]:
        rows = self.conn.execute("SELECT manifest FROM runs ORDER BY created_at").fetchall()
        return [RunSpec.model_validate_json(r[0]) for r in rows]

    # -- traces ---------------------------------------------------------------------------
    def put_traces(self, traces: Sequence[Trace], runs: Sequence[RunSpec] = (),
                   stages: tuple[str, StageRows] | None = None) -> int:
        """Store traces in one transaction; ids already stored are left as they are.
        `runs` are new runs stored in the same transaction (a run row already stored is
        kept). `stages` (context, row function): each new trace's stage row is stored in
        the same transaction, so no trace is ever stored without it. Text UTF-8 cannot
        encode is stored with U+FFFD in its place, counted in the trace's
        ``meta["replaced_code_points"]`` (`self.replaced` sums them)."""
        stored = [_encodable(t) for t in traces]
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
                data,
            )
            for t, data, _ in stored
        ]
        stage_rows = ([(t.id, stages[0], *stages[1](t)) for t, _, _ in stored]
                      if stages is not None else None)
        self.replaced += sum(n for _, _, n in stored)
        sql = "INSERT OR IGNORE INTO traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        with self.conn:
            self.conn.executemany(
                "INSERT OR IGNORE INTO runs VALUES (?, ?, ?)",
                [_run_row(r) for r in runs],
            )
            if stage_rows is None:
                return self.conn.executemany(sql, rows).rowcount
            new = 0
            for row, stage in zip(rows, stage_rows, strict=True):
                if self.conn.execute(sql, row).rowcount:  # a trace already stored keeps its
                    new += 1                                # own row
                    self.conn.execute(_STAGE_INSERT, stage)
        return new

    def put_stage_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        """Store (trace_id, context, *values) stage rows in one transaction, replacing a
        trace's earlier row (of another context)."""
        with self.conn:
            self.conn.executemany(_STAGE_INSERT.replace("OR IGNORE", "OR REPLACE"), rows)

    def traces_without_stages(self, context: str) -> Iterator[Trace]:
        """Traces (insertion order) without a stage row of `context`: what to back-fill."""
        cur = self.conn.execute(
            "SELECT t.data FROM traces t LEFT JOIN stages s ON s.trace_id = t.id AND "
            "s.context = ? WHERE s.trace_id IS NULL ORDER BY t.rowid", (context,))
        for (data,) in cur:
            yield Trace.model_validate_json(data)

    def stages_complete(self, context: str) -> bool:
        """Whether every trace has a stage row of `context` (nothing to back-fill)."""
        if not self._has_table("stages"):
            return False
        have = self.conn.execute("SELECT COUNT(*) FROM stages s JOIN traces t ON t.id = "
                                 "s.trace_id WHERE s.context = ?", (context,)).fetchone()[0]
        return bool(have == self.count_traces())

    def stage_frame(self, context: str, *, complete: bool = False) -> Any:
        """Every trace's indexed columns and stored stage row of `context`, in insertion
        order, as one pandas DataFrame read as columns (no Trace is parsed); None when
        some trace has no such row (or the workspace has no stage table). `complete`:
        `stages_complete` was just found true (not counted again)."""
        if not complete and not self.stages_complete(context):
            return None
        cols = ", ".join(f's."{c}"' for c in STAGE_ROW_COLUMNS)
        sql = ("SELECT t.id AS trace_id, t.run_id, t.model, t.task_id, t.domain, t.split, "
               "t.difficulty, t.condition, t.seed, t.arm, t.status, t.simulated, "
               f"{cols} FROM traces t JOIN stages s ON s.trace_id = t.id "
               "WHERE s.context = ? ORDER BY t.rowid")
        return self.read_frame(sql, (context,))

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

    def unit_table(self) -> Any:
        """Every trace's unit columns (run_id, model, task_id, condition, seed, arm) in
        insertion order, as one pandas DataFrame: what the unit invariants check."""
        return self.read_frame("SELECT run_id, model, task_id, condition, seed, arm FROM "
                               "traces ORDER BY rowid")

    def read_frame(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """A query's result as a pandas DataFrame, as columns when the columnar reader is
        installed (`_columns.read_frame`): for the tables an analysis reads whole."""
        from agentprop.store._columns import read_frame

        return read_frame(self.conn, self._read_uri, sql, params)

    # -- verdicts -------------------------------------------------------------------------
    def put_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        """Store verdicts (replacing a judge's earlier one); text UTF-8 cannot encode, e.g.
        in an LLM judge's rationale, is stored with U+FFFD in its place."""
        rows = []
        for verdict in verdicts:
            v, data, _ = encodable_json(verdict)
            rows.append((v.trace_id, v.judge, None if v.correct is None else int(v.correct),
                         data))
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

    def unscored_ids(self, judge: str) -> set[str]:
        """Traces whose `judge` verdict is unscored in its stored payload (`correct` null),
        whatever the indexed `correct` column says (`agentprop verify` compares them)."""
        cur = self.conn.execute("SELECT trace_id FROM verdicts WHERE judge=? AND "
                                "json_extract(data, '$.correct') IS NULL", (judge,))
        return {r[0] for r in cur}

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

    def verdict_table(self) -> Any:
        """Every verdict's (trace_id, judge, correct) as one pandas DataFrame, in
        `verdict_rows()` order, read in one query (no Python row per verdict); `correct`
        holds 1, 0 or missing (unscored)."""
        return self.read_frame("SELECT trace_id, judge, correct FROM verdicts ORDER BY rowid")

    def member_table(self) -> Any:
        """Every ensemble member's vote (trace_id, ensemble, member, correct) as one pandas
        DataFrame, in `verdict_rows()` order and each ensemble's member order."""
        return self.read_frame(
            "SELECT v.trace_id AS trace_id, v.judge AS ensemble, m.key AS member, "
            "m.value AS correct FROM verdicts v, json_each(v.data, '$.members') m "
            "ORDER BY v.rowid, m.id")

    def retry_ids(self, judge: str) -> set[str]:
        """Traces whose `judge` verdict is marked ``raw.retry`` (provisional: made before
        what it needs was stored), which the next `judge` run redoes."""
        cur = self.conn.execute("SELECT trace_id FROM verdicts WHERE judge=? AND "
                                "json_extract(data, '$.raw.retry') = 1", (judge,))
        return {r[0] for r in cur}

    def pending_count(self, judge: str, run_ids: Sequence[str] | None = None) -> int:
        """Traces (of `run_ids`' runs, else all) that `judge` has still to judge: no
        verdict of it, or one marked ``raw.retry`` (`retry_ids`)."""
        where, params = _run_scope(run_ids)
        sql = f"SELECT COUNT(*) FROM traces t WHERE NOT EXISTS ({_DONE_VERDICT}){where}"
        return int(self.conn.execute(sql, [judge, *params]).fetchone()[0])

    def pending_page(self, judges: Sequence[str], run_ids: Sequence[str] | None = None, *,
                     after: int = 0, limit: int = 500
                     ) -> tuple[int, list[tuple[str, list[str]]]]:
        """One page of the traces after rowid `after`, in insertion order: (the last rowid
        read, 0 when none is left; each trace with the `judges` still to judge it). A
        keyset page holds no long read transaction, so a writer's commits go on."""
        where, params = _run_scope(run_ids)
        rows = self.conn.execute(f"SELECT t.rowid, t.id FROM traces t WHERE t.rowid > ?{where} "
                                 "ORDER BY t.rowid LIMIT ?", [after, *params, limit]).fetchall()
        if not rows:
            return 0, []
        ids = [r[1] for r in rows]
        marks = ",".join("?" * len(ids))
        done = {j: {r[0] for r in self.conn.execute(
            f"SELECT t.id FROM traces t WHERE t.id IN ({marks}) AND EXISTS ({_DONE_VERDICT})",
            [*ids, j])} for j in judges}
        todo = [(tid, [j for j in judges if tid not in done[j]]) for tid in ids]
        return rows[-1][0], [(tid, js) for tid, js in todo if js]

    def judges(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT judge FROM verdicts ORDER BY 1")]

    # -- noticed readings -----------------------------------------------------------------
    def _has_table(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                                 (name,)).fetchone() is not None

    def put_tasks(self, tasks: Iterable[Task]) -> None:
        """Store the user's tasks of a run; a task id already stored with other content is
        a `WorkspaceError` (its traces would be read against the wrong question)."""
        rows = [(t.id, t.model_dump_json()) for t in tasks]
        if not rows:
            return
        with self.conn:
            self.conn.execute(_TASKS)
            for tid, data in rows:
                old = self.conn.execute("SELECT data FROM tasks WHERE id=?", (tid,)).fetchone()
                if old is not None and old[0] != data:
                    raise WorkspaceError(
                        f"task {tid!r} is already stored in {self.path} with another "
                        "question, reference or tools: give it another id, or use a new "
                        "workspace")
            self.conn.executemany("INSERT OR IGNORE INTO tasks VALUES (?,?)", rows)

    def stored_tasks(self) -> list[Task]:
        """The user's tasks stored by `put_tasks`, in id order (empty when none)."""
        if not self._has_table("tasks"):
            return []
        return [Task.model_validate_json(d)
                for (d,) in self.conn.execute("SELECT data FROM tasks ORDER BY id")]

    def put_noticed_readings(self, readings: Iterable[NoticedReading]) -> None:
        """Store readings (replacing a classifier's earlier reading of the same output)."""
        rows = []
        for reading in readings:
            r, data, _ = encodable_json(reading)
            rows.append((r.trace_id, r.output, r.classifier, r.reading, data))
        if not rows:
            return
        with self.conn:
            self.conn.execute(_NOTICED_READINGS)
            self.conn.executemany("INSERT OR REPLACE INTO noticed_readings VALUES (?,?,?,?,?)",
                                  rows)

    def noticed_readings(self, classifier: str) -> dict[tuple[str, int], NoticedValue]:
        """(trace id, output index) → reading, for one classifier (empty when none)."""
        if not self._has_table("noticed_readings"):
            return {}
        cur = self.conn.execute("SELECT trace_id, output, reading FROM noticed_readings "
                                "WHERE classifier=?", (classifier,))
        return {(tid, int(out)): reading for tid, out, reading in cur}

    def noticed_reading_records(self, classifier: str) -> list[NoticedReading]:
        """One classifier's readings with their payloads (model replies), for audit."""
        if not self._has_table("noticed_readings"):
            return []
        cur = self.conn.execute("SELECT data FROM noticed_readings WHERE classifier=? "
                                "ORDER BY trace_id, output", (classifier,))
        return [NoticedReading.model_validate_json(r[0]) for r in cur]

    def noticed_classifiers(self) -> list[str]:
        """The classifiers with stored readings."""
        if not self._has_table("noticed_readings"):
            return []
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT classifier FROM noticed_readings ORDER BY 1")]

    # -- labels ---------------------------------------------------------------------------
    def put_labels(self, labels: Iterable[Label]) -> None:
        """All-or-nothing; a later label by the same annotator (of the same question)
        replaces the earlier one. Answer labels go to `labels`, the detectors' questions
        to `question_labels` (created on first use, so older workspaces open unchanged)."""
        items = list(labels)
        rows = [utf8_clean((x.trace_id, x.annotator, x.label, x.time.isoformat(), x.note,
                            x.view))[0]
                for x in items if x.question == "answer"]
        other = [utf8_clean((x.trace_id, x.annotator, x.question, x.label, x.time.isoformat(),
                             x.note))[0]
                 for x in items if x.question != "answer"]
        with self.conn:
            if other:
                self.conn.execute(_QUESTION_LABELS)
                self.conn.executemany(
                    "INSERT OR REPLACE INTO question_labels VALUES (?,?,?,?,?,?)", other)
            self.conn.executemany(
                "INSERT OR REPLACE INTO labels (trace_id, annotator, label, time, note, view) "
                "VALUES (?,?,?,?,?,?)", rows)

    def labels(self, annotator: str | None = None, *,
               question: LabelQuestion = "answer") -> list[Label]:
        """The labels of one question (default: the answers' correctness), oldest first."""
        if question != "answer":
            return self._question_labels(question, annotator)
        view = "view" if self._label_view else "NULL"
        q = f"SELECT trace_id, annotator, label, time, note, {view} FROM labels"
        cur = (
            self.conn.execute(q + " WHERE annotator=? ORDER BY time", (annotator,))
            if annotator
            else self.conn.execute(q + " ORDER BY time")
        )
        return [Label(trace_id=r[0], annotator=r[1], label=r[2], time=r[3], note=r[4],
                      view=r[5]) for r in cur]

    def _question_labels(self, question: str, annotator: str | None) -> list[Label]:
        exists = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND "
                                   "name='question_labels'").fetchone()
        if exists is None:
            return []
        q = ("SELECT trace_id, annotator, label, time, note FROM question_labels "
             "WHERE question=?" + (" AND annotator=?" if annotator else "") + " ORDER BY time")
        cur = self.conn.execute(q, (question, annotator) if annotator else (question,))
        return [Label(trace_id=r[0], annotator=r[1], label=r[2], time=r[3], note=r[4],
                      question=question) for r in cur]

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
        """A cached value (the response cache cleans what it reads: `ResponseCache`)."""
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


_DONE_VERDICT = ("SELECT 1 FROM verdicts v WHERE v.trace_id = t.id AND v.judge = ? "
                 "AND json_extract(v.data, '$.raw.retry') IS NOT 1")
"""A verdict of judge ? on trace t that counts as done (one marked raw.retry is redone)."""


def _run_scope(run_ids: Sequence[str] | None) -> tuple[str, list[str]]:
    if run_ids is None:
        return "", []
    return f" AND t.run_id IN ({','.join('?' * len(run_ids))})", list(run_ids)


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


def _check_meta_key(key: str) -> None:
    if key not in WorkspaceMeta.model_fields:
        known = ", ".join(WorkspaceMeta.model_fields)
        raise ValueError(f"unknown workspace meta key {key!r} (known: {known})")
