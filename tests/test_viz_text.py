"""text_graph: the plain-text view of a graph, level by level."""

import pytest

from micrograd import MLP, Value, graph_size
from micrograd.viz import text_graph

from viz_graphs import double_use, go_seed_graph, lecture_expression, lecture_neuron

LECTURE = """\
L  data -8.0000  grad  1.0000  = d * f
--------------------------------------
d  data  4.0000  grad -2.0000  = e + c
f  data -2.0000  grad  4.0000
--------------------------------------
e  data -6.0000  grad -2.0000  = a * b
c  data 10.0000  grad -2.0000
--------------------------------------
a  data  2.0000  grad  6.0000
b  data -3.0000  grad -4.0000"""

# The Go seed's double(x) graph before its first update: loss 10.24, dL/dw = -12.8.
GO_SEED = """\
loss   data 10.2400  grad   1.0000  = diff**2
-----------------------------------------------
diff   data -3.2000  grad  -6.4000  = ypred - y
-----------------------------------------------
ypred  data  0.8000  grad  -6.4000  = w * x
y      data  4.0000  grad   6.4000
-----------------------------------------------
w      data  0.4000  grad -12.8000
x      data  2.0000  grad  -2.5600"""


def test_lecture_graph():
    assert text_graph(lecture_expression()) == LECTURE


def test_go_seed_graph():
    assert text_graph(go_seed_graph()) == GO_SEED


def test_each_node_once_below_all_its_users():
    x = Value(0.5, label="x")
    y = x * x  # x used twice by one node
    z = (y + x).tanh()  # and again two levels up
    z.label = "z"
    lines = [line for line in text_graph(z).splitlines() if not line.startswith("-")]
    assert len(lines) == graph_size(z)[0]
    names = [line.split()[0] for line in lines]
    assert names.count("x") == 1 and names[-1] == "x"  # x sits below everything that uses it
    assert names[0] == "z"


def test_unlabeled_and_duplicate_labels_get_numbers():
    a, b = Value(1.0, label="w"), Value(2.0, label="w")
    c = a * b + 1
    text = text_graph(c)
    assert "= w#0 * w#1" in text  # the two w's are told apart
    assert text.splitlines()[0].startswith("#4 ")  # unlabeled root: its number in the graph
    assert "= #2 + #3" in text  # a*b, then the constant 1


def test_names_that_look_like_expressions_are_bracketed():
    o, _ = lecture_neuron()
    assert "= (x1*w1 + x2*w2) + b" in text_graph(o)


def test_ops_are_written_as_formulas():
    x = Value(2.0, label="x")
    assert text_graph(-x).splitlines()[0].endswith("= -x")
    assert text_graph(x**3).splitlines()[0].endswith("= x**3")
    assert text_graph(x.exp()).splitlines()[0].endswith("= exp(x)")
    model = MLP(2, [1], rng=0)
    weighted = text_graph(model([x, Value(1.0, label="y")]))
    assert "= w·x+b(#0, #1, x, y, #4)" in weighted.splitlines()[0]


def test_options_and_errors():
    a, b = double_use()
    assert text_graph(b, precision=1, show_grad=False) == "b  data 6.0  = a + a\n--------------------\na  data 3.0"
    assert text_graph(Value(-0.0, label="z")) == "z  data 0.0000  grad 0.0000"
    with pytest.raises(TypeError, match=r"below one node .*\.data and its inputs in \._prev"):
        text_graph("L")
    with pytest.raises(ValueError, match="precision"):
        text_graph(b, precision=2.5)


def test_labels_with_newlines_stay_on_one_line():
    v = Value(1.0, label="two\nlines\tand a tab")
    assert text_graph(v) == "two\\nlines\u2409and a tab  data 1.0000  grad 0.0000"


def test_same_text_for_the_same_graph():
    assert text_graph(lecture_expression()) == text_graph(lecture_expression())
