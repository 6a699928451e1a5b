from pathlib import Path

from agentprop.core import InjectionEvent, ToolCall, Trace, WorkUnit
from agentprop.store import Workspace


def test_unit_key_is_stable_and_distinguishes_arms() -> None:
    a = WorkUnit(run_id="r", model="sim/x", task_id="t", condition="baseline", seed=0)
    b = WorkUnit(
        run_id="r", model="sim/x", task_id="t", condition="baseline", seed=0, arm="treatment"
    )
    assert a.key == WorkUnit(**a.model_dump()).key
    assert a.key != b.key


def test_trace_roundtrip_and_idempotent_store(tmp_path) -> None:
    t = Trace(
        id="x",
        run_id="r",
        model="sim/x",
        task_id="t",
        domain="weather",
        split="test",
        difficulty="easy",
        events=[
            InjectionEvent(
                protocol="p2",
                error_type="semantic_wrong",
                status="applied",
                tool="get_weather",
                param="city",
                original="London",
                injected="Paris",
            )
        ],
    )
    ws = Workspace(tmp_path / "w")
    assert ws.put_traces([t]) == 1
    assert ws.put_traces([t]) == 0
    got = ws.get_trace("x")
    assert got is not None and got.events[0] == t.events[0]
    assert ToolCall(name="a").arguments == {}


def test_typed_contracts_read_the_old_meta_keys() -> None:
    """Suite files and workspaces written before the typed fields keep loading: the old
    `meta` keys become `Task.query_entities` and `Trace.release_stages`."""
    from agentprop.core import Task, Trace

    old = {"id": "t", "domain": "weather", "split": "test", "difficulty": "easy",
           "intent": "x", "query": "q", "tools": [], "env_seed": 1, "gold_plan": [],
           "reference_answer": "", "meta": {"query_entities": {"city": "Oslo"}, "k": 1}}
    task = Task.model_validate(old)
    assert task.query_entities == {"city": "Oslo"} and task.meta == {"k": 1}
    assert old["meta"] == {"query_entities": {"city": "Oslo"}, "k": 1}  # input untouched
    trace = Trace.model_validate({"id": "a", "run_id": "r", "model": "m", "task_id": "t",
                                  "domain": "d", "split": "test", "difficulty": "easy",
                                  "meta": {"release_stages": {"S1": True, "S2": None}}})
    assert trace.release_stages == {"S1": True, "S2": None} and trace.meta == {}


def test_suite_files_keep_their_layout_and_checksum(tmp_path: Path) -> None:
    """The typed field is written where suite files always kept it, so a file written by an
    older version loads with its own checksum, and a file written now is byte-identical."""
    from agentprop.suite import load_suite
    from agentprop.suite._suite import Suite

    full = load_suite()
    suite = Suite([t for t in full.tasks if t.query_entities][:200], seed=full.seed,
                  version=full.version)
    path = tmp_path / "s.jsonl"
    suite.to_jsonl(path)
    lines = path.read_text().splitlines()
    assert any('"query_entities"' in ln and '"meta":{' in ln for ln in lines[1:])
    assert '"query_entities":{}' not in path.read_text()
    assert Suite.from_jsonl(path).checksum == suite.checksum


def test_every_persisted_field_in_core_is_documented() -> None:
    """Every field of a core model has an attribute docstring, or its class docstring names
    it in backquotes: the persisted format is readable without the code that writes it."""
    import ast

    import agentprop.core

    missing = []
    for path in Path(agentprop.core.__file__).parent.glob("_*.py"):
        for cls in ast.parse(path.read_text()).body:
            if not isinstance(cls, ast.ClassDef) or not any(
                    getattr(b, "id", "") == "BaseModel" for b in cls.bases):
                continue
            doc = ast.get_docstring(cls) or ""
            body = cls.body
            for i, node in enumerate(body):
                if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                    continue
                name = node.target.id
                nxt = body[i + 1] if i + 1 < len(body) else None
                has_doc = isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) \
                    and isinstance(nxt.value.value, str)
                if not has_doc and f"`{name}`" not in doc:
                    missing.append(f"{path.name}:{cls.name}.{name}")
    assert missing == []


def test_workspace_meta_is_typed(tmp_path: Path) -> None:
    """Meta keys are `WorkspaceMeta` fields: unknown names and wrong types are refused before
    anything is written; the primary judge falls back to the one default."""
    import pytest

    from agentprop.core import DEFAULT_PRIMARY_JUDGE

    ws = Workspace(tmp_path / "w")
    assert ws.primary_judge() == DEFAULT_PRIMARY_JUDGE and ws.meta().imported is None
    ws.update_meta(primary_judge="heuristic", imported="agenthallu")
    assert ws.primary_judge() == "heuristic" and ws.get_meta("imported") == "agenthallu"
    with pytest.raises(ValueError, match="unknown workspace meta key 'primary'"):
        ws.set_meta("primary", "x")
    with pytest.raises(ValueError):
        ws.update_meta(primary_judge="facts", interceptor_sweep="not a list")
    assert ws.primary_judge() == "heuristic"  # nothing of the refused update was written
    ws.close()
