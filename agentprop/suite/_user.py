"""The user's own tasks (`run --tasks FILE`): questions for the tools of their MCP server.

A tasks file is JSON Lines (one object per line) or YAML (a list of objects, or a mapping
with a ``tasks`` list). Each object has:

- ``query`` (required): the question the agent is asked;
- ``reference`` (optional): the right answer, as the user would write it; without one, the
  reference is the agent's own clean-run answer to the same question (docs/your-tools.md);
- ``tools`` (optional): the names of the server's tools the agent is offered (an
  allowlist; default: every tool the server lists);
- ``id`` (optional): a stable id (letters, digits, ``_``, ``-``, ``.``; default
  ``<domain>_<nnnn>`` by position);
- ``split`` (optional): ``val`` or ``test`` (default ``test``);
- ``difficulty`` (optional): ``easy``, ``medium`` or ``hard`` (default ``medium``: a user
  task is not graded for difficulty unless the user says so).

They become ordinary `Task`s (no gold plan, no graded facts; ``reference_answer`` empty when
no reference is given), so planning, running, storing and reporting need no special case.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentprop.core import Task
from agentprop.suite._suite import Suite, SuiteError

USER_SUITE_VERSION = "user"
"""The version of a suite built from a tasks file (its checksum covers the tasks)."""
_KEYS = ("query", "reference", "tools", "id", "split", "difficulty")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def _records(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(f"no tasks file {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SuiteError(f"cannot read tasks file {path}: {e}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark is not None else ""
            raise SuiteError(f"{path}: not valid YAML{where}") from None
        if isinstance(data, dict) and "tasks" in data:
            data = data["tasks"]
        if not isinstance(data, list):
            raise SuiteError(f"{path}: a YAML tasks file is a list of tasks (or a mapping "
                             "with a 'tasks' list)")
        return data
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise SuiteError(f"{path}:{n}: not a JSON object ({e.msg}); a tasks file is "
                             "JSON Lines (one object per line) or YAML") from None
    return out


def _text(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SuiteError(f"{where}: {what} must be a non-empty string")
    return value.strip()


def _tools(value: Any, known: Sequence[str], where: str) -> list[str]:
    if value is None:
        return list(known)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SuiteError(f"{where}: tools must be a non-empty list of tool names")
    for name in value:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SuiteError(f"{where}: the server has no tool {name!r}{hint}; its tools: "
                             f"{', '.join(known)}")
    return list(dict.fromkeys(value))


def _task(rec: Any, n: int, domain: str, known: Sequence[str], where: str) -> Task:
    if not isinstance(rec, dict):
        raise SuiteError(f"{where}: a task is an object with at least a 'query'")
    extra = [k for k in rec if k not in _KEYS]
    if extra:
        close = difflib.get_close_matches(str(extra[0]), _KEYS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise SuiteError(f"{where}: unknown key {extra[0]!r}{hint}; a task has "
                         f"{', '.join(_KEYS)}")
    tid = rec.get("id", f"{domain}_{n:04d}")
    if not isinstance(tid, str) or not _ID.match(tid):
        raise SuiteError(f"{where}: id {tid!r} must be 1-80 letters, digits, '_', '-' or '.'")
    split = rec.get("split", "test")
    if split not in ("val", "test"):
        raise SuiteError(f"{where}: split must be 'val' or 'test', not {split!r}")
    difficulty = rec.get("difficulty", "medium")
    if difficulty not in ("easy", "medium", "hard"):
        raise SuiteError(f"{where}: difficulty must be easy, medium or hard, not "
                         f"{difficulty!r}")
    reference = rec.get("reference")
    return Task(
        id=tid, domain=domain, split=split, difficulty=difficulty, intent="user",
        query=_text(rec.get("query"), "query", where),
        tools=_tools(rec.get("tools"), known, where), env_seed=0, gold_plan=[],
        reference_answer="" if reference is None else _text(reference, "reference", where),
    )


def load_user_tasks(path: Path, *, domain: str, tools: Sequence[str]) -> list[Task]:
    """The tasks of a tasks file for the server `domain` whose tools are `tools`; a
    `SuiteError` (one line, with the file and line or task number) for bad input."""
    path = Path(path)
    records = _records(path)
    if not records:
        raise SuiteError(f"{path}: no tasks")
    if not tools:
        raise SuiteError(f"the server {domain!r} lists no tools: there is nothing to test")
    tasks = [_task(rec, n, domain, tools, f"{path}: task {n}")
             for n, rec in enumerate(records, 1)]
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise SuiteError(f"{path}: task id {t.id!r} is used twice")
        seen.add(t.id)
    return tasks


def user_suite(tasks: list[Task]) -> Suite:
    """The user's tasks as a suite (what planning, the runner and the judges read)."""
    return Suite(tasks, seed=0, version=USER_SUITE_VERSION)
