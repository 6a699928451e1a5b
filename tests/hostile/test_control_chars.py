"""Control characters: refused in annotator names, escaped whenever stored text is shown
in the terminal."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from agentprop.core import Label
from agentprop.labels import make_server
from agentprop.safety import has_control_chars, term_safe
from agentprop.store import Workspace
from agentprop.suite import Suite
from tests.hostile._helpers import (
    ESC,
    TERMINAL_ATTACK,
    invoke,
    labelled_workspace,
    one_line_error,
    raw_http,
    serving,
    status_of,
)
from tests.judges.conftest import TASKS


@pytest.mark.parametrize("name", ["eve\x1b[31m", "nul\x00byte", "bell\x07", "bidi\u202eevil",
                                  "c1\x9bcsi"])
def test_label_app_refuses_control_characters_in_names(tmp_path: Path, name: str) -> None:
    labelled_workspace(tmp_path / "w").close()
    with serving(make_server(tmp_path / "w", Suite(list(TASKS), seed=0), port=0)) as port:
        form = f"annotator={quote(name)}&trace=tr-a&label=correct".encode()
        post = raw_http(port, (
            f"POST /label HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nContent-Length: {len(form)}\r\n"
            "Connection: close\r\n\r\n").encode() + form)
        get = raw_http(port, f"GET /label?annotator={quote(name)} HTTP/1.0\r\n"
                             f"Host: 127.0.0.1:{port}\r\n\r\n".encode())
    assert status_of(post) == 400 and status_of(get) == 400
    assert Workspace(tmp_path / "w").labels() == []


def test_label_import_refuses_control_characters_in_names(tmp_path: Path) -> None:
    labelled_workspace(tmp_path / "w").close()
    f = tmp_path / "l.csv"
    f.write_text(f"trace_id,annotator,label\ntr-a,ann,YES\ntr-b,e{ESC}ve,NO\n", encoding="utf-8")
    line = one_line_error(invoke("label", "import", str(f), "-w", str(tmp_path / "w")))
    assert "line 3" in line and "control character" in line
    assert Workspace(tmp_path / "w").labels() == []


def test_traces_show_and_list_escape_stored_text(tmp_path: Path) -> None:
    labelled_workspace(tmp_path / "w", answer=f"14°C {TERMINAL_ATTACK} rain").close()
    for args in (["traces", "show", "tr-a"], ["traces", "list"]):
        result = invoke(*args, "-w", str(tmp_path / "w"))
        assert result.exit_code == 0, result.output
        assert ESC not in result.output, args
        assert "\\x1b]0;pwned" in result.output or "\\x1b" in result.output


def test_label_agreement_escapes_stored_names(tmp_path: Path) -> None:
    """A name stored before this check existed (or by hand) is still shown escaped."""
    ws = labelled_workspace(tmp_path / "w")
    ws.put_labels([Label(trace_id=t, annotator=f"ann{TERMINAL_ATTACK}", label="correct")
                   for t in ("tr-a", "tr-b")]
                  + [Label(trace_id=t, annotator="bob", label="incorrect")
                     for t in ("tr-a", "tr-b")])
    ws.close()
    result = invoke("label", "agreement", "-w", str(tmp_path / "w"))
    assert result.exit_code == 0, result.output
    assert ESC not in result.output and "ann\\x1b]0;pwned" in result.output


def test_terminal_rules() -> None:
    assert term_safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert term_safe("line\nnext\ttab") == "line\nnext\ttab"
    assert term_safe("\x00\x7f\x9b\u202e") == "\\x00\\x7f\\x9b\\u202e"
    assert term_safe(term_safe("\x1b")) == "\\x1b"  # idempotent
    assert has_control_chars("a\tb") and has_control_chars("a\x1b") and not has_control_chars(
        "Zoë Ng-O'Brien")


HOSTILE_NAME = f"evil{TERMINAL_ATTACK}<script>alert(1)</script>[x](http://e.example)"


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A judged workspace whose agent is named with ESC, HTML and a link; its report
    built by a real `agentprop report` process: (workspace, that process's stderr)."""
    from tests.hostile._helpers import cli_process

    ws = tmp_path_factory.mktemp("hostile-report") / "w"
    agents = Path(__file__).with_name("_agents.py")
    for args in (["run", "--agent", f"{agents}:gold", "--agent-name", HOSTILE_NAME, "-n", "4",
                  "-d", "weather", "-c", "baseline", "-c", "p2:semantic_wrong", "--json"],
                 ["judge", "-j", "facts", "--json"]):
        result = invoke(*args, "-w", str(ws))
        assert result.exit_code == 0, result.output
    proc = cli_process("report", "-w", str(ws))
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return ws, err


def test_report_tables_escape_html_links_and_control_characters(
        hostile_report: tuple[Path, str]) -> None:
    ws, _ = hostile_report
    tables = sorted((ws / "report" / "tables").glob("*.md"))
    text = "".join(t.read_text() for t in tables)
    assert "evil" in text  # the name is there, as typed...
    assert ESC not in text and "<script>" not in text and "](http" not in text  # ...inert
    assert "]\\(http" in text
    assert "&lt;script&gt;" in text and "\\\\x1b" in text


def test_no_raw_escape_reaches_stderr_through_warnings(
        hostile_report: tuple[Path, str]) -> None:
    _, err = hostile_report
    assert ESC not in err and "\x07" not in err


def test_warnings_and_log_lines_are_terminal_safe() -> None:
    """Any library's warning or log line (matplotlib quotes a glyph, the MCP SDK a tool
    name) goes through term_safe in the CLI's process."""
    import subprocess
    import sys

    code = ("import logging, warnings; from agentprop.cli._common import safe_diagnostics; "
            "safe_diagnostics(); warnings.warn('w' + chr(27) + '[2J'); "
            "logging.getLogger('sdk').warning('tool %s', 'x' + chr(27) + ']0;t' + chr(7))")
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60).stderr
    assert ESC not in err and "\x07" not in err
    assert "w\\x1b[2J" in err and "tool x\\x1b]0;t\\x07" in err
