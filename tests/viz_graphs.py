"""Graphs the visualisation tests and benchmark draw.

The lecture's expressions, and the loss of Karpathy's moons demo built the
way ``demo.ipynb`` builds it (Value inputs, max-margin loss, 1e-4 L2), with
this package's neurons (one ``w·x+b`` node each, about 9 000 nodes) or with
micrograd 0.1.0's neurons spelled out as ``*`` and ``+`` (about 65 000).
"""

import random

from micrograd import MLP, Value
from micrograd.data import moons


def lecture_expression():
    """L = (a*b + c) * f from the lecture, after backward."""
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    f = Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    L.backward()
    return L


def lecture_neuron():
    """The lecture's tanh neuron o = tanh(x1*w1 + x2*w2 + b) after backward, and [w1, w2, b]."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    o.backward()
    return o, [w1, w2, b]


def scalar_forward(model, x):
    """model(x) with micrograd 0.1.0's neurons: sum(w*x, b), one node per * and +."""
    for layer in model.layers:
        outputs = []
        for neuron in layer.neurons:
            act = sum((wi * xi for wi, xi in zip(neuron.w, x)), neuron.b)
            outputs.append(act.relu() if neuron.activation == "relu" else act)
        x = outputs
    return x[0]


def moons_loss(n_samples=100, sizes=(16, 16, 1), scalar_neurons=False, seed=1337):
    """(loss, model) of Karpathy's demo, step 0, after backward."""
    random.seed(seed)
    X, y = moons(n_samples=n_samples, seed=seed)
    model = MLP(2, list(sizes))
    inputs = [list(map(Value, row)) for row in X]
    forward = (lambda x: scalar_forward(model, x)) if scalar_neurons else model
    scores = [forward(x) for x in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    loss = data_loss + reg_loss
    loss.backward()
    return loss, model


def double_use():
    """b = a + a: one input used twice, so two edges."""
    a = Value(3.0, label="a")
    b = a + a
    b.label = "b"
    b.backward()
    return a, b


def go_seed_graph():
    """The Go seed's double(x) loss (w*x - y)**2 at x=2, w=0.4, y=4, after backward."""
    x, w, y = Value(2.0, label="x"), Value(0.4, label="w"), Value(4.0, label="y")
    ypred = w * x
    ypred.label = "ypred"
    diff = ypred - y
    diff.label = "diff"
    loss = diff**2
    loss.label = "loss"
    loss.backward()
    return loss


def snapshot_sources():
    """{name: DOT text} of the drawings stored under tests/snapshots/viz/."""
    from micrograd.viz import draw_dot, draw_model

    L = lecture_expression()
    d = L.inputs[0]
    c = d.inputs[1]
    o, neuron_params = lecture_neuron()
    _, b = double_use()
    moons, model = moons_loss()
    random.seed(0)
    mlp = MLP(3, [4, 4, 1])
    return {
        "lecture_expression": draw_dot(L).source,
        "lecture_expression_marked": draw_dot(
            L, highlight=[d, (c, d)], show_local_grads=True, title="L = (a*b + c) * f", legend=True
        ).source,
        "lecture_neuron": draw_dot(o, params=neuron_params).source,
        "lecture_neuron_by_grad": draw_dot(o, color_by="grad", rankdir="TB").source,
        "double_use": draw_dot(b, show_local_grads=True).source,
        "moons_loss_collapsed": draw_dot(moons, model=model).source,
        "mlp_model": draw_model(mlp, [2.0, 3.0, -1.0]).source,
    }


if __name__ == "__main__":
    # Regenerate the stored drawings after a deliberate change to the look:
    #     python tests/viz_graphs.py
    # then review `git diff tests/snapshots/viz` before committing.
    import pathlib

    folder = pathlib.Path(__file__).parent / "snapshots" / "viz"
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in snapshot_sources().items():
        (folder / f"{name}.dot").write_text(source, encoding="utf-8")
        print("wrote", folder / f"{name}.dot")
