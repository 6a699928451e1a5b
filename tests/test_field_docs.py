"""Every persisted field is documented where it is defined (as Inspect documents every field
of its EvalLog): a user reading a trace, a task or the workspace meta finds what each field
means in `agentprop/core/`. The check reads the source, so a field added without its
docstring fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pydantic

import agentprop.core as core

CORE = Path(core.__file__).resolve().parent


def _undocumented(path: Path) -> list[str]:
    missing = []
    for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(cls, ast.ClassDef):
            continue
        for i, stmt in enumerate(cls.body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                after = cls.body[i + 1] if i + 1 < len(cls.body) else None
                if not (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                        and isinstance(after.value.value, str)):
                    missing.append(f"{path.name}: {cls.name}.{stmt.target.id}")
    return missing


def test_every_field_of_the_core_records_has_a_docstring() -> None:
    missing = [m for path in sorted(CORE.glob("*.py")) for m in _undocumented(path)]
    assert missing == []


def test_the_check_sees_every_persisted_model() -> None:
    """The source check covers the exported models: each public pydantic model of
    agentprop.core is defined in a file the check reads."""
    models = [obj for name in core.__all__ if isinstance(obj := getattr(core, name), type)
              and issubclass(obj, pydantic.BaseModel)]
    assert {"Task", "Trace", "Fact", "Verdict", "WorkspaceMeta"} <= {m.__name__ for m in models}
    for model in models:
        assert Path(model.__module__.replace(".", "/") + ".py").parent.name == "core"


def test_an_undocumented_field_is_caught(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("class A:\n    x: int\n    \"\"\"doc\"\"\"\n    y: int = 0\n")
    assert _undocumented(src) == ["m.py: A.y"]
