"""A catalogue of right answers written another way than the solutions write them, for every checker.

The slip catalogue (test_slip_catalogue.py) holds wrong answers that must fail with words naming the slip;
this one holds right answers that must pass, and with nothing false in the message: numpy's numbers and
functions (np.float64, np.tanh(np.dot(w, x) + b), np.trace(m) / m.sum(), np.log), a Value where a number
is asked for, another valid order or style, a number rounded as the lesson prints its numbers, and the
lecture's own way of writing the pieces.  Every checker of every lesson has two entries or more; a checker
added without them fails test_every_checker_has_two_right_answers_or_more.
"""

import collections
import importlib
import math
import pkgutil
import random
import statistics
from fractions import Fraction

import numpy as np
import pytest
from build_stubs import AUTOGRAD_ITERATIVE, AUTOGRAD_SOLUTION, NN_SOLUTION, STEP_SOLUTION, STEP_WITH_NUMBERS, \
    TRAIN_SOLUTION, VALUE_SOLUTION, load, load_lesson4_value, load_nn, load_nn_on, load_train
from foreign_nodes import CHILDREN_AUTOGRAD, CHILDREN_MY_VALUE, LECTURE_TRAIN, LectureValue, lecture_micrograd
from gpt_answers import (CAUSAL_MASKED, HEAD_LOOPS, HEAD_NUMPY, RMSNORM_LOOPS, RMSNORM_NUMPY, SOFTMAX_LOOPS,
                         SOFTMAX_MAX_AS_A_VALUE, SOFTMAX_NUMPY, STEP_ADAM_WRITTEN_OUT, STEP_BACKWARD_PER_POSITION, STEP_CROSS_ENTROPY, STEP_KEY)
from gpt_answers import MICROGPT_ISINSTANCE, MICROGPT_SUMS_FROM_ZERO, microgpt_copy
from gpt_answers import load as load_gpt_piece
from gpt_answers import load_source as load_gpt_source

import micrograd.course.lessons
from micrograd import Value, data, losses, metrics
from micrograd.engine import graph_size
from micrograd.course.lessons import lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07, lesson08
from micrograd.course.lessons import lesson09, lesson10, lesson11
from micrograd.nn import MLP


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def checkers():
    """Every checker in micrograd.course.lessons, found by walking the lesson modules: {"lesson05.neuron_output": f}."""
    found = {}
    for module in pkgutil.iter_modules(micrograd.course.lessons.__path__):
        if not module.name.startswith("lesson"):
            continue
        lesson = importlib.import_module(f"micrograd.course.lessons.{module.name}")
        for name, obj in vars(lesson).items():
            if callable(obj) and hasattr(obj, "title") and hasattr(obj, "__wrapped__") and obj.__module__ == lesson.__name__:
                found[f"{module.name}.{name}"] = obj
    return found


def key(check):
    return f"{check.__module__.rsplit('.', 1)[1]}.{check.__name__}"


# -- answers that take a few lines to make -------------------------------------------------------


def measured_slope(h=1e-6):
    f = lambda x: 3 * x**2 - 4 * x + 5  # noqa: E731
    return (f(-1 + h) - f(-1)) / h


def slope_in_float32(f, x, h):
    x, h = np.float32(x), np.float32(h)  # every step in float32, about 7 digits
    return (f(x + h) - f(x)) / h


def slope_of_g(which, h=1e-7):
    g = lambda x, y: x**2 * y + 3 * y  # noqa: E731
    return (g(1.5 + h, -2) - g(1.5, -2)) / h if which == "x" else (g(1.5, -2 + h) - g(1.5, -2)) / h


def value_class(*swaps):
    return (load(VALUE_SOLUTION, *swaps),)


VALUE_WITH_NUMBERS_AND_MORE_OPS = VALUE_SOLUTION.replace(
    '''    def __add__(self, other):
        return MyValue(self.data + other.data, (self, other), "+")''',
    '''    def __add__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data + other.data, (self, other), "+")
        return out

    def __radd__(self, other):
        return self + other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return MyValue(other) + (-self)''').replace(
    '''    def __mul__(self, other):
        return MyValue(self.data * other.data, (self, other), "*")''',
    '''    def __mul__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data * other.data, (self, other), "*")
        return out

    def __rmul__(self, other):
        return self * other''')


def neuron_graph(order="lesson", numpy_data=False):
    number = np.float64 if numpy_data else float
    x1, x2 = Value(number(2.0), label="x1"), Value(number(0.0), label="x2")
    w1, w2 = Value(number(-3.0), label="w1"), Value(number(1.0), label="w2")
    b = Value(number(6.8813735870195432), label="b")
    if order == "lesson":
        x1w1 = x1 * w1; x1w1.label = "x1w1"  # noqa: E702
        x2w2 = x2 * w2; x2w2.label = "x2w2"  # noqa: E702
        s = x1w1 + x2w2; s.label = "s"  # noqa: E702
        n = s + b
    elif order == "other":  # the weight first in each product, and the bias first in the sum
        w2x2 = w2 * x2; w2x2.label = "w2x2"  # noqa: E702
        w1x1 = w1 * x1; w1x1.label = "w1x1"  # noqa: E702
        bw = b + w2x2; bw.label = "bw"  # noqa: E702
        n = bw + w1x1
    else:  # "one line, labelled after": built in one expression, the nodes found and named afterwards
        n = x1 * w1 + x2 * w2 + b
        s, _ = n.inputs
        (s.inputs[0].label, s.inputs[1].label, s.label) = ("x1w1", "x2w2", "s")
    n.label = "n"
    return (n,)


def graph_of_y():
    a = Value(2.0, label="a")
    return a * a + a


def lesson_L(cls):
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    c, f = cls(10.0, label="c"), cls(-2.0, label="f")
    e = a * b; e.label = "e"  # noqa: E702
    d = e + c; d.label = "d"  # noqa: E702
    L = d * f; L.label = "L"  # noqa: E702
    return L, d, e, (a, b, c, f)


def walk(cls, with_leaves=False):
    L, d, e, leaves = lesson_L(cls)
    return L, [L, d, e, *leaves] if with_leaves else [L, d, e]


def gradients_of_g_by_backward():
    x, y, z = Value(-2.0), Value(5.0), Value(-4.0)
    ((x + y) * z).backward()
    return x.grad, y.grad, z.grad


def stepped_L(as_value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    for leaf, grad in zip((a, b, c, f), (6.0, -4.0, -2.0, 4.0)):
        leaf.data -= 0.01 * grad
    L = (a * b + c) * f
    return (L,) if as_value else (np.float64(L.data),)


def functions(source, name):
    return (load(source, name=name),)


def lecture(name):
    return (lecture_micrograd()[name],)


def seeded_and_stepped_by_hand():
    """The root seeded and its own step done by hand before the loop, which then leaves the root out."""
    source = AUTOGRAD_SOLUTION.replace(
        "    root.grad = 1.0\n    for node in reversed(order):\n",
        "    root.grad = 1.0\n    for child, local in zip(root._prev, root._local_grads):\n"
        "        child.grad += local * root.grad\n    for node in reversed(order[:-1]):\n")
    return (load(source, name="my_backward"),)


def gradf_numpy(a, b, c):
    return np.array([-3 * a**2 - 0.5 * a**-0.5, 3 * np.cos(3 * b) + 2.5 * b**1.5, 1 / c**2])


def gradf_other_form(a, b, c):
    """The same partial derivatives written another way: products for powers, a root, c to the power -2."""
    return [-3 * a * a - 0.5 / math.sqrt(a), 3 * math.cos(3 * b) + 2.5 * b * math.sqrt(b), c**-2]


def three_backwards(my_value=None):
    """a.grad after three y.backward(), on the package's Value and on lesson 4's MyValue, run, not typed."""
    my_value = my_value or load_lesson4_value()
    grads = []
    for cls in (Value, my_value):
        a = cls(2.0)
        y = a * a + a
        for _ in range(3):
            y.backward()
        grads.append(a.grad)
    return (*grads, my_value)


def lecture_nn():
    namespace = lecture_micrograd()
    return namespace["MyNeuron"], namespace["MyLayer"], namespace["MyMLP"]


def neuron_nodes_counted():
    neuron = load_nn(NN_SOLUTION)[0](5)
    return (np.int64(graph_size(neuron([0.5] * 5))[0]),)


def neuron_output_by_values(w, x, b):
    act = Value(b)
    for wi, xi in zip(w, x):
        act = act + Value(wi) * xi
    return act.tanh()


def train_keeping_numpy_floats():
    return (load_train(TRAIN_SOLUTION, ("losses.append(loss.data)", "losses.append(float(loss.data))")),)


def first_update_by_backward():
    x, w, y = Value(2.0), Value(1.0), Value(4.0)
    ((w * x - y) ** 2).backward()
    w.data -= 0.1 * w.grad
    return (w,)


def step_with(order, update=None):
    def training_step(model, inputs, y, optimizer, batch):
        inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
        if order == "l2 first":
            loss = losses.l2(model.parameters(), 1e-4) + losses.hinge([model(x) for x in inputs], y)
        elif order == "hinge by hand":  # the lecture's max(0, 1 - y·score), averaged, and its L2 sum written out
            scores = [model(x) for x in inputs]
            hinge = sum(((1 + -label * score).relu() for label, score in zip(y, scores)), Value(0.0)) * (1.0 / len(y))
            loss = hinge + 1e-4 * sum(p * p for p in model.parameters())
        else:
            loss = losses.hinge([model(x) for x in inputs], y) + losses.l2(model.parameters(), 1e-4)
        model.zero_grad()
        loss.backward()
        if update is None:
            optimizer.step()
        else:
            for p in model.parameters():
                p.data -= update * p.grad
        return loss
    return (training_step,)


def new_moons_answer(how):
    model = MLP(2, [8, 1], rng=random.Random(3))
    X, y = data.moons(noise=lesson07.NEW_MOONS_NOISE, seed=lesson07.NEW_MOONS_SEED)
    predictions = [1 if model([Value(v) for v in row]).data > 0 else -1 for row in X]
    if how == "numpy":
        return model, np.mean(np.array(predictions) == np.array(y))
    if how == "float32":
        return model, np.float32(np.mean(np.array(predictions) == np.array(y)))
    if how == "statistics":
        return model, statistics.mean(p == label for p, label in zip(predictions, y))
    return model, metrics.accuracy([model([Value(v) for v in row]) for row in X], y)  # the lesson's way


def naive_cross_entropy(logits, target):
    exps = [z.exp() for z in logits]
    return -(exps[target] / sum(exps[1:], exps[0])).log()


def stable_cross_entropy(logits, target):
    shift = max(z.data for z in logits)
    return sum((z - shift).exp() for z in logits).log() - (logits[target] - shift)


def subtraction_numpy(a, b):
    return Value.from_op(np.float64(a.data) - b.data, [a, b], [np.float64(1.0), np.float64(-1.0)], "-")


def power_numpy(a, b):
    out = np.power(a.data, b.data)
    return Value.from_op(out, (a, b), (b.data * np.power(a.data, b.data - 1), out * np.log(a.data)), "**")


def from_op_by_another_name(which):
    """The op written with ``F = Value.from_op``, taken before the check runs."""
    F = Value.from_op
    if which == "sub":
        return (lambda a, b: F(a.data - b.data, (a, b), (1.0, -1.0), "-"),)
    return (lambda a, b: F(a.data**b.data, (a, b), (b.data * a.data ** (b.data - 1),
                                                     a.data**b.data * math.log(a.data)), "**"),)


def reflected_pair(style):
    if style == "numpy":
        return (lambda a, n: Value.from_op(n - a.data, [a], [np.float64(-1.0)], "rsub"),
                lambda a, n: Value.from_op(np.divide(n, a.data), [a], [-np.divide(n, a.data) / a.data], "rtruediv"))
    return (lambda a, n: Value.from_op(n - a.data, (a,), (-1.0,), "rsub"),
            lambda a, n: Value.from_op(n * a.data**-1, (a,), (-n * a.data**-2,), "rtruediv"))


def step_node_count(as_numpy):
    model = MLP(3, [8, 8, 1], activation="tanh", rng=0)
    xs, ys = data.four_samples()
    count = graph_size(losses.sum_of_squares([model(x) for x in xs], ys))[0]
    return (np.int64(count) if as_numpy else float(count),)


def c_port_by_parts(nin, nouts, n_samples):
    sizes = [nin, *nouts]
    weights_and_biases = sum((n + 1) * m for n, m in zip(sizes, nouts))
    neuron_nodes = sum(m * 2 * n for n, m in zip(sizes, nouts)) + sum(nouts[:-1])  # * and + per input, tanh
    per_sample = nin + neuron_nodes + 6  # inputs, the target, -1 with * and +, the square, the + into the loss
    return np.int64(weights_and_biases + 1 + n_samples * per_sample)


def fused(style):
    def loss(predictions, targets):
        diffs = [p.data - t for p, t in zip(predictions, targets)]
        if style == "numpy":
            d = np.array(diffs)
            return Value.from_op(np.sum(d**2), list(predictions), list(2 * d), "sse")
        return Value.from_op(math.fsum(x * x for x in diffs), tuple(predictions), tuple(2 * x for x in diffs), "sse")
    return (loss,)


CAUSAL_WITH_A_CACHE = '''
def causal_attention(qs, ks, vs):
    keys, values, out = [], [], []
    for q, k, v in zip(qs, ks, vs):
        keys.append(k)
        values.append(v)
        out.append(attention_head(q, keys, values))
    return out
'''

SAMPLING_BY_HAND = '''
def sample_next(logits, temperature):
    if temperature == 0:
        raise ValueError("temperature 0 divides the logits by zero: take a small temperature instead")
    scaled = [l.data / temperature for l in logits]
    weights = [math.exp(s - max(scaled)) for s in scaled]
    r = random.random() * sum(weights)
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    return len(weights) - 1
'''

SAMPLING_NUMPY = '''
import numpy as np

def sample_next(logits, temperature):
    if temperature == 0:
        return int(np.argmax([l.data for l in logits]))
    z = np.array([l.data for l in logits]) / temperature
    p = np.exp(z - z.max())
    return np.random.choice(len(p), p=p / p.sum())
'''


# (checker, the answer's arguments, words the verdict must contain): each id says how the answer is written.
ZERO = "        for p in model.parameters():\n            p.grad = 0.0\n"
NEVER = ("memory at", "memoryview", "rounded", "not it")  # words no right answer's verdict may carry

CATALOGUE = [
    # Lesson 1 ----------------------------------------------------------------------------------------
    pytest.param(lesson01.slope_at_minus_one, lambda: (np.float64(-10.0),), "is -10", id="l01-slope-np.float64"),
    pytest.param(lesson01.slope_at_minus_one, lambda: (np.array(-10.0),), "is -10", id="l01-slope-0d-array"),
    pytest.param(lesson01.slope_at_minus_one, lambda: (measured_slope(),), "is -10", id="l01-slope-nudged-small-h"),
    pytest.param(lesson01.slope_at_minus_one, lambda: (np.float32(-10.0),), "is -10", id="l01-slope-np.float32"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h),), "any function",
                 id="l01-slope-function-central"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: np.float64(f(x + h) - f(x)) / h,), "any function",
                 id="l01-slope-function-numpy"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: (f(x) - f(x - h)) / h,), "any function",
                 id="l01-slope-function-nudged-to-the-left"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: np.float32((f(x + h) - f(x)) / h),), "any function",
                 id="l01-slope-function-np.float32"),
    pytest.param(lesson01.slope_function, lambda: (slope_in_float32,), "any function", id="l01-slope-function-all-float32"),
    pytest.param(lesson01.two_input_slopes, lambda: (np.float64(-6.0), np.float64(5.25)), "∂g/∂x = -6",
                 id="l01-two-slopes-numpy"),
    pytest.param(lesson01.two_input_slopes, lambda: (slope_of_g("x"), slope_of_g("y")), "∂g/∂y = 5.25",
                 id="l01-two-slopes-nudged"),
    pytest.param(lesson01.two_input_slopes, lambda: (Fraction(-6), Fraction(21, 4)), "∂g/∂x = -6",
                 id="l01-two-slopes-fractions"),
    # Lesson 2 ----------------------------------------------------------------------------------------
    pytest.param(lesson02.my_value,
                 lambda: value_class(('return f"MyValue(data={self.data})"',
                                      'return f"MyValue(data={self.data:g}, grad={self.grad:g})"')),
                 "makes graphs", id="l02-value-repr-with-g-format-and-grad"),
    pytest.param(lesson02.my_value, lambda: (load(VALUE_WITH_NUMBERS_AND_MORE_OPS),), "makes graphs",
                 id="l02-value-taking-numbers-with-the-lectures-extra-ops"),
    pytest.param(lesson02.my_value, lambda: value_class(("self._prev = tuple(_children)", "self._prev = list(_children)"),
                                                        ('return f"MyValue(data={self.data})"',
                                                         'return f"MyValue({self.data!r}, op={self._op!r})"')),
                 "makes graphs", id="l02-value-prev-a-list-other-repr"),
    pytest.param(lesson02.my_value, lambda: value_class(("self._prev = tuple(_children)", "self._prev = set(_children)")),
                 "a set holds a + a's input once", id="l02-value-prev-a-set-as-in-the-lecture"),
    pytest.param(lesson02.my_value, lambda: lecture("MyValue"), "Your _prev is a set, as in the lecture",
                 id="l02-value-the-lectures-whole-class"),
    pytest.param(lesson02.neuron_graph, lambda: neuron_graph("other"), "n = 0.8814", id="l02-neuron-other-order"),
    pytest.param(lesson02.neuron_graph, lambda: neuron_graph("one line, labelled after"), "n = 0.8814",
                 id="l02-neuron-one-expression-labelled-after"),
    pytest.param(lesson02.neuron_graph, lambda: neuron_graph("lesson", numpy_data=True), "n = 0.8814",
                 id="l02-neuron-numpy-leaves"),
    pytest.param(lesson02.division_local_grads, lambda: (np.array([1 / 3, -2 / 3]),), "falls by a/b²",
                 id="l02-division-numpy-array"),
    pytest.param(lesson02.division_local_grads, lambda: ((Value(6.0) / Value(3.0)).local_grads,), "falls by a/b²",
                 id="l02-division-local-grads-read-off"),
    pytest.param(lesson02.division_local_grads, lambda: ((0.33, -0.67),), "to 2 decimals",
                 id="l02-division-rounded-as-printed"),
    pytest.param(lesson02.count_nodes_and_edges, lambda: graph_size(graph_of_y()), "each use is an edge",
                 id="l02-count-graph-size"),
    pytest.param(lesson02.count_nodes_and_edges, lambda: (np.int64(3), 4.0), "each use is an edge",
                 id="l02-count-numpy-int-and-whole-float"),
    # Lesson 3 ----------------------------------------------------------------------------------------
    pytest.param(lesson03.my_backward_step, lambda: (load(STEP_WITH_NUMBERS),), "come out right",
                 id="l03-step-taking-numbers"),
    pytest.param(lesson03.my_backward_step,
                 lambda: (load(STEP_SOLUTION, ("local_grads = (1.0, 1.0)", "local_grads = [1, 1]"),
                               ("local_grads = (1 - t**2,)", "local_grads = [1 - t * t]")),),
                 "come out right", id="l03-step-lists-and-ints"),
    pytest.param(lesson03.my_backward_step, lambda: lecture("MyValue"), "the lecture's way",
                 id="l03-step-the-lectures-closures-and-set"),
    pytest.param(lesson03.my_backward_step, lambda: (load(CHILDREN_MY_VALUE),), "come out right",
                 id="l03-step-inputs-in-_children"),
    pytest.param(lesson03.walk_by_hand, lambda: walk(load(STEP_SOLUTION), with_leaves=True), "a 6.0",
                 id="l03-walk-leaves-included"),
    pytest.param(lesson03.walk_by_hand, lambda: walk(load(CHILDREN_MY_VALUE)), "a 6.0", id="l03-walk-inputs-in-_children"),
    pytest.param(lesson03.walk_by_hand, lambda: walk(lecture_micrograd()["MyValue"]), "a 6.0",
                 id="l03-walk-the-lectures-class"),
    pytest.param(lesson03.walk_by_hand, lambda: (lambda L, order: (L, (node for node in order)))(*walk(load(STEP_SOLUTION))),
                 "a 6.0", id="l03-walk-a-generator"),
    pytest.param(lesson03.sum_times_gradients, lambda: (np.float64(-4), -4, np.int64(3)), "∂g/∂z = x + y = 3",
                 id="l03-gradients-numpy"),
    pytest.param(lesson03.sum_times_gradients, gradients_of_g_by_backward, "∂g/∂z = x + y = 3",
                 id="l03-gradients-read-after-backward"),
    pytest.param(lesson03.step_downhill, lambda: stepped_L(as_value=True), "lowers L", id="l03-step-L-as-a-value"),
    pytest.param(lesson03.step_downhill, lambda: stepped_L(as_value=False), "lowers L", id="l03-step-L-numpy"),
    pytest.param(lesson03.step_downhill, lambda: (-8.726,), "to 3 decimals", id="l03-step-rounded-as-printed"),
    pytest.param(lesson03.sigmoid_local_grad, lambda: (lambda s: s - s * s,), "s(1 - s)", id="l03-sigmoid-expanded"),
    pytest.param(lesson03.sigmoid_local_grad, lambda: (lambda s: np.multiply(s, 1 - s),), "s(1 - s)",
                 id="l03-sigmoid-numpy"),
    pytest.param(lesson03.sigmoid_local_grad, lambda: (lambda s: np.float32(s * (1 - s)),), "s(1 - s)",
                 id="l03-sigmoid-np.float32"),
    pytest.param(lesson03.sigmoid_local_grad, lambda: (lambda s: (1 / s - 1) * s * s,), "s(1 - s)",
                 id="l03-sigmoid-from-e-to-the-minus-n"),
    # Lesson 4 ----------------------------------------------------------------------------------------
    pytest.param(lesson04.my_topological_order, lambda: functions(AUTOGRAD_ITERATIVE, "my_topological_order"),
                 "every node once", id="l04-topo-iterative"),
    pytest.param(lesson04.my_topological_order, lambda: lecture("my_topological_order"), "every node once",
                 id="l04-topo-the-lectures-build-topo"),
    pytest.param(lesson04.my_topological_order,
                 lambda: (load(AUTOGRAD_SOLUTION, ("    return order", "    return tuple(order)"), name="my_topological_order"),),
                 "every node once", id="l04-topo-a-tuple"),
    pytest.param(lesson04.my_topological_order, lambda: (load(CHILDREN_AUTOGRAD, name="my_topological_order"),),
                 "every node once", id="l04-topo-reading-_children"),
    pytest.param(lesson04.my_backward, lambda: functions(AUTOGRAD_ITERATIVE, "my_backward"), "all six graphs",
                 id="l04-backward-calling-each-nodes-backward"),
    pytest.param(lesson04.my_backward, lambda: (load(CHILDREN_AUTOGRAD, name="my_backward"),), "all six graphs",
                 id="l04-backward-reading-_children"),
    pytest.param(lesson04.my_backward, seeded_and_stepped_by_hand, "all six graphs",
                 id="l04-backward-root-stepped-by-hand-then-skipped"),
    pytest.param(lesson04.my_backward,
                 lambda: (load(AUTOGRAD_SOLUTION, ("for node in reversed(order):", "for node in order[::-1]:"),
                               ("child.grad += local * node.grad", "child.grad = child.grad + local * node.grad"),
                               name="my_backward"),),
                 "all six graphs", id="l04-backward-sliced-backwards-grad-written-out"),
    pytest.param(lesson04.analytic_gradient, lambda: (gradf_numpy,), "agrees with finite differences",
                 id="l04-gradient-numpy-array"),
    pytest.param(lesson04.analytic_gradient, lambda: (gradf_other_form,), "agrees with finite differences",
                 id="l04-gradient-another-form"),
    pytest.param(lesson04.analytic_gradient,
                 lambda: (lambda a, b, c: (x for x in np.float32(gradf_numpy(a, b, c))),),
                 "agrees with finite differences", id="l04-gradient-float32-generator"),
    pytest.param(lesson04.sin_op, lambda: (lambda x: Value.from_op(np.sin(x.data), [x], [np.cos(x.data)], "sin"),),
                 "an operation like any other", id="l04-sin-numpy-and-lists"),
    pytest.param(lesson04.sin_op, lambda: (lambda x: Value.from_op(math.sin(x.data), (x,),
                                                                   (math.sin(x.data + math.pi / 2),), "sin"),),
                 "an operation like any other", id="l04-sin-cos-written-as-a-shifted-sin"),
    pytest.param(lesson04.sin_op, lambda: (lambda x: Value.from_op(np.float32(np.sin(x.data)), (x,),
                                                                   (np.float32(np.cos(x.data)),), "sin"),),
                 "an operation like any other", id="l04-sin-np.float32"),
    pytest.param(lesson04.grad_after_three_backwards, lambda: (np.float64(15.0), np.int64(27), load_lesson4_value()),
                 "dy/da = 5", id="l04-three-numpy"),
    pytest.param(lesson04.grad_after_three_backwards, three_backwards, "27 on your MyValue", id="l04-three-run"),
    pytest.param(lesson04.grad_after_three_backwards, lambda: three_backwards(LectureValue), "as the lecture's code",
                 id="l04-three-run-on-the-lectures-class"),
    # Lesson 5 ----------------------------------------------------------------------------------------
    pytest.param(lesson05.my_mlp, lambda: load_nn_on(STEP_WITH_NUMBERS, NN_SOLUTION), "41 parameters",
                 id="l05-nn-on-the-learners-own-value"),
    pytest.param(lesson05.my_mlp, lecture_nn, "41 parameters", id="l05-nn-the-lectures"),
    pytest.param(lesson05.my_mlp,
                 lambda: load_nn(NN_SOLUTION, ("        act = self.b\n        for wi, xi in zip(self.w, x):\n"
                                               "            act = act + wi * xi\n",
                                               "        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n")),
                 "41 parameters", id="l05-nn-sum-of-a-generator-starting-at-the-bias"),
    pytest.param(lesson05.my_mlp,
                 lambda: load_nn(NN_SOLUTION, ("        act = self.b\n        for wi, xi in zip(self.w, x):\n"
                                               "            act = act + wi * xi\n",
                                               "        import numpy as np\n        act = np.dot(np.array(self.w, dtype=object), "
                                               "np.array(x, dtype=object)) + self.b\n")),
                 "41 parameters", id="l05-nn-numpy-arrays-of-values"),
    pytest.param(lesson05.parameter_count, lambda: (lambda nin, nouts: len(MLP(nin, nouts, rng=0).parameters()),),
                 "(nin + 1) · nout", id="l05-count-by-building-the-model"),
    pytest.param(lesson05.parameter_count,
                 lambda: (lambda nin, nouts: np.sum((np.array([nin] + nouts[:-1]) + 1) * np.array(nouts)),),
                 "(nin + 1) · nout", id="l05-count-numpy"),
    pytest.param(lesson05.neuron_nodes, neuron_nodes_counted, "22 nodes", id="l05-nodes-counted-numpy-int"),
    pytest.param(lesson05.neuron_nodes, lambda: (22.0,), "22 nodes", id="l05-nodes-whole-float"),
    pytest.param(lesson05.neuron_nodes, lambda: (24,), "sum() starts from 0", id="l05-nodes-written-with-sum"),
    pytest.param(lesson05.neuron_output, lambda: (lambda w, x, b: np.tanh(np.dot(w, x) + b),), "tanh(w·x + b)",
                 id="l05-output-numpy"),
    pytest.param(lesson05.neuron_output,
                 lambda: (lambda w, x, b: np.tanh(np.dot(np.float32(w), np.float32(x)) + b),), "tanh(w·x + b)",
                 id="l05-output-numpy-float32"),
    pytest.param(lesson05.neuron_output,
                 lambda: (lambda w, x, b: math.tanh(math.fsum(wi * xi for wi, xi in zip(w, x)) + b),), "tanh(w·x + b)",
                 id="l05-output-fsum-of-a-generator"),
    pytest.param(lesson05.neuron_output, lambda: (neuron_output_by_values,), "tanh(w·x + b)",
                 id="l05-output-a-value"),
    # Lesson 6 ----------------------------------------------------------------------------------------
    pytest.param(lesson06.my_training_loop, lambda: (load_train(LECTURE_TRAIN),), "as in the lesson's run",
                 id="l06-loop-the-lectures"),
    pytest.param(lesson06.my_training_loop, train_keeping_numpy_floats, "as in the lesson's run",
                 id="l06-loop-float-losses"),
    pytest.param(lesson06.my_training_loop,
                 lambda: (load_train(TRAIN_SOLUTION, (ZERO, ""), ("        losses.append(loss.data)",
                                                                   ZERO + "        losses.append(loss.data)")),),
                 "after the update (PyTorch's habit): right", id="l06-loop-zeroing-after-the-update"),
    pytest.param(lesson06.my_training_loop,
                 lambda: (load_train(TRAIN_SOLUTION, ("    for k in range(steps):\n", "    k = 0\n    while k < steps:\n        k += 1\n"),
                                     ("p.data -= lr * p.grad", "p.data = p.data - lr * p.grad")),),
                 "as in the lesson's run", id="l06-loop-a-while-loop"),
    pytest.param(lesson06.first_update, lambda: (np.float64(1.8),), "to 1.8", id="l06-update-numpy"),
    pytest.param(lesson06.first_update, first_update_by_backward, "to 1.8", id="l06-update-a-value-stepped"),
    # Lesson 7 ----------------------------------------------------------------------------------------
    pytest.param(lesson07.training_step, lambda: step_with("l2 first"), "the whole loop", id="l07-step-l2-first"),
    pytest.param(lesson07.training_step, lambda: step_with("hinge first", update=0.5), "the whole loop",
                 id="l07-step-manual-update-at-the-optimisers-lr"),
    pytest.param(lesson07.training_step, lambda: step_with("hinge first", update=0.1), "your own update",
                 id="l07-step-manual-update-another-lr"),
    pytest.param(lesson07.training_step, lambda: step_with("hinge by hand"), "the whole loop",
                 id="l07-step-hinge-and-l2-written-out"),
    pytest.param(lesson07.new_moons_accuracy, lambda: new_moons_answer("numpy"), "new points land",
                 id="l07-accuracy-numpy-mean"),
    pytest.param(lesson07.new_moons_accuracy, lambda: new_moons_answer("metrics"), "new points land",
                 id="l07-accuracy-metrics"),
    pytest.param(lesson07.new_moons_accuracy, lambda: new_moons_answer("float32"), "new points land",
                 id="l07-accuracy-np.float32"),
    pytest.param(lesson07.new_moons_accuracy, lambda: new_moons_answer("statistics"), "new points land",
                 id="l07-accuracy-statistics-mean-of-bools"),
    # Lesson 8 ----------------------------------------------------------------------------------------
    pytest.param(lesson08.uninformed_loss, lambda: (np.log(26),), "ln 26", id="l08-loss-np.log"),
    pytest.param(lesson08.uninformed_loss, lambda: (np.log(np.float32(26)),), "ln 26", id="l08-loss-np.float32"),
    pytest.param(lesson08.uninformed_loss, lambda: (-Value(1 / 26).log(),), "ln 26", id="l08-loss-a-value"),
    pytest.param(lesson08.uninformed_loss, lambda: (3.258,), "to 3 decimals", id="l08-loss-rounded-as-printed"),
    pytest.param(lesson08.cross_entropy_by_hand, lambda: (naive_cross_entropy,), "softmax − one-hot",
                 id="l08-cross-entropy-softmax-then-log"),
    pytest.param(lesson08.cross_entropy_by_hand, lambda: (stable_cross_entropy,), "stays exact",
                 id="l08-cross-entropy-log-sum-exp"),
    pytest.param(lesson08.accuracy_from_confusion, lambda: (lambda m: np.trace(np.array(m)) / np.array(m).sum(),),
                 "diagonal over the total", id="l08-accuracy-np.trace"),
    pytest.param(lesson08.accuracy_from_confusion,
                 lambda: (lambda m: Fraction(sum(row[i] for i, row in enumerate(m)), sum(map(sum, m))),),
                 "diagonal over the total", id="l08-accuracy-a-fraction"),
    pytest.param(lesson08.accuracy_from_confusion,
                 lambda: (lambda m: np.trace(np.float32(m)) / np.sum(np.float32(m)),),
                 "diagonal over the total", id="l08-accuracy-float32-matrix"),
    # Lesson 9 ----------------------------------------------------------------------------------------
    pytest.param(lesson09.subtraction, lambda: (subtraction_numpy,), "passes gradcheck", id="l09-sub-numpy-lists"),
    pytest.param(lesson09.subtraction, lambda: (lambda a, b: Value.from_op(a.data + -b.data, (a, b), (1, -1), "sub"),),
                 "passes gradcheck", id="l09-sub-int-derivatives"),
    pytest.param(lesson09.subtraction, lambda: from_op_by_another_name("sub"), "passes gradcheck",
                 id="l09-sub-from-op-by-another-name"),
    pytest.param(lesson09.power, lambda: (power_numpy,), "both local derivatives", id="l09-pow-numpy"),
    pytest.param(lesson09.power, lambda: from_op_by_another_name("pow"), "both local derivatives",
                 id="l09-pow-from-op-by-another-name"),
    pytest.param(lesson09.power,
                 lambda: (lambda a, b: Value.from_op(math.exp(b.data * math.log(a.data)), (a, b),
                                                     (b.data / a.data * a.data**b.data,
                                                      math.log(a.data) * a.data**b.data), "pow"),),
                 "both local derivatives", id="l09-pow-through-exp-and-log"),
    pytest.param(lesson09.reflected, lambda: reflected_pair("numpy"), "the gradients match", id="l09-reflected-numpy"),
    pytest.param(lesson09.reflected, lambda: reflected_pair("powers"), "the gradients match",
                 id="l09-reflected-negative-powers"),
    pytest.param(lesson09.broken_op, lambda: ("softplus",), "wrong local derivative", id="l09-broken-by-name"),
    pytest.param(lesson09.broken_op, lambda: (lesson09.suspects["softplus"],), "wrong local derivative",
                 id="l09-broken-the-function-itself"),
    pytest.param(lesson09.broken_op, lambda: ("Softplus ",), "wrong local derivative", id="l09-broken-capitalised-spaced"),
    # Lesson 10 ---------------------------------------------------------------------------------------
    pytest.param(lesson10.node_count, lambda: step_node_count(as_numpy=True), "check it yourself",
                 id="l10-count-numpy-int"),
    pytest.param(lesson10.node_count, lambda: step_node_count(as_numpy=False), "check it yourself",
                 id="l10-count-whole-float"),
    pytest.param(lesson10.c_port_formula, lambda: (c_port_by_parts,), "every network tried", id="l10-formula-numpy"),
    pytest.param(lesson10.c_port_formula,
                 lambda: (lambda nin, nouts, n: float(lesson10._c_port_node_count(nin, nouts, n)),),
                 "every network tried", id="l10-formula-whole-float"),
    pytest.param(lesson10.c_port_formula,
                 lambda: (lambda nin, nouts, n: np.int64(lesson10._c_port_node_count(nin, tuple(nouts), n)),),
                 "every network tried", id="l10-formula-numpy-int"),
    pytest.param(lesson10.fused_loss, lambda: fused("numpy"), "same loss, same gradients", id="l10-fused-numpy"),
    pytest.param(lesson10.fused_loss, lambda: fused("fsum"), "same loss, same gradients", id="l10-fused-fsum-tuples"),
    # Lesson 11 ---------------------------------------------------------------------------------------
    pytest.param(lesson11.softmax, lambda: (load_gpt_source(SOFTMAX_LOOPS, "softmax"),), "no overflow",
                 id="l11-softmax-loops-and-a-power"),
    pytest.param(lesson11.softmax, lambda: (load_gpt_source(SOFTMAX_NUMPY, "softmax"),), "no overflow",
                 id="l11-softmax-numpy-object-arrays"),
    pytest.param(lesson11.softmax, lambda: (load_gpt_source(SOFTMAX_MAX_AS_A_VALUE, "softmax"),), "no overflow",
                 id="l11-softmax-the-max-as-a-value"),
    pytest.param(lesson11.rmsnorm, lambda: (load_gpt_source(RMSNORM_LOOPS, "rmsnorm"),), "root of its mean square",
                 id="l11-rmsnorm-loops-and-a-division"),
    pytest.param(lesson11.rmsnorm, lambda: (load_gpt_source(RMSNORM_NUMPY, "rmsnorm"),), "root of its mean square",
                 id="l11-rmsnorm-numpy"),
    pytest.param(lesson11.attention_head, lambda: (load_gpt_source(HEAD_LOOPS, "attention_head"),), "their softmax",
                 id="l11-head-loops-and-math-sqrt"),
    pytest.param(lesson11.attention_head, lambda: (load_gpt_source(HEAD_NUMPY, "attention_head"),), "their softmax",
                 id="l11-head-numpy-dot"),
    pytest.param(lesson11.training_step,
                 lambda: (load_gpt_piece(STEP_KEY, STEP_BACKWARD_PER_POSITION, ("    return loss.data", "    return lossf")),),
                 "the same losses", id="l11-step-backward-at-each-position-as-microgpts-first-version"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, STEP_ADAM_WRITTEN_OUT),), "the same losses",
                 id="l11-step-adam-written-out"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, STEP_CROSS_ENTROPY),), "the same losses",
                 id="l11-step-the-packages-cross-entropy"),
    pytest.param(lesson11.causal_attention, lambda: (load_gpt_source(CAUSAL_WITH_A_CACHE, "causal_attention"),),
                 "none after", id="l11-causal-a-cache-of-its-own"),
    pytest.param(lesson11.causal_attention,
                 lambda: (load_gpt_source("def causal_attention(qs, ks, vs):\n    return [attention_head(q, ks[:t + 1], "
                                          "vs[:t + 1]) for t, q in enumerate(qs)]\n", "causal_attention"),),
                 "none after", id="l11-causal-enumerate"),
    pytest.param(lesson11.causal_attention,
                 lambda: (load_gpt_source(CAUSAL_MASKED.replace("MASK", "-1e9"), "causal_attention"),),
                 "none after", id="l11-causal-every-key-read-the-later-ones-masked-by-minus-1e9"),
    # Two copies of microgpt, each with its own Value class: their sums start from Value(0.0), or their inputs are
    # made Values unless isinstance(v, Value). The check gives them Values of their own class.
    *[pytest.param(getattr(lesson11, name), lambda source=source, name=name: (microgpt_copy(source, name),), words,
                   id=f"l11-{name}-a-copy-of-microgpt-{how}")
      for source, how in ((MICROGPT_SUMS_FROM_ZERO, "summing-from-its-own-value-0"),
                          (MICROGPT_ISINSTANCE, "testing-isinstance-of-its-own-value"))
      for name, words in (("softmax", "no overflow"), ("rmsnorm", "root of its mean square"),
                          ("attention_head", "their softmax"), ("causal_attention", "none after"),
                          ("training_step", "the same losses"))],
    pytest.param(lesson11.sample_next, lambda: (microgpt_copy(MICROGPT_ISINSTANCE, "sample_next"),), "seeded draws",
                 id="l11-sample_next-a-copy-of-microgpt-testing-isinstance-of-its-own-value"),
    pytest.param(lesson11.sample_next, lambda: (load_gpt_source(SAMPLING_BY_HAND, "sample_next"),),
                 "refused with a ValueError", id="l11-sampling-by-hand-refusing-0"),
    pytest.param(lesson11.sample_next, lambda: (load_gpt_source(SAMPLING_NUMPY, "sample_next"),), "seeded draws",
                 id="l11-sampling-numpys-generator"),
    pytest.param(lesson11.parameter_count,
                 lambda: (lambda V, n, B, L: sum(r * c for r, c in [(V, n), (B, n), (V, n)] + L * [(n, n)] * 4
                                                 + L * [(4 * n, n), (n, 4 * n)]),), "4,192",
                 id="l11-count-matrix-by-matrix"),
    pytest.param(lesson11.parameter_count,
                 lambda: (lambda V, n, B, L: np.int64(2 * V * n + B * n) + np.int64(12 * L) * n**2,), "4,192",
                 id="l11-count-numpy-int"),
]


@pytest.mark.parametrize("check, answer, words", CATALOGUE)
def test_every_right_answer_passes_with_a_true_message(check, answer, words):
    verdict = check(*answer())
    assert verdict.status == "passed", f"{key(check)}: a right answer {verdict.status}: {verdict.message}"
    assert words in verdict.message, verdict.message
    assert not any(word in verdict.message for word in NEVER), verdict.message


def test_every_checker_has_two_right_answers_or_more():
    counts = collections.Counter(key(param.values[0]) for param in CATALOGUE)
    every = checkers()
    assert len(every) >= 35, sorted(every)  # the walk finds the lessons' checkers, not nothing
    assert {name: counts[name] for name in every if counts[name] < 2} == {}


def test_a_rounded_answer_is_said_to_be_rounded_and_an_exact_one_is_not():
    # numpy's ln 26 is exact: the verdict must not talk of decimals kept (it used to say "which you rounded to")
    assert "decimal" not in lesson08.uninformed_loss(np.log(26)).message
    assert "decimal" not in lesson08.uninformed_loss(np.log(np.float32(26))).message
    assert "to 3 decimals" in lesson08.uninformed_loss(3.258).message
    assert "decimal" not in lesson03.step_downhill(np.float64(stepped_L(as_value=False)[0])).message
