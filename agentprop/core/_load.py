"""`MODULE_OR_FILE:NAME` to the object it names: the one loader of user code that agentprop
calls by name (an external agent, a guardrail)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from agentprop.errors import AgentpropError


class LoadError(AgentpropError, ValueError):
    """A spec that does not name a usable object (one line for the user)."""


def import_target(target: str, what: str = "module") -> Any:
    """The module `target` names: a dotted module path, or a Python file (loaded under a
    private name, so two files with one stem do not collide with installed modules)."""
    path = Path(target)
    if target.endswith(".py") or path.exists():
        if not path.is_file():
            raise LoadError(f"{what} file {target!r} does not exist")
        name = f"agentprop_{what.replace(' ', '_')}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise LoadError(f"cannot load {target!r} as a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(name, None)
            raise LoadError(f"importing {target!r} failed: {type(e).__name__}: {e}"
                            ) from None
        return module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        raise LoadError(f"no module {target!r} ({e})") from None
    except Exception as e:
        raise LoadError(f"importing {target!r} failed: {type(e).__name__}: {e}") from None


def load_object(spec: str, what: str, form: str = "MODULE_OR_FILE:CALLABLE"
                ) -> tuple[Any, str]:
    """(the object `spec` names, its short name ``stem.attr``). `what` names it in
    messages ("agent", "guard")."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise LoadError(f"invalid {what} {spec!r}: expected {form}")
    obj: Any = import_target(target, what)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise LoadError(f"{target!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    stem = Path(target).stem if target.endswith(".py") else target
    return obj, f"{stem}.{attr}"
