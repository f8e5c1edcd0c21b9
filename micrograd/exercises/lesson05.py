"""Checkers for lesson 5, neurons, layers and MLPs.

Parameter and node counts are taken from real models built here (their
``parameters()`` and ``graph_size``), and a neuron's output from ``math``,
so the expected answers never come from the learner's own formula.
"""

import math
import numbers

from ..engine import Value, graph_size
from ..nn import MLP, Neuron
from .checking import checker, close, failed, passed

__all__ = ["parameter_count", "neuron_nodes", "neuron_output"]


def _whole_number_problem(what, answer):
    if isinstance(answer, bool) or not isinstance(answer, numbers.Integral):
        return f"{what} is {answer!r} ({type(answer).__name__}); a count is a whole number, e.g. 41"
    return None


@checker("Exercise 1: parameter_count(nin, nouts)")
def parameter_count(count):
    if not callable(count):
        return failed(f"pass the function itself (check.parameter_count(parameter_count)), not {type(count).__name__}")
    shapes = [(3, [4, 4, 1]), (2, [16, 16, 1]), (5, [1]), (1, [3, 2])]
    for nin, nouts in shapes:
        result = count(nin, list(nouts))
        call = f"parameter_count({nin}, {nouts})"
        problem = _whole_number_problem(call, result)
        if problem:
            return failed(problem)
        expected = len(MLP(nin, nouts, rng=0).parameters())
        if result == expected:
            continue
        sizes = [nin] + nouts
        weights = sum(a * b for a, b in zip(sizes, sizes[1:]))
        if result == weights:
            return failed(f"{call} gives {result}, the weights only: every neuron also has a bias")
        if result == weights + len(nouts):
            return failed(f"{call} gives {result}: one bias per layer, but each neuron has its own")
        if result == sum((nin + 1) * n for n in nouts):
            return failed(f"{call} gives {result}: a layer's neurons have one weight per output of the layer before, not per model input")
        return failed(f"{call} gives {result}, not the number of parameters; hint: a neuron with k inputs has k weights and a bias")
    return passed("a layer of nout neurons with nin inputs each has (nin + 1) · nout parameters; add them up")


@checker("Exercise 2: the nodes of one neuron's forward pass")
def neuron_nodes(answer):
    problem = _whole_number_problem("your answer", answer)
    if problem:
        return failed(problem)
    nin = 5
    neuron = Neuron(nin, activation="tanh", rng=0)
    inputs = [0.5] * nin
    expected, _ = graph_size(neuron(inputs))
    if answer == expected:
        return passed(f"{expected} nodes: {nin} weights, the bias, one w·x+b node and the tanh; plain-number inputs make no nodes")
    with_input_nodes, _ = graph_size(neuron([Value(x) for x in inputs]))
    if answer == with_input_nodes:
        return failed(f"{answer} counts the inputs too; plain numbers are constants inside the w·x+b node, not nodes")
    total = neuron.b
    for w, x in zip(neuron.w, inputs):
        total = total + w * x
    built, _ = graph_size(total.tanh())
    if answer == built:
        return failed(f"{answer} is the count for a sum built from * and +; the neuron makes its weighted sum one node")
    if answer == expected - 1:
        return failed(f"{answer} is one short: did you count the weights, the bias, the sum and the tanh?")
    return failed(f"{answer} is not it; hint: list the Values one call makes: parameters, the weighted sum, the activation")


@checker("Exercise 3: neuron_output(w, x, b)")
def neuron_output(output):
    if not callable(output):
        return failed(f"pass the function itself (check.neuron_output(neuron_output)), not {type(output).__name__}")
    cases = [
        ([0.5, -0.25, 1.0], [2.0, 3.0, -1.0], 0.1),
        ([1.0], [0.3], -0.2),
        ([-0.7, 0.2], [1.5, -2.0], 0.4),
    ]
    for w, x, b in cases:
        total = math.fsum([b] + [wi * xi for wi, xi in zip(w, x)])
        expected = math.tanh(total)
        result = output(list(w), list(x), b)
        result = getattr(result, "data", result)
        call = f"neuron_output({w}, {x}, {b})"
        if isinstance(result, bool) or not isinstance(result, numbers.Real):
            return failed(f"{call} returns {result!r} ({type(result).__name__}); return one number")
        if close(result, expected, 1e-9):
            continue
        if close(result, total, 1e-9):
            return failed(f"{call} returns w·x + b = {total:.4f}; the neuron squashes it with tanh")
        if close(result, math.tanh(total - b), 1e-9):
            return failed(f"{call} leaves out the bias b")
        if close(result, math.tanh(sum(w) * sum(x) + b), 1e-9):
            return failed(f"{call}: multiply each weight by its own input, then add those products")
        return failed(f"{call} returns {result:.6g}, not tanh(w·x + b); hint: w·x is Σ w_i x_i")
    return passed("tanh(w·x + b): what every neuron of an MLP computes")
