"""`agentprop._deferred`: importing agentprop, its domains' validators and the MCP SDK does
not compile rfc3987_syntax's grammar, and an `iri` format check still gives the real
module's answer (it loads it then)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import sys
import agentprop.domains, agentprop.suite, mcp.server.lowlevel, jsonschema
assert "lark" not in sys.modules, "rfc3987_syntax was imported"
checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
values = ["http://example.com/ä", "not an iri", "a b", "urn:x:y", "//host/path?q#f"]
got = [(checker.conforms(v, "iri"), checker.conforms(v, "iri-reference")) for v in values]
import rfc3987_syntax
assert type(rfc3987_syntax).__name__ == "module", type(rfc3987_syntax)
want = [(rfc3987_syntax.is_valid_syntax("iri", v),
         rfc3987_syntax.is_valid_syntax("iri_reference", v)) for v in values]
assert got == want, (got, want)
assert got[0] == (True, True) and got[1] == (False, False)
"""


def test_rfc3987_syntax_loads_on_first_use_only() -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
