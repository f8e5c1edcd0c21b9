"""Lesson 5 opens with PyTorch's numbers for the lecture's neuron, without needing PyTorch: check them with it.

The lesson quotes a PyTorch snippet in a markdown cell and stores what it
printed as a literal in a code cell.  This test runs the quoted snippet with
real PyTorch (CI installs it) and compares its output with that literal, and
the literal with what the engine computes, so neither can drift.
"""

import ast
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pytest

from micrograd import Value

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "05_neurons_and_mlps.ipynb"
SNIPPET = re.compile(r"```python\n(import torch\n.*?)```", re.DOTALL)


def _cells(kind):
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == kind]


def quoted_snippet():
    found = [m.group(1) for text in _cells("markdown") for m in SNIPPET.finditer(text)]
    assert len(found) == 1, "lesson 5 should quote exactly one PyTorch snippet"
    return found[0]


def stored_figures():
    assignment = re.compile(r"^pytorch = (\{.*?\})$", re.MULTILINE | re.DOTALL)
    found = [m.group(1) for text in _cells("code") for m in assignment.finditer(text)]
    assert len(found) == 1, "lesson 5 should store PyTorch's figures in one `pytorch = {...}` cell"
    return ast.literal_eval(found[0])


def test_the_stored_figures_are_what_the_quoted_snippet_prints():
    pytest.importorskip("torch")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(quoted_snippet(), "lesson 5's PyTorch snippet", "exec"), {})
    figures = ast.literal_eval(printed.getvalue().strip())
    stored = stored_figures()
    assert stored.keys() == figures.keys()
    for name in figures:
        assert stored[name] == pytest.approx(figures[name], rel=1e-15, abs=1e-15), name


def test_the_engine_agrees_with_the_stored_figures():
    x1, x2, w1, w2 = Value(2.0), Value(0.0), Value(-3.0), Value(1.0)
    b = Value(6.8813735870195432)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    o.backward()
    ours = {"o": o.data, "n": n.grad, "x1": x1.grad, "w1": w1.grad, "x2": x2.grad, "w2": w2.grad, "b": b.grad}
    stored = stored_figures()
    assert stored.keys() == ours.keys()
    for name in ours:
        assert stored[name] == pytest.approx(ours[name], abs=1e-12), name
    assert round(stored["o"], 4) == 0.7071


def _torch_drawing_cell():
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    found = [cell for cell in cells if cell["cell_type"] == "code" and "side_by_side" in "".join(cell["source"])]
    assert len(found) == 1, "lesson 5 should draw the two graphs in one cell"
    return found[0]


def test_the_torch_drawing_cell_is_left_out_of_the_comparison_and_draws_ours_alone_without_torch(monkeypatch):
    cell = _torch_drawing_cell()
    assert "nbval-ignore-output" in cell["metadata"].get("tags", [])  # its output depends on torch
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    shown, printed = [], io.StringIO()
    a = Value(2.0, label="o")
    namespace = {"lecture_neuron": lambda: {"o": a}, "Value": Value, "draw_dot": lambda root, **kw: ("drawing", root),
                 "display": shown.append}
    with contextlib.redirect_stdout(printed):
        exec("".join(cell["source"]), namespace)
    assert "PyTorch is not installed here" in printed.getvalue()
    assert shown == [("drawing", a)]


def test_the_torch_drawing_cell_draws_both_graphs_with_torch():
    pytest.importorskip("torch")
    from micrograd.viz import draw_dot

    cell = _torch_drawing_cell()
    shown = []

    def lecture_neuron():
        x1, w1 = Value(2.0, label="x1"), Value(-3.0, label="w1")
        o = (x1 * w1).tanh()
        o.label = "o"
        return {"o": o}

    namespace = {"lecture_neuron": lecture_neuron, "Value": Value, "draw_dot": draw_dot, "display": shown.append}
    exec("".join(cell["source"]), namespace)
    (both,) = shown
    html = both._repr_html_()
    assert ">micrograd<" in html and ">PyTorch<" in html and html.count("data:image/svg+xml") == 2
    assert "TanhBackward0" in both.svg  # the picture form holds both drawings
