"""Label CSV import rejects what the csv module would silently accept: an unterminated
quote (which swallows the rest of the file into one cell) and surplus cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprop.store import Workspace
from tests.hostile._helpers import invoke, labelled_workspace, one_line_error


@pytest.mark.parametrize("body,where,what", [
    ('tr-a,ann,YES\n"tr-b,ann,NO\ntr-c,ann,YES\n', "line 3", "unterminated quoted field"),
    ('tr-a,ann,YES\ntr-b,"ann,NO\n', "line 3", "unterminated quoted field"),
    ("tr-a,ann,YES\ntr-b,ann,NO,oops\n", "line 3", "1 more cell(s)"),
    ("tr-a,ann,YES,x,y\n", "line 2", "2 more cell(s)"),
    ('tr-a,"ann"x,YES\n', "line 2", "not valid CSV"),
])
def test_malformed_rows_are_rejected_with_their_line(tmp_path: Path, body: str, where: str,
                                                     what: str) -> None:
    labelled_workspace(tmp_path / "w").close()
    f = tmp_path / "labels.csv"
    f.write_text("trace_id,annotator,label\n" + body, encoding="utf-8")
    line = one_line_error(invoke("label", "import", str(f), "-w", str(tmp_path / "w")))
    assert where in line and what in line and "nothing written" in line, line
    assert Workspace(tmp_path / "w").labels() == []


def test_a_well_formed_file_still_imports(tmp_path: Path) -> None:
    labelled_workspace(tmp_path / "w").close()
    f = tmp_path / "labels.csv"
    f.write_text('trace_id,annotator,label,note\ntr-a,ann,YES,"a, quoted\nnote"\n'
                 "tr-b,ann,NO,\n", encoding="utf-8")
    result = invoke("label", "import", str(f), "-w", str(tmp_path / "w"))
    assert result.exit_code == 0, result.output
    notes = {lab.trace_id: lab.note for lab in Workspace(tmp_path / "w").labels()}
    assert notes == {"tr-a": "a, quoted\nnote", "tr-b": ""}
