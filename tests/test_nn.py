"""Neurons, layers and MLPs: micrograd 0.1.0's defaults, and what was added."""

import math
import random

import numpy as np
import pytest

from micrograd import MLP, Layer, Module, Neuron, Value


def micrograd_010_parameters(nin, nouts, stream=random):
    """The parameter values micrograd 0.1.0 draws, written out independently.

    Its Neuron does ``[Value(random.uniform(-1, 1)) for _ in range(nin)]`` and
    then ``Value(0)``, neuron by neuron, layer by layer, from the global
    ``random`` stream.
    """
    sizes = [nin] + list(nouts)
    values = []
    for fan_in, width in zip(sizes, sizes[1:]):
        for _ in range(width):
            values += [stream.uniform(-1, 1) for _ in range(fan_in)]
            values.append(0.0)
    return values


def micrograd_010_forward(params, nin, nouts, x):
    """0.1.0's forward pass in floats: relu on hidden layers, linear output."""
    sizes = [nin] + list(nouts)
    params = iter(params)
    for depth, (fan_in, width) in enumerate(zip(sizes, sizes[1:])):
        last = depth == len(nouts) - 1
        outs = []
        for _ in range(width):
            ws = [next(params) for _ in range(fan_in)]
            act = next(params)  # sum(..., self.b) starts from the bias
            for w, xi in zip(ws, x):
                act = act + w * xi
            outs.append(act if last else (0.0 if act < 0 else act))
        x = outs
    return x


@pytest.mark.parametrize("seed, nin, nouts", [(1337, 2, [16, 16, 1]), (0, 3, [4, 4, 1]), (42, 5, [3, 2])])
def test_default_mlp_is_micrograd_010s_network(seed, nin, nouts):
    random.seed(seed)
    expected = micrograd_010_parameters(nin, nouts)
    after_reference = random.random()

    random.seed(seed)
    model = MLP(nin, nouts)
    assert [p.data for p in model.parameters()] == expected
    assert random.random() == after_reference  # the same number of draws

    x = [random.uniform(-2, 2) for _ in range(nin)]
    out = model(x)
    outs = out if isinstance(out, list) else [out]
    assert [o.data for o in outs] == micrograd_010_forward(expected, nin, nouts, x)


def test_default_reprs_match_micrograd_010():
    model = MLP(3, [4, 4, 1], rng=0)
    assert repr(model) == (
        "MLP of [Layer of [ReLUNeuron(3), ReLUNeuron(3), ReLUNeuron(3), ReLUNeuron(3)], "
        "Layer of [ReLUNeuron(4), ReLUNeuron(4), ReLUNeuron(4), ReLUNeuron(4)], "
        "Layer of [LinearNeuron(4)]]"
    )
    assert repr(Layer(2, 2, rng=0)) == "Layer of [ReLUNeuron(2), ReLUNeuron(2)]"


@pytest.mark.parametrize(
    "activation, name, function",
    [
        ("relu", "ReLUNeuron(3)", lambda z: max(z, 0.0)),
        ("tanh", "TanhNeuron(3)", math.tanh),
        ("sigmoid", "SigmoidNeuron(3)", lambda z: 1 / (1 + math.exp(-z))),
        (None, "LinearNeuron(3)", lambda z: z),
    ],
)
def test_neuron_activations(activation, name, function):
    neuron = Neuron(3, activation=activation, rng=5)
    assert repr(neuron) == name
    neuron.b.data = 0.3
    x = [0.5, -1.0, 2.0]
    out = neuron(x)
    z = 0.3 + sum(w.data * xi for w, xi in zip(neuron.w, x))
    assert out.data == pytest.approx(function(z), rel=1e-15, abs=1e-15)
    assert out.op == {None: "w·x+b", "relu": "ReLU"}.get(activation, activation)  # ReLU: micrograd 0.1.0's op name


def test_micrograd_010_nonlin_keyword():
    assert repr(Neuron(2, nonlin=False, rng=0)) == "LinearNeuron(2)"
    assert repr(Neuron(2, nonlin=True, rng=0)) == "ReLUNeuron(2)"
    assert Neuron(2, nonlin=False, rng=0).nonlin is False
    assert repr(Layer(2, 2, nonlin=False, rng=0)) == "Layer of [LinearNeuron(2), LinearNeuron(2)]"


def test_mlp_activation_and_output_activation():
    model = MLP(2, [3, 3, 2], activation="tanh", output_activation="sigmoid", rng=1)
    kinds = [[repr(n) for n in layer.neurons] for layer in model.layers]
    assert kinds == [["TanhNeuron(2)"] * 3, ["TanhNeuron(3)"] * 3, ["SigmoidNeuron(3)"] * 2]
    outs = model([0.1, -0.2])
    assert [o.op for o in outs] == ["sigmoid", "sigmoid"]
    assert all(0.0 < o.data < 1.0 for o in outs)


# -- rng -------------------------------------------------------------------------------------------------


def test_rng_seed_is_a_private_stream():
    state = random.getstate()
    a = MLP(2, [3, 1], rng=7)
    assert random.getstate() == state  # the global generator is left alone
    b = MLP(2, [3, 1], rng=random.Random(7))
    c = MLP(2, [3, 1], rng=8)
    data = [[p.data for p in m.parameters()] for m in (a, b, c)]
    assert data[0] == data[1] != data[2]
    # one stream, shared by every neuron in order, drawn as 0.1.0 draws
    assert data[0] == micrograd_010_parameters(2, [3, 1], random.Random(7))


def test_a_random_instance_is_used_and_advanced():
    rng = random.Random(3)
    first = Neuron(4, rng=rng)
    second = Neuron(4, rng=rng)
    reference = random.Random(3)
    assert [w.data for w in first.w] == [reference.uniform(-1, 1) for _ in range(4)]
    assert [w.data for w in second.w] == [reference.uniform(-1, 1) for _ in range(4)]
    assert first.b.data == second.b.data == 0.0


def test_no_rng_uses_the_global_generator():
    random.seed(11)
    a = Neuron(3)
    random.seed(11)
    b = Neuron(3)
    assert [w.data for w in a.w] == [w.data for w in b.w]
    assert all(-1.0 <= w.data <= 1.0 for w in a.w)


# -- shapes -------------------------------------------------------------------------------------------------


def test_layer_returns_a_value_for_one_neuron_and_a_list_otherwise():
    one = Layer(2, 1, rng=0)
    many = Layer(2, 3, rng=0)
    assert isinstance(one([1.0, 2.0]), Value)
    out = many([1.0, 2.0])
    assert isinstance(out, list) and len(out) == 3 and all(isinstance(o, Value) for o in out)
    assert isinstance(one.outputs([1.0, 2.0]), list) and len(one.outputs([1.0, 2.0])) == 1


def test_mlp_output_shape_and_a_one_wide_hidden_layer():
    assert isinstance(MLP(2, [4, 1], rng=0)([1.0, 2.0]), Value)
    assert len(MLP(2, [4, 3], rng=0)([1.0, 2.0])) == 3
    narrow = MLP(2, [1, 3, 1], rng=0)  # the hidden layer's single output is still a list inside
    assert isinstance(narrow([1.0, 2.0]), Value)


def test_inputs_as_numbers_numpy_rows_or_values_agree():
    model = MLP(3, [4, 2], rng=2)
    rows = [[0.5, -1, 2.0], np.array([0.5, -1.0, 2.0]), [Value(0.5), Value(-1.0), Value(2.0)],
            (np.float64(0.5), np.int64(-1), 2.0)]
    results = [[o.data for o in model(row)] for row in rows]
    assert all(r == results[0] for r in results)


def test_parameters_and_zero_grad():
    assert Module().parameters() == []
    model = MLP(3, [4, 4, 1], rng=0)
    params = model.parameters()
    assert len(params) == 41
    assert len({id(p) for p in params}) == 41
    assert params[:4] == model.layers[0].neurons[0].w + [model.layers[0].neurons[0].b]
    assert len(MLP(2, [16, 16, 1], rng=0).parameters()) == 337
    out = model([1.0, -2.0, 0.5])
    (out * out + 1).backward()
    assert any(p.grad != 0.0 for p in params)
    model.zero_grad()
    assert all(p.grad == 0.0 for p in params)


def test_mlp_gradients_match_finite_differences():
    model = MLP(2, [3, 1], activation="tanh", rng=4)
    x, target = [0.7, -1.3], 0.25

    def loss():
        return (model(x) - target) ** 2

    loss().backward()
    h = 1e-6
    for p in model.parameters():
        p.data += h
        up = loss().data
        p.data -= 2 * h
        down = loss().data
        p.data += h
        assert p.grad == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-9)


def test_julia_seed_training_on_the_four_samples():
    """MLP(3, [4, 4, 1]) with tanh everywhere, 50 steps at 0.05 (the Julia seed's run)."""
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=1)
    losses = []
    for _ in range(50):
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
        losses.append(loss.data)
    assert losses[0] > 1.0
    assert losses[-1] < 0.1
    assert [round(model(x).data) for x in xs] == ys


def test_import_paths():
    import micrograd
    from micrograd import MLP as top_mlp
    from micrograd import Value as top_value
    from micrograd.engine import Value as engine_value
    from micrograd.nn import MLP as nn_mlp
    from micrograd.nn import Layer as nn_layer
    from micrograd.nn import Module as nn_module
    from micrograd.nn import Neuron as nn_neuron

    assert top_value is engine_value is Value
    assert top_mlp is nn_mlp is MLP
    assert (nn_layer, nn_neuron, nn_module) == (Layer, Neuron, Module)
    assert {"Value", "MLP", "Layer", "Neuron", "Module"} <= set(micrograd.__all__)


def test_named_parameters_follow_the_indexing_in_code():
    model = MLP(3, [4, 2], rng=0)
    named = list(model.named_parameters())
    assert [p for _, p in named] == model.parameters()
    names = dict(named)
    assert names["L0.N3.w1"] is model.layers[0].neurons[3].w[1]
    assert names["L1.N1.b"] is model.layers[1].neurons[1].b
    assert len(names) == len(named)  # no name given twice


def test_named_parameters_of_a_module_that_only_lists_parameters():
    from micrograd import Module, Value

    class Pair(Module):
        def __init__(self):
            self.a, self.b = Value(1.0), Value(2.0)

        def parameters(self):
            return [self.a, self.b]

    pair = Pair()
    assert list(pair.named_parameters()) == [("p0", pair.a), ("p1", pair.b)]
