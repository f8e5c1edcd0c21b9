"""A catalogue of the slips learners really make in the build-it pieces of lessons 2 to 6.

Each entry is a plausible wrong implementation of one piece, written as the solution with a
line or two changed (or in full, when the slip changes its shape), run through the lesson's
checker. Every one must be rejected, never passed, with a message that names the slip in a
learner's words. The lecture's own slips are all here: ``=`` for ``+=``, the missing seed
``root.grad = 1``, a set walked in arbitrary order, the forgotten ``zero_grad``, the update's
sign, an activation never applied (a linear net), subtraction's gradient sign, and ``2 - a``
computed as ``a - 2``.
"""

import collections
import math

import numpy as np
import pytest
from build_stubs import (
    AUTOGRAD_SOLUTION,
    NN_SOLUTION,
    STEP_SOLUTION,
    STEP_WITH_NUMBERS,
    TRAIN_SOLUTION,
    VALUE_SOLUTION,
    load,
    load_lesson4_value,
    load_nn,
    load_nn_on,
    load_train,
)
from gpt_answers import CAUSAL_MASKED, MICROGPT_ISINSTANCE, MICROGPT_VALUE, MICROGPT_SUMS_FROM_ZERO, STEP_KEY, STEP_SLIPS, microgpt_copy
from gpt_answers import load as load_gpt_piece
from gpt_answers import load_source as load_gpt_source

from foreign_nodes import LECTURE_MY_VALUE

from micrograd import Value
from micrograd.course.lessons import lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07
from micrograd.course.lessons import lesson08, lesson09, lesson10, lesson11


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def value(*swaps):
    return (load(VALUE_SOLUTION, *swaps),)


def step(*swaps):
    return (load(STEP_SOLUTION, *swaps),)


def topo(source=AUTOGRAD_SOLUTION, *swaps):
    return (load(source, *swaps, name="my_topological_order"),)


def backward(source=AUTOGRAD_SOLUTION, *swaps):
    return (load(source, *swaps, name="my_backward"),)


def nn(*swaps):
    return load_nn(NN_SOLUTION, *swaps)


def train(*swaps):
    return (load_train(TRAIN_SOLUTION, *swaps),)


ADD = 'return MyValue(self.data + other.data, (self, other), "+")'
MUL = 'return MyValue(self.data * other.data, (self, other), "*")'
NEG = '''
    def __neg__(self):
        return MyValue(-self.data, (self,), "neg")

    def __repr__'''
CHAIN = "child.grad += local * self.grad"
VISIT = (
    "        if node not in visited:\n            visited.add(node)\n            for child in node._prev:\n"
    "                visit(child)\n            order.append(node)"
)
SEED_AND_WALK = (
    "    root.grad = 1.0\n    for node in reversed(order):\n        for child, local in zip(node._prev, node._local_grads):\n"
    "            child.grad += local * node.grad\n"
)
LOSS = "        loss = sum_of_squares([model(x) for x in xs], ys)\n"
# The lecture's class typed in, renamed MyValue, with every Value(...) inside it left as the lecture has it: in a
# lesson, Value is the package's.
RENAMED_ONLY = "from micrograd import Value\n" + LECTURE_MY_VALUE.replace("MyValue", "Value").replace(
    "class Value:", "class MyValue:")


def lecture_step(*swaps):
    """The lecture's class (closures, inputs in a set), with a line or two changed."""
    return (load(LECTURE_MY_VALUE, *swaps),)

STEP_LOOP = "    for k in range(steps):\n" + LOSS
ZERO = "        for p in model.parameters():\n            p.grad = 0.0\n"
UPDATE = "        for p in model.parameters():\n            p.data -= lr * p.grad\n"

RECURSIVE_BACKWARD = '''
def my_backward(root):
    root.grad = 1.0

    def go(node):
        for child, local in zip(node._prev, node._local_grads):
            child.grad += local * node.grad
            go(child)

    go(root)
'''

# The same recursion through each node's own _backward(), the lecture's step: a node reached by two paths
# is stepped twice, which a right loop over an order listing it twice would also give.
RECURSIVE_THROUGH_BACKWARD = '''
def my_backward(root):
    root.grad = 1.0

    def go(node):
        node._backward()
        for child in node._prev:
            go(child)

    go(root)
'''

BREADTH_FIRST_REVERSED = '''
def my_topological_order(root):
    order, seen, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for child in node._prev:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order[::-1]
'''

# (piece, checker, the wrong answer, words its verdict must contain), each with an id naming the slip.
CATALOGUE = [
    # Lesson 2: MyValue ----------------------------------------------------------------------
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(("self._prev = tuple(_children)", "self._prev = set(c.data for c in _children)")),
                 "keep the input Values themselves", id="value-prev-a-set-of-the-inputs-numbers"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value((ADD, "self.data = self.data + other.data\n        return self")),
                 "must return a new MyValue", id="value-add-changes-self-and-returns-it"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value((MUL, 'self.data = self.data * other.data\n        return MyValue(self.data, (self, other), "*")')),
                 "leave the operands alone", id="value-mul-overwrites-its-operand"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(('(self, other), "*")', '(other, self), "*")')),
                 "the other way round", id="value-inputs-reversed"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value((ADD, ADD[len("return "):])),
                 "returned None", id="value-add-forgets-return"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(('(self, other), "+")', '(self.data, other.data), "+")')),
                 "keep the input Values themselves", id="value-prev-holds-numbers"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(("    def __repr__", NEG.replace("    def __repr__", "")
                                + "    def __rsub__(self, other):\n        return self + MyValue(-other)\n\n    def __repr__")),
                 "that is a - 2", id="value-2-minus-a-computed-as-a-minus-2"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(("    def __repr__", NEG.replace("    def __repr__", "")
                                + "    def __sub__(self, other):\n        return self + other\n\n    def __repr__")),
                 "that is a + b", id="value-sub-adds"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(('(self, other), "+")', '(MyValue(self.data), MyValue(other.data)), "+")')),
                 "copies of the inputs", id="value-prev-holds-copies-of-the-inputs"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(("    def __repr__(self):", "    def __str__(self):")),
                 "has __str__ but no __repr__", id="value-str-instead-of-repr"),
    pytest.param("MyValue", lesson02.my_value,
                 lambda: value(('return f"MyValue(data={self.data})"', 'print(f"MyValue(data={self.data})")')),
                 "__repr__ gives None, not text", id="value-repr-prints-instead-of-returning"),
    pytest.param("MyValue", lesson02.my_value, lambda: (load(RENAMED_ONLY),),
                 "__add__ makes a Value (the package's class), not a MyValue", id="value-renamed-but-not-the-value-inside"),
    # Lesson 3: the local derivatives and _backward -------------------------------------------
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step((CHAIN, "child.grad = local * self.grad")),
                 "gradients from the two uses must add up", id="backward-step-equals-for-plus-equals"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("        for child, local in zip(self._prev, self._local_grads):",
                               "        self.grad = 1.0\n        for child, local in zip(self._prev, self._local_grads):")),
                 "set d.grad to 1.0", id="backward-step-sets-its-own-grad-to-1"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step((CHAIN, CHAIN + "\n            child._backward()")),
                 "Don't call the inputs' _backward", id="backward-step-recurses-into-inputs"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step((CHAIN, "child.grad += local")),
                 "the local derivative alone", id="backward-step-forgets-the-upstream-gradient"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step((CHAIN, "child.grad += self.grad")),
                 "multiply it by the local derivative", id="backward-step-forgets-the-local-derivative"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step((CHAIN, "child.grad -= local * self.grad")),
                 "wrong sign", id="backward-step-subtracts"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("zip(self._prev, self._local_grads)", "zip(set(self._prev), self._local_grads)")),
                 "set(self._prev)", id="backward-step-walks-a-set-of-its-inputs"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("self._prev = tuple(_children)", "self._prev = set(_children)")),
                 "_prev a set", id="backward-step-zips-local-grads-with-inputs-kept-in-a-set"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("    def __repr__",
                               "    def __sub__(self, other):\n"
                               "        return MyValue(self.data - other.data, (self, other), '-', _local_grads=(1.0, 1.0))\n\n"
                               "    def __repr__")),
                 "b's local derivative is -1", id="backward-step-subtraction-gradient-sign"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("local_grads = (other.data, self.data)", "local_grads = (self.data, other.data)")),
                 "the two are swapped", id="backward-step-product-rule-swapped"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("local_grads = (1 - t**2,)", "local_grads = (1 - self.data**2,)")),
                 "written with the input n: the rule is written with the output", id="backward-step-tanh-from-its-input"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: step(("local_grads = (1 - t**2,)", "local_grads = (1 - t,)")),
                 "that is 1 - t: square t", id="backward-step-tanh-one-minus-t"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: lecture_step(("self.grad += (1 - t**2) * out.grad", "self.grad += (1 - t) * out.grad")),
                 "hands n.grad = 0.292893, expected 0.5: that is 1 - t", id="backward-step-tanh-one-minus-t-in-a-closure"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: lecture_step(("self.grad += (1 - t**2) * out.grad", "self.grad = (1 - t**2) * out.grad")),
                 "tanh's _backward() sets x.grad (=) where it must add to it (+=)", id="backward-step-tanh-equals-in-a-closure"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: lecture_step(("self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad"),
                                      ("other.grad += 1.0 * out.grad", "other.grad = 1.0 * out.grad")),
                 "the second use overwrites the first", id="backward-step-lecture-add-equals-for-plus-equals"),
    pytest.param("_backward", lesson03.my_backward_step,
                 lambda: lecture_step(("self.grad += other.data * out.grad", "self.grad += self.data * out.grad")),
                 "a * b (at a = 2, b = -3): its _backward() with out.grad = 1 hands a.grad = 2.0, expected -3.0",
                 id="backward-step-lecture-product-rule-own-value"),
    pytest.param("_backward", lesson03.my_backward_step, lambda: (load(RENAMED_ONLY),),
                 "__add__ makes a Value (the package's class), not a MyValue", id="backward-step-renamed-but-not-the-value-inside"),
    # Lesson 4: topological order --------------------------------------------------------------
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, (VISIT, "        for child in node._prev:\n            visit(child)\n"
                                                        "        order.append(node)")),
                 "appears twice", id="topo-no-visited-set"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("if node not in visited:\n            visited.add(node)",
                                                  "if node.label not in visited:\n            visited.add(node.label)")),
                 "by their label", id="topo-visited-by-label"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("if node not in visited:\n            visited.add(node)",
                                                  "if node.data not in visited:\n            visited.add(node.data)")),
                 "by value", id="topo-visited-by-value"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("    return order", "    return list(visited)")),
                 "a set's order", id="topo-returns-the-visited-set-unsorted"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("            order.append(node)", "            order.insert(0, node)")),
                 "that is the backward order", id="topo-root-first"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("    visit(root)\n", "    for child in root._prev:\n        visit(child)\n")),
                 "L is missing", id="topo-leaves-out-the-root"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(BREADTH_FIRST_REVERSED),
                 "only after all of its inputs", id="topo-breadth-first-reversed"),
    pytest.param("topological order", lesson04.my_topological_order,
                 lambda: topo(AUTOGRAD_SOLUTION, ("    return order", "    yield from order")),
                 "which a generator can't do", id="topo-a-generator"),
    # Lesson 4: backward() ---------------------------------------------------------------------
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("child.grad += local * node.grad", "child.grad = local * node.grad")),
                 "instead of adding to it", id="backward-equals-for-plus-equals"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("    root.grad = 1.0\n", "")),
                 "seed the root first", id="backward-without-the-seed"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, (SEED_AND_WALK, SEED_AND_WALK.replace("    root.grad = 1.0\n", "")
                                                      + "    root.grad = 1.0\n")),
                 "seeded after the walk", id="backward-seeds-after-the-walk"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("for node in reversed(order):", "for node in order:")),
                 "from the leaves to the root", id="backward-walks-forwards"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("for node in reversed(order):", "for node in set(order):")),
                 "A set, or any other order", id="backward-walks-a-set"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("child.grad += local * node.grad", "child.grad += local")),
                 "its local derivative alone", id="backward-without-the-chain-rule"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(RECURSIVE_BACKWARD),
                 "once per path", id="backward-recursive-without-an-order"),
    pytest.param("backward()", lesson04.my_backward, lambda: backward(RECURSIVE_THROUGH_BACKWARD),
                 "goes down recursively, calling each node's _backward()", id="backward-recursive-through-backward"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("child.grad += local * node.grad", "child.grad -= local * node.grad")),
                 "wrong sign", id="backward-subtracts"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, ("for node in reversed(order):", "for node in reversed(order[:-1]):")),
                 "the walk skips it", id="backward-seeds-the-root-then-skips-it"),
    pytest.param("backward()", lesson04.my_backward,
                 lambda: backward(AUTOGRAD_SOLUTION, (VISIT, "        for child in node._prev:\n            visit(child)\n"
                                                            "        order.append(node)")),
                 "the order it walks lists m twice", id="backward-right-over-an-order-with-a-node-twice"),
    # Lesson 5: MyNeuron, MyLayer, MyMLP ---------------------------------------------------------
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp, lambda: nn(("return act.tanh()", "return act")),
                 "apply tanh", id="nn-activation-never-applied-linear-net"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp, lambda: nn(("act = self.b\n", "act = Value(0.0)\n")),
                 "add the bias", id="nn-bias-left-out"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("return self.w + [self.b]", "return self.w")),
                 "3 weights and a bias", id="nn-parameters-without-the-bias"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]",
                             "self.layers = [MyLayer(nin, n) for n in nouts]")),
                 "takes the previous layer's outputs", id="nn-every-layer-takes-nin-inputs"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]",
                             "self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts) - 1)]")),
                 "the last layer is missing", id="nn-last-layer-missing"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("self.neurons = [MyNeuron(nin) for _ in range(nout)]", "self.neurons = [MyNeuron(nin)] * nout")),
                 "the same neuron", id="nn-one-neuron-repeated"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("act = act + wi * xi", "act = act + wi.data * xi")),
                 "does not reach its parameters", id="nn-built-from-data"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("        for layer in self.layers:\n            x = layer(x)\n        return x",
                             "        out = x\n        for layer in self.layers:\n            out = layer(x)\n        return out")),
                 "take the previous layer's outputs", id="nn-every-layer-fed-the-input"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("return self.w + [self.b]", "return [w.data for w in self.w] + [self.b.data]")),
                 "not their numbers", id="nn-parameters-are-numbers"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: load_nn_on(STEP_SOLUTION, NN_SOLUTION),
                 "can't be multiplied by one", id="nn-own-value-without-plain-numbers"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: load_nn_on(STEP_SOLUTION, NN_SOLUTION.replace("wi * xi", "wi * MyValue(xi)")),
                 "puts one inside another", id="nn-wraps-every-input-the-next-layers-too"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("return outs[0] if len(outs) == 1 else outs", "return outs")),
                 "returns a list holding its one output", id="nn-layer-returns-a-list-for-one-neuron"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp,
                 lambda: nn(("    def __init__(self, nin):\n        self.w", "    def __init__(self, nin):\n        random.seed(42)\n        self.w")),
                 "all start with the same parameters", id="nn-every-neuron-reseeds-the-random-numbers"),
    # Lesson 6: the training loop -----------------------------------------------------------------
    pytest.param("training loop", lesson06.my_training_loop, lambda: train((ZERO, "")),
                 "never zeroed", id="train-forgets-zero-grad"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((ZERO + "        loss.backward()\n" + UPDATE, UPDATE + ZERO + "        loss.backward()\n")),
                 "before loss.backward() has computed this step's gradients", id="train-updates-before-backward"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((ZERO, "        model.zero_grad()\n")),
                 "the MyMLP this lesson trains does not", id="train-calls-zero-grad-which-my-mlp-lacks"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("losses.append(loss.data)", "losses.append(loss)")),
                 "append the number, losses.append(loss.data)", id="train-keeps-the-losses-as-values"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("p.data -= lr * p.grad", "p.data += lr * p.grad")),
                 "move against its gradient", id="train-update-sign"),
    pytest.param("training loop", lesson06.my_training_loop, lambda: train(("sum_of_squares(", "mse(")),
                 "mean of the squared errors", id="train-mse-for-sum-of-squares"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("        losses.append(loss.data)",
                                "        losses.append(sum_of_squares([model(x) for x in xs], ys).data)")),
                 "before its update", id="train-loss-recorded-after-the-update"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((STEP_LOOP, "    loss = sum_of_squares([model(x) for x in xs], ys)\n    for k in range(steps):\n")),
                 "computed once, before the loop", id="train-forward-pass-outside-the-loop"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((ZERO + "        loss.backward()\n", "        loss.backward()\n" + ZERO)),
                 "no parameter moves", id="train-zero-grad-between-backward-and-update"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("p.data -= lr * p.grad", "p.data -= 0.1 * p.grad")),
                 "use the argument lr", id="train-learning-rate-typed-in"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("p.data -= lr * p.grad", "p.data -= p.grad")),
                 "its whole gradient", id="train-step-without-the-learning-rate"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("p.data -= lr * p.grad", "p.grad -= lr * p.data")),
                 "no parameter moves", id="train-updates-grad-instead-of-data"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((LOSS, "        loss = sum((yout - ygt) for ygt, yout in zip(ys, [model(x) for x in xs]))\n")),
                 "without squaring them", id="train-errors-not-squared"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train((LOSS, "        for x, y in zip(xs, ys):\n            loss = (model(x) - y) ** 2\n")),
                 "one sample alone", id="train-loss-of-the-last-sample-only"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("losses.append(loss.data)", "losses.append(loss.grad)")),
                 "the loss's own gradient", id="train-records-loss-grad"),
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: train(("p.data -= lr * p.grad", "p.data -= lr * (1 - 0.5 * k / steps) * p.grad")),
                 "a learning-rate schedule", id="train-decays-the-learning-rate"),
]


def lesson_f(x):
    return 3 * x**2 - 4 * x + 5


def labelled_neuron(last_label):
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2, b = Value(-3.0, label="w1"), Value(1.0, label="w2"), Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1; x1w1.label = "x1w1"  # noqa: E702
    x2w2 = x2 * w2; x2w2.label = "x2w2"  # noqa: E702
    s = x1w1 + x2w2; s.label = "s"  # noqa: E702
    n = s + b; n.label = last_label  # noqa: E702
    return n


def lesson_walk(make_walk):
    """Lesson 3's L built from the learner's MyValue, and the walk make_walk(L, d, e) lists."""
    cls = load(STEP_SOLUTION)
    a, b, c, f = cls(2.0, label="a"), cls(-3.0, label="b"), cls(10.0, label="c"), cls(-2.0, label="f")
    e = a * b; e.label = "e"  # noqa: E702
    d = e + c; d.label = "d"  # noqa: E702
    L = d * f; L.label = "L"  # noqa: E702
    return L, make_walk(L, d, e)


def lesson7_step(*swaps):
    """Lesson 7's training step (exercise 1) with a line or two changed."""
    source = """
def training_step(model, inputs, y, optimizer, batch):
    scores = [model(inputs[i]) for i in batch]
    loss = losses.hinge(scores, [y[i] for i in batch]) + losses.l2(model.parameters(), 1e-4)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
"""
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    from micrograd import losses

    namespace = {"losses": losses}
    exec(source, namespace)
    return (namespace["training_step"],)


def lesson7_accuracy(wrong):
    import random

    from micrograd import Value, data
    from micrograd.nn import MLP

    model = MLP(2, [8, 1], rng=random.Random(3))
    X, y = data.moons(noise=lesson07.NEW_MOONS_NOISE, seed=lesson07.NEW_MOONS_SEED)
    right = sum((model([Value(v) for v in row]).data > 0) == (label > 0) for row, label in zip(X, y)) / len(y)
    return model, (1 - right if wrong == "error rate" else right)


def own_value_class():
    """microgpt's Value, pasted into a notebook: a class of the learner's module called Value, not the package's."""
    ns = {"__name__": "__main__"}
    exec(MICROGPT_VALUE, ns)
    return ns["Value"]


def sin_of_its_own_class(x):
    Value = own_value_class()
    return Value(math.sin(x.data), (x,), (math.cos(x.data),))


def cross_entropy_of_its_own_class(logits, target):
    Value = own_value_class()
    logits = [Value(z.data) for z in logits]  # the logits' numbers, taken into the copy's class
    total = sum(z.exp() for z in logits)
    return total.log() - logits[target]


def sin_setting_the_gradient(x):
    """sin as the lecture writes an op, with its = for +=: right alone, wrong where x is used twice."""
    out = Value(math.sin(x.data), (x,), "sin")

    def _backward():
        x.grad = math.cos(x.data) * out.grad

    out._backward = _backward
    return out


# Slips in the exercises that ask for a number or a small function, beside the build-it pieces above:
# (checker, the wrong answer, words its verdict must contain).
ANSWER_SLIPS = [
    pytest.param(lesson01.slope_at_minus_one, lambda: ((lesson_f(-1.1) - lesson_f(-1)) / 0.1,), "the wrong sign",
                 id="l01-slope-stepped-left-divided-by-plus-h"),
    pytest.param(lesson01.slope_function, lambda: (lambda g, x, h: (lesson_f(x + h) - lesson_f(x)) / h,),
                 "the lesson's f, not the function it is given", id="l01-slope-function-of-the-lessons-f"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: (f(x + h) - f(x)) * h,),
                 "multiplies the change in f by h", id="l01-slope-function-times-h"),
    pytest.param(lesson01.slope_at_minus_one, lambda: (lesson_f(-1 + 1e-4) - lesson_f(-1),), "not divided by h",
                 id="l01-slope-no-division"),
    pytest.param(lesson01.slope_at_minus_one, lambda: ((lesson_f(1 + 1e-4) - lesson_f(1)) / 1e-4,),
                 "the slope at x = 1, not at x = -1", id="l01-slope-at-plus-one"),
    pytest.param(lesson01.slope_at_minus_one, lambda: ((lesson_f(-1 + 1e-4) - lesson_f(-1)) * 1e-4,), "times h",
                 id="l01-slope-times-h"),
    pytest.param(lesson01.slope_at_minus_one, lambda: (6 * -1 + 4,), "6x + 4", id="l01-slope-six-x-plus-four"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: (f(x + 1e-6) - f(x - 1e-6)) / 2e-6,),
                 "nudge by the argument h", id="l01-slope-function-central-own-h"),
    pytest.param(lesson01.slope_function, lambda: (lambda f, x, h: (f(x + 1e-6) - f(x)) / 1e-6,),
                 "nudge by the argument h", id="l01-slope-function-forward-own-h"),
    pytest.param(lesson02.division_local_grads, lambda: ((1 / 3, -2.0),), "is -a/b, which divides by b once",
                 id="l02-division-minus-a-over-b"),
    pytest.param(lesson02.division_local_grads, lambda: (("0.333", "-0.667"),), "written without quotes",
                 id="l02-division-typed-as-text"),
    pytest.param(lesson02.count_nodes_and_edges, lambda: (4, 3), "the two counts swapped",
                 id="l02-count-swapped"),
    pytest.param(lesson02.count_nodes_and_edges, lambda: (3, 5), "5 edges is too many",
                 id="l02-count-one-edge-too-many"),
    pytest.param(lesson04.grad_after_three_backwards, lambda: (10, 27, load_lesson4_value()), "two backward() calls",
                 id="l04-three-counted-two-calls"),
    pytest.param(lesson04.grad_after_three_backwards, lambda: (27, 27, load_lesson4_value()),
                 "and your MyValue, gives after three calls", id="l04-three-mine-for-the-package"),
    pytest.param(lesson04.grad_after_three_backwards, lambda: (15, 15, load_lesson4_value()),
                 "15 is the package's Value's", id="l04-three-the-package-for-mine"),
    pytest.param(lesson04.analytic_gradient,
                 lambda: (lambda a, b, c: [c**-2, 3 * math.cos(3 * b) + 2.5 * b**1.5, -3 * a**2 - 0.5 * a**-0.5],),
                 "in another order", id="l04-gradient-partials-reversed"),
    pytest.param(lesson04.sin_op,
                 lambda: (lambda x: Value.from_op(math.sin(x.data), (x,), (math.cos(math.sin(x.data)),), "sin"),),
                 "cos of sin's output", id="l04-sin-cos-of-the-output"),
    pytest.param(lesson04.sin_op, lambda: (sin_setting_the_gradient,), "sets x.grad (=) where it must add to it (+=)",
                 id="l04-sin-closure-sets-the-gradient"),
    pytest.param(lesson04.sin_op, lambda: (sin_of_its_own_class,),
                 "returned Value (from module __main__); return the package's Value (from module micrograd.engine)",
                 id="l04-sin-a-value-of-microgpts-class"),
    pytest.param(lesson08.cross_entropy_by_hand, lambda: (cross_entropy_of_its_own_class,),
                 "it returns Value (from module __main__); return one Value, the loss, built from the logits' own "
                 "operations, so that it is the package's Value (from module micrograd.engine)",
                 id="l08-cross-entropy-a-value-of-microgpts-class"),
    pytest.param(lesson02.neuron_graph, lambda: (labelled_neuron("o"),), "label it 'n'", id="l02-neuron-last-label-o"),
    pytest.param(lesson03.walk_by_hand, lambda: lesson_walk(lambda L, d, e: ["L", "d", "e"]), "is a label, text",
                 id="l03-walk-labels-not-nodes"),
    pytest.param(lesson03.walk_by_hand, lambda: lesson_walk(lambda L, d, e: [L._backward, d._backward, e._backward]),
                 "L._backward is the node's method", id="l03-walk-bound-methods"),
    pytest.param(lesson03.walk_by_hand, lambda: lesson_walk(lambda L, d, e: [L._backward(), d._backward(), e._backward()]),
                 "the walk holds None", id="l03-walk-of-what-backward-returns"),
    pytest.param(lesson05.parameter_count,
                 lambda: (lambda nin, nouts: sum((a + 1) * b for a, b in zip([nin] + nouts[:-1], nouts[:-1])),),
                 "the last layer is left out", id="l05-count-without-the-last-layer"),
    pytest.param(lesson07.training_step, lambda: lesson7_step(("1e-4", "1e-3")), "weighted by 0.001",
                 id="l07-step-another-weight-decay"),
    pytest.param(lesson07.training_step, lambda: lesson7_step(("losses.hinge(scores, [y[i] for i in batch])", "losses.mse(scores, [y[i] for i in batch])")),
                 "is it losses.hinge(scores, labels) + losses.l2", id="l07-step-another-loss"),
    pytest.param(lesson07.training_step,
                 lambda: lesson7_step(("    loss.backward()\n", "    loss.backward()\n    loss.backward()\n")),
                 "backward() ran twice", id="l07-step-backward-twice"),
    pytest.param(lesson07.training_step,
                 lambda: lesson7_step(("    optimizer.step()\n", "    optimizer.step()\n    optimizer.step()\n")),
                 "step() ran 2 times", id="l07-step-step-twice"),
    pytest.param(lesson07.training_step,
                 lambda: lesson7_step(("    optimizer.step()\n",
                                       "    for p in model.parameters():\n        p.data += 0.5 * p.grad\n")),
                 "uphill, where the loss grows", id="l07-step-manual-update-uphill"),
    pytest.param(lesson07.training_step, lambda: lesson7_step(("    return loss\n", "    return loss.data\n")),
                 "loss Value itself, loss (not loss.data)", id="l07-step-returns-the-losss-number"),
    pytest.param(lesson07.new_moons_accuracy, lambda: lesson7_accuracy("error rate"), "the error rate",
                 id="l07-accuracy-the-error-rate"),
    pytest.param(lesson09.broken_op, lambda: (lesson09.suspect_function,), "built from the four suspects",
                 id="l09-broken-the-whole-function"),
    pytest.param(lesson09.broken_op, lambda: (lambda x: x,), "a lambda is not one of the suspects",
                 id="l09-broken-a-lambda-shown-readably"),
    pytest.param(lesson10.node_count, lambda: (824,), "the number of edges", id="l10-count-the-edges"),
    pytest.param(lesson10.node_count, lambda: ((262, 824),), "the first of the two", id="l10-count-graph-size-pair"),
    pytest.param(lesson10.c_port_formula,
                 lambda: (lambda nin, nouts, n: str(lesson10._c_port_node_count(nin, nouts, n)),),
                 "text: write the number without quotes", id="l10-formula-returns-text"),
    pytest.param(lesson10.fused_loss,
                 lambda: (lambda ps, ts: Value.from_op(sum((p.data - t) ** 2 for p, t in zip(ps, ts)) / len(ps), ps,
                                                       [2 * (p.data - t) / len(ps) for p, t in zip(ps, ts)], "mse"),),
                 "the mean of the squared errors", id="l10-fused-the-mean"),
    pytest.param(lesson08.accuracy_from_confusion, lambda: (lambda m: 1 - np.trace(m) / np.sum(m),), "the error rate",
                 id="l08-accuracy-the-error-rate"),
    pytest.param(lesson11.softmax,
                 lambda: (load_gpt_piece("lesson 11: softmax", ("max(val.data for val in logits)", "0.0")),),
                 "Subtract the largest logit", id="l11-softmax-without-the-max-overflows"),
    pytest.param(lesson11.softmax, lambda: (load_gpt_piece("lesson 11: softmax", ("max(val.data for val in logits)",
                                                                                  "min(val.data for val in logits)")),),
                 "it subtracts the smallest logit", id="l11-softmax-shifted-by-the-smallest-logit"),
    pytest.param(lesson11.rmsnorm, lambda: (load_gpt_piece("lesson 11: rmsnorm", ("(ms + 1e-5)", "(ms + 1e-8)")),),
                 "its epsilon is 1e-8", id="l11-rmsnorm-another-epsilon"),
    pytest.param(lesson11.attention_head,
                 lambda: (load_gpt_piece("lesson 11: attention_head", (" / head_dim**0.5", "")),),
                 "not divided by √head_dim", id="l11-head-scores-not-scaled"),
    pytest.param(lesson11.causal_attention,
                 lambda: (load_gpt_source("def causal_attention(qs, ks, vs):\n    return [attention_head(qs[t], ks, vs) "
                                          "for t in range(len(qs))]\n", "causal_attention"),),
                 "looks at later positions", id="l11-causal-reads-every-key"),
    pytest.param(lesson11.causal_attention,
                 lambda: (load_gpt_source("def causal_attention(qs, ks, vs):\n    return [attention_head(qs[0], "
                                          "ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]\n", "causal_attention"),),
                 "position 1 gives", id="l11-causal-one-query-for-every-position"),
    pytest.param(lesson11.causal_attention,
                 lambda: (load_gpt_source(CAUSAL_MASKED.replace("MASK", "Value(float('-inf'))"), "causal_attention"),),
                 "refuses a mask of -inf, GPT-2's way", id="l11-causal-masked-by-minus-infinity"),
    # microgpt's Value copied without backward(): no class to build the check from, so it meets the package's.
    pytest.param(lesson11.softmax,
                 lambda: (microgpt_copy(MICROGPT_SUMS_FROM_ZERO.replace("def backward", "def _backward_"), "softmax"),),
                 "returns a Value (from module __main__) that holds a Value (from module micrograd.engine) in .data",
                 id="l11-softmax-summing-from-a-value-of-another-class"),
    pytest.param(lesson11.softmax,
                 lambda: (microgpt_copy(MICROGPT_ISINSTANCE.replace("def backward", "def _backward_"), "softmax"),),
                 "Values of Value (from module micrograd.engine), and a Value (from module __main__), your module's "
                 "class, was handed one of them", id="l11-softmax-wrapping-the-checks-values-in-another-class"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, *STEP_SLIPS["cache-kept-across-documents"][0]),),
                 "KV cache is kept", id="l11-step-a-kv-cache-kept-across-documents"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, *STEP_SLIPS["no-bias-correction"][0]),),
                 "Adam without bias correction", id="l11-step-adam-without-bias-correction"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, *STEP_SLIPS["bias-correction-one-step-late"][0]),),
                 "one step late", id="l11-step-bias-correction-one-step-late"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, *STEP_SLIPS["pytorchs-betas"][0]),),
                 "beta1 is 0.9, microgpt's 0.85", id="l11-step-pytorchs-betas"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, *STEP_SLIPS["learning-rate-0.003"][0]),),
                 "learning_rate is 0.003, microgpt's 0.01", id="l11-step-another-learning-rate"),
    pytest.param(lesson11.training_step, lambda: (load_gpt_piece(STEP_KEY, ("    return loss.data", "    return loss")),),
                 "return its number, loss.data", id="l11-step-returns-the-loss-value"),
    pytest.param(lesson11.parameter_count, lambda: (lambda V, n, B, L: 2 * V * n + B * n + L * (12 * n * n + 9 * n),),
                 "microgpt has none", id="l11-count-with-biases"),
    pytest.param(lesson11.parameter_count, lambda: (lambda V, n, B, L: V * n + B * n + L * 12 * n * n,),
                 "lm_head is missing", id="l11-count-without-lm-head"),
    pytest.param(lesson11.sample_next,
                 lambda: (load_gpt_source("def sample_next(logits, temperature):\n    probs = softmax([l / temperature "
                                          "for l in logits])\n    return random.choices(range(len(logits)), "
                                          "weights=[p.data for p in probs])[0]\n", "sample_next"),),
                 "at temperature 0 it divides by zero", id="l11-sampling-at-temperature-0"),
    pytest.param(lesson11.sample_next,
                 lambda: (load_gpt_source("def sample_next(logits, temperature):\n    if temperature == 0:\n"
                                          "        return max(range(len(logits)), key=lambda i: logits[i].data)\n"
                                          "    return random.choices(range(len(logits)), weights=[l.data / temperature "
                                          "for l in logits])[0]\n", "sample_next"),),
                 "in proportion to the logits", id="l11-sampling-from-the-logits"),
]


@pytest.mark.parametrize("check, answer, words", ANSWER_SLIPS)
def test_every_answer_slip_is_rejected_and_named(check, answer, words):
    verdict = check(*answer())
    assert verdict.status == "failed", f"a wrong answer {verdict.status}: {verdict.message}"
    assert words in verdict.message, verdict.message


@pytest.mark.parametrize("piece, check, answer, words", CATALOGUE)
def test_every_slip_is_rejected_and_named(piece, check, answer, words):
    verdict = check(*answer())
    assert verdict.status == "failed", f"{piece}: a wrong answer {verdict.status}: {verdict.message}"
    assert words in verdict.message, f"{piece}: {verdict.message}"
    status, message, *_ = check.__wrapped__(*answer())  # called quietly, as the lessons' loader does
    assert status == "failed" and words in message, message


def test_the_catalogue_has_five_slips_or_more_for_every_piece():
    counts = collections.Counter(param.values[0] for param in CATALOGUE)
    assert set(counts) == {"MyValue", "_backward", "topological order", "backward()", "MyNeuron/MyLayer/MyMLP",
                           "training loop"}
    assert min(counts.values()) >= 5, counts


@pytest.mark.parametrize("check, answer", [
    (lesson02.my_value, lambda: value()),
    (lesson03.my_backward_step, lambda: step()),
    (lesson04.my_topological_order, lambda: topo()),
    (lesson04.my_backward, lambda: backward()),
    (lesson05.my_mlp, lambda: nn()),
    (lesson05.my_mlp, lambda: load_nn_on(STEP_WITH_NUMBERS, NN_SOLUTION)),
    (lesson06.my_training_loop, lambda: train()),
])
def test_the_right_pieces_pass(check, answer):
    assert check(*answer()).passed


def test_the_solutions_own_micrograd_passes_every_build_it_check():
    # The pieces as the solution notebooks save them, each lesson building on the one before (lesson 4's
    # extra operations on lesson 3's MyValue, lesson 5's neurons on it): none is mistaken for a slip.
    import pathlib
    import random

    source = (pathlib.Path(__file__).parent.parent / "notebooks" / "solutions" / "my_micrograd.py").read_text()
    sections = source.split("\n# %% ")
    namespace = {"random": random}
    exec(sections[0], namespace)
    verdicts = {}
    for section in sections[1:]:
        title, _, code = section.partition("\n")
        exec(code, namespace)
        if title == "lesson 2: MyValue":
            verdicts[title] = lesson02.my_value.__wrapped__(namespace["MyValue"])
    verdicts["lesson 3: MyValue, with lesson 4's operations"] = lesson03.my_backward_step.__wrapped__(namespace["MyValue"])
    verdicts["lesson 4: my_topological_order"] = lesson04.my_topological_order.__wrapped__(namespace["my_topological_order"])
    verdicts["lesson 4: my_backward"] = lesson04.my_backward.__wrapped__(namespace["my_backward"])
    verdicts["lesson 5"] = lesson05.my_mlp.__wrapped__(namespace["MyNeuron"], namespace["MyLayer"], namespace["MyMLP"])
    verdicts["lesson 6"] = lesson06.my_training_loop.__wrapped__(namespace["my_train"])
    assert {title: verdict[0] for title, verdict in verdicts.items()} == dict.fromkeys(verdicts, "passed"), verdicts
