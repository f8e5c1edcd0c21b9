"""draw_model: a network drawn as layers of neurons."""

import re

import pytest

from micrograd import MLP, Layer, Neuron, Value
from micrograd.viz import GraphDrawing, draw_model

from test_viz_render import svg_parts


def model():
    return MLP(3, [4, 4, 1], rng=0)


def test_one_box_per_layer_with_a_row_per_neuron():
    net = model()
    drawing = draw_model(net)
    assert isinstance(drawing, GraphDrawing)
    source = drawing.source
    assert re.findall(r"^\t(\w+) \[label", source, re.M) == ["x", "L0", "L1", "L2"]
    assert re.findall(r"^\t(\w+) -> (\w+)$", source, re.M) == [("x", "L0"), ("L0", "L1"), ("L1", "L2")]
    assert "<B>3 inputs</B>" in source
    assert "<B>L0</B> · 4 neurons · ReLU · 3 inputs each" in source
    assert "<B>L2</B> · 1 neuron · linear · 4 inputs each" in source
    first = net.layers[0].neurons[0]
    weights = [w.data for w in first.w]
    assert f"{min(weights):.4f} … {max(weights):.4f}" in source
    assert drawing.value_count == len(net.parameters()) == 41
    texts, _ = svg_parts(drawing.svg())
    assert len(texts) == 4


def test_a_sample_adds_outputs_and_leaves_the_model_untouched():
    net = model()
    x = [2.0, 3.0, -1.0]
    out = net(x)
    out.backward()
    before = [(p.data, p.grad) for p in net.parameters()]
    source = draw_model(net, x).source
    assert [(p.data, p.grad) for p in net.parameters()] == before
    assert f"<TD ALIGN=\"RIGHT\">{out.data:.4f}</TD>" in source  # the network's output, last row
    largest = max(abs(p.grad) for p in net.layers[2].neurons[0].parameters())
    assert f"{largest:.4f}" in source
    hidden = net.layers[0].outputs([Value(v) for v in x])
    inactive = [h for h in hidden if h.data <= 0]
    assert source.count('<FONT COLOR="#64748b">') == len(inactive) + sum(
        h.data <= 0 for h in net.layers[1].outputs(hidden)
    )


def test_layers_and_neurons_and_long_layers():
    assert "<B>L0</B> · 5 neurons · tanh · 2 inputs each" in draw_model(Layer(2, 5, "tanh", rng=1)).source
    assert "<B>L0</B> · 1 neuron · sigmoid" in draw_model(Neuron(2, "sigmoid", rng=1)).source
    source = draw_model(Layer(2, 30, rng=1), max_rows=10).source
    assert "… 20 more neurons" in source and ">N9<" in source and ">N10<" not in source


def test_errors():
    with pytest.raises(TypeError, match="draw_dot"):
        draw_model(Value(1.0))
    with pytest.raises(ValueError, match="3 inputs"):
        draw_model(model(), [1.0, 2.0])
    with pytest.raises(ValueError, match="max_rows"):
        draw_model(model(), max_rows=0)
    with pytest.raises(ValueError, match="rankdir"):
        draw_model(model(), rankdir="up")


def test_a_learner_mlp_made_the_lecture_way_is_drawn_like_the_package_one():
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from foreign_nodes import lecture_micrograd

    random.seed(0)
    net = lecture_micrograd()["MyMLP"](3, [4, 4, 1])
    x = [2.0, 3.0, -1.0]
    source = draw_model(net, x).source
    assert "<B>L0</B> · 4 neurons · tanh · 3 inputs each" in source  # named by the op of its output
    assert "<B>L2</B> · 1 neuron · tanh · 4 inputs each" in source
    assert f">{net(x).data:.4f}<" in source  # the output for the sample
    with pytest.raises(TypeError, match=r"^draw_model draws an MLP, a Layer or a Neuron: the package's, or yours .*got dict"):
        draw_model({"layers": []})
