"""One user-facing error root: every exception class agentprop defines derives from
AgentpropError, except the internal signals that agentprop/errors.py names, and the CLI
turns any of them into one line and the error's exit code."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import typer
from typer.testing import CliRunner

import agentprop
from agentprop.cli._common import install_error_boundary
from agentprop.errors import AgentpropError

INTERNAL = {"RetryableError", "GoldError", "InjectionError", "BadRequest",
            "EpisodeClosed", "UnknownEpisode", "UnknownEpisodeError", "WorkerLost"}


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(agentprop.__path__, "agentprop."):
        if info.name == "agentprop.testing":
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException)
                    and obj.__module__ == module.__name__):
                found[f"{module.__name__}.{name}"] = obj
    return found


def test_every_user_facing_exception_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) >= 20  # the walk really saw the package
    stray = sorted(q for q, c in classes.items()
                   if not issubclass(c, AgentpropError) and c.__name__ not in INTERNAL)
    assert stray == []
    assert {c.__name__ for c in classes.values()} >= INTERNAL  # the exemptions still exist


def test_cli_prints_one_line_with_the_errors_exit_code() -> None:
    class Failed(AgentpropError):
        exit_code = 1

        def user_message(self) -> str:
            return "the work failed: see above"

    app = typer.Typer()

    @app.command()
    def boom() -> None:
        raise Failed("raw")

    @app.command()
    def other() -> None:
        raise AgentpropError("bad input")

    install_error_boundary(app)
    res = CliRunner().invoke(app, ["boom"])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    assert res.output.strip() == "error: the work failed: see above"
    res = CliRunner().invoke(app, ["other"])
    assert res.exit_code == 2 and res.output.strip() == "error: bad input"
