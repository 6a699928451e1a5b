"""Label CSV import (all-or-nothing) and export.

Import columns: ``trace_id`` or ``session_id`` (an imported trace's
``meta["session_id"]`` also resolves), ``annotator``, ``label``, optional ``note``, ``time``
(ISO 8601), ``view`` (``blind`` / ``full``: what the label app showed, `core.Label.view`;
empty: not recorded) and ``question`` (what the label says, `core.LabelQuestion`:
``answer``, the default, takes YES / NO / correct / incorrect / unsure, any case;
``noticed`` and ``fabricated`` take yes / no / unsure). Other columns are ignored, so an
exported file imports again. Any bad row rejects the whole file, the
message lists the offending line numbers, and nothing is written: an unterminated quote,
more cells than the header has columns, and an annotator name with a control character
are bad rows too.

Export neutralises cells a spreadsheet would run as formulas (a leading ``'``, see
`agentprop.safety`); import removes that quote again, so a round trip is exact.
"""

from __future__ import annotations

import csv
import errno
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from agentprop.core import LABEL_VALUES as QUESTION_VALUES
from agentprop.core import Label, LabelQuestion, LabelValue
from agentprop.errors import AgentpropError
from agentprop.safety import has_control_chars, neutralise_cell, restore_cell

if TYPE_CHECKING:
    from agentprop.store import Workspace

LABEL_VALUES: dict[str, LabelValue] = {
    "yes": "correct", "correct": "correct", "no": "incorrect", "incorrect": "incorrect",
    "unsure": "unsure",
}
MAX_LISTED = 10
EXPORT_COLUMNS = ["trace_id", "annotator", "label", "time", "note", "view", "task_id",
                  "model", "domain", "question"]
QUESTIONS: tuple[LabelQuestion, ...] = get_args(LabelQuestion)
VIEWS = ("blind", "full")


class LabelImportError(AgentpropError):
    """A label file rejected as a whole; the message lists the offending rows."""


def parse_label(value: str, question: str = "answer") -> LabelValue | None:
    """The stored value of a label cell for `question` (None when it is not one)."""
    v = value.strip().lower()
    if question == "answer":
        return LABEL_VALUES.get(v)
    ok = QUESTION_VALUES.get(question, ())
    return v if v in ok else None  # type: ignore[return-value]


def _session_map(workspace: Workspace) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in workspace.iter_traces():
        sid = t.meta.get("session_id")
        if sid is not None:
            out[str(sid)] = t.id
    return out


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str], str | None]]:
    """(line, cleaned row, the row's structural problem or None) per record."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f, strict=True)
        try:
            fieldnames = reader.fieldnames
        except csv.Error as e:
            raise LabelImportError(f"{path}: line 1: {_csv_problem(e)}; nothing written"
                                   ) from None
        if fieldnames is None:
            raise LabelImportError(f"{path}: empty file, nothing written")
        fields = {c.strip().lower() for c in fieldnames if c}
        missing = [c for c in ("annotator", "label") if c not in fields]
        if "trace_id" not in fields and "session_id" not in fields:
            missing.insert(0, "trace_id or session_id")
        if missing:
            raise LabelImportError(f"{path}: missing column(s) {', '.join(missing)}; "
                                   "nothing written")
        while True:
            start = reader.line_num + 1  # where the next record begins
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise LabelImportError(f"{path}: rejected, line {start}: {_csv_problem(e)}; "
                                       "nothing written") from None
            if None in row:  # DictReader files surplus cells under the key None
                n = len(row[None])
                yield reader.line_num, {}, (f"{n} more cell(s) than the header's "
                                            f"{len(fieldnames)} columns")
                continue
            clean = {(k or "").strip().lower(): restore_cell((v or "").strip())
                     if isinstance(v, str) else "" for k, v in row.items()}
            yield reader.line_num, clean, None


def _csv_problem(e: csv.Error) -> str:
    text = str(e)
    if "end of data" in text or "EOF" in text:
        return "unterminated quoted field"
    return f"not valid CSV ({text})"


def read_labels(path: str | Path, workspace: Workspace, *,
                default_question: str = "answer") -> list[Label]:
    """Parse and validate a label CSV against `workspace`; raises LabelImportError. A row
    without a `question` cell labels `default_question`."""
    path = Path(path)
    ids = workspace.trace_ids()
    sessions: dict[str, str] | None = None
    labels: list[Label] = []
    errors: list[str] = []
    seen: dict[tuple[str, str, str], int] = {}
    try:
        rows = list(_rows(path))
    except UnicodeDecodeError:
        raise LabelImportError(f"{path}: not a UTF-8 CSV file; nothing written") from None
    except csv.Error as e:
        raise LabelImportError(f"{path}: not a valid CSV file ({e}); nothing written") from None
    for line, row, structural in rows:
        if structural is not None:
            errors.append(f"line {line}: {structural}")
            continue
        if not any(row.values()):
            continue
        raw_id = row.get("trace_id") or row.get("session_id") or ""
        tid: str | None = raw_id if raw_id in ids else None
        if tid is None and raw_id:
            if sessions is None:
                sessions = _session_map(workspace)
            tid = sessions.get(raw_id)
        problems = []
        if not raw_id:
            problems.append("no trace_id/session_id")
        elif tid is None:
            problems.append(f"unknown id {raw_id!r}")
        annotator = row.get("annotator", "")
        if not annotator:
            problems.append("no annotator")
        elif has_control_chars(annotator):
            problems.append("control character in annotator name")
            annotator = ""
        question = (row.get("question") or default_question).lower()
        value = None
        if question not in QUESTIONS:
            problems.append(f"unknown question {row.get('question', '')!r} "
                            f"(expected {', '.join(QUESTIONS)})")
        else:
            value = parse_label(row.get("label", ""), question)
            if value is None:
                expected = ("YES, NO, correct, incorrect or unsure" if question == "answer"
                            else "yes, no or unsure")
                problems.append(f"invalid label {row.get('label', '')!r} (expected {expected})")
        view = row.get("view", "").lower() or None
        if view is not None and view not in VIEWS:
            problems.append(f"invalid view {row.get('view', '')!r} (expected blind, full or "
                            "empty)")
        when: datetime | None = None
        if row.get("time"):
            try:
                when = datetime.fromisoformat(row["time"].replace("Z", "+00:00"))
                if when.tzinfo is None:
                    when = when.replace(tzinfo=UTC)
            except ValueError:
                problems.append(f"invalid time {row['time']!r}")
        if tid and annotator:
            if (tid, annotator, question) in seen:
                problems.append(f"duplicate of line {seen[(tid, annotator, question)]}")
            seen.setdefault((tid, annotator, question), line)
        if problems:
            errors.append(f"line {line}: {', '.join(problems)}")
            continue
        assert tid is not None and value is not None
        kw: dict[str, Any] = {"time": when} if when else {}
        labels.append(Label(trace_id=tid, annotator=annotator, label=value,
                            note=row.get("note", ""), question=question, view=view,
                            **kw))
    if errors:
        listed = "; ".join(errors[:MAX_LISTED])
        more = f"; and {len(errors) - MAX_LISTED} more" if len(errors) > MAX_LISTED else ""
        raise LabelImportError(
            f"{path}: rejected, {len(errors)} bad row(s), nothing written: {listed}{more}")
    if not labels:
        raise LabelImportError(f"{path}: no label rows; nothing written")
    return labels


def import_labels(path: str | Path, workspace: Workspace, *,
                  default_question: str = "answer") -> int:
    """Validate the whole file, then write all its labels in one transaction."""
    labels = read_labels(path, workspace, default_question=default_question)
    workspace.put_labels(labels)
    return len(labels)


def export_labels(workspace: Workspace, out: str | Path) -> int:
    """Write every label as CSV (atomically: a temporary file renamed into place)."""
    out = Path(out)
    rows = {r["id"]: r for r in workspace.trace_rows()}
    labels = [lab for q in QUESTIONS for lab in workspace.labels(question=q)]
    if out.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(out))
    tmp = out.with_name(out.name + ".tmp")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(EXPORT_COLUMNS)
            for lab in labels:
                r = rows.get(lab.trace_id, {})
                w.writerow([neutralise_cell(v) for v in (
                    lab.trace_id, lab.annotator, lab.label, lab.time.isoformat(), lab.note,
                    lab.view or "", r.get("task_id", ""), r.get("model", ""),
                    r.get("domain", ""), lab.question)])
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a half-written file behind
        raise
    return len(labels)
