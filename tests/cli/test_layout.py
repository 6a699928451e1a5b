"""80-column tables: no name is cut, nothing is wider than the terminal."""

from __future__ import annotations

from rich.console import Console

from agentprop.cli._layout import breakable, headline_table, traces_table


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


def test_the_study_headline_fits_80_columns_and_folds_long_model_names() -> None:
    """`experiment run`'s headline: a long OpenRouter id is folded onto further lines of
    its column, never cut, and the numbers stay whole."""
    long = "openrouter/meta-llama/llama-3.3-70b-instruct:nitro"
    numbers = {}
    for m in (long, "sim/balanced"):
        numbers[f"propagation.r_23[{m}]"] = {"value": 0.4213, "ci": [0.3012, 0.5544]}
        numbers[f"propagation.n[{m}]"] = {"value": 120}
        numbers[f"propagation.no_tool_share[{m}]"] = {"value": 0.05}
        numbers[f"interceptor.delta_hallucination[{m}]"] = {"value": -0.125}
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    console.print(headline_table(numbers))
    lines = console.export_text().splitlines()
    assert max(len(ln) for ln in lines) <= 80
    rule = next(i for i, ln in enumerate(lines) if "────" in ln)
    body = lines[rule + 1:lines.index(" " * 80, rule)]
    # the model column, read top to bottom: the long id whole, then the next model
    assert "".join(ln.split()[0] for ln in body) == long + "sim/balanced"
    text = "\n".join(lines)
    assert "0.42 [0.30, 0.55]" in text and "-0.12" in text and "120" in text


def test_the_headline_marks_a_number_over_too_few_traces() -> None:
    """A rate over 2 traces reads as such (and the line still fits 80 columns)."""
    numbers = {"propagation.r_23[sim/tool-averse]": {"value": 0.5, "n": 2, "ci": [0.1, 0.9]},
               "propagation.n[sim/tool-averse]": {"value": 40, "n": 40},
               "propagation.correction_rate[sim/tool-averse]": {"value": 0.5, "n": 2}}
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    console.print(headline_table(numbers))
    text = console.export_text()
    assert max(len(ln) for ln in text.splitlines()) <= 80 and "…" not in text
    assert "0.50 n=2*" in text and "too few (n < 10)" in " ".join(text.split())
