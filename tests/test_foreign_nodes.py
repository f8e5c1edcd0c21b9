"""Any micrograd is a graph: drawings, the text view, the steppers and the explorer on node classes
that are not the package's Value (the lecture's, micrograd 0.1.0's, a tuple-based one, a fork)."""

import json
import math
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from micrograd import Value, graph_size
from micrograd.viz import dot_source, draw_dot, draw_model, style, text_graph
from micrograd.widgets import BackpropStepper, ExpressionExplorer, TrainingStepper, backprop_words

from foreign_nodes import (OTHER_INPUT_NAMES, ForkValue, GradFnNode, LectureValue, TupleNode, inputs_under,
                           lecture_micrograd, lecture_nn, neuron, twice_used)
from gpt_answers import microgpt

TESTS = Path(__file__).resolve().parent
LOCAL_CLASSES = [LectureValue, TupleNode, ForkValue]


@pytest.fixture(params=["lecture", "tuple", "fork", "micrograd 0.1.0"])
def node_class(request):
    if request.param == "micrograd 0.1.0":
        return request.getfixturevalue("micrograd_0_1_0_value")
    return dict(zip(["lecture", "tuple", "fork"], LOCAL_CLASSES))[request.param]


def grads(leaves):
    return {name: float(leaf.grad) for name, leaf in leaves.items()}


@pytest.mark.parametrize("build", [neuron, twice_used])
def test_the_stepper_gives_the_gradients_of_the_class_own_backward(node_class, build):
    out, leaves = build(node_class)
    out.backward()
    expected = grads(leaves)
    out, leaves = build(node_class)
    stepper = BackpropStepper(out)
    stepper.finish()
    assert grads(leaves) == pytest.approx(expected, abs=1e-12)
    assert any(expected.values())  # the comparison is worth something
    assert "Done" in stepper.panel.value and "<svg" in stepper.graph.value


def test_each_class_draws_with_its_numbers_labels_and_ops(node_class):
    out, leaves = neuron(node_class)
    out.backward()
    source = dot_source(out)
    for leaf in leaves.values():
        assert f"data {leaf.data:.4f}" in source
        assert f"grad {leaf.grad:.4f}" in source
    if node_class is not TupleNode:  # the one class without labels
        assert all(f"<B>{name}</B>" in source for name in leaves)
    assert "label=<*>" in source and "label=<+>" in source
    assert "<svg" in draw_dot(out).svg()  # drawn by the real dot
    first_line = text_graph(out).splitlines()[0]
    assert f"{out.data:.4f}" in first_line


def test_a_class_that_records_local_derivatives_shows_them_on_the_edges():
    out, _ = neuron(TupleNode)
    assert 'label="local -3.0000"' in dot_source(out, show_local_grads=True)  # d(x1*w1)/dx1 = w1


def test_set_inputs_draw_the_same_in_every_process_whatever_the_hash_seed():
    program = textwrap.dedent(
        f"""
        import json, random, sys
        sys.path.insert(0, {str(TESTS)!r})
        junk = [object() for _ in range(random.randrange(5000))]  # shifts every address
        from foreign_nodes import ForkValue, LectureValue, neuron, twice_used
        from micrograd.viz import dot_source, text_graph
        out = []
        for cls in (LectureValue, ForkValue):
            for build in (neuron, twice_used):
                root, _ = build(cls)
                root.backward()
                out.append(dot_source(root) + text_graph(root))
            same = cls(1.0) * cls(1.0) + cls(2.0) * cls(2.0) * cls(1.0)  # ties broken by what is below
            out.append(dot_source(same))
        print(json.dumps(out))
        """
    )
    runs = set()
    for seed in ("0", "1", "2", "3", "random"):
        env = {"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        runs.add(done.stdout)
    assert len(runs) == 1
    assert len(json.loads(runs.pop())) == 6


class Value:  # noqa: F811 - a learner's class of the same name as the package's, on purpose
    def __init__(self, data):
        self.data = data


def test_a_non_node_is_refused_naming_its_class_and_what_a_node_needs():
    with pytest.raises(TypeError, match=r"draw_dot takes .*\.data and its inputs in \._prev \(or \.inputs, \._children, "
                                        r"\.children, \.prev, \._parents, \.parents, \._operands\); got int$"):
        draw_dot(3)
    with pytest.raises(TypeError, match=r"got Value \(from module [\w.]*test_foreign_nodes\); it has \.data but"):
        text_graph(Value(2.0))
    with pytest.raises(TypeError, match=r"made with your class; got the class LectureValue \(from module foreign_nodes\) itself"):
        draw_dot(LectureValue)
    with pytest.raises(TypeError, match=r"BackpropStepper takes the output node .*got list; pass one node"):
        BackpropStepper([LectureValue(1.0)])
    bad = LectureValue(1.0) + LectureValue(2.0)
    bad.data = "three"
    with pytest.raises(TypeError, match=r"\.data must be a number; a LectureValue .* holds 'three' \(str\)"):
        dot_source(bad)


class CountedReads:
    """The lecture's node, whose ``_prev`` counts how often each node's inputs are read."""

    reads = {}  # id(node): reads of its _prev

    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self.grad, self._op, self.label = data, 0.0, _op, label
        self._held = set(_children)

    @property
    def _prev(self):
        CountedReads.reads[id(self)] = CountedReads.reads.get(id(self), 0) + 1
        return self._held

    def __add__(self, other):
        return CountedReads(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return CountedReads(self.data * other.data, (self, other), "*")

    def tanh(self):
        return CountedReads(math.tanh(self.data), (self,), "tanh")


def test_a_drawing_shown_in_a_notebook_reads_each_node_inputs_once(shell):
    out, leaves = neuron(CountedReads)
    # Two unlabelled inputs equal in every field: ordering a set that ties looks below them too.
    tie = out * (CountedReads(1.0) + CountedReads(1.0))
    for root in (out, tie):
        CountedReads.reads = {}
        drawing = draw_dot(root)
        shown, _ = shell.display_formatter.format(drawing)  # as a notebook shows an output: every _repr_*
        assert "text/vnd.graphviz" in shown or "text/plain" in shown
        expected = 10 if root is out else 14  # the neuron's 10 nodes, and 4 more
        assert len(CountedReads.reads) == expected
        assert set(CountedReads.reads.values()) == {1}, sorted(CountedReads.reads.values())


def test_highlight_notes_and_params_take_the_learner_nodes():
    out, leaves = neuron(LectureValue)
    plain = dot_source(out)
    source = dot_source(out, highlight=[leaves["x1"]], notes={leaves["w1"]: "expected 1.0"}, params=[leaves["w1"]])
    assert "expected 1.0" in source and "expected 1.0" not in plain
    assert source.count("penwidth=3") == plain.count("penwidth=3") + 1  # x1 marked
    assert source.count('fillcolor="#fde68a"') == plain.count('fillcolor="#fde68a"') + 1  # w1 a parameter


# -- the package's Value, as micrograd 0.1.0's forks use it ---------------------------------


def test_prev_assigned_an_empty_set_makes_a_leaf_for_backward():
    a = Value_(2.0)
    b = a * 3.0
    b._prev = set()  # "detach"
    (b * 5.0).backward()
    assert a.grad == 0.0 and b.grad == 5.0
    assert graph_size(b) == (1, 0)


def test_op_can_be_renamed_and_must_be_text():
    a = Value_(2.0)
    b = a * a
    b._op = "square"
    assert b.op == "square" and "label=<square>" in dot_source(b)
    with pytest.raises(TypeError, match="_op is the name of the operation as text"):
        b._op = 2


def test_a_fork_without_super_init_works_in_graphs_and_backward():
    out, leaves = neuron(ForkValue)
    out.backward()
    assert grads(leaves)["w1"] == pytest.approx(1.0) and grads(leaves)["x1"] == pytest.approx(-1.5)
    mixed = out * Value_(2.0)  # with the package's own nodes
    assert isinstance(mixed, Value_) and mixed.data == pytest.approx(2 * out.data)


def test_a_lecture_style_node_inside_the_package_graph_steps_like_any_other():
    x = Value_(2.0, label="x")
    y = Value_(x.data**3, (x,), "cube")

    def _backward():
        x.grad += 3 * x.data**2 * y.grad

    y._backward = _backward
    z = y * 2.0
    stepper = BackpropStepper(z)
    stepper.finish()
    assert x.grad == 24.0
    assert "x.grad" in stepper.panel.value and "0.0000 → 24.0000" in stepper.panel.value
    stepper.back()
    assert x.grad == 0.0


def test_backward_twice_adds_up_in_the_leaves_only_unlike_0_1_0(micrograd_0_1_0_value):
    """The course site's note (docs/guide/micrograd_0_1_0.md) on the one deliberate difference from micrograd 0.1.0."""

    def three_calls(cls):
        a = cls(2.0)
        y = a * a + a
        grads = []
        for _ in range(3):
            y.backward()
            grads.append(a.grad)
        return grads

    assert three_calls(Value_) == [5.0, 10.0, 15.0]
    assert three_calls(micrograd_0_1_0_value) == [5.0, 14.0, 27.0]


# -- the stepper shows what a learner's _backward did ---------------------------------------


class Overwriting(LectureValue):
    """The lecture's central bug: = where += belongs."""

    def __mul__(self, other):
        out = Overwriting(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad

        out._backward = _backward
        return out

    def __add__(self, other):
        out = Overwriting(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = out.grad
            other.grad = out.grad

        out._backward = _backward
        return out


def test_the_stepper_says_when_a_step_replaced_a_gradient_instead_of_adding():
    out, leaves = twice_used(Overwriting)
    stepper = BackpropStepper(out)
    stepper.step()
    assert "already held" not in stepper.panel.value
    stepper.step()  # a * w: replaces the 1.0 that a got from the + with w = 2.0
    assert leaves["a"].grad == 2.0
    assert "a.grad already held 1.0000 from an earlier use" in stepper.panel.value
    assert "must add up (+=, not =), to 3.0000" in stepper.panel.value
    stepper.back()
    assert leaves["a"].grad == 1.0 and leaves["w"].grad == 0.0


def test_a_backward_that_raises_or_does_nothing_is_reported_on_its_step():
    out, _ = twice_used(LectureValue)

    def broken():
        raise ZeroDivisionError("oops")

    out._backward = broken
    stepper = BackpropStepper(out)
    stepper.step()
    assert "_backward() raised ZeroDivisionError: oops" in stepper.panel.value
    out._backward = lambda: None
    stepper.reset()
    stepper.step()
    assert "changed no gradient" in stepper.panel.value


def test_the_explorer_runs_on_the_learner_class():
    explorer = ExpressionExplorer(lambda a, b: a * b + a, value_type=LectureValue, a=3.0, b=2.0)
    assert explorer.gradients == {"a": 3.0, "b": 3.0}
    assert explorer.slopes["a"] == pytest.approx(3.0)
    assert "<svg" in explorer.graph.value
    no_backward = ExpressionExplorer(lambda a, b: a * b, value_type=ForkValue, a=3.0, b=2.0)
    assert no_backward.gradients == {"a": 2.0, "b": 3.0}
    with pytest.raises(TypeError, match="value_type is the class"):
        ExpressionExplorer(lambda a: a, value_type=LectureValue(1.0))


Value_ = sys.modules["micrograd"].Value  # the package's, past the learner's class of that name above


# -- the stepper on other classes: formulas, dead ReLUs, linear passes, other input names ----


def panel_text(stepper):
    return " ".join(re.sub(r"<[^>]+>", " ", stepper.panel.value).split())


def every_panel(stepper):
    """The panel after each step, to the end, as one text (the panel alone: no drawing per step)."""
    panels = []
    while not stepper.done:
        stepper.step(redraw=False)
        panels.append(" ".join(re.sub(r"<[^>]+>", " ", backprop_words.panel_html(stepper)).split()))
    stepper.redraw()
    return "\n".join(panels)


def test_a_closure_class_steps_with_the_same_chain_rule_lines_as_the_package():
    out, leaves = neuron(LectureValue)
    stepper = BackpropStepper(out)
    stepper.step()
    assert "local 0.5000" in stepper.graph.value  # the tanh's edge, labelled as the package's is
    stepper.step()  # n = (x1*w1 + x2*w2) + b: local 1 for both, upstream 1 - o² = 0.5
    assert "b.grad += 1.0000 × 0.5000 0.0000 → 0.5000" in panel_text(stepper)
    stepper.finish()
    stepper.back()
    stepper.back()  # x2*w2 at x2 = 0: w2 gets += 0, a line all the same
    stepper.step()
    text = panel_text(stepper)
    assert "w2.grad += 0.0000 × 0.5000 0.0000 → 0.0000" in text and "x2.grad += 1.0000 × 0.5000" in text


def test_a_class_with_local_grads_shows_its_own_numbers_and_runs_its_own_backward():
    out, leaves = neuron(TupleNode)
    calls = []
    real = TupleNode._backward

    def counted(self):
        calls.append(self)
        real(self)

    TupleNode._backward = counted
    try:
        text = every_panel(BackpropStepper(out))
    finally:
        TupleNode._backward = real
    assert len(calls) == 5  # one call per node with inputs: its code is what is stepped
    # TupleNode has no labels: a node is named by its op and data; x1 = 2 and w1 = -3 (x1 * w1)
    assert "[value 2.0000].grad += -3.0000 × 0.5000 0.0000 → -1.5000" in text
    assert "[value -3.0000].grad += 2.0000 × 0.5000 0.0000 → 1.0000" in text
    assert leaves["w1"].grad == pytest.approx(1.0)


class ReluValue(LectureValue):
    """micrograd 0.1.0's relu, written as a closure on the lecture's class."""

    def relu(self):
        out = ReluValue(0.0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def __add__(self, other):
        out = ReluValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out


def test_a_dead_relu_is_a_zero_local_derivative_not_a_bug():
    a, b = ReluValue(-2.0, label="a"), ReluValue(1.0, label="b")
    out = a.relu() + b
    stepper = BackpropStepper(out)
    stepper.finish()
    text = panel_text(stepper)
    assert "a.grad += 0.0000 × 1.0000 0.0000 → 0.0000" in text
    assert "changed no gradient" not in text and "micrograd-error" not in stepper.panel.value
    assert a.grad == 0.0 and b.grad == 1.0


def test_to_the_end_is_linear_in_the_graph_size_on_any_class():
    """Counts every read and write of a .grad: a whole pass touches each node a few times."""

    class Counting(LectureValue):
        touched = 0

        @property
        def grad(self):
            Counting.touched += 1
            return self._grad

        @grad.setter
        def grad(self, value):
            Counting.touched += 1
            self._grad = value

        def __add__(self, other):
            out = Counting(self.data + other.data, (self, other), "+")

            def _backward():
                self.grad += out.grad
                other.grad += out.grad

            out._backward = _backward
            return out

    def touched_by_a_pass(n):
        x = Counting(1.0, label="x")
        for _ in range(n):
            x = x + Counting(0.5)
        stepper = BackpropStepper(x, max_nodes=20)  # a small drawing: the pass is what is measured
        Counting.touched = 0
        stepper.finish()
        assert stepper.done and x.grad == 1.0
        return Counting.touched

    small, large = touched_by_a_pass(250), touched_by_a_pass(1000)
    assert large < 5 * small  # 4 times the nodes; a quadratic pass would be about 16 times


MicrogptValue = microgpt.Value  # Karpathy's microgpt Value: inputs in _children, local derivatives in _local_grads,
# no _op, no label, no _backward (its backward() applies the derivatives itself)


class ChildrenNode:
    """Inputs in .children, op in .op, a _backward method."""

    def __init__(self, data, children=(), op=""):
        self.data, self.grad, self.children, self.op = data, 0.0, list(children), op

    def __mul__(self, other):
        return ChildrenNode(self.data * other.data, (self, other), "*")

    def _backward(self):
        a, b = self.children
        a.grad += b.data * self.grad
        b.grad += a.data * self.grad


def microgpt_expression():
    a, b = MicrogptValue(2.0), MicrogptValue(-3.0)
    return (a * b + a).relu() + a * a, a, b


def test_inputs_in_children_are_read_like_prev_drawn_listed_and_stepped():
    y, a, b = microgpt_expression()
    expected_y, expected_a, expected_b = microgpt_expression()
    expected_y.backward()
    text = every_panel(BackpropStepper(y))
    assert (a.grad, b.grad) == (expected_a.grad, expected_b.grad) == (4.0, 0.0)
    assert "[value -4.0000].grad += 0.0000 × 1.0000 0.0000 → 0.0000" in text  # a dead relu hands on nothing
    assert "[value 2.0000].grad += 2.0000 × 1.0000 0.0000 → 2.0000" in text  # a * a: 2 lines of 2 × 1
    lines = text_graph(y).splitlines()
    assert sum("= ?(" in line for line in lines) == 5  # every operation lists its inputs
    p, q = ChildrenNode(3.0), ChildrenNode(4.0)
    r = p * q
    assert text_graph(r).splitlines()[0].endswith("= #0 * #1")
    BackpropStepper(r).finish()
    assert (p.grad, q.grad) == (4.0, 3.0)


class Unnamed(LectureValue):
    """The lecture's class with no op names recorded: every operation's _op is empty."""

    def __init__(self, data, _children=(), _op="", label=""):
        super().__init__(data, _children, "", label)

    def __add__(self, other):
        out = super().__add__(other)
        return Unnamed(out.data, out._prev)

    def __mul__(self, other):
        out = super().__mul__(other if isinstance(other, LectureValue) else Unnamed(other))
        return Unnamed(out.data, out._prev)


def unnamed_chain(steps):
    y = Unnamed(1.0, label="x")
    for _ in range(steps):
        y = y * Unnamed(0.5) + Unnamed(1.0)
    return y


def test_a_node_with_inputs_but_no_op_is_not_taken_for_a_leaf():
    source = dot_source(unnamed_chain(60))  # 241 values: collapsed, and only the 120 leaves folded
    assert "241 values drawn as 121 nodes" in source and "120 leaves folded" in source
    small = dot_source(unnamed_chain(3))
    assert small.count(style.ROLE_FILLS["intermediate"]) == 5  # the 6 operations but the output
    assert small.count(style.ROLE_FILLS["input"]) == 7  # x and the six other leaves
    lines = text_graph(unnamed_chain(3)).splitlines()
    assert lines[0].endswith("= ?(#10, #11)") and sum("= ?(" in line for line in lines) == 6


def test_micrograd_0_1_0_readme_example_steps_to_its_own_gradients_with_no_false_alarm(micrograd_0_1_0_value):
    """Its (b + a).relu() is a ReLU at 0: the step hands on 0, which is right."""

    def readme_example(Value):
        a, b = Value(-4.0), Value(2.0)
        c = a + b
        d = a * b + b**3
        c += c + 1
        c += 1 + c + (-a)
        d += d * 2 + (b + a).relu()
        d += 3 * d + (b - a).relu()
        e = c - d
        f = e**2
        g = f / 2.0
        g += 10.0 / f
        return g, a, b

    g, a, b = readme_example(micrograd_0_1_0_value)
    g.backward()
    expected = (a.grad, b.grad)
    g, a, b = readme_example(micrograd_0_1_0_value)
    text = every_panel(BackpropStepper(g))
    assert (a.grad, b.grad) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx((138.8338, 645.5773), rel=1e-6)  # the numbers micrograd's README prints
    assert "changed no gradient" not in text and "+= 0.0000 ×" in text


# -- classes written by others: inputs under other names, _grad_fn, folded weights ----------


@pytest.mark.parametrize("name", OTHER_INPUT_NAMES)
def test_inputs_under_other_names_are_drawn_listed_and_stepped(name):
    cls = inputs_under(name)
    out, leaves = neuron(cls)
    out.backward()
    expected = grads(leaves)
    source = dot_source(out)
    assert all(f"<B>{label}</B>" in source for label in leaves) and "label=<tanh>" in source
    assert text_graph(out).splitlines()[0].endswith("= tanh(#8)")
    out, leaves = neuron(cls)
    stepper = BackpropStepper(out)
    stepper.finish()
    assert grads(leaves) == pytest.approx(expected, abs=1e-12) and expected["x1"] == pytest.approx(-1.5)
    assert "Done: every node has passed its gradient on once" in stepper.panel.value


XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]


def trained_by_hand(model, steps, lr):
    """The lecture's loop on ``model``: the losses, and the parameters after."""
    losses = []
    for _ in range(steps):
        loss = sum(((model(x) - y) ** 2 for x, y in zip(XS, YS)), model(XS[0]) * 0.0)
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data += -lr * p.grad
        losses.append(loss.data)
    return losses


@pytest.mark.parametrize("name", (*OTHER_INPUT_NAMES, "_src"))
def test_draw_model_and_the_training_stepper_take_a_network_of_such_a_class(name):
    """Neither reads a node's inputs, so even a name no view knows (``_src``) is no obstacle."""
    nn = lecture_nn(inputs_under(name))
    random.seed(0)
    model = nn["MyMLP"](3, [4, 4, 1])
    random.seed(0)
    theirs = nn["MyMLP"](3, [4, 4, 1])
    source = draw_model(model, XS[0]).source
    assert "<B>L0</B> · 4 neurons · tanh · 3 inputs each" in source and "<B>L2</B> · 1 neuron" in source
    stepper = TrainingStepper(model, XS, YS, loss="sum_of_squares", lr=0.05)
    stepper.run(3)
    assert [r["loss"] for r in stepper.history] == pytest.approx(trained_by_hand(theirs, 3, 0.05), rel=1e-12)
    assert [p.data for p in model.parameters()] == pytest.approx([p.data for p in theirs.parameters()], rel=1e-12)


def test_where_a_view_cannot_read_a_class_it_says_what_it_looked_for():
    nn = lecture_nn(inputs_under("parents"))
    model = nn["MyMLP"](3, [4, 1])
    del model.layers[0].neurons[2].b
    with pytest.raises(TypeError, match=r"got MyMLP, its \.layers\[0\]\.neurons\[2\] has no \.b; for any graph"):
        draw_model(model)
    model = nn["MyMLP"](3, [4, 1])
    model.layers[1].neurons[0].w[1] = "0.5"
    with pytest.raises(TypeError, match=r"its \.layers\[1\]\.neurons\[0\]\.w\[1\] has no number in \.data \(it is str\)"):
        draw_model(model)
    neuron_ = nn["MyNeuron"](3)
    del neuron_.b
    with pytest.raises(TypeError, match=r"got MyNeuron, which has no \.b;"):
        draw_model(neuron_)
    model.layers = []
    with pytest.raises(TypeError, match=r"got MyMLP, whose \.layers is an empty list, not a list of layers;"):
        draw_model(model)
    with pytest.raises(TypeError, match=r"got dict, which has none of \.layers, \.neurons, \.w;"):
        draw_model({"layers": []})

    class NoBackward:
        def __init__(self, data):
            self.data = data

    with pytest.raises(TypeError, match=r"got NoBackward, which has no backward\(\) method$"):
        TrainingStepper(nn["MyMLP"](3, [4, 1]), XS, YS, loss=lambda outputs, targets: NoBackward(1.0))
    with pytest.raises(TypeError, match=r"got float, which has no number in \.data and no backward\(\) method$"):
        TrainingStepper(nn["MyMLP"](3, [4, 1]), XS, YS, loss=lambda outputs, targets: 1.0)
    hidden = inputs_under("_src")(1.0) * inputs_under("_src")(2.0)
    with pytest.raises(TypeError, match=r"it has \.data but no \._prev, \.inputs, .*, \.parents or \._operands holding its inputs"):
        draw_dot(hidden)


def test_a_class_whose_nodes_have_grad_fn_and_no_backward_is_refused_at_the_start():
    a, b = GradFnNode(2.0), GradFnNode(-3.0)
    out = a * b + a
    with pytest.raises(TypeError) as refused:
        BackpropStepper(out)
    message = str(refused.value)
    assert "2 of the 2 operations here give it neither" in message
    assert "has neither field, but a _grad_fn the stepper does not know how to call" in message
    assert "_backward() or applying the local derivatives it keeps in ._local_grads or .local_grads" in message
    assert not re.search(r"\.(\s|$)", message)  # one sentence: every full stop starts a field's name
    assert (a.grad, b.grad) == (0.0, 0.0)  # nothing was stepped
    out.backward()
    assert (a.grad, b.grad) == (-2.0, 2.0)  # the class's own backward() works: the stepper just cannot call it


@pytest.mark.parametrize("broken_steps", [1, 2])
def test_the_panel_never_says_done_when_a_step_passed_nothing_on(broken_steps):
    out, leaves = twice_used(LectureValue)  # a * w + a: two operations

    def broken():
        raise ZeroDivisionError("oops")

    for node in [out, *(child for child in out._prev if child._prev)][:broken_steps]:
        node._backward = broken
    stepper = BackpropStepper(out)
    stepper.finish()
    text = panel_text(stepper)
    assert "Done" not in text
    assert f"Reached the inputs, but {broken_steps} of the 2 steps passed no gradient on" in text
    assert "micrograd-error" in stepper.panel.value


def test_a_folded_drawing_of_a_foreign_network_calls_its_weights_leaves_or_parameters():
    ns = lecture_micrograd()
    random.seed(0)
    model = ns["MyMLP"](3, [16, 16, 1])
    loss = (model(XS[0]) - 1.0) ** 2  # one sample: each of the 353 weights and biases is used once
    source = dot_source(loss)
    assert "constant" not in source
    # the 353 parameters, which the drawing was not told about, the 48 x's wrapped at each product and the target
    assert "402 leaves folded into the operations using them" in source
    assert '<FONT POINT-SIZE="9">each: 17 terms, 1 leaf</FONT>' in source
    told = dot_source(loss, params=model.parameters())  # now it knows which leaves are parameters
    assert "constant" not in told and "353 parameters and 49 other leaves folded into the operations" in told
    assert '<FONT POINT-SIZE="9">4 parameters, 3 leaves</FONT>' in told  # a first-layer neuron: w, b and the x's


class PublicNames:
    """A class written after the package's Value: inputs in .inputs, local derivatives in .local_grads."""

    def __init__(self, data, inputs=(), local_grads=()):
        self.data, self.grad, self.inputs, self.local_grads = data, 0.0, tuple(inputs), tuple(local_grads)

    def __mul__(self, other):
        return PublicNames(self.data * other.data, (self, other), (other.data, self.data))

    def __add__(self, other):
        return PublicNames(self.data + other.data, (self, other), (1.0, 1.0))


def test_local_derivatives_a_drawing_shows_under_the_packages_public_name_are_what_the_stepper_applies():
    a, b = PublicNames(2.0), PublicNames(-3.0)
    out = a * b + a
    assert 'label="local -3.0000"' in dot_source(out, show_local_grads=True)  # the drawing reads them
    BackpropStepper(out).finish()  # and the stepper applies them
    assert (a.grad, b.grad, out.grad) == (-2.0, 2.0, 1.0)


class SlotsWithoutGrad:
    """microgpt's design with no .grad at all: a drawing shows its gradients as 0."""

    __slots__ = ("data", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self._children, self._local_grads = data, children, local_grads

    def __mul__(self, other):
        return SlotsWithoutGrad(self.data * other.data, (self, other), (other.data, self.data))


def test_a_class_with_no_grad_field_is_stepped_on_what_the_drawing_reads():
    a, b = SlotsWithoutGrad(2.0), SlotsWithoutGrad(-3.0)
    out = a * b
    assert "grad 0.0000" in dot_source(out)
    stepper = BackpropStepper(out)
    assert "Your nodes have no .grad to hold them (SlotsWithoutGrad has no .grad it can set" in panel_text(stepper)
    stepper.finish()
    assert [node.grad for node in stepper.schedule[0].inputs] == [-3.0, 2.0]  # shown on the drawing's nodes
    assert "grad -3.0000" in stepper.graph.value

    class NoGradClosures(SlotsWithoutGrad):
        __slots__ = ("_backward",)

    c, d = NoGradClosures(1.0), NoGradClosures(2.0)
    product = NoGradClosures(2.0, (c, d), ())
    product._backward = lambda: None
    with pytest.raises(TypeError) as refused:
        BackpropStepper(product)
    message = str(refused.value)
    assert re.match(r"BackpropStepper sets each node's \.grad, and \S*NoGradClosures has no \.grad it can set \(AttributeError", message)
    assert not re.search(r"\.(\s|$)", message)


class Closureless(TupleNode):
    _backward = None  # no function to call: only the recorded local derivatives could be applied


@pytest.mark.parametrize("inputs, local_grads, found", [
    (lambda a, b: {a, b}, lambda a, b: (b.data, a.data),
     "has ._local_grads, but its inputs are in a set, which has no order for them to line up with"),
    (lambda a, b: (a, b), lambda a, b: (b.data,), "has 1 numbers in ._local_grads for its 2 inputs"),
    (lambda a, b: (a, b), lambda a, b: (b, a), "has a Closureless in ._local_grads where a number belongs"),
    (lambda a, b: (a, b), lambda a, b: None, "has a NoneType in ._local_grads where a tuple or list of numbers belongs"),
    (lambda a, b: (a, b), lambda a, b: AttributeError, "has neither field"),
], ids=["set", "too-few", "nodes", "none", "absent"])
def test_a_class_the_stepper_truly_cannot_step_is_told_which_fields_it_looked_for_in_one_sentence(inputs, local_grads, found):
    a, b = Closureless(2.0), Closureless(-3.0)
    out = Closureless(a.data * b.data, (), "*")
    out._prev, out._local_grads = inputs(a, b), local_grads(a, b)
    if out._local_grads is AttributeError:
        del out._local_grads
    assert "data -6.0000" in dot_source(out)  # a drawing reads it
    with pytest.raises(TypeError) as refused:
        BackpropStepper(out)
    message = str(refused.value)
    assert ("BackpropStepper steps a node by calling its _backward() or applying the local derivatives it keeps in "
            "._local_grads or .local_grads (one number per input, the inputs in a tuple or list)") in message
    assert "1 of the 1 operations here give it neither (the first, a '*' node of Closureless from module " in message
    assert found in message
    assert not re.search(r"\.(\s|$)", message)  # one sentence
