"""Lesson 9's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import gc
import json
import random

import pytest
from claims import NOTEBOOKS, claim, course_models, run_lesson_code, squeezed, train_on_moons, young_objects  # noqa: F401  course_models: a fixture
from micrograd import MLP, Value, dot
from micrograd.data import moons
from micrograd.gradcheck import gradcheck
from micrograd.losses import hinge
from micrograd.optim import Adam


def linearity_gap(f, x):
    """Lesson 9's probe, unrounded: f(2x) − f(0) − 2 (f(x) − f(0))."""
    zero = [0.0] * len(x)
    return f([2 * v for v in x]) - f(zero) - 2 * (f(x) - f(zero))


def test_lesson09_gradcheck_nudges_by_1e_6_and_says_ok_to_about_four_significant_digits():
    claim(9, "it nudges one input by $h = 10^{-6}$ each way")
    claim(9, "a row says `ok` when the two numbers agree to about four significant digits")

    def off_by(factor):
        return lambda a: Value.from_op(a.data**3, (a,), (3 * a.data**2 * factor,), "cube")

    assert gradcheck(off_by(1 + 2e-5), [2.0]).ok
    assert not gradcheck(off_by(1 + 1e-3), [2.0]).ok


def test_lesson09_the_julia_subtraction_fails_b_only_climbs_and_hides_on_the_other_side():
    claim(9, "`a` is fine, `b` has the opposite sign")
    claim(9, "the loss more than triples each step")
    claim(9, "Had the loss been written $(\\hat y - y)^2$, the wrong gradient would have landed only on the target")
    namespace = run_lesson_code(9, "def sub_julia(a, b):", namespace={"Value": Value, "gradcheck": gradcheck})
    sub_julia = namespace["sub_julia"]
    report = gradcheck(sub_julia, [5.0, 3.0], names=["a", "b"])
    assert [row.ok for row in report.rows] == [True, False]
    assert report.rows[1].analytic == pytest.approx(-report.rows[1].numeric)

    def run(sub, prediction_first):
        w, losses = Value(0.4), []
        for _ in range(4):
            loss = (sub(w * 2.0, Value(4.0)) if prediction_first else sub(Value(4.0), w * 2.0)) ** 2
            w.grad = 0.0
            loss.backward()
            w.data -= 0.1 * w.grad
            losses.append(loss.data)
        return losses

    climbing = run(sub_julia, prediction_first=False)
    assert all(b > 3 * a for a, b in zip(climbing, climbing[1:]))
    assert run(sub_julia, prediction_first=True) == run(lambda a, b: a - b, prediction_first=True)


def test_lesson09_the_go_power_prints_the_write_ups_number_and_a_negative_base_is_refused():
    claim(9, "our engine says so instead of inventing one")
    claim(9, "At a positive base, `gradcheck` exposes the bug at once")
    namespace = run_lesson_code(9, "def pow_go(a, b):", namespace={"Value": Value})
    base, exponent = Value(-3.2), Value(2.0)
    loss = namespace["pow_go"](base, exponent)
    loss.backward()
    assert (round(loss.data, 2), round(base.grad, 1), round(exponent.grad, 4)) == (10.24, -6.4, -0.1741)
    with pytest.raises(ValueError):
        Value(-3.2) ** Value(2.0)
    assert not gradcheck(namespace["pow_go"], [1.5, 3.0]).ok


def test_lesson09_python_calls_rsub_after_the_int_declines_and_gradcheck_cannot_see_swapped_operands():
    claim(9, "`(2).__sub__(a)` returns `NotImplemented`")
    claim(9, "Python then calls **`a.__rsub__(2)`**")
    claim(9, "Now the twist: **`gradcheck` cannot catch this**")
    a = Value(5.0)
    assert (2).__sub__(a) is NotImplemented
    namespace = run_lesson_code(9, "class CopyPasteValue(Value):", namespace={"Value": Value})
    assert (2 - namespace["a"]).data == 3.0  # the copied body ran: Python called __rsub__
    assert gradcheck(lambda a: a - 2.0, [5.0]).ok


def test_lesson09_dot_adds_up_from_the_bias_in_the_order_of_the_weights():
    claim(9, "`micrograd.dot(w, x, b)`, which computes $b + w_1 x_1 + \\dots + w_n x_n$, added up in that order")
    rng = random.Random(0)
    for _ in range(300):
        n = rng.randint(2, 20)
        w, x, b = [Value(rng.uniform(-1, 1)) for _ in range(n)], [rng.uniform(-1, 1) for _ in range(n)], Value(rng.uniform(-1, 1))
        total = b.data
        for wi, xi in zip(w, x):
            total = total + wi.data * xi
        assert dot(w, x, b).data == total


def test_lesson09_a_network_without_activations_is_linear_and_draws_a_straight_line():
    claim(9, "the network, however deep, can only ever draw a straight line")
    claim(9, "A function of the form $f(x) = W x + c$ always satisfies")
    namespace = run_lesson_code(9, "def forward_forgetful(model, x):", namespace={"dot": dot})
    for model in (MLP(2, [8, 1], activation="tanh", rng=9), MLP(2, [16, 16, 1], rng=1)):
        f = lambda x: namespace["forward_forgetful"](model, x).data  # noqa: E731
        rng = random.Random(1)
        for _ in range(20):
            p, q = [rng.uniform(-2, 2) for _ in range(2)], [rng.uniform(-2, 2) for _ in range(2)]
            assert linearity_gap(f, p) == pytest.approx(0, abs=1e-9)
            midpoint = [(a + b) / 2 for a, b in zip(p, q)]
            assert f(p) + f(q) == pytest.approx(2 * f(midpoint), abs=1e-9)  # affine: the boundary is a line


def test_lesson09_the_forgetful_network_trains_but_not_far_enough():
    claim(9, "Nothing crashes, the gradients are right (for the function computed), and the loss goes down. Just not far enough.")
    namespace = run_lesson_code(9, "def forward_forgetful(model, x):", namespace={"dot": dot})
    forgetful = namespace["forward_forgetful"]
    X, y = moons(n_samples=50, noise=0.1)
    model = MLP(2, [8, 1], activation="tanh", rng=9)
    assert gradcheck(lambda *w: forgetful(model, list(w)), [0.8, -0.3]).ok
    optimizer = Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(40):
        loss = hinge([forgetful(model, x) for x in X], y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.data)
    healthy = train_on_moons(MLP(2, [8, 1], activation="tanh", rng=9), steps=40)
    healthy_loss = hinge([healthy(x) for x in X], y).data
    assert losses[-1] < losses[0] and healthy_loss < losses[-1] / 2


def test_lesson09_linearity_probe_reads_nonzero_on_trained_networks_and_fresh_tanh_but_zero_on_fresh_relu(course_models):
    """The probe, tested on the models the course builds: fresh and trained, ReLU and tanh."""
    claim(9, "a trained network with working activations almost never does")
    claim(9, "a fresh ReLU `MLP` starts with every bias at 0, so it satisfies it too")
    claim(9, "worth running on a trained model")
    rng = random.Random(22)
    points = [[rng.uniform(-1.5, 2.5), rng.uniform(-1.0, 1.5)] for _ in range(100)]
    for name, model in course_models.items():
        gaps = [abs(linearity_gap(lambda x: model(x).data, p)) for p in points]
        if name.startswith("fresh ReLU"):
            assert max(gaps) == 0.0, name
            assert all(n.b.data == 0 for layer in model.layers for n in layer.neurons)
        else:
            assert sum(g > 1e-6 for g in gaps) >= 95, name


def test_lesson09_checklist_item_5_probes_a_trained_model():
    claim(9, "Run the linearity probe on the trained model (a fresh ReLU network passes it")


def test_lesson09_a_wrong_derivative_can_agree_with_the_right_one_at_0_or_1():
    claim(9, "not only at 0 or 1, where a wrong derivative can agree with the right one")
    wrong_cube = lambda a: Value.from_op(a.data**3, (a,), (3 * a.data,), "cube")  # noqa: E731  3a for 3a²
    assert gradcheck(wrong_cube, [1.0]).ok and gradcheck(wrong_cube, [0.0]).ok
    assert not gradcheck(wrong_cube, [2.0]).ok


def test_lesson09_solution_softplus_passes_at_0_and_fails_elsewhere():
    cells = json.loads((NOTEBOOKS / "solutions" / "09_debugging_autograd.ipynb").read_text(encoding="utf-8"))["cells"]
    assert "`softplus` passes at 0 and fails everywhere else" in squeezed(" ".join("".join(c["source"]) for c in cells))
    from micrograd.course.lessons.lesson09 import suspects

    assert gradcheck(suspects["softplus"], [0.0]).ok
    assert not any(gradcheck(suspects["softplus"], [x]).ok for x in (-2.0, -0.5, 0.5, 2.0))


def _census(make, depth=1000):
    """(nodes made, alive after del, unreachable objects the cycle collector then found) for a chain."""
    gc.disable()
    try:
        before = young_objects(make)
        x = make(1.0)
        for _ in range(depth):
            x = x * make(1.0)
        made = young_objects(make) - before
        del x
        alive = young_objects(make) - before
        return made, alive, gc.collect(0)  # every node made is in the youngest generation
    finally:
        gc.enable()


def test_lesson09_closures_keep_micrograd_0_1_0s_nodes_until_the_collector_runs_and_ours_go_at_once(micrograd_0_1_0_value):
    claim(9, "so it remembers `out`, and `out` keeps the closure in `out._backward`. That is a loop of references")
    claim(9, "the moment the last reference to the output goes, reference counting frees the whole graph")
    claim(9, "`gc.get_objects()` hands it over even while the collector is switched off")
    claim(10, "| Python, closures (micrograd 0.1.0) | the cycle collector | at its next run |")
    claim(10, "| Python, recorded local derivatives (ours) | reference counting | at once |")
    assert _census(Value)[:2] == (2001, 0)
    made, alive, collected = _census(micrograd_0_1_0_value)
    assert made == alive == 2001 and collected >= 2001
    namespace = run_lesson_code(9, "class ClosureValue:")
    made, alive, collected = _census(namespace["ClosureValue"])
    assert made == alive == 2001 and collected >= 2001


def test_lesson09_the_lectures_closures_run_by_our_engine_keep_their_nodes_until_the_collector_runs():
    claim(9, "Our engine records numbers instead of closures for its own operations, so a graph of them contains no loops")
    claim(9, "The engine also runs the lecture's closures (a node given its own `_backward`, as a custom operation "
             "written the lecture's way is), and lessons 3 and 4 accept them in your `MyValue`: a graph of either keeps "
             "its nodes as long as `ClosureValue`'s does")
    namespace = run_lesson_code(9, "class LectureValue(Value):", namespace={"Value": Value, "census": lambda make: None})
    lecture_value = namespace["LectureValue"]
    made, alive, collected = _census(lecture_value)
    assert made == alive == 2001 and collected >= 2001
    a, b = lecture_value(2.0), lecture_value(-3.0)
    y = a * b
    y.backward()  # the closure is what the engine runs for the node
    assert (a.grad, b.grad) == (-3.0, 2.0)
    from foreign_nodes import LectureValue  # the lecture's class, closures and all, as lessons 3 and 4 accept it

    made, alive, collected = _census(LectureValue)
    assert made == alive == 2001 and collected >= 2001


def test_lesson09_swapped_operands_give_the_gradient_of_the_wrong_function():
    claim(9, "| `2 − a` computes `a − 2` | wrong values, and gradients right for `a − 2`, not for `2 − a` |")
    namespace = run_lesson_code(9, "class CopyPasteValue(Value):", namespace={"Value": Value})
    a = namespace["a"]
    (2 - a).backward()
    assert a.grad == 1.0  # d(a − 2)/da; d(2 − a)/da is −1
    right = Value(5.0)
    (2 - right).backward()
    assert right.grad == -1.0
