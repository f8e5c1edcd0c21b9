"""Lesson 5's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math

import pytest
from claims import BESIDE_0_1_0, claim, labelled, lesson3_neuron, lesson_cells, mlp_0_1_0  # noqa: F401  mlp_0_1_0: a fixture
from micrograd import MLP, Value, topological_order


def test_lesson05_pytorch_frees_what_a_node_kept_so_a_second_backward_needs_retain_graph_where_one_kept_something():
    """What lessons 4 and 5 say of PyTorch and of ours after calling backward() twice on one graph."""
    torch = pytest.importorskip("torch")
    claim(4, "PyTorch, which lesson 5 introduces, adds into its leaves too.")
    claim(5, "a second `backward()` on the same graph raises an error when it reaches a node that kept something, "
             "as lesson 4's `w * w` does, unless the first call passed `retain_graph=True` (with that, PyTorch's "
             "leaf gets 6, then 12, as ours does); `w + w`, which keeps nothing, runs twice without it. Ours frees "
             "nothing, so a second call always runs.")
    claim(BESIDE_0_1_0, "refuses a second `backward()` through a node that saved tensors for it (a product does, a sum does "
                "not) unless the first passed `retain_graph=True`")
    assert "retain_graph" not in " ".join(source for _, source in lesson_cells(4))  # not before lesson 5 introduces PyTorch
    w = torch.tensor(3.0, requires_grad=True)
    loss = w * w
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    w = torch.tensor(3.0, requires_grad=True)
    loss = w * w
    loss.backward(retain_graph=True)
    first = w.grad.item()
    loss.backward()
    assert (first, w.grad.item()) == (6.0, 12.0)
    w = torch.tensor(3.0, requires_grad=True)
    total = w + w
    total.backward()
    total.backward()  # a sum kept nothing: no error
    assert w.grad.item() == 4.0
    ours = Value(3.0)
    ours_loss = ours * ours
    ours_loss.backward(); ours_first = ours.grad
    ours_loss.backward()
    assert (ours_first, ours.grad) == (6.0, 12.0)


def test_lesson05_float32_would_agree_to_only_about_7_digits_and_pytorch_keeps_leaf_gradients_only():
    torch = pytest.importorskip("torch")
    claim(5, "in PyTorch's default float32 the two would agree to only about 7 digits")
    claim(5, "PyTorch keeps gradients of leaves only, unless asked")

    def neuron(dtype, retain):
        leaf = lambda v: torch.tensor(v, dtype=dtype, requires_grad=True)  # noqa: E731
        x1, x2, w1, w2, b = leaf(2.0), leaf(0.0), leaf(-3.0), leaf(1.0), leaf(6.8813735870195432)
        n = x1 * w1 + x2 * w2 + b
        if retain:
            n.retain_grad()
        o = torch.tanh(n)
        o.backward()
        return o, n, x1

    with pytest.warns(UserWarning):
        assert neuron(torch.float64, retain=False)[1].grad is None
    o, n, x1 = neuron(torch.float32, retain=True)
    ours = lesson3_neuron()
    ours.backward()
    digits_agreed = -math.log10(abs(x1.grad.item() - labelled(ours)["x1"].grad) / 1.5)
    assert 6 <= digits_agreed <= 8


def test_lesson05_pytorch_and_ours_agree_to_12_places_and_differ_only_through_tanh():
    torch = pytest.importorskip("torch")
    claim(5, "They agree to 12 decimal places and more; only the last digit or two differ because the two libraries evaluate tanh with different code")
    n = 2.0 * -3.0 + 0.0 * 1.0 + 6.8813735870195432
    theirs = torch.tanh(torch.tensor(n, dtype=torch.float64)).item()
    assert theirs != math.tanh(n) and abs(theirs - math.tanh(n)) < 1e-15
    o = lesson3_neuron()
    o.backward()
    leaf = lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)  # noqa: E731
    x1, w1 = leaf(2.0), leaf(-3.0)
    torch.tanh(x1 * w1 + 0.0 * 1.0 + 6.8813735870195432).backward()
    assert abs(x1.grad.item() - labelled(o)["x1"].grad) < 1e-12 and abs(w1.grad.item() - labelled(o)["w1"].grad) < 1e-12


def test_lesson05_a_pytorch_product_keeps_its_inputs_a_sum_keeps_nothing_and_ops_show_backward_names():
    torch = pytest.importorskip("torch")
    claim(5, "a product keeps its two inputs (its local derivatives are each other's values) but not its own result, and a sum keeps nothing")
    claim(5, "Each operation appears under the name of its backward function")
    from micrograd.viz import draw_dot

    x, w = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, -3.0))
    product = x * w
    total = product + x
    saved = lambda t: {name for name in dir(t.grad_fn) if name.startswith("_saved_")}  # noqa: E731
    assert saved(product) == {"_saved_self", "_saved_other"}
    assert all(not isinstance(getattr(total.grad_fn, name), torch.Tensor) for name in saved(total))
    o = torch.tanh(total)
    source = draw_dot(o).source
    assert all(name in source for name in ("MulBackward0", "AddBackward0", "TanhBackward0"))


def test_lesson05_pytorchs_results_in_between_show_as_data_not_kept():
    torch = pytest.importorskip("torch")
    claim(5, "so the results in between show as *data not kept*")
    from micrograd.viz import draw_dot

    x, w, b = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, -3.0, 6.88))
    source = draw_dot(torch.tanh(x * w + b)).source
    assert source.count("data not kept") >= 2


def test_lesson05_tanh_squashes_into_minus_one_one_and_relu_slopes_are_exactly_1_and_0():
    claim(5, "The $\\tanh$ squashes any total into $(-1, 1)$")
    claim(5, "The ReLU has slope exactly 1 for every positive input, however large, but for every negative input its slope is exactly 0")
    claim(5, "Near 0, tanh passes gradients back almost unchanged")
    assert all(-1 < math.tanh(s) < 1 for s in range(-18, 19))
    for x, slope in ((1e-3, 1.0), (1e9, 1.0), (-1e-3, 0.0), (-1e9, 0.0)):
        v = Value(x)
        v.relu().backward()
        assert v.grad == slope
    v = Value(0.01)
    v.tanh().backward()
    assert v.grad == pytest.approx(1, abs=1e-3)


def test_lesson05_a_weight_learns_in_proportion_to_its_input():
    claim(5, "Before `backward()` every gradient is 0")
    claim(5, "$\\partial o / \\partial w_1 = x_1 \\cdot (1 - o^2)$")
    x = [2.0, 3.0, -1.0]
    w = [Value(0.5), Value(-0.25), Value(1.0)]
    o = (w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + Value(0.1)).tanh()
    assert all(wi.grad == 0 for wi in w)
    o.backward()
    assert [wi.grad for wi in w] == pytest.approx([xi * (1 - o.data**2) for xi in x])


def test_lesson05_neuron_draws_weights_in_minus_one_one_bias_0_and_records_one_weighted_sum_node():
    claim(5, "it draws its $k$ weights at random from $[-1, 1]$, starts its bias at 0")
    claim(5, "it records $w \\cdot x + b$ as a **single node**")
    from micrograd.nn import Neuron

    neurons = [Neuron(3, activation="tanh") for _ in range(50)]
    weights = [w.data for n in neurons for w in n.w]
    assert all(-1 <= w <= 1 for w in weights) and min(weights) < -0.8 and max(weights) > 0.8
    assert all(n.b.data == 0 for n in neurons)
    out = neurons[0]([2.0, 3.0, -1.0])
    ops = [node.op for node in topological_order(out) if node.op]
    assert len(ops) == 2 and ops[-1] == "tanh"


def test_lesson05_package_default_is_relu_with_a_linear_output_as_in_micrograd_0_1_0(mlp_0_1_0):
    claim(5, "the package's default is ReLU with a linear output, as in micrograd 0.1.0")
    theirs = mlp_0_1_0["MLP"](3, [4, 4, 1])
    assert [[n.nonlin for n in layer.neurons] for layer in theirs.layers] == [[True] * 4, [True] * 4, [False]]
    ours = MLP(3, [4, 4, 1])
    x = [-5.0, -5.0, -5.0]
    hidden = [v.data for v in ours.layers[0].outputs(x)]
    assert min(hidden) >= 0  # ReLU
    assert ours.layers[-1].neurons[0].activation in (None, "linear", False)


def test_lesson05_the_lectures_layer_of_one_neuron_returns_the_value_itself(mlp_0_1_0):
    claim(5, "when the layer has a single neuron, that neuron's output itself, as the lecture's does")
    out = mlp_0_1_0["Layer"](3, 1)([1.0, 2.0, 3.0])
    assert not isinstance(out, list) and hasattr(out, "data")


def test_lesson05_wrong_number_of_inputs_is_a_clear_error():
    claim(5, "a clear error for the wrong number of inputs")
    with pytest.raises(ValueError, match="3"):
        MLP(3, [4, 1])([1.0, 2.0])


def test_lesson05_the_package_names_parameters_from_0_as_code_indexes_them():
    from micrograd.nn import Neuron

    claim(5, "(The package names parameters the way code indexes them, from 0: `w0` is `neuron.w[0]`, the $w_1$ of "
             "the formula.)")
    neuron = Neuron(3, activation="tanh", rng=0)
    names = dict(neuron.named_parameters())
    assert list(names) == ["w0", "w1", "w2", "b"] and names["w0"] is neuron.w[0] and names["b"] is neuron.b
