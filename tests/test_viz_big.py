"""Big graphs: collapsed to the node budget, saying what was collapsed, and rendered."""

import random
import re

import pytest

from micrograd import MLP, Value, graph_size
from micrograd.data import moons
from micrograd.viz import DEFAULT_MAX_NODES, draw_dot

from test_viz_render import svg_parts
from viz_graphs import moons_loss

NODE_STATEMENT = re.compile(r"^\t([vo]\d+) \[", re.M)


def drawn_nodes(source):
    return NODE_STATEMENT.findall(source)


@pytest.fixture(scope="module")
def demo_loss():
    """Karpathy's moons demo loss with this package's neurons (about 8 300 nodes)."""
    return moons_loss()


@pytest.fixture(scope="module")
def demo_loss_scalar_neurons():
    """The same loss with micrograd 0.1.0's neurons (about 65 800 nodes)."""
    return moons_loss(scalar_neurons=True)


def check_collapsed(drawing, budget, render=True):
    nodes = drawn_nodes(drawing.source)
    assert len(nodes) == drawing.node_count <= budget
    assert len(set(nodes)) == len(nodes)
    assert drawing.collapsed, "a collapsed drawing says what it collapsed"
    assert f"values drawn as {drawing.node_count} nodes (max_nodes={budget})" in drawing.source
    if render:
        texts, _ = svg_parts(drawing.svg())
        assert len(texts) == drawing.node_count


def test_demo_loss_fits_the_default_budget_and_renders(demo_loss):
    loss, model = demo_loss
    assert graph_size(loss)[0] > 8000
    drawing = draw_dot(loss, model=model)
    check_collapsed(drawing, DEFAULT_MAX_NODES)
    assert drawing.value_count == graph_size(loss)[0]
    source = drawing.source
    # Layers became group boxes; 98 of the 100 per-sample terms are one box.
    assert "<B>16 × w·x+b</B>" in source and "<B>16 × ReLU</B>" in source
    assert "<B>98 more terms</B>" in source
    assert "337 parameters" in source
    # The output is still drawn as itself, with the loss of step 0.
    assert re.search(r"data 0\.8958</TD>(<VR/>|</TR><HR/><TR>)<TD>grad 1\.0000", source)  # either layout


def test_micrograd_0_1_0_sized_graph_fits_and_renders(demo_loss_scalar_neurons):
    loss, model = demo_loss_scalar_neurons
    assert graph_size(loss)[0] > 65000
    drawing = draw_dot(loss, model=model)
    check_collapsed(drawing, DEFAULT_MAX_NODES)
    # w*x products and their sums were recognised as neurons.
    assert any("w·x+b nodes" in note for note in drawing.collapsed)
    assert "<B>16 × w·x+b</B>" in drawing.source


@pytest.mark.parametrize("budget", [10, 25, 60])
def test_any_budget_is_kept(demo_loss_scalar_neurons, budget):
    loss, model = demo_loss_scalar_neurons
    drawing = draw_dot(loss, model=model, max_nodes=budget)
    check_collapsed(drawing, budget, render=budget == 10)


def test_without_parameters_known_the_budget_still_holds(demo_loss_scalar_neurons):
    loss, _ = demo_loss_scalar_neurons  # no model=: weights look like any other input
    drawing = draw_dot(loss)
    check_collapsed(drawing, DEFAULT_MAX_NODES)


def test_lesson_style_float_inputs_collapse_across_samples():
    random.seed(1337)
    X, y = moons(n_samples=30)
    model = MLP(2, [16, 16, 1])
    scores = [model(x) for x in X]  # plain-number inputs: no input nodes at all
    loss = sum((1 + -yi * si).relu() for yi, si in zip(y, scores)) * (1.0 / len(X))
    loss.backward()
    drawing = draw_dot(loss, model=model)
    check_collapsed(drawing, DEFAULT_MAX_NODES)
    assert "<B>480 × w·x+b</B>" in drawing.source  # 16 neurons × 30 samples


def test_long_sum_chain_becomes_one_node():
    xs = [Value(float(i), label=f"x{i}") for i in range(100)]
    total = sum(xs)  # ((0 + x0) + x1) + ...: 100 nodes of +
    total.label = "total"
    drawing = draw_dot(total, max_nodes=110)
    # One + node with 101 inputs (the 0 sum starts from, and the x's): 101 leaves + record + op.
    assert drawing.node_count == 103
    assert drawing.collapsed == ("99 partial results of + and * chains merged into n-ary nodes",)
    assert "+<BR/><FONT POINT-SIZE=\"9\">101 terms</FONT>" in drawing.source


def test_a_graph_without_repeats_is_cut_nearest_the_output_first():
    x = Value(0.3, label="x")
    y = x
    for i in range(200):  # a deep chain of different unary ops: nothing repeats
        y = [Value.tanh, Value.sigmoid, Value.exp][i % 3](y)
    y.label = "y"
    drawing = draw_dot(y, max_nodes=40)
    check_collapsed(drawing, 40)
    assert "more nodes</B>" in drawing.source
    assert "<B>y</B>" in drawing.source and "<B>x</B>" not in drawing.source


def test_no_limit_draws_everything(demo_loss):
    loss, _ = demo_loss
    nodes, _ = graph_size(loss)
    inner = sum(1 for node in _all_nodes(loss) if node.op)
    drawing = draw_dot(loss, max_nodes=None)
    assert drawing.node_count == nodes + inner == len(drawn_nodes(drawing.source))
    assert drawing.collapsed == ()


def _all_nodes(root):
    from micrograd import topological_order

    return topological_order(root)
