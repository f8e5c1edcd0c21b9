"""The engine's reference figures (../shared/reference-figures.md), reproduced.

Each test builds the expression the way the lecture, its exercises, the seeds
or Karpathy's demo notebook build it, and checks the published numbers.
"""

import math
import random

import pytest

from micrograd import MLP, Value


def test_slope_of_a_quadratic_from_backward():
    def f(x):
        return 3 * x**2 - 4 * x + 5

    for x0, slope in [(3.0, 14.0), (2 / 3, 0.0)]:
        x = Value(x0)
        f(x).backward()
        assert x.grad == pytest.approx(slope, abs=1e-12)
        h = 1e-6
        assert (f(x0 + h) - f(x0 - h)) / (2 * h) == pytest.approx(slope, abs=1e-6)


def test_d_equals_a_times_b_plus_c():
    def d_of(a, b, c):
        return a * b + c

    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = d_of(a, b, c)
    d.backward()
    assert d.data == 4.0
    assert (a.grad, b.grad, c.grad) == (-3.0, 2.0, 1.0)
    # The lecture's numerical slopes: nudge one input by h.
    h = 1e-4
    base = d_of(2.0, -3.0, 10.0)
    assert (d_of(2.0 + h, -3.0, 10.0) - base) / h == pytest.approx(-3.0)
    assert (d_of(2.0, -3.0 + h, 10.0) - base) / h == pytest.approx(2.0)
    assert (d_of(2.0, -3.0, 10.0 + h) - base) / h == pytest.approx(1.0)


def _lecture_L(a, b, c, f):
    e = a * b
    d = e + c
    return e, d, d * f


def test_lecture_L_is_minus_8_with_every_gradient():
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e, d, L = _lecture_L(a, b, c, f)
    assert (e.data, d.data, L.data) == (-6.0, 4.0, -8.0)
    L.backward()
    nodes = {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "L": L}
    grads = {name: node.grad for name, node in nodes.items()}
    assert grads == {"a": 6.0, "b": -4.0, "c": -2.0, "d": -2.0, "e": -2.0, "f": 4.0, "L": 1.0}


def test_one_step_along_the_gradient_moves_L_to_about_minus_7_286():
    leaves = [Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)]
    *_, L = _lecture_L(*leaves)
    L.backward()
    for leaf in leaves:
        leaf.data += 0.01 * leaf.grad
    *_, L = _lecture_L(*leaves)
    # a=2.06, b=-3.04, c=9.98, f=-1.96: (2.06 * -3.04 + 9.98) * -1.96
    assert L.data == pytest.approx(-7.286496, abs=1e-12)
    assert round(L.data, 3) == -7.286


def _tanh_neuron(tanh):
    x1, x2 = Value(2.0, "x1"), Value(0.0, "x2")
    w1, w2 = Value(-3.0, "w1"), Value(1.0, "w2")
    b = Value(6.8813735870195432, "b")
    n = x1 * w1 + x2 * w2 + b
    o = tanh(n)
    o.backward()
    return o, {"x1": x1.grad, "w1": w1.grad, "x2": x2.grad, "w2": w2.grad, "n": n.grad}


def _tanh_from_exp(n):
    e = (2 * n).exp()
    return (e - 1) / (e + 1)


@pytest.mark.parametrize("tanh", [Value.tanh, _tanh_from_exp], ids=["tanh", "exp-and-division"])
def test_tanh_neuron(tanh):
    o, grads = _tanh_neuron(tanh)
    assert o.data == pytest.approx(math.sqrt(0.5), abs=1e-12)
    assert round(o.data, 4) == 0.7071
    expected = {"x1": -1.5, "w1": 1.0, "x2": 0.5, "w2": 0.0, "n": 0.5}
    assert grads == pytest.approx(expected, abs=1e-12)


def _sin(v):
    """sin as a custom operation: its value and its local derivative, cos."""
    return Value.from_op(math.sin(v.data), (v,), (math.cos(v.data),), "sin")


def test_lecture_exercise_with_a_custom_sin_op():
    a, b, c = Value(2.0), Value(3.0), Value(4.0)
    f = -(a**3) + _sin(3 * b) - 1.0 / c + b**2.5 - a**0.5
    f.backward()
    assert f.data == pytest.approx(6.336362190988558, abs=1e-9)
    assert [a.grad, b.grad, c.grad] == pytest.approx(
        [-12.353553390593273, 10.25699027111255, 0.0625], abs=1e-9
    )
    # The analytic gradient, as the exercise states it.
    assert a.grad == pytest.approx(-3 * 2.0**2 - 0.5 * 2.0**-0.5, abs=1e-12)
    assert b.grad == pytest.approx(3 * math.cos(9.0) + 2.5 * 3.0**1.5, abs=1e-12)
    assert c.grad == pytest.approx(1 / 16, abs=1e-12)


def test_softmax_exercise_from_exp_log_and_division():
    logits = [Value(x) for x in [0.0, 3.0, -2.0, 1.0]]
    counts = [logit.exp() for logit in logits]
    denominator = sum(counts)
    probs = [count / denominator for count in counts]
    loss = -probs[3].log()
    loss.backward()
    assert loss.data == pytest.approx(2.1755, abs=5e-5)
    assert [logit.grad for logit in logits] == pytest.approx(
        [0.04177, 0.83902, 0.00565, -0.88645], abs=5e-6
    )
    # Softmax cross-entropy's gradient is softmax - one_hot: a tighter check.
    total = sum(math.exp(x) for x in [0.0, 3.0, -2.0, 1.0])
    exact = [math.exp(x) / total - (i == 3) for i, x in enumerate([0.0, 3.0, -2.0, 1.0])]
    assert [logit.grad for logit in logits] == pytest.approx(exact, rel=1e-12)


def test_go_seed_double_x_trajectory():
    x, y = 2.0, 4.0
    w = Value(0.4)
    losses, weights = [], []
    for _ in range(6):
        loss = (w * x - y) ** 2
        w.grad = 0.0
        loss.backward()
        w.data -= 0.1 * w.grad
        losses.append(loss.data)
        weights.append(w.data)
    # The seed prints four significant digits.
    assert losses == pytest.approx([10.24, 0.4096, 0.01638, 0.0006554, 2.621e-05, 1.049e-06], rel=5e-4)
    assert weights == pytest.approx([1.68, 1.936, 1.987, 1.997, 1.999, 2.0], abs=5e-4)


def test_lecture_mlp_has_41_parameters():
    assert len(MLP(3, [4, 4, 1]).parameters()) == 41


# The output of the optimisation cell of karpathy/micrograd's demo.ipynb.
DEMO_STEPS = """\
step 0 loss 0.8958441028683222, accuracy 50.0%
step 1 loss 1.7235905336972022, accuracy 81.0%
step 2 loss 0.7429006313851131, accuracy 77.0%
step 3 loss 0.7705641260584198, accuracy 82.0%
step 4 loss 0.3692793385976538, accuracy 84.0%
step 5 loss 0.313545481918522, accuracy 86.0%
step 6 loss 0.2814234349772435, accuracy 89.0%
step 7 loss 0.26888733313983904, accuracy 91.0%
step 8 loss 0.2567147286057417, accuracy 91.0%
step 9 loss 0.2704862551637922, accuracy 91.0%
step 10 loss 0.24507023853658053, accuracy 91.0%
step 11 loss 0.2509905529791503, accuracy 92.0%
step 12 loss 0.21560951851922952, accuracy 91.0%
step 13 loss 0.23090378446402726, accuracy 93.0%
step 14 loss 0.20152151227899445, accuracy 92.0%
step 15 loss 0.22574506279282217, accuracy 93.0%
step 16 loss 0.19447987596204114, accuracy 92.0%
step 17 loss 0.21089496199246363, accuracy 93.0%
step 18 loss 0.159830773563036, accuracy 94.0%
step 19 loss 0.1845374874688392, accuracy 93.0%
step 20 loss 0.18977522856087634, accuracy 91.0%
step 21 loss 0.19072704042579647, accuracy 93.0%
step 22 loss 0.11733695088756485, accuracy 97.0%
step 23 loss 0.12173524408232454, accuracy 95.0%
step 24 loss 0.1261571261277045, accuracy 95.0%
step 25 loss 0.16049097780801674, accuracy 95.0%
step 26 loss 0.18747197705245805, accuracy 92.0%
step 27 loss 0.16741837891059408, accuracy 95.0%
step 28 loss 0.09586583491455399, accuracy 97.0%
step 29 loss 0.0877878370742091, accuracy 96.0%
step 30 loss 0.11731297569011848, accuracy 95.0%
step 31 loss 0.09340146460619836, accuracy 97.0%
step 32 loss 0.12454454903103446, accuracy 95.0%
step 33 loss 0.07984002652777272, accuracy 97.0%
step 34 loss 0.07727519232921673, accuracy 97.0%
step 35 loss 0.07661250143094483, accuracy 98.0%
step 36 loss 0.10610492379198365, accuracy 96.0%
step 37 loss 0.09062808429265976, accuracy 99.0%
step 38 loss 0.10671887043036932, accuracy 95.0%
step 39 loss 0.05225659921975849, accuracy 98.0%
step 40 loss 0.06016009895234464, accuracy 100.0%
step 41 loss 0.08596724533333942, accuracy 96.0%
step 42 loss 0.051121079431796, accuracy 99.0%
step 43 loss 0.052401424016428284, accuracy 97.0%
step 44 loss 0.045306841790015734, accuracy 100.0%
step 45 loss 0.07211073370655095, accuracy 97.0%
step 46 loss 0.03334238651310234, accuracy 99.0%
step 47 loss 0.03143222795751122, accuracy 100.0%
step 48 loss 0.03658536747111507, accuracy 99.0%
step 49 loss 0.04829139382390309, accuracy 99.0%
step 50 loss 0.09875114765619622, accuracy 96.0%
step 51 loss 0.05449063965875453, accuracy 99.0%
step 52 loss 0.03392679435708309, accuracy 100.0%
step 53 loss 0.05261517263568441, accuracy 97.0%
step 54 loss 0.03250295251424923, accuracy 99.0%
step 55 loss 0.02888327387207822, accuracy 100.0%
step 56 loss 0.04139151104027239, accuracy 98.0%
step 57 loss 0.018987407426128502, accuracy 100.0%
step 58 loss 0.0252383352388374, accuracy 100.0%
step 59 loss 0.02079656521341895, accuracy 100.0%
step 60 loss 0.0325971115781023, accuracy 99.0%
step 61 loss 0.017863351693480307, accuracy 100.0%
step 62 loss 0.023008717832211683, accuracy 100.0%
step 63 loss 0.022079325463581503, accuracy 100.0%
step 64 loss 0.029432917853529684, accuracy 99.0%
step 65 loss 0.01625151464409193, accuracy 100.0%
step 66 loss 0.02846853448326446, accuracy 99.0%
step 67 loss 0.013994365546208731, accuracy 100.0%
step 68 loss 0.015552344843651405, accuracy 100.0%
step 69 loss 0.0338911994616017, accuracy 99.0%
step 70 loss 0.014229870065926908, accuracy 100.0%
step 71 loss 0.013255281583285504, accuracy 100.0%
step 72 loss 0.012300277590022063, accuracy 100.0%
step 73 loss 0.012676052498355976, accuracy 100.0%
step 74 loss 0.020593811955954763, accuracy 100.0%
step 75 loss 0.011845398205364453, accuracy 100.0%
step 76 loss 0.016012697472883086, accuracy 100.0%
step 77 loss 0.025458360239222128, accuracy 100.0%
step 78 loss 0.014382930289661911, accuracy 100.0%
step 79 loss 0.011698962425817985, accuracy 100.0%
step 80 loss 0.012318500800515763, accuracy 100.0%
step 81 loss 0.014121117031464233, accuracy 100.0%
step 82 loss 0.011664591962446225, accuracy 100.0%
step 83 loss 0.011589314549188726, accuracy 100.0%
step 84 loss 0.010990299347735226, accuracy 100.0%
step 85 loss 0.01098922672069161, accuracy 100.0%
step 86 loss 0.010988193757655071, accuracy 100.0%
step 87 loss 0.010987200447388707, accuracy 100.0%
step 88 loss 0.010986246779084925, accuracy 100.0%
step 89 loss 0.010985332742365272, accuracy 100.0%
step 90 loss 0.010984458327280174, accuracy 100.0%
step 91 loss 0.010983623524308862, accuracy 100.0%
step 92 loss 0.010982828324359073, accuracy 100.0%
step 93 loss 0.010982072718767003, accuracy 100.0%
step 94 loss 0.010981356699297042, accuracy 100.0%
step 95 loss 0.010980680258141723, accuracy 100.0%
step 96 loss 0.010980043387921506, accuracy 100.0%
step 97 loss 0.010979446081684675, accuracy 100.0%
step 98 loss 0.010978888332907229, accuracy 100.0%
step 99 loss 0.010978370135492717, accuracy 100.0%
"""

DEMO_MODEL = (
    "MLP of [Layer of [" + ", ".join(["ReLUNeuron(2)"] * 16) + "], "
    "Layer of [" + ", ".join(["ReLUNeuron(16)"] * 16) + "], "
    "Layer of [LinearNeuron(16)]]"
)


def _parse_steps(text):
    steps = []
    for line in text.splitlines():
        # "step 7 loss 0.26888733313983904, accuracy 91.0%"
        _, k, _, loss, _, accuracy = line.split()
        steps.append((int(k), float(loss.rstrip(",")), float(accuracy.rstrip("%"))))
    return steps


def test_karpathy_demo_reproduced_step_by_step(capsys):
    """demo.ipynb's cells, as its user wrote them, against its stored output."""
    import numpy as np
    from sklearn.datasets import make_moons

    from micrograd.engine import Value
    from micrograd.nn import MLP

    np.random.seed(1337)
    random.seed(1337)

    X, y = make_moons(n_samples=100, noise=0.1)
    y = y*2 - 1 # make y be -1 or 1

    model = MLP(2, [16, 16, 1]) # 2-layer neural network
    print(model)
    print("number of parameters", len(model.parameters()))

    # loss function
    def loss(batch_size=None):

        # inline DataLoader :)
        if batch_size is None:
            Xb, yb = X, y
        else:
            ri = np.random.permutation(X.shape[0])[:batch_size]
            Xb, yb = X[ri], y[ri]
        inputs = [list(map(Value, xrow)) for xrow in Xb]

        # forward the model to get scores
        scores = list(map(model, inputs))

        # svm "max-margin" loss
        losses = [(1 + -yi*scorei).relu() for yi, scorei in zip(yb, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        # L2 regularization
        alpha = 1e-4
        reg_loss = alpha * sum((p*p for p in model.parameters()))
        total_loss = data_loss + reg_loss

        # also get accuracy
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    header = capsys.readouterr().out.splitlines()

    # optimization
    for k in range(100):

        # forward
        total_loss, acc = loss()

        # backward
        model.zero_grad()
        total_loss.backward()

        # update (sgd)
        learning_rate = 1.0 - 0.9*k/100
        for p in model.parameters():
            p.data -= learning_rate * p.grad

        if k % 1 == 0:
            print(f"step {k} loss {total_loss.data}, accuracy {acc*100}%")

    assert header == [DEMO_MODEL, "number of parameters 337"]
    ours = _parse_steps(capsys.readouterr().out)
    reference = _parse_steps(DEMO_STEPS)
    assert [k for k, _, _ in ours] == list(range(100))
    # Same network, same data, same arithmetic: the whole trajectory agrees
    # (to rounding in the last digit, from the order gradients are summed in).
    assert [loss for _, loss, _ in ours] == pytest.approx([loss for _, loss, _ in reference], rel=1e-12)
    assert [acc for _, _, acc in ours] == [acc for _, _, acc in reference]
    # The headline figures.
    assert (round(ours[0][1], 4), ours[0][2]) == (0.8958, 50.0)
    assert (round(ours[1][1], 4), ours[1][2]) == (1.7236, 81.0)
    assert (round(ours[99][1], 6), ours[99][2]) == (0.010978, 100.0)
