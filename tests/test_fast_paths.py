"""The engine's fast paths give exactly what the plain paths give.

Each shortcut taken for speed is checked against the slow, obvious way of
computing the same thing, on random graphs: a weighted sum as one node
(``dot``) against the same sum built from ``*`` and ``+``; Neuron, Layer and
MLP against hand-built graphs with the same weights; backward(), which skips
nodes whose gradient is zero, against the chain rule applied to every node;
the iterative topological walk against a recursive one; the shortcuts in
``zero_grad`` and ``parameters`` and in sorting out a layer's inputs.
Equality is exact (``==``) wherever the two ways add the same numbers in the
same order.
"""

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micrograd import errors
from micrograd.engine import Value, dot, topological_order
from micrograd.nn import MLP, Layer, Neuron

ACTIVATIONS = ["relu", "tanh", "sigmoid", None]
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def leaves(rng, n):
    return [Value(rng.uniform(-2, 2)) for _ in range(n)]


def plain_sum(weights, inputs, bias):
    """b + w0*x0 + w1*x1 + ..., one * and one + node per term (micrograd 0.1.0's way)."""
    return sum((w * x for w, x in zip(weights, inputs)), bias)


def grads(values):
    return [v.grad for v in values]


def plain_backward(root):
    """The chain rule applied to every node, none skipped: the reference for backward()."""
    order = topological_order(root)
    for node in order:
        node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        for child, local in zip(node.inputs, node.local_grads):
            child.grad += local * node.grad


def recursive_order(root, leaves=True):
    """Depth-first post-order by recursion: the textbook topological sort."""
    order, seen = [], set()

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        for child in node.inputs:
            visit(child)
        if node.inputs or leaves:
            order.append(node)

    visit(root)
    return order


def random_graph(rng, size=25):
    """A random DAG over every kind of node the fast paths meet, nodes reused freely.

    Relus sit on both sides of their kink, so some parts of the graph get a
    zero gradient and backward() skips them.
    """
    nodes = leaves(rng, 4)
    for _ in range(size):
        pick = lambda: rng.choice(nodes)  # noqa: E731
        kind = rng.randrange(7)
        if kind == 0:
            node = pick() + pick()
        elif kind == 1:
            node = pick() * pick()
        elif kind == 2:
            node = pick() - rng.uniform(-1, 1)
        elif kind == 3:
            node = pick().relu()
        elif kind == 4:
            node = (pick() * 0.3).tanh()
        elif kind == 5:
            n = rng.randint(1, 4)
            node = dot([pick() for _ in range(n)], [pick() for _ in range(n)], pick())
        else:
            n = rng.randint(1, 4)
            node = dot([pick() for _ in range(n)], [rng.uniform(-1, 1) for _ in range(n)], pick())
        if abs(node.data) < 1e3:  # keep the numbers tame
            nodes.append(node)
    return sum(nodes[-5:], nodes[-6])


# -- dot: one node for a weighted sum ------------------------------------------------------


@given(seeds, st.integers(min_value=1, max_value=12))
def test_dot_of_values_equals_the_sum_built_from_mul_and_add(seed, n):
    rng = random.Random(seed)
    ws, xs, b = leaves(rng, n), leaves(rng, n), Value(rng.uniform(-1, 1))
    fused = dot(ws, xs, b)
    plain_ws, plain_xs, plain_b = [Value(v.data) for v in ws], [Value(v.data) for v in xs], Value(b.data)
    plain = plain_sum(plain_ws, plain_xs, plain_b)
    assert fused.data == plain.data
    # Something above the sum, so the upstream gradient is not just 1.
    (fused.tanh() * 3.0).backward()
    (plain.tanh() * 3.0).backward()
    assert grads(ws) == grads(plain_ws)
    assert grads(xs) == grads(plain_xs)
    assert b.grad == plain_b.grad


@given(seeds, st.integers(min_value=1, max_value=12))
def test_dot_of_numbers_equals_the_sum_with_constant_leaves(seed, n):
    rng = random.Random(seed)
    ws, b = leaves(rng, n), Value(rng.uniform(-1, 1))
    xs = [rng.uniform(-1, 1) for _ in range(n)]
    fused = dot(ws, xs, b)
    assert fused.inputs == (*ws, b)  # plain numbers get no nodes
    plain_ws, plain_b = [Value(v.data) for v in ws], Value(b.data)
    plain = plain_sum(plain_ws, xs, plain_b)  # here each number becomes a leaf node
    assert fused.data == plain.data
    fused.relu().backward()
    plain.relu().backward()
    assert grads(ws) == grads(plain_ws)
    assert b.grad == plain_b.grad


@given(seeds, st.integers(min_value=1, max_value=12))
def test_dot_without_a_bias_equals_pythons_sum_of_products(seed, n):
    """bias=None (or no bias given): microgpt's sum(wi * xi ...), one node without a bias input."""
    rng = random.Random(seed)
    ws, xs = leaves(rng, n), leaves(rng, n)
    fused = dot(ws, xs)
    assert fused.op == "w·x" and fused.inputs == (*ws, *xs) and dot(ws, xs, None).inputs == fused.inputs
    plain_ws, plain_xs = [Value(v.data) for v in ws], [Value(v.data) for v in xs]
    plain = sum(w * x for w, x in zip(plain_ws, plain_xs))
    assert fused.data == plain.data
    (fused.tanh() * 3.0).backward()
    (plain.tanh() * 3.0).backward()
    assert grads(ws) == grads(plain_ws)
    assert grads(xs) == grads(plain_xs)
    constants = dot(ws, [x.data for x in xs])
    assert constants.inputs == tuple(ws) and constants.data == fused.data


@given(seeds)
def test_dot_with_shared_leaves_matches_the_plain_sum(seed):
    """A leaf used as a weight and as an input: its gradient gathers from both."""
    rng = random.Random(seed)
    pool = leaves(rng, 3)
    ws = [rng.choice(pool) for _ in range(5)]
    xs = [rng.choice(pool) for _ in range(5)]
    dot(ws, xs, pool[0]).backward()
    fused = grads(pool)
    for v in pool:
        v.grad = 0.0
    plain_sum(ws, xs, pool[0]).backward()
    # The same terms, gathered in another order: equal up to rounding.
    assert fused == pytest.approx(grads(pool), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "inputs, kind",
    [
        ([1.5, -2.0], float),
        ([1, True, 2.5], float),  # ints and bools become floats
        ([np.float64(0.5), np.float32(2.0)], float),
        ([], float),
    ],
)
def test_dot_inputs_of_numbers_are_floats(inputs, kind):
    out = errors.dot_inputs(inputs, Value)
    assert out == [float(x) for x in inputs]
    assert all(type(x) is kind for x in out)


def test_dot_inputs_with_any_value_are_all_values():
    class Tagged(Value):
        pass

    a, t = Value(1.0), Tagged(2.0)
    for inputs in ([a, a], [a, 3.0], [t, 4], [t, a]):
        out = errors.dot_inputs(inputs, Value)
        assert all(isinstance(x, Value) for x in out)
        assert [x.data for x in out] == [float(x.data if isinstance(x, Value) else x) for x in inputs]
        assert all(o is i for o, i in zip(out, inputs) if isinstance(i, Value))


def test_dot_inputs_rejects_what_is_not_a_number():
    with pytest.raises(TypeError, match="an input"):
        errors.dot_inputs([1.0, "2"], Value)


# -- Neuron, Layer, MLP against hand-built graphs ----------------------------------------------


def apply(activation, x):
    return x if activation is None else getattr(x, activation)()


def plain_neuron(neuron, x, weights):
    """The neuron's output built from * and +, with copies of its weights."""
    return apply(neuron.activation, plain_sum(weights[:-1], x, weights[-1]))


def copies(module):
    return [Value(p.data) for p in module.parameters()]


@given(seeds, st.sampled_from(ACTIVATIONS), st.booleans())
def test_neuron_matches_the_plain_graph(seed, activation, value_inputs):
    rng = random.Random(seed)
    neuron = Neuron(5, activation, rng=rng)
    numbers = [rng.uniform(-1, 1) for _ in range(5)]
    x = [Value(v) for v in numbers] if value_inputs else numbers
    plain_x = [Value(v) for v in numbers] if value_inputs else numbers
    weights = copies(neuron)

    out, plain = neuron(x), plain_neuron(neuron, plain_x, weights)
    assert out.data == plain.data
    out.backward()
    plain.backward()
    assert grads(neuron.parameters()) == grads(weights)
    if value_inputs:
        assert grads(x) == grads(plain_x)


@given(seeds, st.sampled_from(ACTIVATIONS))
def test_layer_matches_the_plain_graph(seed, activation):
    rng = random.Random(seed)
    layer = Layer(4, 3, activation, rng=rng)
    x = [Value(rng.uniform(-1, 1)) for _ in range(4)]
    plain_x = [Value(v.data) for v in x]
    weights = copies(layer)
    per_neuron = [weights[i * 5:(i + 1) * 5] for i in range(3)]

    outs = layer.outputs(x)
    plain = [plain_neuron(n, plain_x, w) for n, w in zip(layer.neurons, per_neuron)]
    assert [o.data for o in outs] == [p.data for p in plain]
    sum(outs, Value(0.0)).backward()
    sum(plain, Value(0.0)).backward()
    assert grads(layer.parameters()) == grads(weights)
    assert grads(x) == grads(plain_x)


@given(seeds, st.sampled_from(["relu", "tanh"]), st.booleans())
def test_mlp_forward_and_backward_match_the_plain_graph(seed, activation, value_inputs):
    rng = random.Random(seed)
    model = MLP(3, [4, 4, 2], activation=activation, rng=rng)
    numbers = [rng.uniform(-2, 2) for _ in range(3)]
    x = [Value(v) for v in numbers] if value_inputs else numbers
    weights = copies(model)

    # The plain network: every neuron built from * and +, layer after layer.
    plain_in = [Value(v) for v in numbers] if value_inputs else numbers
    h, at = plain_in, 0
    for layer in model.layers:
        outs = []
        for neuron in layer.neurons:
            outs.append(plain_neuron(neuron, h, weights[at:at + len(neuron.w) + 1]))
            at += len(neuron.w) + 1
        h = outs

    out = model(x)
    assert [o.data for o in out] == [p.data for p in h]
    loss = (out[0] - 1.0) ** 2 + out[1] * 0.5
    plain_loss = (h[0] - 1.0) ** 2 + h[1] * 0.5
    loss.backward()
    plain_loss.backward()
    assert grads(model.parameters()) == grads(weights)
    if value_inputs:
        assert grads(x) == grads(plain_in)


# -- backward skips nodes whose gradient is zero ----------------------------------------------


@given(seeds)
def test_backward_equals_the_chain_rule_over_every_node(seed):
    rng = random.Random(seed)
    root = random_graph(rng)
    nodes = topological_order(root)
    root.backward()
    fast = grads(nodes)
    for node in nodes:
        node.grad = 0.0
    plain_backward(root)
    assert fast == grads(nodes)


def test_a_dead_relu_passes_nothing_down_and_leaves_grads_alone():
    w, x = Value(-2.0), Value(3.0)
    w.grad = 0.25  # leaves accumulate: whatever was there stays
    out = (w * x).relu() + x
    out.backward()
    assert (w.grad, x.grad) == (0.25, 1.0)


def test_intermediate_nodes_below_a_zero_gradient_read_zero():
    a = Value(1.5)
    b = a * 2.0
    b.grad = 7.0  # left over from some earlier use
    out = b.relu() * 0.0
    out.backward()
    assert b.grad == 0.0 and a.grad == 0.0


# -- the topological walk --------------------------------------------------------------------


@given(seeds, st.booleans())
def test_topological_order_equals_the_recursive_depth_first_order(seed, with_leaves):
    root = random_graph(random.Random(seed))
    assert topological_order(root, leaves=with_leaves) == recursive_order(root, leaves=with_leaves)


def test_topological_order_of_a_lone_leaf():
    v = Value(1.0)
    assert topological_order(v) == [v]
    assert topological_order(v, leaves=False) == []


# -- parameters and zero_grad ------------------------------------------------------------------


def test_parameters_come_neuron_by_neuron_weights_then_bias():
    model = MLP(3, [4, 2], rng=0)
    expected = [p for layer in model.layers for n in layer.neurons for p in (*n.w, n.b)]
    assert model.parameters() == expected
    assert model.layers[0].parameters() == expected[:16]


@pytest.mark.parametrize("module", [Neuron(3, rng=1), Layer(3, 2, rng=1), MLP(3, [4, 2], rng=1)])
def test_zero_grad_zeroes_every_parameter(module):
    for i, p in enumerate(module.parameters()):
        p.grad = i + 1.0
    module.zero_grad()
    assert grads(module.parameters()) == [0.0] * len(module.parameters())


def test_zero_grad_of_a_subclass_with_more_parameters_zeroes_them_too():
    class ScaledMLP(MLP):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.scale = Value(1.0)

        def parameters(self):
            return super().parameters() + [self.scale]

    class WideLayer(Layer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.shift = Value(0.0)

        def parameters(self):
            return super().parameters() + [self.shift]

    scaled, wide = ScaledMLP(2, [3, 1], rng=2), WideLayer(2, 3, rng=2)
    for module in (scaled, wide):
        for p in module.parameters():
            p.grad = 5.0
        module.zero_grad()
        assert grads(module.parameters()) == [0.0] * len(module.parameters())
