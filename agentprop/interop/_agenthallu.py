"""Import the CSV files of the paper's public release (AgentHallu-/AgentProp-Bench, MIT).

Every file in the folder is recognised by its header (not its name): the P2 file
(`p2_all_rejudged.csv`), a baseline file (the P2 columns minus error_type, eps, weps,
reached_output, cascade_count), the judge-panel file, human label files and the two
interceptor files (control: condition `no_interceptor`; treatment: any other condition).
Unrecognised CSVs are skipped and listed. All files are parsed and validated before anything
is written; a malformed file raises `ReleaseFormatError` with one line naming file, line and
problem, and the workspace is left untouched.

The release's own semantics are kept: S1 = eps ≥ 1, S2 = eps ≥ 2 (in
`Trace.release_stages`, every row an injection attempt, no-tool = no `tool_selected`),
S3 = not ensemble_correct under the judge `majority` (the primary judge); judges keep the
release's names (`heuristic`, `gpt4o`, `gemini_25_flash`, `gpt4o_mini`, `majority`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.core import FinalEvent, Label, Message, RunSpec, Trace, Verdict
from agentprop.errors import AgentpropError

if TYPE_CHECKING:
    from agentprop.store import Workspace

SOURCE = "agenthallu"
PRIMARY = "majority"
PANEL = ("gpt4o", "gemini_25_flash", "gpt4o_mini")
CORE_DOMAINS = ("calendar", "weather", "medical", "retail", "knowledge")

P2_REQUIRED = {"session_id", "task_id", "model", "domain", "difficulty", "error_type", "eps",
               "final_answer", "ground_truth", "gpt4o_verdict", "gemini_25_flash_verdict",
               "gpt4o_mini_verdict", "ensemble_correct", "heuristic_correct"}
P2_ONLY = {"error_type", "eps", "weps", "reached_output", "cascade_count"}
BASELINE_REQUIRED = (P2_REQUIRED - P2_ONLY)
PANEL_REQUIRED = {"session_id", "task_id", "model", "injection_type", "heuristic_correct",
                  "gpt4o_verdict", "gemini_25_flash_verdict", "gpt4o_mini_verdict", "majority",
                  "candidate", "reference"}
LABEL_REQUIRED = {"session_id", "task_id", "model", "annotator", "label"}
INTERCEPTOR_REQUIRED = {"session_id", "task_id", "model", "domain", "condition", "final_answer",
                        "abstained", "final_correct", "hallucination"}


class ReleaseFormatError(AgentpropError, ValueError):
    """A release file that cannot be imported; the message is one line for the user."""


@dataclass
class ImportResult:
    traces: list[Trace] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    runs: list[RunSpec] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # file name → kind
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"traces": len(self.traces), "verdicts": len(self.verdicts),
                "labels": len(self.labels), "files": self.files, "skipped": self.skipped}


_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


class _Row:
    """One CSV row with typed accessors that fail with file:line context."""

    def __init__(self, fname: str, line: int, data: dict[str, str]) -> None:
        self.fname, self.line, self.data = fname, line, data

    def fail(self, msg: str) -> ReleaseFormatError:
        return ReleaseFormatError(f"{self.fname} line {self.line}: {msg}")

    def text(self, col: str, *, required: bool = True) -> str:
        v = (self.data.get(col) or "").strip()
        if required and not v:
            raise self.fail(f"empty {col}")
        return v

    def boolean(self, col: str, *, nullable: bool = False) -> bool | None:
        v = (self.data.get(col) or "").strip().lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
        if nullable and v in ("", "none", "nan", "null", "unscored", "error"):
            return None
        raise self.fail(f"{col} must be True or False, got {self.data.get(col)!r}")

    def integer(self, col: str) -> int:
        v = (self.data.get(col) or "").strip()
        try:
            f = float(v)
        except ValueError:
            raise self.fail(f"{col} must be a non-negative integer, got {v!r}") from None
        if f < 0 or f != int(f):
            raise self.fail(f"{col} must be a non-negative integer, got {v!r}")
        return int(f)


def _read(path: Path) -> tuple[list[str], list[_Row], str | None]:
    """Header, rows, and the first structural problem (reported after the header check)."""
    problem: str | None = None
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            reader.fieldnames = header
            rows = []
            for i, rec in enumerate(reader, start=2):
                if None in rec and problem is None:
                    problem = f"{path.name} line {i}: more fields than the header"
                if problem is None and any(v is None for k, v in rec.items() if k is not None):
                    problem = f"{path.name} line {i}: fewer fields than the header (truncated?)"
                rows.append(_Row(path.name, i, {k: (v or "") for k, v in rec.items()}))
    except UnicodeDecodeError:
        raise ReleaseFormatError(f"{path.name}: not a UTF-8 CSV file") from None
    except csv.Error as e:
        raise ReleaseFormatError(f"{path.name}: unreadable CSV ({e})") from None
    return header, rows, problem


def _classify(name: str, header: set[str]) -> str | None:
    """The release file kind from its header; a known file name with a wrong header fails."""
    if header >= LABEL_REQUIRED:
        return "labels"
    if header >= INTERCEPTOR_REQUIRED:
        return "interceptor"
    if header >= PANEL_REQUIRED:
        return "panel"
    if header >= P2_REQUIRED:
        return "p2"
    if header >= BASELINE_REQUIRED and not (header & {"error_type", "eps"}):
        return "baseline"
    expected = {
        r"^p2_.*\.csv$": P2_REQUIRED, r"^human_labels_.*\.csv$": LABEL_REQUIRED,
        r"^interceptor_.*\.csv$": INTERCEPTOR_REQUIRED, r"^baseline.*\.csv$": BASELINE_REQUIRED,
        r".*(judge|panel).*\.csv$": PANEL_REQUIRED,
    }
    for pattern, req in expected.items():
        if re.match(pattern, name):
            missing = ", ".join(sorted(req - header))
            raise ReleaseFormatError(f"{name}: missing column(s) {missing}")
    return None


def infer_domain(task_id: str) -> str:
    """The domain from a release task id (halueval_* is the knowledge ablation)."""
    prefix = task_id.split("_", 1)[0].lower()
    if prefix in CORE_DOMAINS:
        return prefix
    if prefix == "halueval":
        return "knowledge"
    return "unknown"


def _label_value(r: _Row) -> str:
    v = r.text("label").upper()
    if v in ("YES", "CORRECT", "TRUE"):
        return "correct"
    if v in ("NO", "INCORRECT", "FALSE"):
        return "incorrect"
    if v in ("UNSURE", "UNCERTAIN", "?"):
        return "unsure"
    raise r.fail(f"label must be YES, NO or UNSURE, got {r.data.get('label')!r}")


def _condition_from_session(session_id: str) -> str | None:
    m = re.match(r"^(p\d)_(semantic_wrong|type_mismatch|out_of_range|missing_required)_",
                 session_id)
    return f"{m.group(1)}:{m.group(2)}" if m else None


class _Builder:
    """Collects traces/verdicts/labels across files, checking ids are not reused."""

    def __init__(self) -> None:
        self.res = ImportResult()
        self.trace_ids: dict[str, str] = {}
        self.verdict_keys: set[tuple[str, str]] = set()
        self.difficulty: dict[str, str] = {}
        self.domain: dict[str, str] = {}

    def trace(self, r: _Row, *, run_id: str, condition: str, answer: str, abstained: bool,
              arm: str, stages: dict[str, bool | None] | None, domain: str | None,
              difficulty: str | None, query: str | None) -> str:
        tid = r.text("session_id")
        if tid in self.trace_ids:
            raise r.fail(f"session_id {tid} already imported from {self.trace_ids[tid]}")
        self.trace_ids[tid] = r.fname
        task = r.text("task_id")
        meta: dict[str, Any] = {"imported": SOURCE, "source_file": r.fname,
                                "source_line": r.line, "source_row": r.data}
        self.res.traces.append(Trace(
            id=tid, run_id=run_id, model=r.text("model"), task_id=task,
            domain=domain or self.domain.get(task) or infer_domain(task),
            split="test", difficulty=difficulty or self.difficulty.get(task, "unknown"),
            condition=condition, arm=arm, status="ok", simulated=False,
            messages=[Message(role="user", content=query)] if query else [],
            events=[FinalEvent(step=0, answer=answer, abstained=abstained)],
            release_stages=stages, meta=meta,
        ))
        return tid

    def verdict(self, tid: str, judge: str, correct: bool | None, source: str,
                members: dict[str, bool | None] | None = None) -> None:
        if (tid, judge) in self.verdict_keys:
            return
        self.verdict_keys.add((tid, judge))
        self.res.verdicts.append(Verdict(trace_id=tid, judge=judge, correct=correct,
                                         raw={"source": SOURCE, "column": source},
                                         members=members or {}))


def _panel_verdicts(b: _Builder, r: _Row, tid: str, majority_col: str) -> None:
    votes = {j: r.boolean(f"{j}_verdict", nullable=True) for j in PANEL}
    for j, v in votes.items():
        b.verdict(tid, j, v, f"{j}_verdict")
    b.verdict(tid, PRIMARY, r.boolean(majority_col, nullable=True), majority_col, votes)
    b.verdict(tid, "heuristic", r.boolean("heuristic_correct", nullable=True),
              "heuristic_correct")


def _p2(b: _Builder, rows: list[_Row], baseline: bool) -> None:
    run_id = f"{SOURCE}:{'baseline' if baseline else 'p2'}"
    for r in rows:
        query = r.text("query", required=False) or None
        if baseline:
            condition, stages = "baseline", None
        else:
            et = r.text("error_type")
            eps = r.integer("eps")
            condition = f"p2:{et}"
            stages = {"opportunity": True, "S1": eps >= 1, "S2": eps >= 2, "corrected": None,
                      "no_tool_call": (not r.text("tool_selected", required=False))
                      if "tool_selected" in r.data else None}
        tid = b.trace(r, run_id=run_id, condition=condition,
                      answer=r.text("final_answer", required=False), abstained=False, arm="",
                      stages=stages, domain=r.text("domain"), difficulty=r.text("difficulty"),
                      query=query)
        _panel_verdicts(b, r, tid, "ensemble_correct")


def _panel(b: _Builder, rows: list[_Row]) -> None:
    for r in rows:
        tid = r.text("session_id")
        if tid not in b.trace_ids:
            et = r.text("injection_type")
            cond = et if ":" in et else (f"p2:{et}" if et != "baseline" else "baseline")
            b.trace(r, run_id=f"{SOURCE}:panel", condition=cond,
                    answer=r.text("candidate", required=False), abstained=False, arm="",
                    stages={"opportunity": None, "S1": None, "S2": None, "corrected": None,
                            "no_tool_call": None} if cond != "baseline" else None,
                    domain=None, difficulty=None, query=None)
        _panel_verdicts(b, r, tid, "majority")


def _interceptor(b: _Builder, rows: list[_Row]) -> None:
    for r in rows:
        arm = "control" if r.text("condition") == "no_interceptor" else "treatment"
        abstained = bool(r.boolean("abstained"))
        correct = r.boolean("final_correct")
        tid = b.trace(r, run_id=f"{SOURCE}:interceptor", condition="baseline",
                      answer=r.text("final_answer", required=False), abstained=abstained,
                      arm=arm, stages=None, domain=r.text("domain"), difficulty=None,
                      query=None)
        b.verdict(tid, PRIMARY, correct, "final_correct (the release's interceptor runs were "
                  "judged by its heuristic)")


def _labels(b: _Builder, rows: list[_Row]) -> None:
    seen: set[tuple[str, str]] = set()
    for r in rows:
        tid, ann = r.text("session_id"), r.text("annotator")
        if (tid, ann) in seen:
            raise r.fail(f"second label of {tid} by {ann}")
        seen.add((tid, ann))
        extra = {k: v for k, v in r.data.items() if k not in LABEL_REQUIRED and v}
        note = "; ".join(f"{k}={v}" for k, v in extra.items())
        b.res.labels.append(Label(trace_id=tid, annotator=ann, label=_label_value(r),
                                  note=note))
        # label files of the release carry the judges' verdicts of label-only sessions
        if "ensemble_majority" in r.data:
            b.verdict(tid, PRIMARY, r.boolean("ensemble_majority", nullable=True),
                      "ensemble_majority")
        if "heuristic_correct" in r.data:
            b.verdict(tid, "heuristic", r.boolean("heuristic_correct", nullable=True),
                      "heuristic_correct")


_ORDER: dict[str, Callable[[_Builder, list[_Row]], None]] = {
    "p2": lambda b, rows: _p2(b, rows, baseline=False),
    "baseline": lambda b, rows: _p2(b, rows, baseline=True),
    "panel": _panel,
    "interceptor": _interceptor,
    "labels": _labels,
}


def read_release(folder: str | Path) -> ImportResult:
    """Parse and validate every release CSV in `folder` (nothing is written)."""
    root = Path(folder)
    if not root.is_dir():
        raise ReleaseFormatError(f"{root} is not a folder")
    kinds: dict[str, list[tuple[Path, list[_Row]]]] = {k: [] for k in _ORDER}
    b = _Builder()
    for path in sorted(root.glob("*.csv")):
        header, rows, problem = _read(path)
        kind = _classify(path.name, set(header))
        if kind is None:
            b.res.skipped.append(path.name)
            continue
        if problem:
            raise ReleaseFormatError(problem)
        kinds[kind].append((path, rows))
        b.res.files[path.name] = kind
        for r in rows:  # difficulty/domain by task for files that lack them
            task = r.data.get("task_id", "")
            if r.data.get("difficulty"):
                b.difficulty.setdefault(task, r.data["difficulty"].strip())
            if r.data.get("domain"):
                b.domain.setdefault(task, r.data["domain"].strip())
    if not b.res.files:
        raise ReleaseFormatError(f"no release CSV files found in {root}")
    for kind, build in _ORDER.items():
        for path, rows in kinds[kind]:
            if not rows:
                raise ReleaseFormatError(f"{path.name}: no data rows")
            build(b, rows)
    _check_pairs(b.res.traces)
    runs = sorted({t.run_id for t in b.res.traces})
    b.res.runs = [RunSpec(id=run, config={"source": SOURCE, "folder": str(root.resolve()),
                                          "files": b.res.files}) for run in runs]
    return b.res


def _check_pairs(traces: Iterable[Trace]) -> None:
    """Interceptor arms must pair one-to-one on (model, task_id)."""
    seen: dict[tuple[str, str, str], str] = {}
    for t in traces:
        if t.arm:
            key = (t.arm, t.model, t.task_id)
            if key in seen:
                raise ReleaseFormatError(
                    f"{t.meta.get('source_file')} line {t.meta.get('source_line')}: "
                    f"{t.arm} arm has two rows for model {t.model}, task {t.task_id}"
                    " (arms are paired on model and task)")
            seen[key] = t.id


def import_agenthallu(folder: str | Path, workspace: Workspace) -> ImportResult:
    """Read, validate, then write everything to `workspace` (a store.Workspace).

    Validation happens entirely before the first write, so a malformed file leaves the
    workspace untouched. Sets meta "imported" = "agenthallu" and "primary_judge" = "majority".
    """
    res = read_release(folder)
    existing = workspace.trace_ids()
    try:
        for run in res.runs:
            workspace.put_run(run)
        workspace.put_traces(res.traces)
        workspace.put_verdicts(res.verdicts)
        workspace.put_labels(res.labels)
        workspace.update_meta(imported=SOURCE, primary_judge=PRIMARY)
    except Exception:
        _rollback(workspace, res, existing)
        raise
    return res


def _rollback(workspace: Workspace, res: ImportResult, existing: set[str]) -> None:
    """Best effort: remove what this import added if a write failed half-way."""
    new = [t.id for t in res.traces if t.id not in existing]
    with workspace.transaction() as conn:
        conn.executemany("DELETE FROM traces WHERE id=?", [(i,) for i in new])
        conn.executemany("DELETE FROM verdicts WHERE trace_id=?", [(i,) for i in new])
        conn.executemany("DELETE FROM runs WHERE id=?", [(r.id,) for r in res.runs])
