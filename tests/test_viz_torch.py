"""PyTorch's autograd graph drawn like the package's (torch is optional; CI installs it)."""

import re
import subprocess
import sys

import pytest

from micrograd.viz import dot_source, draw_dot, text_graph
from micrograd.widgets import BackpropStepper

torch = pytest.importorskip("torch")  # .ci/run installs torch==2.13.0, so this runs in CI


def lecture_neuron():
    leaves = {}
    for name, data in [("x1", 2.0), ("x2", 0.0), ("w1", -3.0), ("w2", 1.0), ("b", 6.8813735870195432)]:
        leaves[name] = torch.tensor([data], dtype=torch.double, requires_grad=True)
        leaves[name].label = name
    n = leaves["x1"] * leaves["w1"] + leaves["x2"] * leaves["w2"] + leaves["b"]
    return torch.tanh(n), leaves


def test_a_tensor_graph_draws_with_leaf_values_retained_grads_and_grad_fn_names():
    o, leaves = lecture_neuron()
    o.backward()
    source = dot_source(o)
    assert "<B>x1</B>" in source and "data 2.0000" in source and "grad -1.5000" in source  # x1's grad
    assert "grad 1.0000" in source  # w1's
    for op in ("TanhBackward0", "AddBackward0", "MulBackward0"):
        assert f"label=<{op}>" in source
    assert source.count("data not kept") == 4  # the two products and the two sums: autograd kept none
    assert "data 0.7071" in source  # the output itself
    assert "<svg" in draw_dot(o).svg()


def test_the_tensor_graph_has_the_shape_of_the_package_graph():
    from micrograd import Value, graph_size
    from micrograd.graphs import read_graph

    o, _ = lecture_neuron()
    mirror = read_graph(o, "test").root
    x1, x2, w1, w2 = (Value(v) for v in (2.0, 0.0, -3.0, 1.0))
    ours = (x1 * w1 + x2 * w2 + Value(6.88)).tanh()
    assert graph_size(mirror) == graph_size(ours) == (10, 9)


def test_before_backward_no_grad_is_shown_and_the_text_view_says_what_was_not_kept():
    o, _ = lecture_neuron()
    text = text_graph(o)
    assert "not kept" in text and "grad -1.5" not in text


def test_tensors_that_are_not_scalar_graphs_are_refused_clearly():
    with pytest.raises(ValueError, match=r"scalar graphs: this tensor has shape \(3,\)"):
        draw_dot(torch.ones(3, requires_grad=True) * 2)
    with pytest.raises(TypeError, match="no autograd graph"):
        draw_dot(torch.ones(1))


def test_drawing_the_package_graph_never_imports_torch():
    code = (
        "import sys; from micrograd import Value; from micrograd.viz import dot_source, text_graph; "
        "a = Value(2.0); dot_source(a * a); text_graph(a * a); print('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_backprop_stepper_takes_a_pytorch_scalar():
    leaves = {name: torch.tensor(data, dtype=torch.float64, requires_grad=True) for name, data in
              [("x1", 2.0), ("w1", -3.0), ("b", 6.8813735870195432)]}
    for name, leaf in leaves.items():
        leaf.label = name
    o = (leaves["x1"] * leaves["w1"] + leaves["b"]).tanh()
    stepper = BackpropStepper(o)
    stepper.step()
    stepper.step()
    panel = re.sub(r"<[^>]+>", " ", stepper.panel.value)
    assert "b.grad += 1.0000 × 0.5000" in " ".join(panel.split())
    stepper.finish()
    stepped = {stepper.names[n]: n.grad for n in stepper.nodes if stepper.names[n] in leaves}
    o.backward()  # PyTorch's own numbers, and its leaves untouched by the stepper until now
    assert stepped == pytest.approx({name: leaf.grad.item() for name, leaf in leaves.items()}, abs=1e-12)
    with pytest.raises(ValueError, match="PyTorch no longer holds .* build the tensor again"):
        BackpropStepper(o)


def test_the_stepper_panel_names_pytorch_results_in_the_drawing_words():
    o, _ = lecture_neuron()
    stepper = BackpropStepper(o)
    for _ in range(3):
        stepper.step()  # tanh, then n = (x1*w1 + x2*w2) + b, then the sum of the two products
    panel = " ".join(re.sub(r"<[^>]+>", " ", stepper.panel.value).split())
    assert "node 3 of 5: [AddBackward0 data not kept] (AddBackward0)" in panel
    assert "[MulBackward0 data not kept].grad += 1.0000 × 0.5000" in panel
    assert "nan" not in panel and "nan" not in " ".join(stepper.names.values())
    assert "data not kept" in stepper.graph.value  # the words the drawing uses
    assert "[TanhBackward0 0.7071]" in stepper.names.values()  # a result PyTorch kept: its number
