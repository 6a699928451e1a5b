"""80-column tables: no name is cut, nothing is wider than the terminal."""

from __future__ import annotations

from rich.console import Console

from agentprop.cli._layout import breakable, traces_table


def test_traces_list_fits_80_columns_without_cutting_names() -> None:
    rows = [{"id": "b69fba254650a4e11b7540e4", "model": "openrouter/deepseek/deepseek-chat",
             "task_id": "knowledge_0081", "condition": "p2:semantic_wrong", "seed": 3,
             "arm": "treatment", "status": "step_limit", "abstained": False,
             "final_answer": "The forecast for Paris on 2024-05-02 is 18 °C and sunny " * 4}]
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    console.print(traces_table("1 of 1 traces", rows))
    text = console.export_text()
    assert max(len(ln) for ln in text.splitlines()) <= 80
    for value in ("b69fba254650a4e11b7540e4", "openrouter/deepseek/deepseek-chat",
                  "knowledge_0081", "p2:semantic_wrong", "seed 3", "treatment",
                  "step_limit"):
        assert value in text, value


def test_breakable_wraps_an_ensemble_at_its_members() -> None:
    assert breakable("judge ensemble:openai/gpt-4o,google/gemini-2.5-flash") == (
        "judge ensemble: openai/gpt-4o, google/gemini-2.5-flash")
