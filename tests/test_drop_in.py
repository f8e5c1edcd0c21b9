"""Code written for micrograd 0.1.0, or in the lecture's style, runs here unchanged.

The numbers themselves are compared with micrograd 0.1.0 in
test_micrograd_0_1_0.py; these tests pin down each piece of the interface.
"""

import math

import pytest

from micrograd import MLP, Layer, Neuron, Value
from micrograd.viz import text_graph


def test_the_constructor_takes_children_and_op_as_in_0_1_0():
    a, b = Value(2.0), Value(3.0)
    out = Value(5.0, (a, b), "+")
    assert out._prev == {a, b} and out._op == "+" and out.op == "+"
    assert out.inputs == (a, b)
    assert Value(1.0, (), "", label="x").label == "x"


def test_a_label_given_second_is_still_a_label():
    v = Value(2.0, "a")
    assert v.label == "a" and v.inputs == () and v._prev == set()


def test_children_that_are_not_values_are_refused():
    with pytest.raises(TypeError, match="child must be a Value, got float 2.0"):
        Value(5.0, (Value(3.0), 2.0), "+")
    with pytest.raises(TypeError, match="tuple of Values .* or a label string; got float"):
        Value(5.0, 2.0)


def test_every_node_has_prev_op_and_backward():
    x = Value(3.0)
    y = (x * 2).tanh()
    for node in (x, y, y.inputs[0]):
        assert isinstance(node._prev, set) and isinstance(node._op, str) and callable(node._backward)
    x._backward()  # a leaf's step does nothing, as in the lecture
    assert x.grad == 0.0


def lecture_neuron():
    """The lecture's neuron: o = tanh(x1*w1 + x2*w2 + b)."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1, x2w2 = x1 * w1, x2 * w2
    x1w1x2w2 = x1w1 + x2w2
    n = x1w1x2w2 + b
    o = n.tanh()
    return o, [o, n, b, x1w1x2w2, x2w2, x1w1, x2, w2, x1, w1]


def test_backpropagation_by_hand_node_by_node_as_in_the_lecture():
    o, nodes = lecture_neuron()
    o.grad = 1.0
    for node in nodes:  # the lecture calls them in this order
        node._backward()
    by_hand = [node.grad for node in nodes]

    o, nodes = lecture_neuron()
    o.backward()
    assert by_hand == [node.grad for node in nodes]
    assert by_hand[-2:] == pytest.approx([-1.5, 1.0])  # x1.grad, w1.grad as the lecture shows


def test_a_custom_op_with_a_backward_closure_takes_part_in_backward():
    x = Value(2.0)
    out = Value(x.data**3, (x,), "cube")

    def _backward():
        x.grad += 3 * x.data**2 * out.grad

    out._backward = _backward
    y = out * out.tanh() + x  # the custom node sits inside a larger graph, reached twice
    y.backward()
    expected = 3 * 4.0 * (math.tanh(8.0) + 8.0 * (1 - math.tanh(8.0) ** 2)) + 1.0
    assert x.grad == pytest.approx(expected)


def test_assigning_backward_replaces_the_recorded_step():
    x = Value(2.0)
    out = x * 3.0
    out._backward = lambda: setattr(x, "grad", x.grad + 100.0)
    out.backward()
    assert x.grad == 100.0


def test_a_node_with_inputs_but_no_way_back_is_an_error_naming_its_op():
    x = Value(2.0)
    out = Value(8.0, (x,), "mystery")
    with pytest.raises(RuntimeError, match="the mystery node has inputs but no way to pass gradients"):
        (out * 2).backward()


def test_attributes_can_be_attached_to_any_value():
    p = MLP(2, [2, 1], rng=0).parameters()[0]
    p.m, p.v = 0.0, 0.0
    p.m += 0.5
    assert (p.m, p.v) == (0.5, 0.0)
    node = p * 2
    node._vis_color = "red"
    assert node._vis_color == "red"
    with pytest.raises(AttributeError):
        Value(1.0).never_set  # noqa: B018  (reading an attribute nobody attached still fails)


def test_nonlin_positional_as_in_0_1_0():
    assert repr(Neuron(3, False, rng=0)) == "LinearNeuron(3)"
    assert repr(Neuron(3, True, rng=0)) == "ReLUNeuron(3)"
    assert repr(Neuron(3, "tanh", rng=0)) == "TanhNeuron(3)"
    assert repr(Layer(2, 2, nonlin=False, rng=0)) == "Layer of [LinearNeuron(2), LinearNeuron(2)]"
    assert repr(MLP(2, [3, 1], rng=0)) == (
        "MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(3)]]"
    )


def test_nonlin_and_activation_that_disagree_are_refused():
    with pytest.raises(ValueError, match="give one of the two"):
        Neuron(3, False, activation="tanh")
    with pytest.raises(TypeError, match="nonlin is True or False"):
        Neuron(3, 1.5)


def test_labels_must_be_strings_wherever_they_are_set():
    with pytest.raises(TypeError, match="label is a string, got int 3"):
        Value(1.0, label=3)
    with pytest.raises(TypeError, match="got NoneType"):
        Value(1.0, label=None)
    v = Value(1.0)
    with pytest.raises(TypeError, match="got list"):
        v.label = ["a"]
    v.label = "set later"
    assert "set later" in text_graph(v * 2)


def trace(root):
    """trace_graph.ipynb's trace(), as Karpathy wrote it: every node and edge reached through _prev."""
    nodes, edges = set(), set()

    def build(v):
        if v not in nodes:
            nodes.add(v)
            for child in v._prev:
                edges.add((child, v))
                build(child)

    build(root)
    return nodes, edges


def test_trace_graph_finds_a_neurons_fused_node_and_the_relu_under_0_1_0s_name():
    neuron = Neuron(2, rng=1337)
    x = [Value(1.0), Value(-2.0)]
    y = neuron(x)
    nodes, edges = trace(y)
    (fused,) = y._prev
    assert (y._op, fused._op) == ("ReLU", "w·x+b")  # what docs/guide/micrograd_0_1_0.md says a drawing shows
    assert fused._prev == {*neuron.w, neuron.b, *x}
    assert len(nodes) == 7 and len(edges) == 6  # the w·x + b node, its five inputs, the ReLU


def test_trace_graph_finds_one_node_for_a_minus_b_minus_a_and_a_over_b():
    a, b = Value(3.0), Value(-4.0)
    for out, op, inputs in ((a - b, "-", {a, b}), (-a, "neg", {a}), (a / b, "/", {a, b})):
        nodes, _ = trace(out)
        assert out._op == op and out._prev == inputs and nodes == {out, *inputs}
