"""Assembling, storing and loading the suite: exact counts, splits, version and checksum."""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import importlib
import json
import os
from collections import Counter
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentprop.core import Task
from agentprop.errors import AgentpropError
from agentprop.suite._generator import GENERATORS, TaskGenerator

SUITE_VERSION = "1.2"  # 1.1: every query names exactly one task; 1.2: asked/context facts
DEFAULT_SEED = 20260416
DOMAIN_COUNTS: dict[str, int] = {
    "calendar": 667,
    "weather": 674,
    "medical": 559,
    "knowledge": 100,
    "retail": 300,
}
CORE_DOMAINS = ("calendar", "weather", "medical", "knowledge")
HELD_OUT_DOMAINS = ("retail",)
VAL_FRACTION = 0.10


class SuiteError(AgentpropError):
    """A suite file that cannot be read or is not a valid suite; one line for the user."""


def _load_generators() -> None:
    # Importing the modules registers the generators.
    for name in ("_calendar", "_knowledge", "_medical", "_retail", "_weather"):
        importlib.import_module(f"agentprop.suite.{name}")
    from agentprop.plugins import load_plugins

    load_plugins()  # installed plugin packages register generators of their domains


def get_generator(domain: str) -> TaskGenerator:
    _load_generators()
    from agentprop.core import UnknownNameError
    from agentprop.plugins import explain_unknown

    try:
        factory = GENERATORS.get(domain)
    except UnknownNameError as e:  # a plugin that failed to load may be the one
        raise explain_unknown(e) from None
    return factory()


def _split_for(task_id: str, seed: int) -> str:
    """Deterministic ~10 % validation split, stratified by hashing (domain × difficulty
    balance follows from the generators' mix)."""
    h = hashlib.sha256(f"{seed}:{task_id}".encode()).digest()
    return "val" if int.from_bytes(h[:4], "big") / 2**32 < VAL_FRACTION else "test"


class Suite:
    """An ordered collection of tasks with a version and a content checksum."""

    def __init__(self, tasks: list[Task], seed: int, version: str = SUITE_VERSION) -> None:
        self.tasks = tasks
        self.seed = seed
        self.version = version
        self._by_id = {t.id: t for t in tasks}
        if len(self._by_id) != len(tasks):
            raise SuiteError("suite has duplicate task ids")

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def get(self, task_id: str) -> Task | None:
        return self._by_id.get(task_id)

    @cached_property
    def _by_query(self) -> dict[str, Task]:
        return {_norm(t.query): t for t in self.tasks}

    def find_by_query(self, text: str) -> Task | None:
        """The task whose query is `text` (whitespace and case normalised)."""
        return self._by_query.get(_norm(text))

    def select(
        self,
        *,
        domain: str | list[str] | None = None,
        split: str | None = None,
        difficulty: str | None = None,
        limit: int | None = None,
    ) -> list[Task]:
        domains = [domain] if isinstance(domain, str) else domain
        out = [
            t
            for t in self.tasks
            if (domains is None or t.domain in domains)
            and (split is None or t.split == split)
            and (difficulty is None or t.difficulty == difficulty)
        ]
        return out[:limit] if limit is not None else out

    @cached_property
    def checksum(self) -> str:
        h = hashlib.sha256()
        h.update(self.version.encode())
        for t in self.tasks:
            h.update(_canonical(t).encode())
            h.update(b"\n")
        return h.hexdigest()

    def stats(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "seed": self.seed,
            "checksum": self.checksum,
            "total": len(self.tasks),
            "by_domain": dict(Counter(t.domain for t in self.tasks)),
            "by_difficulty": dict(Counter(t.difficulty for t in self.tasks)),
            "by_split": dict(Counter(t.split for t in self.tasks)),
        }

    def to_jsonl(self, path: Path) -> None:
        """Write atomically: a header line, then one task per line (gzip if *.gz)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        header = {"suite_version": self.version, "seed": self.seed, "checksum": self.checksum}
        opener: Any = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(tmp, "wt", encoding="utf-8") as f:
                f.write(json.dumps(header) + "\n")
                for t in self.tasks:
                    f.write(_canonical(t) + "\n")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)  # nothing half-written is left behind

    @classmethod
    def from_jsonl(cls, path: Path) -> Suite:
        path = Path(path)
        opener: Any = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                lines = [ln for ln in f if ln.strip()]
        except FileNotFoundError:
            raise SuiteError(f"suite file not found: {path}") from None
        except (OSError, UnicodeDecodeError, EOFError) as e:
            raise SuiteError(f"cannot read suite file {path}: {e}") from None
        if not lines:
            raise SuiteError(f"suite file {path} is empty")
        try:
            header = json.loads(lines[0])
            if not isinstance(header, dict) or "suite_version" not in header:
                raise SuiteError(f"{path}: first line is not a suite header")
            tasks = [Task.model_validate_json(ln) for ln in lines[1:]]
        except json.JSONDecodeError as e:
            raise SuiteError(f"{path}: not JSON lines ({e.msg}, line 1)") from None
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise SuiteError(f"{path}: invalid task ({where}: {err['msg']})") from None
        suite = cls(tasks, seed=int(header.get("seed", 0)), version=str(header["suite_version"]))
        if header.get("checksum") and _line_checksum(suite.version, lines[1:]) == \
                header["checksum"]:
            suite.__dict__["checksum"] = header["checksum"]  # lines already canonical
        if header.get("checksum") and header["checksum"] != suite.checksum:
            raise SuiteError(f"{path}: checksum mismatch (file modified or truncated)")
        return suite


def _line_checksum(version: str, lines: list[str]) -> str:
    """The checksum of task lines as written (equal to `Suite.checksum` when each line is
    the task's canonical form, as `to_jsonl` writes it): no re-serialising on load."""
    h = hashlib.sha256()
    h.update(version.encode())
    for ln in lines:
        h.update(ln.rstrip("\n").encode())
        h.update(b"\n")
    return h.hexdigest()


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


# Fact fields added in suite 1.2, left out of the canonical form at their defaults so that a
# 1.1 suite file still loads with its own checksum.
_FACT_DEFAULTS: dict[str, Any] = {"role": "asked", "about": {}, "options": [], "relation": None,
                  "yes_option": None, "exact": False, "accepts": [], "group": None}


def _canonical(task: Task) -> str:
    data = task.model_dump(mode="json")
    entities = data.pop("query_entities")  # persisted where suite files always kept it
    if entities:
        data["meta"] = {**data["meta"], "query_entities": entities}
    if not data.get("asks"):
        data.pop("asks", None)
    for fact in data["expected_facts"]:
        for k, default in _FACT_DEFAULTS.items():
            if fact.get(k) == default:
                del fact[k]
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def build_suite(seed: int = DEFAULT_SEED) -> Suite:
    """Generate every domain's tasks with the exact published counts; deterministic in seed."""
    if not isinstance(seed, int) or seed < 0 or seed >= 2**63:
        raise SuiteError(f"invalid seed {seed!r}: must be an integer in [0, 2**63)")
    tasks: list[Task] = []
    for i, (domain, n) in enumerate(DOMAIN_COUNTS.items()):
        gen = get_generator(domain)
        dom_seed = (
            int.from_bytes(hashlib.sha256(f"{seed}:{domain}:{i}".encode()).digest()[:8], "big") >> 1
        )
        made = gen.generate(n, dom_seed)
        if len(made) != n:
            raise SuiteError(f"generator for {domain} made {len(made)} tasks, expected {n}")
        for t in made:
            t.split = "val" if _split_for(t.id, seed) == "val" else "test"
        tasks.extend(made)
    _check_unique_queries(tasks)
    return Suite(tasks, seed=seed)


def _check_unique_queries(tasks: list[Task]) -> None:
    """`Suite.find_by_query` must name one task: a shared query is a generator bug."""
    seen: dict[str, str] = {}
    for t in tasks:
        other = seen.setdefault(_norm(t.query), t.id)
        if other != t.id:
            raise SuiteError(f"tasks {other} and {t.id} share the query {t.query!r}")


@functools.cache
def code_fingerprint() -> str:
    """A hash of the domain and suite source: a cached suite is reused only by the same code."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for sub in ("domains", "suite", "core"):
        for f in sorted((root / sub).glob("*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def default_suite_path(seed: int = DEFAULT_SEED) -> Path:
    base = os.environ.get("AGENTPROP_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentprop"
    )
    return Path(base) / f"suite-v{SUITE_VERSION}-seed{seed}-{code_fingerprint()}.jsonl.gz"


def load_suite(path: Path | None = None, seed: int = DEFAULT_SEED) -> Suite:
    """The suite from `path`, else from the built-in cache location (built on first use)."""
    if path is not None:
        return Suite.from_jsonl(path)
    cached = default_suite_path(seed)
    if cached.exists():
        try:
            return Suite.from_jsonl(cached)
        except SuiteError:
            pass  # a stale or damaged cache is rebuilt
    suite = build_suite(seed)
    with contextlib.suppress(OSError):  # a read-only home is fine: the suite is deterministic
        suite.to_jsonl(cached)
    return suite
