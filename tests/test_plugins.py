"""A package installed beside agentprop adds a domain, a judge, a provider and a condition
through the `agentprop.plugins` entry-point group, without touching agentprop's code.

The plugin is a real distribution (a dist-info with entry_points.txt) in a temp site folder,
and it is exercised in a fresh interpreter, so the registries of this test process stay as
they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PLUGIN = '''
"""A tiny agentprop plugin."""
from agentprop.core import Verdict
from agentprop.domains import DOMAINS
from agentprop.inject import PROTOCOLS, Corruption, ErrorProtocol
from agentprop.judges import JUDGES, Judge
from agentprop.models import register_provider
from agentprop.testing import ScriptedModel, TinyDomain


def register():
    @DOMAINS.register("plugtown")
    class PlugTown(TinyDomain):
        name = "plugtown"

    @JUDGES.register("always")
    class Always(Judge):
        kind = "always"

        def __init__(self, arg, **options):
            self.name = "always"

        def judge(self, trace, task):
            return Verdict(trace_id=trace.id, judge=self.name, correct=True)

    @register_provider("plug")
    def plug(name, **options):
        return ScriptedModel(["plugged"], model_id=f"plug/{name}")

    @PROTOCOLS.register("shout")
    class Shout(ErrorProtocol):
        error_type = "shout"

        def corrupt(self, call, tool, domain, env, rng):
            return None
'''

CHECK = '''
import asyncio
from agentprop.domains import domain_names, get_domain
from agentprop.inject import error_type_of, expand_conditions, valid_conditions
from agentprop.judges import canonical_name, get_judge
from agentprop.models import GenerateConfig, get_model
from agentprop.plugins import load_plugins

assert "plugtown" in domain_names() and get_domain("plugtown").name == "plugtown"
assert canonical_name("always") == "always" and get_judge("always").name == "always"
model = get_model("plug/x")
assert model.id == "plug/x"
assert asyncio.run(model.generate([], [], GenerateConfig())).text == "plugged"
assert error_type_of("p2:shout") == "shout" and "p2:shout" in valid_conditions()
assert "p2:shout" not in expand_conditions(["p2:all"])  # `all` stays the paper's four
assert load_plugins() == ("tinyplug",)
print("ok")
'''


def _install(site: Path, module: str, value: str) -> None:
    (site / f"{module}.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    info = site / "tinyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinyplug\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[agentprop.plugins]\ntinyplug = {value}\n",
                                           encoding="utf-8")


def _run(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_an_installed_plugin_adds_a_domain_judge_provider_and_condition(tmp_path: Path) -> None:
    _install(tmp_path, "tinyplug", "tinyplug:register")
    res = _run(tmp_path, CHECK)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_a_broken_plugin_is_one_line_naming_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install(site, "tinyplug", "tinyplug:no_such_function")
    res = _run(site, "import sys; sys.argv = ['agentprop', 'judge', '-w', sys.argv[1], "
                     "'--judge', 'always']; from agentprop.cli import main; main()"
                     .replace("sys.argv[1]", repr(str(tmp_path / "ws"))))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: plugin 'tinyplug' "
                                                   "(tinyplug:no_such_function) failed to load")
    assert not (tmp_path / "ws").exists()  # nothing was written


def _install_raising(site: Path, raises: str) -> None:
    """A plugin whose import raises `raises` (SystemExit, KeyboardInterrupt...)."""
    site.mkdir(exist_ok=True)
    (site / "badplug.py").write_text(f"raise {raises}\n", encoding="utf-8")
    info = site / "badplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badplug\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[agentprop.plugins]\nbadplug = badplug\n",
                                           encoding="utf-8")


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run(site, f"import sys; sys.argv = ['agentprop', *{list(args)!r}]; "
                      "from agentprop.cli import main; main()")


@pytest.mark.parametrize("raises", ["SystemExit(0)", "KeyboardInterrupt",
                                    "BaseException('odd')", "ImportError('missing dep')"])
def test_a_failing_plugin_fails_only_the_commands_that_use_it(tmp_path: Path,
                                                              raises: str) -> None:
    site = tmp_path / "site"
    _install_raising(site, raises)
    ws = tmp_path / "ws"
    ran = _cli(site, "run", "-m", "sim/balanced", "-n", "2", "-w", str(ws), "--json")
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert json.loads(ran.stdout)["completed"] == 2  # the run never needed the plugin
    for args in (["judge", "-w", str(ws), "--judge", "always"],
                 ["run", "-m", "plug/x", "-n", "1", "-w", str(tmp_path / "ws2")]):
        used = _cli(site, *args)
        assert used.returncode == 2 and "Traceback" not in used.stderr, used.stderr
        lines = used.stderr.strip().splitlines()
        assert len(lines) == 1, used.stderr
        kind = raises.split("(")[0]
        assert lines[0].startswith(f"error: plugin 'badplug' (badplug) failed to load: {kind}")
        assert "interrupted" not in used.stderr
    assert not (tmp_path / "ws2").exists()
