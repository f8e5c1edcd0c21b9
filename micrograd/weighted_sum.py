"""A neuron's ``w·x + b`` as one node: the engine's main speed-up.

Built from ``*`` and ``+``, a neuron with n inputs makes 2n nodes; here it
makes one, with the same number (summed in the same order, so bit for bit)
and the same gradients.  When the inputs are plain numbers (a data sample)
they are constants: they get no nodes and no gradients, which halves the
work of a first layer with many inputs.

Without a bias (``bias=None``) it is a plain dot product, ``w0*x0 + w1*x1 + ...``: the GPT's
matrix rows, attention scores and weighted sums of values are each one such node.

``nn`` uses the three steps separately so that a layer checks and reads its
inputs once for all of its neurons: ``weighted_sum_inputs`` (check),
``input_numbers`` (read), ``fused_weighted_sum`` (one node per neuron).
"""

from . import checks
from .engine import Value, result_node

__all__ = ["weighted_sum", "dot", "weighted_sum_inputs", "input_numbers", "fused_weighted_sum", "WEIGHTED_SUM", "DOT"]

WEIGHTED_SUM = "w·x+b"  # the op name of the node, as drawings show it
DOT = "w·x"  # the op name of the node without a bias

_FLOAT_ONLY = frozenset({float})
_VALUE_ONLY = frozenset({Value})


def weighted_sum(weights, inputs, bias=None):
    """``bias + w0*x0 + w1*x1 + ...`` as one node.

    The node's inputs are (w0, ..., wn, x0, ..., xn, bias) with local
    derivatives (x0, ..., xn, w0, ..., wn, 1); when every x is a plain
    number, only (w0, ..., wn, bias), with local derivatives (x0, ..., xn, 1).
    ``bias=None`` (or left out): no bias input, ``w0*x0 + w1*x1 + ...``
    summed from 0.0, the node named ``w·x`` rather than ``w·x+b``.
    """
    weights = [w if isinstance(w, Value) else Value(w) for w in weights]
    inputs = weighted_sum_inputs(inputs)
    if len(weights) != len(inputs):
        raise ValueError(f"weighted_sum got {len(weights)} weights but {len(inputs)} inputs; they must match")
    if bias is not None and not isinstance(bias, Value):
        bias = Value(bias)
    return fused_weighted_sum(weights, inputs, input_numbers(inputs), bias)


dot = weighted_sum  # the name this function had first


def weighted_sum_inputs(inputs):
    """Inputs as the weighted sum takes them: all floats (constants), or else all Values."""
    inputs = list(inputs)
    kinds = set(map(type, inputs))  # the two common cases, told apart in one pass at C speed
    if kinds <= _FLOAT_ONLY or kinds == _VALUE_ONLY:
        return inputs
    if any(isinstance(x, Value) for x in inputs):
        return [x if isinstance(x, Value) else Value(x) for x in inputs]
    return [checks.number(x, "an input") for x in inputs]


def input_numbers(inputs):
    """The numbers of ``weighted_sum_inputs()``: the list itself when they are constants."""
    if not inputs or type(inputs[0]) is float:
        return inputs
    return [x.data for x in inputs]


def fused_weighted_sum(weights, inputs, numbers, bias):
    """The node itself, for equally long, checked lists; ``numbers = input_numbers(inputs)``."""
    if bias is None:
        return _fused_dot(weights, inputs, numbers)
    total = bias.data
    if numbers is inputs:  # constants: only the weights and the bias are inputs of the node
        for w, x in zip(weights, numbers):
            total += w.data * x
        return result_node(total, (*weights, bias), (*numbers, 1.0), WEIGHTED_SUM)
    weight_numbers = [w.data for w in weights]  # read once: the sum and the local derivatives both need them
    for w, x in zip(weight_numbers, numbers):
        total += w * x
    return result_node(total, (*weights, *inputs, bias), (*numbers, *weight_numbers, 1.0), WEIGHTED_SUM)


def _fused_dot(weights, inputs, numbers):
    """``fused_weighted_sum`` without a bias: ``0.0 + w0*x0 + w1*x1 + ...``, as Python's
    ``sum(w * x for ...)`` adds them up."""
    total = 0.0
    if numbers is inputs:
        for w, x in zip(weights, numbers):
            total += w.data * x
        return result_node(total, tuple(weights), tuple(numbers), DOT)
    weight_numbers = [w.data for w in weights]
    for w, x in zip(weight_numbers, numbers):
        total += w * x
    return result_node(total, (*weights, *inputs), (*numbers, *weight_numbers), DOT)
