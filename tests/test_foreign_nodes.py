"""Any micrograd is a graph: drawings, the text view, the steppers and the explorer on node classes
that are not the package's Value (the lecture's, micrograd 0.1.0's, a tuple-based one, a fork)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from micrograd import Value, graph_size
from micrograd.viz import dot_source, draw_dot, text_graph
from micrograd.widgets import BackpropStepper, ExpressionExplorer

from foreign_nodes import ForkValue, LectureValue, TupleNode, neuron, twice_used

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
    with pytest.raises(TypeError, match=r"draw_dot takes .*\.data and its inputs in \._prev \(or \.inputs\); got int$"):
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


def test_highlight_notes_and_params_take_the_learner_nodes():
    out, leaves = neuron(LectureValue)
    plain = dot_source(out)
    source = dot_source(out, highlight=[leaves["x1"]], notes={leaves["w1"]: "expected 1.0"}, params=[leaves["w1"]])
    assert "expected 1.0" in source and "expected 1.0" not in plain
    assert source.count("penwidth=2.5") == plain.count("penwidth=2.5") + 1  # x1 marked
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
    """The README's note on the one deliberate difference from micrograd 0.1.0."""

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
