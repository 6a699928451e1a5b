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
