"""The `agentprop` command. Thin: parses options, calls the library, prints."""

from __future__ import annotations

import gc

import typer

from agentprop.cli import (
    _analyze,
    _external,
    _intercept,
    _judge,
    _main_job,
    _models,
    _run,
    _stages,
    _suite,
)
from agentprop.cli._common import install_error_boundary, plain_help

app = typer.Typer(
    name="agentprop",
    help="Measure error propagation, judge reliability and interception in tool-using agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Every option is also read from AGENTPROP_<COMMAND>_<OPTION> (e.g.
    # AGENTPROP_TRACES_LIST_LIMIT) unless it names its own variable (AGENTPROP_WORKSPACE...).
    context_settings={"auto_envvar_prefix": "AGENTPROP"},
)

for _module in (_suite, _models, _run, _stages, _judge, _analyze, _intercept, _main_job,
                _external):
    _module.register(app)
# The one place where library errors become one line and an exit code (AgentpropError).
install_error_boundary(app)
# Help in 80 columns: plain layout, summaries whole, docstrings reflowed.
plain_help(app)


def main() -> None:
    from dotenv import load_dotenv

    from agentprop.cli._common import safe_diagnostics

    load_dotenv(override=False)
    safe_diagnostics()
    try:
        app()
    finally:
        # The interpreter's last collection walks every object still alive (a loaded
        # suite: ~1 s on a loaded machine); frozen, they are only freed. Ctrl-C then
        # ends the process at once.
        gc.freeze()


__all__ = ["app", "main"]
