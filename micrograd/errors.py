"""The engine's guard rails: numbers turned into floats, and bad input turned into clear errors.

The engine calls these so that its own code can stay the arithmetic and the chain rule.  Every
error says what was wrong and what to do about it, and is raised at the operation that caused it,
not somewhere later in training.  Here too: the order given to inputs held in a set (micrograd
0.1.0's ``Value(data, {a, b})``), and the check after ``backward()`` that no gradient went
infinite, which is where the rule for 0 × ∞ lives.
"""

import math
import numbers
import operator

from .nodes import SETS, has_data, stable_order

__all__ = [
    "as_float", "comparable", "children", "dot_inputs", "check_gradients_finite", "custom_op", "no_backward", "label", "result_not_finite", "exp_overflow",
    "log_domain", "divide_by_zero", "exponent", "value_exponent", "gradient_not_finite",
]


def _describe(x):
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _real(x, what):
    """x as a real number: itself, or the one number of a 0-d array; None if it is not one."""
    if isinstance(x, (float, int)) or isinstance(x, numbers.Real):  # the fast check first
        return x
    shape = getattr(x, "shape", None)
    if shape == ():
        return x.item()  # a 0-d numpy array holds one number
    if shape is not None:
        raise TypeError(
            f"{what} got a {type(x).__name__} of shape {tuple(shape)}, but a Value holds one number; "
            "make one Value per element, e.g. [Value(x) for x in array.flat]"
        )
    return None


def as_float(x, what="Value()"):
    """Return ``x`` as a finite float, or say clearly why it cannot be one."""
    real = _real(x, what)
    if real is None:
        wrong = f"{what} takes a real number (int or float), got {type(x).__name__} {_describe(x)}"
        if has_data(x):  # micrograd 0.1.0 would keep it, and compute on Values inside Values
            if what == "Value()":
                raise TypeError(f"{wrong}, which is a node already: use it as it is, "
                                "or Value(v.data) for a new leaf that holds its number")
            raise TypeError(f"{wrong}, which is a node of a graph: give its number, .data")
        raise TypeError(wrong)
    try:
        x = float(real)
    except OverflowError:
        raise OverflowError(
            f"{what} got {_describe(real)}, which is too large for a float (about 1.8e308 at most); rescale it"
        ) from None
    if not math.isfinite(x):
        raise ValueError(f"{what} got {x}, but a Value must hold a finite number; check the computation that produced it")
    return x


def comparable(x, what="an operator"):
    """The number to compare a Value's data with, or None if ``x`` is not one.

    Ints are kept as they are, so the comparison is exact as in Python itself:
    ``2.0 < 10**400`` and ``2.0**53 < 2**53 + 1`` are both True.
    """
    real = _real(x, what)
    return real if isinstance(real, (float, int)) or isinstance(real, numbers.Real) else None


def children(inputs, value_type):
    """The inputs of a node as a tuple of Values, as ``Value(data, (a, b), '+')`` gives them: in
    operand order, or in the graph's own stable order when given as a set (a set's order follows
    memory addresses, different in every run)."""
    if isinstance(inputs, SETS) and len(inputs) > 1:
        inputs = stable_order(inputs)
    try:
        inputs = tuple(inputs)
    except TypeError:
        raise TypeError(
            "Value(data, _children=(), _op='', label=''): the second argument is the tuple of Values the "
            f"result was computed from, or a label string; got {type(inputs).__name__} {_describe(inputs)}"
        ) from None
    for child in inputs:
        if not isinstance(child, value_type):
            raise TypeError(
                f"Value(data, _children, _op): every child must be a Value, got {type(child).__name__} "
                f"{_describe(child)}; wrap a number in Value() first"
            )
    return inputs


def dot_inputs(inputs, value_type):
    """Inputs as ``dot`` takes them: all floats (constants, which get no nodes), or else all Values."""
    inputs = list(inputs)
    kinds = set(map(type, inputs))  # the two common cases, told apart in one pass at C speed
    if kinds <= _FLOAT_ONLY or kinds == {value_type}:
        return inputs
    if any(isinstance(x, value_type) for x in inputs):
        return [x if isinstance(x, value_type) else value_type(x) for x in inputs]
    return [as_float(x, "an input") for x in inputs]


_FLOAT_ONLY = frozenset({float})


def op_name(op):
    """An op's name as drawings show it: text."""
    if not isinstance(op, str):
        raise TypeError(f"_op is the name of the operation as text, e.g. '+'; got {type(op).__name__} {_describe(op)}")
    return op


def custom_op(data, inputs, local_grads, op, value_type):
    """(data, inputs, local_grads) of ``Value.from_op``, checked: one local derivative per input."""
    inputs = children(inputs, value_type)
    local_grads = tuple(as_float(g, f"{op}'s local derivative") for g in local_grads)
    if len(inputs) != len(local_grads):
        raise ValueError(f"{op} has {len(inputs)} inputs but {len(local_grads)} local derivatives; give one per input")
    return as_float(data, f"{op}'s output"), inputs, local_grads


def no_backward(op):
    return RuntimeError(
        f"the {op or 'unnamed'} node has inputs but no way to pass gradients to them: make it with "
        "Value.from_op(data, inputs, local_grads, op), or assign its _backward function"
    )


def label(text):
    if not isinstance(text, str):
        raise TypeError(f"a Value's label is a string, got {type(text).__name__} {_describe(text)}; e.g. label='a'")
    return text


def result_not_finite(op, inputs, data):
    return OverflowError(
        f"{op} of {', '.join(repr(i.data) for i in inputs)} gives {data}, which is not a finite float; "
        "rescale the inputs or use a numerically stable formulation"
    )


def exp_overflow(x):
    return OverflowError(
        f"exp({x}) overflows a float (exp(x) is finite only for x < 709.78); scale the input down, "
        "or use a stable formulation such as subtracting the largest logit before a softmax"
    )


def log_domain(x):
    return ValueError(
        f"log({x}) is undefined: log needs a positive input; clip the input (e.g. log(p + 1e-12)) "
        "or compute the log in a stable way (log-softmax)"
    )


def divide_by_zero(numerator):
    return ZeroDivisionError(
        f"division of {numerator} by a Value that is 0; make sure the divisor cannot be zero (e.g. add a small epsilon)"
    )


def exponent(n, x):
    """A number exponent of ``x ** n`` as a float, or None if ``n`` is not a number.

    Refuses the exponents that make ``x ** n`` undefined or not real.
    """
    if comparable(n) is None:
        return None
    n = as_float(n, "the exponent")
    if x == 0.0 and n < 0:
        raise ZeroDivisionError(f"0 ** {n} is undefined (division by zero): the base must not be 0 for a negative exponent")
    if x < 0.0 and not n.is_integer():
        raise ValueError(f"({x}) ** {n} is not a real number: a negative base needs an integer exponent")
    return n


def value_exponent(x):
    """Refuse ``x ** Value``: its derivative with respect to the exponent needs ln(x)."""
    if x <= 0.0:
        raise ValueError(
            f"({x}) ** Value: a Value exponent needs a positive base, because the derivative with respect "
            "to the exponent is out * ln(base)"
        )


def check_gradients_finite(order):
    """Raise, naming the node, if backward() met an infinite or nan gradient or local derivative.

    Each node's gradient times the sum of its local derivatives is, near enough, what it passed
    down.  Summed over the graph in one pass at C speed, that is infinite or nan when an inf or nan
    reached an input (a leaf included) or a local derivative is infinite, even on a node skipped at
    gradient 0 (0 × ∞ is nan: PyTorch would pass it on, this engine reports it); only then are the
    nodes searched.  The total is cheap, not thorough: huge local derivatives of opposite signs
    cancel in it, and a leaf is not looked at on its own, so one whose gradient overflows only when
    added to what an earlier call left there stays inf without an error.  Nodes made the lecture's
    way record no local derivatives; their ``_backward`` is not summed."""
    try:
        passed_down = sum(map(operator.mul, map(_GRAD, order), map(sum, map(_LOCAL_GRADS, order))))
    except TypeError:  # a node without local derivatives (None)
        passed_down = sum(node.grad * sum(node._local_grads) for node in order if node._local_grads is not None)
    if not -math.inf < passed_down < math.inf:
        error = gradient_not_finite(order)
        if error:
            raise error


_GRAD, _LOCAL_GRADS = operator.attrgetter("grad"), operator.attrgetter("_local_grads")


def gradient_not_finite(order):
    """The error for a backward() whose gradients went infinite or nan, or None if none did.

    ``order`` is the topological order backward() used, without the leaves.
    Gradients flow from the root down, so the first edge (from the root down)
    whose contribution ``local * upstream`` is not finite is where it went
    wrong: a local derivative that is infinite there (``x ** 0.5`` at 0,
    ``log`` of a subnormal), or a product of finite factors too large for a float.
    """
    for node in reversed(order):
        if node._local_grads is None or not math.isfinite(node.grad):
            continue  # its own _backward function, or already reported above
        for i, (child, local) in enumerate(zip(node._inputs, node._local_grads)):
            where = f"input {i} ({_node_name(child)}) of {_node_name(node)}"
            if not math.isfinite(local) and not node.grad:
                return OverflowError(
                    f"backward(): {_node_name(node)} has an infinite derivative with respect to its input {i} "
                    f"({_node_name(child)}), and the gradient arriving at it is 0: 0 × ∞ has no value "
                    "(PyTorch gives nan); keep the input away from that point (e.g. add a small epsilon)"
                )
            if not math.isfinite(local):
                return OverflowError(
                    f"backward(): the derivative of {node.op} at {_data_of(node)} with respect to {where} "
                    "is infinite; keep the input away from that point (e.g. add a small epsilon)"
                )
            if not math.isfinite(local * node.grad):
                return OverflowError(
                    f"backward(): the gradient overflows a float at {where}: local derivative {local} × "
                    f"upstream gradient {node.grad}; rescale the computation (e.g. smaller constants or inputs)"
                )
    # Then the sums: a node's, or a leaf's (the order holds no leaves: they are read through their users).
    bad = [node for node in reversed(order) if not math.isfinite(node.grad)]
    bad += [child for node in reversed(order) for child in node._inputs if not math.isfinite(child.grad)]
    if bad:
        return OverflowError(
            f"backward(): the gradient of {_node_name(bad[0])} is {bad[0].grad}: finite contributions "
            "added up past a float; rescale the computation"
        )
    return None  # every contribution and every gradient is finite: only the running total overflowed


def _node_name(node):
    name = node.label or (f"the {node.op} node" if node.op else "a leaf")
    return f"{name} = {node.data!r}"


def _data_of(node):
    return ", ".join(repr(i.data) for i in node._inputs)
