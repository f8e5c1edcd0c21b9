"""The widgets, driven headless: buttons are clicked and sliders moved from code.

``Button.click()`` and setting a slider's ``value`` run the same handlers a
browser would, without a kernel; tests/test_jupyterlab.py checks the real thing.
"""

import html as html_module
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from micrograd import MLP, Value
from micrograd.losses import hinge, l2, mse
from micrograd.optim import SGD, Adam, linear_decay
from micrograd.widgets import BackpropStepper, ExpressionExplorer, TrainingStepper
from micrograd.metrics import predicted_class
from micrograd.viz import format_number

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# -- graphs to step through ---------------------------------------------------------


def labelled_expression(a, b, c, f):
    """The lecture's L = (a*b + c) * f, naming e = a*b and d = e + c."""
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return L


def lecture_expression():
    """The lecture's L with every node labelled, and {label: Value} of the rest."""
    a, b, c, f = Value(2.0, "a"), Value(-3.0, "b"), Value(10.0, "c"), Value(-2.0, "f")
    L = labelled_expression(a, b, c, f)
    d = L.inputs[0]
    return L, {"a": a, "b": b, "c": c, "f": f, "e": d.inputs[0], "d": d}


def neuron_with_reuse():
    """A tanh neuron whose input is used twice (x + x), so a leaf gets two updates."""
    x, w, b = Value(0.7, "x"), Value(-1.3, "w"), Value(0.4, "b")
    n = w * (x + x) + b * x
    return n.tanh(), [x, w, b]


def mlp_loss():
    model = MLP(3, [4, 4, 1], rng=3)
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5]]
    return mse([model(x) for x in xs], [1.0, -1.0]), model.parameters()


def all_grads(root):
    from micrograd import topological_order

    return [node.grad for node in topological_order(root)]


def backward_grads(root):
    """Gradients of a plain backward() from zero, then every grad zeroed again."""
    from micrograd import topological_order

    nodes = topological_order(root)
    for node in nodes:
        node.grad = 0.0
    root.backward()
    grads = [node.grad for node in nodes]
    for node in nodes:
        node.grad = 0.0
    return grads


GRAPHS = [lambda: lecture_expression()[0], lambda: neuron_with_reuse()[0], lambda: mlp_loss()[0]]


# -- BackpropStepper ------------------------------------------------------------------


@pytest.mark.parametrize("make", GRAPHS, ids=["lecture", "reused-input", "mlp-loss"])
def test_stepping_to_the_end_gives_backwards_gradients_exactly(make):
    root = make()
    expected = backward_grads(root)
    stepper = BackpropStepper(root, max_nodes=None)
    while not stepper.done:
        stepper.step_button.click()
    assert all_grads(root) == expected  # same additions in the same order: bit for bit
    assert stepper.step_button.disabled and stepper.run_button.disabled


@pytest.mark.parametrize("make", GRAPHS, ids=["lecture", "reused-input", "mlp-loss"])
def test_run_button_finishes_the_pass(make):
    root = make()
    expected = backward_grads(root)
    stepper = BackpropStepper(root, max_nodes=None)
    stepper.run_button.click()
    assert stepper.done
    assert all_grads(root) == expected


def test_stepper_starts_from_zero_even_over_stale_gradients():
    root, leaves = neuron_with_reuse()
    root.backward()
    root.backward()  # leaves now hold twice their gradient, as in PyTorch
    expected = backward_grads(root)
    stepper = BackpropStepper(root)
    assert all(g == 0.0 for g in all_grads(root))
    stepper.finish()
    assert all_grads(root) == expected


def test_one_step_is_one_node_not_the_whole_pass():
    L, nodes = lecture_expression()
    stepper = BackpropStepper(L)
    stepper.step_button.click()
    # The first node is L = d * f: the seed, then d and f get their gradients.
    assert L.grad == 1.0
    assert nodes["d"].grad == -2.0 and nodes["f"].grad == 4.0
    assert nodes["e"].grad == 0.0 and nodes["a"].grad == 0.0 and nodes["b"].grad == 0.0
    assert stepper.position == 1 and not stepper.done
    stepper.step_button.click()  # d = e + c
    assert nodes["e"].grad == -2.0 and nodes["c"].grad == -2.0 and nodes["a"].grad == 0.0


def test_panel_shows_each_update_with_its_numbers():
    L, nodes = lecture_expression()
    stepper = BackpropStepper(L)
    assert "Every gradient is 0" in stepper.panel.value
    stepper.step()
    stepper.step()
    stepper.step()  # e = a * b, upstream -2
    panel = stepper.panel.value
    assert "a.grad += -3.0000 × -2.0000" in panel
    assert "b.grad += 2.0000 × -2.0000" in panel
    assert "0.0000 → 6.0000" in panel and "0.0000 → -4.0000" in panel
    assert "node <span class='micrograd-position'>3</span> of 3" in panel
    assert "Done" in panel


def test_first_step_shows_the_seed():
    L, _ = lecture_expression()
    stepper = BackpropStepper(L)
    stepper.step()
    assert "L.grad = 1" in stepper.panel.value
    stepper.step()
    assert "L.grad = 1" not in stepper.panel.value


def test_a_reused_input_shows_both_of_its_updates():
    x = Value(3.0, "x")
    y = x + x
    y.label = "y"
    stepper = BackpropStepper(y)
    stepper.step()
    panel = stepper.panel.value
    assert panel.count("x.grad += 1.0000 × 1.0000") == 2
    assert "0.0000 → 1.0000" in panel and "1.0000 → 2.0000" in panel
    assert x.grad == 2.0


def test_back_undoes_exactly_one_step():
    root = mlp_loss()[0]
    stepper = BackpropStepper(root)
    snapshots = [all_grads(root)]
    panels = [stepper.panel.value]
    for _ in range(6):
        stepper.step()
        snapshots.append(all_grads(root))
        panels.append(stepper.panel.value)
    for k in range(6, 0, -1):
        stepper.back_button.click()
        assert stepper.position == k - 1
        assert all_grads(root) == snapshots[k - 1]
        assert stepper.panel.value == panels[k - 1]
    assert stepper.back_button.disabled
    stepper.back_button.click()  # nothing to undo: no change, no error
    assert all_grads(root) == snapshots[0]


def test_back_then_step_again_repeats_the_same_numbers():
    root, _ = neuron_with_reuse()
    stepper = BackpropStepper(root)
    stepper.finish()
    final = all_grads(root)
    stepper.back()
    stepper.back()
    stepper.step()
    stepper.step()
    assert all_grads(root) == final


def test_reset_sets_every_gradient_back_to_zero():
    root, _ = mlp_loss()
    stepper = BackpropStepper(root)
    stepper.finish()
    assert any(g != 0.0 for g in all_grads(root))
    stepper.reset_button.click()
    assert all(g == 0.0 for g in all_grads(root))
    assert stepper.position == 0 and stepper.current is None
    assert stepper.back_button.disabled and stepper.reset_button.disabled
    assert not stepper.step_button.disabled


def test_a_lone_leaf_takes_one_step_the_seed():
    x = Value(3.0, "x")
    stepper = BackpropStepper(x)
    assert len(stepper.schedule) == 1
    stepper.step()
    assert x.grad == 1.0 and stepper.done
    stepper.step()  # past the end: nothing happens
    assert x.grad == 1.0


def highlighted_value_nodes(svg):
    """The Graphviz names (v<n>) of the value boxes drawn with the highlight colour."""
    names = []
    for block in re.findall(r'<g id="node\d+" class="node">(.*?)</g>', svg, flags=re.S):
        title = re.search(r"<title>(.*?)</title>", block).group(1)
        if title.startswith("v") and 'stroke="#b91c1c"' in block:
            names.append(title)
    return names


def test_drawing_highlights_the_node_just_processed():
    from micrograd import topological_order

    L, nodes = lecture_expression()
    stepper = BackpropStepper(L)
    assert highlighted_value_nodes(stepper.graph.value) == []
    order = topological_order(L)  # the drawing numbers its boxes in this order
    seen = []
    for _ in range(3):
        stepper.step_button.click()
        assert highlighted_value_nodes(stepper.graph.value) == [f"v{order.index(stepper.current)}"]
        seen.append(stepper.current)
    assert [node.label for node in seen] == ["L", "d", "e"]
    # The drawing shows the gradients as they are now.
    assert "grad 6.0000" in stepper.graph.value  # a.grad


def test_unlabelled_nodes_are_named_by_op_and_data():
    x = Value(0.5, "x")
    y = (x * 2.0).tanh()
    stepper = BackpropStepper(y)
    stepper.step()
    assert "[* 1.0000].grad += " in stepper.panel.value
    assert "[tanh 0.7616]" in stepper.panel.value


def test_model_parameters_are_named_as_in_the_drawing():
    model = MLP(2, [1], rng=0)
    out = model([Value(1.0, "x0"), Value(2.0, "x1")])
    stepper = BackpropStepper(out, model=model)
    stepper.step()
    assert "L0.N0.w0.grad += " in stepper.panel.value
    assert "L0.N0.w0" in stepper.graph.value


def test_stepper_rejects_what_is_not_a_value():
    with pytest.raises(TypeError, match=r"output node .*\.data.*got float"):
        BackpropStepper(3.0)


def test_without_graphviz_the_panel_shows_advice_and_dot_text(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("MICROGRAD_GRAPHVIZ", "dot")  # not pygraphviz's bundled Graphviz either
    L, _ = lecture_expression()
    stepper = BackpropStepper(L)
    assert "apt-get install graphviz" in stepper.graph.value
    assert "digraph micrograd" in stepper.graph.value
    stepper.finish()  # still steps
    assert L.grad == 1.0


def test_display_bundle_is_the_widget_with_a_short_text():
    L, _ = lecture_expression()
    stepper = BackpropStepper(L)
    bundle = stepper._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == stepper.widget.model_id
    assert bundle["text/plain"] == "BackpropStepper: 7 nodes, step 0 of 3"
    assert "0x" not in repr(stepper)


# -- TrainingStepper -------------------------------------------------------------------

FOUR_X = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
FOUR_Y = [1.0, -1.0, -1.0, 1.0]


def blobs(n=24, seed=0):
    """Two separable clusters in 2-D, labels ±1."""
    rng = random.Random(seed)
    X, y = [], []
    for i in range(n):
        label = 1 if i % 2 else -1
        X.append([label + rng.gauss(0, 0.4), 0.5 * label + rng.gauss(0, 0.4)])
        y.append(label)
    return X, y


def three_classes(n=30, seed=1):
    rng = random.Random(seed)
    centres = [(0.0, 2.0), (-2.0, -1.0), (2.0, -1.0)]
    X, y = [], []
    for i in range(n):
        k = i % 3
        X.append([centres[k][0] + rng.gauss(0, 0.5), centres[k][1] + rng.gauss(0, 0.5)])
        y.append(k)
    return X, y


def parameters(model):
    return [p.data for p in model.parameters()]


def test_step_button_adds_one_history_record_per_click():
    stepper = TrainingStepper(MLP(3, [4, 4, 1], rng=1), FOUR_X, FOUR_Y, loss="mse", lr=0.05)
    assert stepper.history == []
    for k in range(1, 4):
        stepper.step_button.click()
        assert len(stepper.history) == k
        record = stepper.history[-1]
        assert record["step"] == k and record["lr"] == 0.05
        assert set(record) == {"step", "loss", "lr", "accuracy"}  # ±1 targets: a classifier
    losses = [r["loss"] for r in stepper.history]
    assert losses[-1] < losses[0]


def test_a_step_is_exactly_a_hand_written_training_step():
    X, y = blobs()
    model, twin = MLP(2, [8, 1], rng=5), MLP(2, [8, 1], rng=5)
    stepper = TrainingStepper(model, X, y, loss="hinge", lr=0.3, l2=1e-3)
    optimizer = SGD(twin.parameters(), lr=0.3)
    for _ in range(3):
        stepper.step()
        outputs = [twin(x) for x in X]
        loss = hinge(outputs, y) + l2(twin.parameters(), 1e-3)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        assert stepper.history[-1]["loss"] == loss.data
    assert parameters(model) == parameters(twin)


def test_zero_learning_rate_changes_nothing():
    model = MLP(3, [4, 4, 1], rng=2)
    before = parameters(model)
    stepper = TrainingStepper(model, FOUR_X, FOUR_Y, lr=0.0)
    for _ in range(3):
        stepper.step_button.click()
    assert parameters(model) == before
    assert len({r["loss"] for r in stepper.history}) == 1
    assert len(stepper.history) == 3


def test_lr_slider_sets_the_rate_of_the_next_steps():
    model = MLP(3, [4, 4, 1], rng=2)
    stepper = TrainingStepper(model, FOUR_X, FOUR_Y, lr=0.05)
    stepper.step()
    stepper.lr_slider.value = 0.0
    frozen = parameters(model)
    stepper.step()
    assert parameters(model) == frozen
    assert stepper.history[-1]["lr"] == 0.0
    stepper.lr_slider.value = 0.2
    stepper.step()
    assert stepper.optimizer.lr == 0.2 and stepper.history[-1]["lr"] == 0.2
    assert parameters(model) != frozen


def test_reset_button_restores_the_session():
    # How exactly a session restores is tested in test_training.py; here, the button.
    X, y = blobs()
    model = MLP(2, [6, 6, 1], rng=7)
    initial = parameters(model)
    stepper = TrainingStepper(model, X, y, loss="hinge", optimizer=Adam(model.parameters(), lr=0.05), batch_size=8, seed=3)
    stepper.run(4)
    first_run = [r["loss"] for r in stepper.history]
    stepper.reset_button.click()
    assert parameters(model) == initial and stepper.history == [] and stepper.optimizer.steps == 0
    assert "class='micrograd-step'>0<" in stepper.status.value
    stepper.run(4)
    assert [r["loss"] for r in stepper.history] == first_run


def test_reset_keeps_the_learning_rate_the_slider_chose():
    stepper = TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    stepper.lr_slider.value = 0.3
    stepper.step()
    stepper.reset()
    assert stepper.optimizer.lr == 0.3 and stepper.lr_slider.value == 0.3
    stepper.step()
    assert stepper.history[0]["lr"] == 0.3


def test_run_button_runs_the_number_of_steps_in_the_box_with_progress():
    stepper = TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    stepper.run_steps.value = 7
    stepper.run_button.click()
    assert len(stepper.history) == 7
    assert stepper.progress.value == stepper.progress.max == 7
    stepper.run(3)
    assert [r["step"] for r in stepper.history] == list(range(1, 11))
    with pytest.raises(ValueError, match="positive whole number"):
        stepper.run(0)


def test_play_ticks_one_step_per_beat_and_stop_does_not_step():
    stepper = TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    stepper.play.value = 1  # what the Play widget does while playing
    stepper.play.value = 2
    assert len(stepper.history) == 2
    stepper.play.value = 0  # its stop button
    assert len(stepper.history) == 2
    stepper.tick()
    assert len(stepper.history) == 3


def test_status_and_figure_follow_the_steps():
    X, y = blobs()
    stepper = TrainingStepper(MLP(2, [8, 1], rng=5), X, y, loss="hinge", lr=0.3)
    assert "step <b class='micrograd-step'>0</b>" in stepper.status.value
    first_image = bytes(stepper.image.value)
    assert first_image.startswith(PNG_SIGNATURE)
    stepper.step_button.click()
    record = stepper.history[-1]
    assert "step <b class='micrograd-step'>1</b>" in stepper.status.value
    assert f"{record['loss']:.6f}" in stepper.status.value
    assert f"{100 * record['accuracy']:.1f}%" in stepper.status.value
    assert bytes(stepper.image.value).startswith(PNG_SIGNATURE) and bytes(stepper.image.value) != first_image
    assert stepper.plot.boundary  # 2-D inputs


def test_figure_after_reset_is_the_starting_figure():
    X, y = blobs()
    stepper = TrainingStepper(MLP(2, [8, 1], rng=5), X, y, loss="hinge", lr=0.3)
    start = bytes(stepper.image.value)
    stepper.run(3)
    stepper.reset()
    assert bytes(stepper.image.value) == start


def test_accuracy_only_for_classifiers():
    X = [[0.0], [1.0], [2.0]]
    regression = TrainingStepper(MLP(1, [3, 1], rng=0), X, [0.5, 1.5, 2.5], loss="mse", lr=0.01)
    regression.step()
    assert "accuracy" not in regression.history[0]
    assert not regression.plot.boundary  # 1-D inputs
    forced = TrainingStepper(MLP(1, [3, 1], rng=0), X, [0.5, 1.5, 2.5], loss="mse", lr=0.01, accuracy=True)
    forced.step()
    assert "accuracy" in forced.history[0]


def test_cross_entropy_with_three_classes():
    X, y = three_classes()
    model = MLP(2, [8, 3], rng=4)
    stepper = TrainingStepper(model, X, y, loss="cross_entropy", lr=0.2)
    stepper.run(5)
    assert all("accuracy" in r for r in stepper.history)
    assert stepper.plot.classes == 3
    assert stepper.history[-1]["loss"] < stepper.history[0]["loss"]


def test_callable_loss_and_schedule():
    X, y = blobs()
    model = MLP(2, [4, 1], rng=1)
    optimizer = SGD(model.parameters(), lr=linear_decay(1.0, 0.1, 10))
    stepper = TrainingStepper(model, X, y, loss=lambda outputs, targets: hinge(outputs, targets), optimizer=optimizer)
    assert stepper.lr_slider.disabled  # a schedule sets the rate, not the slider
    stepper.run(3)
    assert [r["lr"] for r in stepper.history] == pytest.approx([1.0, 0.91, 0.82])
    assert stepper.lr_slider.value == pytest.approx(0.73)
    assert "accuracy" not in stepper.history[0]  # a custom loss says nothing about classes


def test_a_diverging_run_stops_with_a_message_until_reset():
    model = MLP(3, [4, 4, 1], rng=1)
    initial = parameters(model)
    stepper = TrainingStepper(model, FOUR_X, FOUR_Y, lr=1e150)
    for _ in range(5):
        stepper.step_button.click()
    assert stepper.error is not None
    assert "Training stopped" in stepper.status.value and "Reset" in stepper.status.value
    assert stepper.step_button.disabled and stepper.run_button.disabled
    with pytest.raises(RuntimeError, match="reset"):
        stepper.step()
    stepper.reset_button.click()
    assert stepper.error is None and not stepper.step_button.disabled
    assert parameters(model) == initial


@pytest.mark.parametrize(
    "arguments, message",
    [
        (dict(X=FOUR_X, y=FOUR_Y[:3]), "one target per sample"),
        (dict(X=[], y=[]), "at least one sample"),
        (dict(X=[[1.0, 2.0], [1.0]], y=[1, -1]), "same number"),
        (dict(X=FOUR_X, y=FOUR_Y, loss="l1"), "unknown loss"),
        (dict(X=FOUR_X, y=FOUR_Y, batch_size=5), "batch_size"),
        (dict(X=FOUR_X, y=FOUR_Y, loss="hinge", l2=-1.0), "l2"),
        (dict(X=FOUR_X, y=[0, 1, 1, 0], loss="hinge"), "labels of \\+1 or -1"),
        (dict(X=FOUR_X, y=[0, 1, 1, 0], loss="cross_entropy"), "one score per class"),
        (dict(X=FOUR_X, y=FOUR_Y, boundary=True), "2-D inputs"),
    ],
)
def test_bad_set_ups_fail_at_once_with_a_clear_message(arguments, message):
    model = MLP(len(arguments["X"][0]) if arguments["X"] else 3, [4, 1], rng=0)
    with pytest.raises(ValueError, match=message):
        TrainingStepper(model, **arguments)


def test_a_loss_function_must_return_a_value():
    with pytest.raises(TypeError, match="must return a Value"):
        TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, loss=lambda outputs, targets: 0.0)


def test_multi_output_model_with_mse_is_refused():
    with pytest.raises(ValueError, match="cross_entropy"):
        TrainingStepper(MLP(3, [4, 2], rng=0), FOUR_X, FOUR_Y, loss="mse")


def test_training_display_bundle_text():
    stepper = TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    stepper.step()
    text = stepper._repr_mimebundle_()["text/plain"]
    assert text.startswith("TrainingStepper: 21 parameters, 4 samples, step 1, loss ")


# -- the decision-boundary grid ------------------------------------------------------------


@pytest.fixture(scope="module")
def plots():
    """The training stepper's figure code, which imports matplotlib: imported by the tests that use it, not when the
    test files are collected (on every worker)."""
    from micrograd.widgets import plots

    return plots


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", None])
@pytest.mark.parametrize("outputs", [1, 3])
def test_grid_evaluation_matches_the_model(activation, outputs, plots):
    model = MLP(2, [5, 4, outputs], activation=activation, output_activation="tanh", rng=11)
    rng = random.Random(0)
    points = [[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in range(50)]
    fast = plots.grid_outputs(model, points)
    for row, point in zip(fast, points):
        out = model(point)
        expected = [o.data for o in out] if outputs > 1 else [out.data]
        assert list(row if outputs > 1 else [row]) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    margins = plots.class_margins(fast)
    inside = [[k for k in range(len(margins)) if margins[k][i] > 0] for i in range(len(points))]
    classes = [-1, 1] if outputs == 1 else list(range(outputs))
    assert [[classes[k] for k in ks] for ks in inside] == [[predicted_class(model(p))] for p in points]


def test_grid_evaluation_of_a_wild_model_colours_without_warnings(plots):
    model = MLP(2, [3, 1], rng=0)
    for p in model.parameters():
        p.data = 1e200 if p.data > 0 else -1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings would land in the notebook
        outputs = plots.grid_outputs(model, [[1e200, 1e200], [-1e200, 1e200], [0.0, 0.0]])
        margins = plots.class_margins(outputs)
    assert margins.shape == (2, 3)


def test_grid_evaluation_of_any_callable_model(plots):
    def model(x):
        return x[0] * 2.0 - x[1]  # a Value when the inputs are Values

    values = plots.grid_outputs(lambda x: model([Value(a) for a in x]), [[1.0, 1.0], [0.0, 2.0]])
    assert list(values) == [1.0, -2.0]


def test_a_subclass_with_its_own_forward_pass_is_called_not_shortcut(plots):
    class Doubled(MLP):
        def __call__(self, x):
            return super().__call__(x) * 2.0

    model = Doubled(2, [3, 1], rng=0)
    point = [0.3, -0.2]
    assert plots.grid_outputs(model, [point])[0] == model(point).data


# -- ExpressionExplorer ----------------------------------------------------------------------


def expression(a, b, c):
    return (a * b + c).tanh()


def test_explorer_shows_value_and_gradients_of_the_start_values():
    explorer = ExpressionExplorer(expression, a=0.5, b=-1.0, c=0.25)
    a, b, c = Value(0.5), Value(-1.0), Value(0.25)
    out = expression(a, b, c)
    out.backward()
    assert explorer.output.data == out.data
    assert explorer.gradients == {"a": a.grad, "b": b.grad, "c": c.grad}
    assert f"{out.data:.4f}" in explorer.panel.value
    assert f"{a.grad:.4f}" in explorer.panel.value


def test_moving_a_slider_updates_value_gradients_and_drawing():
    explorer = ExpressionExplorer(expression, a=0.5, b=-1.0, c=0.25)
    before = (explorer.output.data, dict(explorer.gradients), explorer.graph.value, explorer.panel.value)
    explorer.sliders["a"].value = 1.5
    a, b, c = Value(1.5), Value(-1.0), Value(0.25)
    out = expression(a, b, c)
    out.backward()
    assert explorer.output.data == out.data != before[0]
    assert explorer.gradients["b"] == b.grad != before[1]["b"]
    assert explorer.graph.value != before[2] and "data 1.5000" in explorer.graph.value
    assert ">out<" in explorer.graph.value  # the output is labelled as the panel names it
    assert explorer.panel.value != before[3]


def test_gradients_agree_with_the_nudge_measurement():
    explorer = ExpressionExplorer(lambda x, y: x * y.exp() + x ** 3, x=0.7, y=-0.4)
    for name in ("x", "y"):
        assert explorer.slopes[name] == pytest.approx(explorer.gradients[name], rel=1e-6)


def test_start_values_come_from_defaults_then_one():
    explorer = ExpressionExplorer(lambda a, b=2.0: a * b)
    assert explorer.values == {"a": 1.0, "b": 2.0}
    explorer.set(b=-3.0)
    assert explorer.output.data == -3.0 and explorer.gradients["a"] == -3.0


def test_slider_range_grows_around_a_start_value_outside_the_limits():
    explorer = ExpressionExplorer(lambda a: a * 2.0, a=12.0)
    slider = explorer.sliders["a"]
    assert (slider.min, slider.value, slider.max) == (-5.0, 12.0, 17.0)  # not pinned at the end
    lesson = ExpressionExplorer(lambda a, b, c, f: (a * b + c) * f, a=2.0, b=-3.0, c=10.0, f=-2.0)
    assert all(s.min < s.value < s.max for s in lesson.sliders.values())
    assert [s.value for s in lesson.sliders.values()] == [2.0, -3.0, 10.0, -2.0]


def test_outside_the_domain_the_panel_says_why_and_recovers():
    explorer = ExpressionExplorer(lambda x: x.log(), x=2.0, show_graph=False)
    explorer.sliders["x"].value = -1.0
    assert explorer.output is None and "log" in explorer.error
    assert "cannot be computed" in explorer.panel.value
    explorer.sliders["x"].value = 1.0
    assert explorer.error is None and explorer.output.data == 0.0 and explorer.gradients["x"] == 1.0


def test_explorer_refuses_what_it_cannot_put_on_sliders():
    with pytest.raises(TypeError, match="function of its inputs"):
        ExpressionExplorer(Value(1.0))
    with pytest.raises(TypeError, match="name each input"):
        ExpressionExplorer(lambda *xs: xs[0])
    with pytest.raises(TypeError, match="no inputs"):
        ExpressionExplorer(lambda: Value(1.0))
    with pytest.raises(TypeError, match="not an input"):
        ExpressionExplorer(lambda a: a, b=1.0)
    with pytest.raises(TypeError, match=r"must return a node built from its inputs \(a Value\), got float"):
        ExpressionExplorer(lambda a: 3.0)
    with pytest.raises(ValueError, match="finite"):
        ExpressionExplorer(lambda a: a, a=float("nan"))
    with pytest.raises(ValueError, match="low < high"):
        ExpressionExplorer(lambda a: a, limits=(2.0, -2.0))
    with pytest.raises(ValueError, match="low < high"):
        ExpressionExplorer(lambda a: a, limits=5.0)
    explorer = ExpressionExplorer(lambda a: a * a)
    with pytest.raises(TypeError, match="not an input"):
        explorer.set(z=1.0)


def test_explorer_display_text():
    explorer = ExpressionExplorer(lambda a, b: a * b, a=2.0, b=-3.0)
    assert explorer._repr_mimebundle_()["text/plain"] == "ExpressionExplorer(a=2.000, b=-3.000): out = -6.0000"


# -- on the page: sizes, numbers that agree, a static picture --------------------------------


def png_size(data):
    import struct

    width, height = struct.unpack(">II", bytes(data)[16:24])
    return width, height


def test_training_plot_is_rendered_at_its_display_size_and_double_density():
    from micrograd.widgets.plots import DENSITY

    X, y = blobs()
    stepper = TrainingStepper(MLP(2, [4, 1], rng=0), X, y, loss="hinge")
    width, height = stepper.plot.size
    assert stepper.image.layout.width == f"{width}px" and stepper.image.layout.height == f"{height}px"
    assert png_size(stepper.image.value) == (DENSITY * width, DENSITY * height)
    assert DENSITY >= 2 and width <= 800  # inside an 850 px output, with room to spare


def test_loss_axis_turns_logarithmic_when_the_loss_spans_orders_of_magnitude():
    stepper = TrainingStepper(MLP(3, [4, 4, 1], rng=2), FOUR_X, FOUR_Y, loss="sum_of_squares", lr=0.05)
    stepper.run(3)
    assert not stepper.plot.log_scale
    stepper.run(400)
    losses = [r["loss"] for r in stepper.history]
    assert max(losses) > 100 * min(losses)
    assert stepper.plot.log_scale and stepper.plot.loss_axes.get_ylim()[0] <= min(losses)
    stepper.reset()
    assert not stepper.plot.log_scale


def test_lr_readout_and_status_show_the_same_number():
    from micrograd.widgets.training import format_lr

    X, y = blobs()
    stepper = TrainingStepper(MLP(2, [4, 1], rng=0), X, y, loss="hinge", lr=linear_decay(1.0, 0.1, 100))
    assert stepper.lr_slider.readout_format == ".4f" and format_lr(0.91) == "0.9100"
    for _ in range(10):
        stepper.step()
        shown = re.search(r"class='micrograd-lr'>([^<]+)<", stepper.status.value).group(1)
        assert shown == format(stepper.lr_slider.value, stepper.lr_slider.readout_format)
        assert shown == format_lr(stepper.session.learning_rate)  # the rate of the next step
    assert shown == "0.9100"
    stepper.lr_slider.disabled = False
    stepper.lr_slider.value = 0.25
    assert "class='micrograd-lr'>0.2500<" in stepper.status.value


def test_stepper_is_a_view_of_a_session():
    from micrograd.training import TrainingSession

    session = TrainingSession(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    session.run(2)
    stepper = TrainingStepper(session)
    assert stepper.history is session.history and "class='micrograd-step'>2<" in stepper.status.value
    stepper.step()
    assert len(session.history) == 3
    with pytest.raises(TypeError, match="shows a session as it is"):
        TrainingStepper(session, FOUR_X, FOUR_Y)
    with pytest.raises(TypeError, match="needs the data"):
        TrainingStepper(MLP(3, [4, 1], rng=0))


def svg_in(picture):
    """The SVG text of the first image in a static picture."""
    import base64

    return base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', picture).group(1)).decode("utf-8")


def static_picture(controller):
    bundle = controller._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # JupyterLab still shows the live widget
    return bundle["text/html"]


def test_each_widget_carries_a_static_picture_that_is_the_same_in_every_run():
    def make_all():
        X, y = blobs()
        training = TrainingStepper(MLP(2, [4, 1], rng=0), X, y, loss="hinge", lr=0.1)
        training.run(3)
        backprop = BackpropStepper(lecture_expression()[0])
        backprop.step()
        explorer = ExpressionExplorer(lambda a, b: a * b + b, a=2.0, b=-3.0)
        return [static_picture(w) for w in (training, backprop, explorer)]

    first, second = make_all(), make_all()
    assert first == second
    training, backprop, explorer = first
    for picture in first:
        assert picture.startswith('<div class="micrograd-static">') and "run the notebook to use it" in picture
        # A picture, as an image: JupyterLab strips inline SVG from a lesson not yet run; and no object address.
        assert 'src="data:image/svg+xml;base64,' in picture and "<svg" not in picture
        assert "0x" not in re.sub(r'src="data:[^"]*"', "", picture)
    assert "class='micrograd-step'>3<" in training and "decision boundary" in svg_in(training)
    assert "node <span class='micrograd-position'>1</span>" in backprop and "micrograd-drawing" in backprop
    assert "a = 2.000 b = -3.000" in explorer


def test_static_training_picture_follows_the_state():
    stepper = TrainingStepper(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    before = stepper.static_html()
    stepper.step()
    assert stepper.static_html() != before
    stepper.reset()
    assert stepper.static_html() == before


def picture_alt(stepper):
    return html_module.unescape(re.search(r'<img alt="([^"]*)"', stepper.static_html()).group(1))


def test_the_training_pictures_alt_says_how_the_loss_went_and_how_many_points_the_boundary_gets_right():
    # Lesson 6's form: inputs in 3-D, no boundary, the loss alone.
    stepper = TrainingStepper(MLP(3, [4, 4, 1], rng=0), FOUR_X, FOUR_Y, loss="sum_of_squares", lr=0.05, accuracy=False)
    assert picture_alt(stepper) == "The loss per step, no step taken yet"
    for _ in range(5):
        stepper.step()
    losses = [record["loss"] for record in stepper.history]
    assert losses[-1] < losses[0]
    said = f"The loss per step, falling from {format_number(losses[0], 4)} to {format_number(losses[-1], 4)} over 5 steps"
    assert picture_alt(stepper) == said and "decision boundary" not in said
    assert stepper.image.tooltip == said  # the live picture's name says the same
    # Lesson 7's form: 2-D points and their boundary; what it gets right, counted here from the model's outputs.
    for make in (blobs, three_classes):
        X, y = make()
        stepper = TrainingStepper(MLP(2, [8, 1 if make is blobs else 3], rng=1), X, y, lr=0.1,
                                  loss="mse" if make is blobs else "cross_entropy")
        for _ in range(3):
            stepper.step()
        right = sum(predicted_class(stepper.model(x)) == label for x, label in zip(X, y))
        alt = picture_alt(stepper)
        assert alt.startswith("The loss per step, ") and " over 3 steps; beside it the decision boundary" in alt, alt
        assert alt.endswith(f"the {len(X)} points: {right} of them ({100 * right / len(X):.1f}%) on their own class's side"), alt
        assert f"the {2 if make is blobs else 3} classes" in alt


def test_graphs_in_widgets_keep_their_size_and_scroll():
    stepper = BackpropStepper(lecture_expression()[0])
    html = stepper.graph.value
    assert "max-width:none" in html and "overflow-x:auto" in html
    assert stepper.options.rankdir == "BT"  # too wide left to right: upright, output on top
    layout = stepper.options.rankdir
    stepper.finish()
    assert stepper.options.rankdir == layout and "<svg" in html and "micrograd-error" not in html  # the SVG, not DOT text
    assert "micrograd-graph" in stepper.graph._dom_classes


def test_drawing_options_as_an_object_or_keywords():
    from micrograd.viz import DrawOptions

    by_object = BackpropStepper(lecture_expression()[0], DrawOptions(precision=2, show_local_grads=False))
    by_keyword = BackpropStepper(lecture_expression()[0], precision=2, show_local_grads=False)
    assert by_object.options == by_keyword.options and by_object.options.precision == 2
    explorer = ExpressionExplorer(lambda a: a * 2.0, draw_options={"precision": 1})
    assert explorer.options.precision == 1 and "data 2.0<" in explorer.graph.value
    with pytest.raises(TypeError, match="DrawOptions or a dict"):
        ExpressionExplorer(lambda a: a * 2.0, draw_options=["precision"])


def test_explorer_keeps_every_label_the_expression_gives():
    explorer = ExpressionExplorer(labelled_expression, a=2.0, b=-3.0, c=10.0, f=-2.0)
    labels = re.findall(r">([a-zA-Z])</text>", explorer.graph.value)
    assert sorted(labels) == sorted("abcdefL")
    assert "∂L/∂a" in explorer.panel.value and "L = <b class='micrograd-output'>-8.0000" in explorer.panel.value
    assert explorer.summary().endswith("L = -8.0000")


def test_widgets_use_only_public_names_of_viz():
    import pathlib

    import micrograd.widgets

    folder = pathlib.Path(micrograd.widgets.__file__).parent
    for path in folder.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"viz\.\w+\.|viz\._|from \.\.viz\.", text), f"{path.name} reaches into micrograd.viz's modules"


def test_without_graphviz_a_graph_widget_says_to_install_graphviz():
    code = (
        "import sys; sys.modules['graphviz'] = None\n"
        "from micrograd import Value\n"
        "from micrograd.widgets import BackpropStepper\n"
        "BackpropStepper(Value(1.0) * 2)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0
    assert "pip install graphviz" in done.stderr and "pip install micrograd" not in done.stderr, done.stderr


WITHOUT_NUMPY = """
import sys

class Blocker:  # as where numpy, matplotlib, pillow and scikit-learn do not exist (the course in the browser)
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "matplotlib", "PIL", "sklearn"):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Blocker())
from micrograd import MLP, Value
from micrograd.widgets import BackpropStepper, ExpressionExplorer, TrainingStepper

a, b = Value(2.0, label="a"), Value(-3.0, label="b")
stepper = BackpropStepper(a * b + a)
while not stepper.done:
    stepper.step()
print(stepper.summary(), a.grad)
print("<svg" in stepper.static_html() or "data:image/svg" in stepper.static_html())
explorer = ExpressionExplorer(lambda x, y: x * y + x, x=1.0, y=2.0)
print(explorer.summary())
print(sorted(name for name in sys.modules if name.split(".")[0] in ("numpy", "matplotlib", "PIL", "sklearn")))
training = TrainingStepper(MLP(2, [2, 1], rng=0), [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0], lr=0.1)
training.step()
training.run(4)
print(training.summary())
print(training.figure_note)
print(training.image.value)
print(training.static_html().count("micrograd-note"), "<svg" in training.static_html())
training.reset()
print(training.summary())
"""


def test_the_widgets_import_and_run_without_numpy_matplotlib_or_pillow():
    done = subprocess.run([sys.executable, "-c", WITHOUT_NUMPY], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "BackpropStepper: 4 nodes, step 2 of 2 -2.0" and lines[1] == "True", done.stdout
    assert lines[2].startswith("ExpressionExplorer"), done.stdout
    assert lines[3] == "[]", done.stdout  # nothing of theirs imported by the graph widgets
    # The training stepper steps all the same, and says in one line, where its figure would be, what the figure needs.
    stepped = TrainingStepper(MLP(2, [2, 1], rng=0), [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0], lr=0.1)
    stepped.step()
    stepped.run(4)
    assert lines[4] == stepped.summary() and lines[4].startswith("TrainingStepper: 9 parameters, 2 samples, step 5"), done.stdout
    assert lines[5].startswith("micrograd.widgets.TrainingStepper's figure needs numpy"), done.stdout
    assert "pip install numpy" in lines[5], done.stdout
    assert lines[6] == f'<div class="micrograd-note">{html_module.escape(lines[5])}</div>', done.stdout  # the figure's place
    assert lines[7] == "1 False", done.stdout  # the static picture: the numbers and that line, no figure
    assert lines[8] == "TrainingStepper: 9 parameters, 2 samples, step 0", done.stdout


# -- a learner's network, made the lecture's way ---------------------------------------------


def test_the_training_stepper_trains_a_learner_mlp_as_their_own_loop_would():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from foreign_nodes import lecture_micrograd

    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    ns = lecture_micrograd()
    random.seed(0)
    theirs = ns["MyMLP"](3, [4, 4, 1])
    random.seed(0)
    stepped = ns["MyMLP"](3, [4, 4, 1])
    expected = ns["my_train"](theirs, xs, ys, 5, 0.05)  # the lecture's loop: sum of squares, p.data += -lr * p.grad
    stepper = TrainingStepper(stepped, xs, ys, loss="sum_of_squares", lr=0.05)
    stepper.run(5)
    assert [r["loss"] for r in stepper.history] == pytest.approx(expected, rel=1e-12)
    assert [p.data for p in stepped.parameters()] == pytest.approx([p.data for p in theirs.parameters()], rel=1e-12)
    with pytest.raises(TypeError, match=r"^the hinge loss needs an operation your MyValue does not have .*relu"):
        TrainingStepper(ns["MyMLP"](2, [3, 1]), [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0], loss="hinge")



def test_a_model_whose_layers_always_return_lists_has_one_output_per_sample():
    """A layer that returns a list even of one output: [output] is one output, trained and drawn
    as the same model whose last layer unwraps it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from foreign_nodes import LectureValue, lecture_nn

    X, y = blobs(8)
    steppers = []
    for lists in (True, False):
        random.seed(0)
        model = lecture_nn(LectureValue, layers_return_lists=lists)["MyMLP"](2, [4, 1])
        assert isinstance(model(X[0]), list) == lists
        # 2-D inputs: the decision boundary is drawn too (1,600 forward passes of the lecture's class a
        # drawing, so once per kind of model); 1-D inputs for the second loss.
        for loss, inputs in (("mse", X), ("sum_of_squares", [x[:1] for x in X])):
            random.seed(0)
            model = lecture_nn(LectureValue, layers_return_lists=lists)["MyMLP"](len(inputs[0]), [4, 1])
            stepper = TrainingStepper(model, inputs, y, loss=loss, lr=0.05)
            stepper.run(2)
            steppers.append(stepper)
    listed, unwrapped = steppers[:2], steppers[2:]
    for a, b in zip(listed, unwrapped):
        # the same numbers, but for rounding: the lecture's class adds gradients in the order of a set
        assert [r["loss"] for r in a.history] == pytest.approx([r["loss"] for r in b.history], rel=1e-12)
        assert [r["accuracy"] for r in a.history] == [r["accuracy"] for r in b.history]
        assert bytes(a.image.value).startswith(PNG_SIGNATURE)


# -- the stepper's drawing: laid out once, each step rendered at the same places ------------------


def hub(terms):
    """y = (…((1·x + c1)·x + c2)…)·x + c_terms by Horner's rule: x feeds every step."""
    x = Value(0.5, label="x")
    y = Value(1.0)
    for i in range(terms):
        y = y * x + Value(0.1 * (i % 7) - 0.3)
    return y


def node_positions(svg):
    """{node name: the first point of its shape} in a Graphviz SVG."""
    return dict(re.findall(r'<title>(\w+)</title>\s*<(?:path|polygon|ellipse)[^>]*?(?:d="M|points="|cx=")([-\d.,"\s=cy]+?)[ C"]', svg))


def data_dot(stepper):
    return html_module.unescape(re.search(r'data-dot="([^"]*)"', stepper.graph.value).group(1))


@pytest.mark.parametrize("make", [lambda: lecture_expression()[0], lambda: hub(12)], ids=["lecture", "hub"])
def test_each_step_carries_its_own_dot_text_drawn_where_the_first_layout_put_it(make):
    kept, fresh = BackpropStepper(make()), BackpropStepper(make())
    fresh.layout = None  # laid out afresh at every step, as drawings are
    first = node_positions(kept.graph.value)
    assert len(first) > 10
    while not kept.done:
        kept.step()
        fresh.step()
        assert data_dot(kept) == data_dot(fresh)  # what nbval compares: exactly what the project computes
        assert node_positions(kept.graph.value) == first
    assert kept.layout.layouts == 1
    kept.reset()
    assert node_positions(kept.graph.value) == first and "grad 0.0000" in data_dot(kept)


def box_width(svg, node="v0"):
    """The width of a node's box in a Graphviz SVG, in points."""
    path = re.search(rf'<title>{node}</title>\s*<path[^>]*d="([^"]*)"', svg).group(1)
    xs = [float(x) for x in re.findall(r"(-?[\d.]+),-?[\d.]+", path)]
    return max(xs) - min(xs)


def test_a_gradient_that_outgrows_its_box_gets_a_new_layout_with_room_for_the_widest():
    from micrograd.viz import KeptLayout, draw_dot

    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    out = a * b
    layout = KeptLayout()
    layouts = []
    for grad in (0.0, -1.5, 1.25e-7, -2.5e-7, -123456.5, 0.5):
        a.grad = grad
        drawing = draw_dot(out)
        svg = layout.svg(drawing)
        layouts.append(layout.layouts)
        assert f">grad {format_number(grad, 4)}</text>" in html_module.unescape(svg)  # Graphviz writes - as &#45;
        assert box_width(svg) >= box_width(drawing.svg()) - 0.01  # the box laid out afresh for the text: it fits
    # -1.5 fits the room for a sign; 1.25e-7 does not, and its layout has room for any number in either
    # notation: -2.5e-7 and -123456.5 included
    assert layouts == [1, 1, 2, 2, 2, 2]


def test_the_layout_source_keeps_room_for_signs_digits_and_edge_labels():
    from micrograd.viz.layout import layout_source, widest_gradient

    source = (
        "digraph micrograd {\n"
        '\tv0 [label=<<TABLE><TR><TD>data 2.0000</TD><VR/><TD>grad 0.5000</TD></TR></TABLE>> fillcolor="#dbeafe"]\n'
        '\tv1 [label=<<TABLE><TR><TD>grad -1.0000e-05 … 2.0000</TD></TR></TABLE>>]\n'
        '\tv0 -> o2 [label="local 3.0000" color="#b91c1c"]\n'
        "\tv1 -> o2\n"
        "\to2 -> v2\n"
        "}\n"
    )
    assert "<TD>grad -0.5000</TD>" in layout_source(source) and "<TD>data 2.0000</TD>" in layout_source(source)
    assert widest_gradient(source) == 12  # -1.0000e-05, and one to spare
    padded = layout_source(source, 12)  # as wide as any number of 12 characters: a sign and 11 zeros
    assert "<TD>grad -00000000000</TD>" in padded and "<TD>grad -00000000000 … -00000000000</TD>" in padded
    labelled = layout_source(source, edge_labels=True)
    assert '\tv1 -> o2 [label="local -3.0000"]\n' in labelled and "\to2 -> v2\n" in labelled


def test_the_backprop_stepper_says_each_press_in_one_sentence_and_its_buttons_are_named_by_their_words():
    """The live region (one widget, kept) is empty until a press, then holds the step just taken; the panel
    the eye reads is no live region of its own.  A button's name is the word it shows, no icon glyph in it."""
    from micrograd.widgets import BackpropStepper

    stepper = BackpropStepper(lecture_expression()[0])
    region = stepper.live.widget
    assert stepper.live.text == "" and "role=" not in stepper.panel.value and region in stepper.widget.children
    stepper.step()
    assert stepper.live.text == ("L.grad = 1, the seed; node 1 of 3: L (*), upstream grad 1.0000: "
                                 "d.grad += -2.0000 × 1.0000, now -2.0000; f.grad += 4.0000 × 1.0000, now 4.0000.")
    stepper.back()
    assert stepper.live.text == "Took back node 1 of 3: its gradients are as they were, before the first node."
    stepper.finish()
    assert stepper.live.text == "Took the 3 remaining steps, to node 3 of 3. Done: every gradient now equals what L.backward() gives."
    stepper.reset()
    assert stepper.live.text == "Reset: every gradient is 0; Step starts at L." and stepper.live.widget is region
    for button in (stepper.step_button, stepper.back_button, stepper.run_button, stepper.reset_button):
        assert button.description and button.icon == ""


def focus_requests(*buttons):
    """{description: how many times the front end was asked to focus it}, filled as the buttons are pressed."""
    asked = {button.description: 0 for button in buttons}
    for button in buttons:
        button.send = lambda message, name=button.description: asked.__setitem__(name, asked[name] + (message == {"do": "focus"}))
    return asked


def test_a_button_that_disables_itself_hands_the_focus_on_and_a_call_from_code_leaves_it():
    from micrograd.widgets import BackpropStepper

    stepper = BackpropStepper(lecture_expression()[0])
    asked = focus_requests(stepper.step_button, stepper.back_button, stepper.run_button, stepper.reset_button)
    stepper.finish()
    stepper.reset()
    assert asked == {"Step": 0, "Back": 0, "To the end": 0, "Reset": 0}  # called from a cell: the focus stays in it
    stepper.run_button.click()  # To the end: disabled now, Reset takes the focus
    assert stepper.run_button.disabled and asked["Reset"] == 1
    stepper.reset_button.click()  # Reset: disabled now, Step takes the focus
    assert stepper.reset_button.disabled and asked["Step"] == 1
    stepper.step_button.click()  # one step of three: Step stays enabled and keeps the focus
    assert asked == {"Step": 1, "Back": 0, "To the end": 0, "Reset": 1}
    stepper.back_button.click()  # Back to the start: disabled, Step takes the focus
    assert asked["Step"] == 2
    for _ in range(3):
        stepper.step_button.click()  # the last step disables Step: Reset takes the focus
    assert stepper.step_button.disabled and asked == {"Step": 2, "Back": 0, "To the end": 0, "Reset": 2}


def test_the_training_stepper_sums_up_a_run_once_and_a_play_when_it_pauses():
    X, y = blobs()
    stepper = TrainingStepper(MLP(2, [8, 1], rng=5), X, y, loss="hinge", lr=0.3)
    said = []
    stepper.live.widget.observe(lambda change: said.append(change["new"]), names="value")
    assert stepper.live.text == ""
    stepper.step_button.click()
    assert said == [f"Step 1: loss {stepper.history[0]['loss']:.6f}, accuracy {100 * stepper.history[0]['accuracy']:.1f}%."]
    stepper.run(200)  # the status line the eye reads moves 200 times; the live region once
    first, last = stepper.history[0], stepper.history[-1]
    assert len(said) == 2 and said[1] == (f"Ran 200 steps, to step 201: loss {last['loss']:.6f}, accuracy "
                                          f"{100 * last['accuracy']:.1f}% (from {first['loss']:.6f}).")
    stepper.play.playing = True
    for _ in range(3):
        stepper.play.value += 1  # the Play widget's beats
    assert len(stepper.history) == 204 and len(said) == 2
    stepper.play.playing = False
    assert len(said) == 3 and said[2].startswith("Played 3 steps, to step 204: loss ")


def test_a_training_error_hands_the_focus_to_reset():
    stepper = TrainingStepper(MLP(3, [4, 4, 1], rng=1), FOUR_X, FOUR_Y, lr=1e150)
    asked = focus_requests(stepper.step_button, stepper.reset_button)
    while stepper.error is None:
        stepper.step_button.click()
    assert stepper.step_button.disabled and asked == {"Step": 0, "Reset": 1}
    assert stepper.live.text.startswith("Training stopped: ") and stepper.live.text.endswith("Press Reset to start over.")
