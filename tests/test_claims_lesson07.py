"""Lesson 7's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import itertools
import random

import pytest
from claims import Recorder, claim, course_models, mlp_0_1_0, run_lesson_code  # noqa: F401  course_models and mlp_0_1_0: fixtures
from micrograd import MLP, Value
from micrograd.data import moons
from micrograd.losses import hinge, l2
from micrograd.optim import linear_decay


def nodes_0_1_0(root):
    """Every node of a micrograd 0.1.0 graph (an explicit stack: the graphs can be deep)."""
    seen, stack = {root}, [root]
    while stack:
        for child in stack.pop()._prev:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def test_lesson07_seed_1337_gives_the_demos_weights(mlp_0_1_0):
    claim(7, "Because we seeded `random` with 1337 just before, the weights are exactly the demo's")
    random.seed(1337)
    ours = [p.data for p in MLP(2, [16, 16, 1]).parameters()]
    random.seed(1337)
    theirs = [p.data for p in mlp_0_1_0["MLP"](2, [16, 16, 1]).parameters()]
    assert ours == theirs and len(ours) == 337


def test_lesson07_no_straight_line_separates_the_two_moons():
    claim(7, "No straight line separates the two moons")
    import numpy as np

    X, y = moons()
    points = np.array(X)
    plus, minus = points[np.array(y) == 1], points[np.array(y) == -1]
    # A point of one class inside a triangle of the other's: no line can have all three on one side and it
    # on the other, since a half-plane holding the corners holds the triangle.
    i, j, k = np.array(list(itertools.combinations(range(len(plus)), 3))).T
    a, b, c = plus[i][:, None], plus[j][:, None], plus[k][:, None]
    p = minus[None, :]

    def side(u, v, w):
        return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (v[..., 1] - u[..., 1]) * (w[..., 0] - u[..., 0])

    d1, d2, d3 = side(a, b, p), side(b, c, p), side(c, a, p)
    inside = ((d1 > 0) & (d2 > 0) & (d3 > 0)) | ((d1 < 0) & (d2 < 0) & (d3 < 0))
    assert inside.any()


@pytest.fixture(scope="module")
def untrained_demo():
    random.seed(1337)
    model = MLP(2, [16, 16, 1])
    X, y = moons()
    return model, X, y, [model(x).data for x in X]


def test_lesson07_the_untrained_network_scores_every_point_negative(untrained_demo):
    claim(7, "The untrained network gives **every** point a negative score")
    claim(7, "it is right exactly for the 50 points that are $-1$")
    model, X, y, scores = untrained_demo
    assert all(s < 0 for s in scores) and y.count(-1) == 50


def test_lesson07_most_right_points_still_have_loss_and_the_plus_one_points_have_the_larger_losses(untrained_demo):
    claim(7, "The loss is not zero even for most of the points it gets right")
    claim(7, "(above 1, where every $-1$ point's is below 1)")
    _, _, y, scores = untrained_demo
    losses = {label: [max(0.0, 1 - label * s) for s, l in zip(scores, y) if l == label] for label in (-1, 1)}
    assert sum(loss > 0 for loss in losses[-1]) > 25
    assert min(losses[1]) > 1 > max(losses[-1])


def test_lesson07_a_point_past_the_margin_adds_nothing_and_backward_skips_its_branch():
    claim(7, "such a point contributes nothing to the gradient, and `backward()` skips its whole branch")
    claim(4, "lesson 7's loss sends one back for every point it already classifies well enough, and `backward()` "
             "skips that point's whole branch")
    claim(7, "each point left of 1 gets the same push, $1/N$ of the gradient, however far left it sits")
    Recorder.calls.clear()
    w = Value(0.5)
    points, labels = [3.0, 0.5, -1.0, -8.0], [1, 1, 1, 1]  # margins 1.5 (past), 0.25, -0.5, -4
    scores = [Recorder.passing(w * p) for p in points]
    hinge(scores, labels).backward()
    assert [s.grad for s in scores] == pytest.approx([0.0, -0.25, -0.25, -0.25])
    assert scores[0] not in Recorder.calls and len(Recorder.calls) == 3


def test_lesson07_wrapping_the_inputs_once_gives_the_same_numbers():
    claim(7, "Here they are wrapped once and reused every step: the numbers are the same")
    X, y = moons(n_samples=20)
    random.seed(1)
    model = MLP(2, [4, 1])
    wrapped = [list(map(Value, row)) for row in X]
    once = hinge([model(x) for x in wrapped], y) + l2(model.parameters(), 1e-4)
    again = hinge([model(list(map(Value, row))) for row in X], y) + l2(model.parameters(), 1e-4)
    assert once.data == again.data


def test_lesson07_the_demos_schedule_and_the_noisier_moons():
    claim(7, "$1.0 - 0.9\\,k/100$ at step $k$")
    claim(7, "with three times the training noise")
    schedule = linear_decay(1.0, 0.1, 100)
    assert all(schedule(k) == pytest.approx(1.0 - 0.9 * k / 100) for k in range(101))
    import inspect

    assert inspect.signature(moons).parameters["noise"].default * 3 == pytest.approx(0.3)


LESSON7_SETUP = ("random.seed(1337)  # the demo's seed", "X, y = moons()", "model = MLP(2, [16, 16, 1])\nprint",
                 "def loss_and_accuracy(model):")


def test_lesson07_training_cell_run_twice_prints_the_demos_numbers_again():
    """Re-running the training cell must not continue training the trained model (after which
    "These are the demo's numbers exactly" would be false).  Run with 3 steps instead of 100."""
    claim(7, "These are the demo's numbers exactly")
    namespace = run_lesson_code(7, *LESSON7_SETUP)
    training = "optimizer = SGD("
    first = run_lesson_code(7, training, namespace=namespace, replace=(("range(100)", "range(3)"),))["history"]
    second = run_lesson_code(7, training, namespace=namespace, replace=(("range(100)", "range(3)"),))["history"]
    assert first == second
    assert round(first[0], 4) == 0.8958 and round(first[1], 4) == 1.7236


def test_lesson07_where_the_on_off_pattern_stays_the_same_the_score_is_linear(course_models):
    claim(7, "wherever the on/off pattern of all 32 stays the same, the score is one linear function of $(x_1, x_2)$")
    claim(7, "Every ReLU switching on or off starts a new piece")
    model = course_models["trained ReLU MLP(2, [16, 16, 1])"]

    def pattern(x):
        first = [n(x) for n in model.layers[0].neurons]
        second = [n([v.data for v in first]) for n in model.layers[1].neurons]
        return tuple(v.data > 0 for v in first + second)

    rng = random.Random(7)
    same = changed = 0
    for _ in range(200):
        p = [rng.uniform(-1.5, 2.5), rng.uniform(-1.5, 1.5)]
        q = [p[0] + rng.uniform(-0.05, 0.05), p[1] + rng.uniform(-0.05, 0.05)]
        midpoint = [(a + b) / 2 for a, b in zip(p, q)]
        bend = model(p).data + model(q).data - 2 * model(midpoint).data
        if pattern(p) == pattern(q) == pattern(midpoint):
            assert bend == pytest.approx(0, abs=1e-9)
            same += 1
        elif abs(bend) > 1e-9:
            changed += 1
    assert same > 100 and changed > 0


def test_lesson07_the_stepper_matches_the_table_its_step_1_being_our_step_0():
    claim(7, "The numbers match the table above: the stepper's step 1 is our step 0")
    from micrograd.widgets import TrainingStepper

    namespace = run_lesson_code(7, *LESSON7_SETUP)
    table = run_lesson_code(7, "optimizer = SGD(", namespace=namespace, replace=(("range(100)", "range(2)"),))["history"]
    X, y = moons()
    random.seed(1337)
    stepper = TrainingStepper(MLP(2, [16, 16, 1]), X, y, loss="hinge", l2=1e-4, lr=linear_decay(1.0, 0.1, 100))
    records = [stepper.step(redraw=False) for _ in range(2)]
    assert [r["step"] for r in records] == [1, 2]
    assert [r["loss"] for r in records] == pytest.approx(table, rel=1e-12)


def test_lesson07_micrograd_0_1_0_builds_about_65_800_nodes_per_step(mlp_0_1_0, micrograd_0_1_0_value):
    claim(7, "makes about **65 800 nodes** per step of this demo")
    V = micrograd_0_1_0_value
    random.seed(1337)
    model = mlp_0_1_0["MLP"](2, [16, 16, 1])
    X, y = moons()

    def demo_loss_nodes(n):  # the demo's loss() as it reads, on its first n points
        scores = [model(list(map(V, row))) for row in X[:n]]
        losses = [(1 + -label * score).relu() for label, score in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        return len(nodes_0_1_0(data_loss + 1e-4 * sum(p * p for p in model.parameters())))

    one, two, three = demo_loss_nodes(1), demo_loss_nodes(2), demo_loss_nodes(3)
    assert three - two == two - one  # each point adds the same nodes, so 100 points make:
    assert round(one + 99 * (two - one), -2) == 65_800
