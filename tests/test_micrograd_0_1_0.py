"""Differential test: programs for micrograd 0.1.0 give the same numbers under this package.

micrograd 0.1.0 is installed from the package index into a temporary folder
and run by the base interpreter in isolated mode, so neither process can see
the other's package; ``programs_for_0_1_0.py`` runs unchanged under each.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs_for_0_1_0.py"
REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "guide" / "micrograd_0_1_0.md"  # the course site's page on what differs from 0.1.0


@pytest.fixture(scope="module")
def reference_folder(micrograd_0_1_0_folder):
    return micrograd_0_1_0_folder


def run_programs(python, engine_folder):
    """The programs' output under the ``micrograd`` found in ``engine_folder``."""
    # -I: no PYTHONPATH, no user site, no current folder; the engine's folder goes first by hand.
    code = f"import sys; sys.path.insert(0, {str(engine_folder)!r}); exec(open({str(PROGRAMS)!r}).read())"
    done = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_programs_written_for_0_1_0_give_the_same_numbers_here(reference_folder):
    theirs = run_programs(sys._base_executable, reference_folder)
    ours = run_programs(sys.executable, REPO)
    assert theirs["micrograd"].startswith(str(reference_folder))
    assert ours["micrograd"].startswith(str(REPO / "micrograd"))

    assert theirs["numbers"].keys() == ours["numbers"].keys()
    assert len(ours["numbers"]) > 100
    different = {
        name: (theirs["numbers"][name], value)
        for name, value in ours["numbers"].items()
        if not math.isclose(value, theirs["numbers"][name], rel_tol=1e-9, abs_tol=1e-9)
    }
    assert different == {}
    assert ours["reprs"] == theirs["reprs"]


def test_the_programs_check_something():
    """The comparison above is only worth something if the programs compute real gradients."""
    ours = run_programs(sys.executable, REPO)["numbers"]
    assert ours["sanity_check[1]"] == pytest.approx(46.0)  # micrograd 0.1.0's test: x.grad vs torch
    assert ours["more_ops[0]"] == pytest.approx(24.70408163265306)
    assert ours["custom_backward[1]"] == pytest.approx(2 * 3 * 1.5**2 + 2 * 1.5)
    assert ours["manual_backprop[1]"] == 6.0 and ours["manual_backprop[4]"] == 4.0
    assert ours["demo_step_3[0]"] < ours["demo_step_0[0]"]


# Karpathy's trace_graph.ipynb, cut down to what it draws: the nodes and op names reached through
# _prev, for a two-input Neuron and for the three ops this engine makes as one node.
TRACE_GRAPH_PROGRAM = r"""
import json, random, micrograd
from micrograd.engine import Value
from micrograd import nn

def trace(root):  # trace_graph.ipynb's trace(), with a stack for its recursion
    nodes, edges, stack = {root}, set(), [root]
    while stack:
        v = stack.pop()
        for child in v._prev:
            edges.add((child, v))
            if child not in nodes:
                nodes.add(child)
                stack.append(child)
    return nodes, edges

def drawn(root, leaves):
    root.backward()
    nodes, edges = trace(root)
    return {"ops": sorted(n._op for n in nodes if n._prev), "nodes": len(nodes), "edges": len(edges),
            "data": root.data, "grads": [leaf.grad for leaf in leaves]}

out = {"micrograd": micrograd.__file__}
random.seed(1337)
n = nn.Neuron(2)
x = [Value(1.0), Value(-2.0)]
out["neuron"] = drawn(n(x), n.w + [n.b] + x)
x = Value(1.0)
out["plain ops"] = drawn(((x * 2 + 1) ** 2).relu(), [x])
a, b = Value(3.0), Value(-4.0)
out["a - b"] = drawn(a - b, [a, b])
a = Value(3.0)
out["-a"] = drawn(-a, [a])
a, b = Value(3.0), Value(-4.0)
out["a / b"] = drawn(a / b, [a, b])
print(json.dumps(out))
"""


def run_trace_graph(python, engine_folder):
    code = f"import sys; sys.path.insert(0, {str(engine_folder)!r}); exec({TRACE_GRAPH_PROGRAM!r})"
    done = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_trace_graph_draws_the_same_numbers_and_the_graphs_the_page_describes(reference_folder):
    theirs = run_trace_graph(sys._base_executable, reference_folder)
    ours = run_trace_graph(sys.executable, REPO)
    assert theirs.pop("micrograd").startswith(str(reference_folder))
    assert ours.pop("micrograd").startswith(str(REPO / "micrograd"))
    for case in ours:
        assert ours[case]["data"] == pytest.approx(theirs[case]["data"], rel=1e-12), case
        assert ours[case]["grads"] == pytest.approx(theirs[case]["grads"], rel=1e-12), case
    # the same ops, under 0.1.0's names, where both make the same nodes
    assert ours["plain ops"] == theirs["plain ops"] and theirs["plain ops"]["ops"] == ["*", "**2", "+", "ReLU"]
    # one node each here, built from +, * and ** there
    assert {case: ours[case]["ops"] for case in ("a - b", "-a", "a / b")} == {"a - b": ["-"], "-a": ["neg"], "a / b": ["/"]}
    assert {case: theirs[case]["ops"] for case in ("a - b", "-a", "a / b")} == {
        "a - b": ["*", "+"], "-a": ["*"], "a / b": ["*", "**-1"]}
    # the neuron's w·x + b: one node here, a * and a + per input there
    assert ours["neuron"]["ops"] == ["ReLU", "w·x+b"] and theirs["neuron"]["ops"] == ["*", "*", "+", "+", "ReLU"]
    page = _page()
    assert f"its two-input neuron has {ours['neuron']['nodes']} nodes here and {theirs['neuron']['nodes']} under 0.1.0" in page
    assert "(`'+'`, `'*'`, `'**2'`, `'ReLU'`)" in page and "(`'-'`, `'neg'`, `'/'`," in page


SEED_PROGRAM = r"""
import json, micrograd
from micrograd.engine import Value
y = Value(2.0) * 3
y.backward()
print(json.dumps({"micrograd": micrograd.__file__, "seed": str(y.grad), "Value(2)": repr(Value(2))}))
"""


def test_the_page_lists_how_numbers_print_here_and_under_0_1_0(reference_folder):
    """Not fixed, listed: numbers are floats here, so the seed prints 1.0 where 0.1.0 prints 1."""
    outputs = {}
    for who, python, folder in [("theirs", sys._base_executable, reference_folder), ("ours", sys.executable, REPO)]:
        code = f"import sys; sys.path.insert(0, {str(folder)!r}); exec({SEED_PROGRAM!r})"
        done = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outputs[who] = json.loads(done.stdout)
        assert outputs[who].pop("micrograd").startswith(str(folder))
    assert outputs == {
        "theirs": {"seed": "1", "Value(2)": "Value(data=2, grad=0)"},
        "ours": {"seed": "1.0", "Value(2)": "Value(data=2.0, grad=0.0)"},
    }
    assert ("after `y = Value(2.0) * 3` and `y.backward()`, `print(y.grad)` shows `1.0` here and `1` under 0.1.0, "
            "and `Value(2)` is `Value(data=2.0, grad=0.0)` here and `Value(data=2, grad=0)` there") in _page()


def _page():
    return " ".join(PAGE.read_text(encoding="utf-8").split())


def test_the_page_lists_how_numpy_numbers_print_here_and_under_0_1_0(micrograd_0_1_0_value):
    import numpy as np

    from micrograd import Value

    printed = {}
    for who, value_type in (("theirs", micrograd_0_1_0_value), ("ours", Value)):
        x = value_type(np.float64(2.0))
        printed[who] = (repr([x.data, (x * 3).data]), str(x))
    assert printed == {
        "theirs": ("[np.float64(2.0), np.float64(6.0)]", "Value(data=2.0, grad=0)"),
        "ours": ("[2.0, 6.0]", "Value(data=2.0, grad=0.0)"),
    }
    assert ("after `x = Value(np.float64(2.0))`, `x.data` and `(x * 3).data` are `2.0` and `6.0` here and "
            "`np.float64(2.0)` and `np.float64(6.0)` under 0.1.0, so a list of them prints `[2.0, 6.0]` "
            "here and `[np.float64(2.0), np.float64(6.0)]` there (with numpy 2; `print(x)` shows `data=2.0` in both)"
            ) in _page()


def test_the_page_lists_that_a_value_inside_a_value_runs_under_0_1_0_and_stops_here(micrograd_0_1_0_value):
    from micrograd import Value

    theirs = micrograd_0_1_0_value(micrograd_0_1_0_value(2.0))
    assert repr(theirs) == "Value(data=Value(data=2.0, grad=0), grad=0)"
    assert type((theirs * 3).data) is micrograd_0_1_0_value  # arithmetic builds Values inside Values
    with pytest.raises(TypeError) as raised:
        Value(Value(2.0))
    assert str(raised.value) == ("Value() takes a real number (int or float), got Value Value(data=2.0, grad=0.0), "
                                 "which is a node already: use it as it is, or Value(v.data) for a new leaf that holds its number")
    assert ("`Value(Value(2.0))`, runs silently under 0.1.0 and holds a `Value` in its `data` (it prints "
            "`Value(data=Value(data=2.0, grad=0), grad=0)`, and arithmetic on it builds more Values inside Values); "
            "here it stops with a `TypeError` that says to use the `Value` as it is, or `Value(v.data)` for a new "
            "leaf that holds its number") in _page()
