"""A scalar autograd engine: `Value` and the chain rule.

Every operation does two things at once: it computes its output, and it
records the *local derivative* of that output with respect to each of its
inputs.  For ``c = a * b`` that is ``(b.data, a.data)``.  Backpropagation is
then nothing more than the chain rule applied in one loop: visit the nodes
from the output back to the inputs and, for each recorded pair, do
``input.grad += local * node.grad``.

Recording numbers instead of closures keeps every graph free of reference
cycles, so a graph is freed the moment its last reference goes, and it lets
a teaching tool show each ``grad += local * upstream`` it performs.
"""

import math
import numbers

__all__ = ["Value", "topological_order", "graph_size", "dot", "dot_inputs"]

# Local derivatives that do not depend on the data are shared, not rebuilt.
_ADD = (1.0, 1.0)
_SUB = (1.0, -1.0)
_NEG = (-1.0,)
_PASS = (1.0,)
_BLOCK = (0.0,)
_NO_INPUTS = ()


def _describe(x):
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_real(x):
    """isinstance(x, numbers.Real), asking the slow abstract class last."""
    return isinstance(x, (float, int)) or isinstance(x, numbers.Real)


def _as_float(x, what="Value()"):
    """Return ``x`` as a finite float, or say clearly why it cannot be one."""
    if _is_real(x):
        try:
            x = float(x)
        except OverflowError:
            raise OverflowError(
                f"{what} got {_describe(x)}, which is too large for a float (about 1.8e308 at most); "
                "rescale it"
            ) from None
        if math.isfinite(x):
            return x
        raise ValueError(
            f"{what} got {x}, but a Value must hold a finite number; "
            "check the computation that produced it"
        )
    raise TypeError(
        f"{what} takes a real number (int or float), got "
        f"{type(x).__name__} {_describe(x)}"
    )


def _node(data, inputs, local_grads, op):
    """Make the Value an operation produced (the fast path every op uses)."""
    if not math.isfinite(data):
        raise OverflowError(
            f"{op} of {', '.join(repr(i.data) for i in inputs)} gives {data}, "
            "which is not a finite float; rescale the inputs or use a "
            "numerically stable formulation"
        )
    out = Value.__new__(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    out.op = op
    out._inputs = inputs
    out._local_grads = local_grads
    return out


def _operand(x):
    """A Value for the other side of an operator, or None if unsupported."""
    if isinstance(x, Value):
        return x
    if _is_real(x):
        return Value(x)
    return None


class Value:
    """A scalar in a computation graph, with the gradient of the output."""

    __slots__ = ("data", "grad", "label", "op", "_inputs", "_local_grads", "__weakref__")

    # numpy scalars defer to our reflected operators instead of trying to
    # build an object array (np.float64(2) * v is then a Value, as expected).
    __array_ufunc__ = None

    def __init__(self, data, label=""):
        if not isinstance(label, str):
            raise TypeError(
                f"Value(data, label) takes a label string, got {type(label).__name__}; "
                "to make the result of an operation use Value.from_op(data, inputs, "
                "local_grads, op)"
            )
        self.data = _as_float(data)
        self.grad = 0.0
        self.label = label
        self.op = ""
        self._inputs = _NO_INPUTS
        self._local_grads = _NO_INPUTS

    @classmethod
    def from_op(cls, data, inputs, local_grads, op):
        """Make the output of a custom operation.

        ``local_grads[i]`` is d(output)/d(inputs[i]) at this point.  This is
        all an operation needs to take part in backpropagation.
        """
        inputs = tuple(inputs)
        local_grads = tuple(_as_float(g, f"{op}'s local derivative") for g in local_grads)
        for i in inputs:
            if not isinstance(i, Value):
                raise TypeError(f"{op}'s inputs must be Values, got {type(i).__name__}")
        if len(inputs) != len(local_grads):
            raise ValueError(
                f"{op} has {len(inputs)} inputs but {len(local_grads)} local "
                "derivatives; give one derivative per input"
            )
        return _node(_as_float(data, f"{op}'s output"), inputs, local_grads, op)

    @property
    def inputs(self):
        """The Values this one was computed from, in operand order."""
        return self._inputs

    @property
    def local_grads(self):
        """d(self)/d(input) for each input, recorded when self was computed."""
        return self._local_grads

    # Karpathy's lecture code (trace/draw_dot) reads these two names.
    @property
    def _prev(self):
        return set(self._inputs)

    @property
    def _op(self):
        return self.op

    # -- arithmetic ---------------------------------------------------------

    def __add__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(self.data + other.data, (self, other), _ADD, "+")

    def __radd__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(other.data + self.data, (other, self), _ADD, "+")

    def __sub__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(self.data - other.data, (self, other), _SUB, "-")

    def __rsub__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(other.data - self.data, (other, self), _SUB, "-")

    def __mul__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(self.data * other.data, (self, other), (other.data, self.data), "*")

    def __rmul__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _node(other.data * self.data, (other, self), (self.data, other.data), "*")

    def __truediv__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _divide(self, other)

    def __rtruediv__(self, other):
        other = _operand(other)
        if other is None:
            return NotImplemented
        return _divide(other, self)

    def __neg__(self):
        return _node(-self.data, (self,), _NEG, "neg")

    def __pow__(self, exponent):
        if isinstance(exponent, Value):
            return _power_of_value(self, exponent)
        if isinstance(exponent, numbers.Real):
            return _power(self, _as_float(exponent, "the exponent"))
        return NotImplemented

    def __rpow__(self, base):
        base = _operand(base)
        if base is None:
            return NotImplemented
        return _power_of_value(base, self)

    # -- functions ------------------------------------------------------------

    def exp(self):
        x = self.data
        try:
            out = math.exp(x)
        except OverflowError:
            raise OverflowError(
                f"exp({x}) overflows a float (exp(x) is finite only for x < 709.78); "
                "scale the input down, or use a stable formulation such as "
                "subtracting the largest logit before a softmax"
            ) from None
        return _node(out, (self,), (out,), "exp")

    def log(self):
        x = self.data
        if x <= 0.0:
            raise ValueError(
                f"log({x}) is undefined: log needs a positive input; "
                "clip the input (e.g. log(p + 1e-12)) or compute the log in a "
                "stable way (log-softmax)"
            )
        return _node(math.log(x), (self,), (_derivative(1.0 / x, f"log at {x}"),), "log")

    def tanh(self):
        t = math.tanh(self.data)  # math.tanh saturates cleanly: tanh(1000) == 1.0
        return _node(t, (self,), (1.0 - t * t,), "tanh")

    def sigmoid(self):
        x = self.data
        # Never call exp on a large positive number: that is where it overflows.
        if x >= 0.0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1.0 + e)
        return _node(s, (self,), (s * (1.0 - s),), "sigmoid")

    def relu(self):
        x = self.data
        if x > 0.0:
            return _node(x, (self,), _PASS, "relu")
        return _node(0.0, (self,), _BLOCK, "relu")

    # -- comparisons -----------------------------------------------------------
    # Ordering compares data, so max(values) and sorted(values) work.  `==` is
    # left as identity on purpose: a Value is a node of a graph, used as a key
    # in sets and dicts while the graph is walked.  Two different nodes that
    # happen to hold the same number are still two nodes.

    def __lt__(self, other):
        other = _compared(other)
        return NotImplemented if other is None else self.data < other

    def __le__(self, other):
        other = _compared(other)
        return NotImplemented if other is None else self.data <= other

    def __gt__(self, other):
        other = _compared(other)
        return NotImplemented if other is None else self.data > other

    def __ge__(self, other):
        other = _compared(other)
        return NotImplemented if other is None else self.data >= other

    # -- backpropagation -------------------------------------------------------

    def backward(self):
        """Fill in d(self)/d(node) as ``node.grad`` for every node below self.

        As in PyTorch: self is seeded with 1, leaves (inputs and parameters)
        accumulate across calls, so zeroing them is the caller's job
        (``Module.zero_grad()``), while the nodes in between start from zero
        on every call.  A node whose gradient is exactly zero would only add
        zeros below it, so it is skipped.
        """
        order = topological_order(self, leaves=False)
        for node in order:
            node.grad = 0.0
        self.grad += 1.0
        for node in reversed(order):
            upstream = node.grad
            if upstream == 0.0:
                # Everything it would pass down is local * 0: nothing to add.
                # (A dead ReLU makes the whole neuron below it such a node.)
                continue
            for child, local in zip(node._inputs, node._local_grads):
                child.grad += local * upstream  # the chain rule

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{label})"


def _compared(other):
    """The number to compare with (a float, so the result is a plain bool)."""
    if isinstance(other, Value):
        return other.data
    if isinstance(other, numbers.Real):
        return float(other)
    return None  # unsupported: Python then asks the other operand, or raises TypeError


def _derivative(local, what):
    """A local derivative, refused if it is infinite: backward would spread inf and nan."""
    if not math.isfinite(local):
        raise OverflowError(
            f"the derivative of {what} overflows a float; keep the input "
            "further from 0 (e.g. add a small epsilon)"
        )
    return local


def _divide(a, b):
    if b.data == 0.0:
        raise ZeroDivisionError(
            f"division of {a.data} by a Value that is 0; make sure the divisor "
            "cannot be zero (e.g. add a small epsilon)"
        )
    out = a.data / b.data
    what = f"{a.data} / {b.data} with respect to the divisor"
    return _node(out, (a, b), (_derivative(1.0 / b.data, what), _derivative(-out / b.data, what)), "/")


def _power(base, n):
    """base ** n for a constant exponent n: d/dbase = n * base ** (n - 1)."""
    x = base.data
    if x == 0.0 and n < 0:
        raise ZeroDivisionError(f"0 ** {n} is undefined (division by zero): the base must not be 0 for a negative exponent")
    if x < 0.0 and not n.is_integer():
        raise ValueError(
            f"({x}) ** {n} is not a real number: a negative base needs an "
            "integer exponent"
        )
    if x == 0.0 and 0 < n < 1:
        raise ZeroDivisionError(
            f"the derivative of x ** {n} is infinite at x = 0; keep the base "
            "away from 0 (e.g. add a small epsilon)"
        )
    try:
        out = x**n
        local = n * x ** (n - 1) if n != 0 else 0.0
    except OverflowError:
        raise OverflowError(f"({x}) ** {n} overflows a float; rescale the base") from None
    return _node(out, (base,), (local,), f"**{_format_exponent(n)}")


def _power_of_value(base, exponent):
    """base ** exponent with a Value exponent: d/dexponent = out * ln(base)."""
    x, n = base.data, exponent.data
    if x <= 0.0:
        raise ValueError(
            f"({x}) ** Value: a Value exponent needs a positive base, because "
            "the derivative with respect to the exponent is out * ln(base)"
        )
    try:
        out = x**n
        d_base = n * x ** (n - 1)
    except OverflowError:
        raise OverflowError(f"{x} ** {n} overflows a float; rescale the exponent") from None
    return _node(out, (base, exponent), (d_base, out * math.log(x)), "**")


def _format_exponent(n):
    return str(int(n)) if n.is_integer() else repr(n)


_FLOAT_ONLY = frozenset({float})
_VALUE_ONLY = frozenset({Value})


def dot(weights, inputs, bias):
    """``bias + w0*x0 + w1*x1 + ...`` as one node (a neuron's weighted sum).

    Same numbers as building it from ``*`` and ``+`` (summed in the same
    order, so bit for bit), but one node instead of 2n: that is most of what
    makes a network fast.  The node's inputs are (w0, ..., wn, x0, ..., xn,
    bias) with local derivatives (x0, ..., xn, w0, ..., wn, 1).

    When every input is a plain number (a data sample), the inputs are
    constants: they get no nodes and no gradients, which halves the work of
    a first layer with many inputs.  The node's inputs are then (w0, ...,
    wn, bias).
    """
    weights = [w if isinstance(w, Value) else Value(w) for w in weights]
    inputs = dot_inputs(inputs)
    if len(weights) != len(inputs):
        raise ValueError(f"dot got {len(weights)} weights but {len(inputs)} inputs; they must match")
    return _dot(weights, inputs, _input_data(inputs), bias if isinstance(bias, Value) else Value(bias))


def dot_inputs(inputs):
    """Inputs as dot() takes them: all floats (constants), or else all Values."""
    inputs = list(inputs)
    # The two common cases, told apart in one pass at C speed.
    kinds = set(map(type, inputs))
    if kinds <= _FLOAT_ONLY or kinds == _VALUE_ONLY:
        return inputs
    if any(isinstance(x, Value) for x in inputs):
        return [x if isinstance(x, Value) else Value(x) for x in inputs]
    return [_as_float(x, "an input") for x in inputs]


def _input_data(inputs):
    """The numbers of dot_inputs(): the list itself when they are constants.

    A layer reads them once and hands them to each of its neurons.
    """
    if not inputs or type(inputs[0]) is float:
        return inputs
    return [x.data for x in inputs]


def _dot(weights, inputs, x_data, bias):
    """dot() for equally long lists, with ``x_data = _input_data(inputs)``."""
    total = bias.data
    for w, x in zip(weights, x_data):
        total += w.data * x
    if x_data is inputs:  # constants: only the weights and the bias are inputs of the node
        return _node(total, (*weights, bias), (*x_data, 1.0), "w·x+b")
    w_data = [w.data for w in weights]
    return _node(total, (*weights, *inputs, bias), (*x_data, *w_data, 1.0), "w·x+b")


def topological_order(root, leaves=True):
    """Every node below ``root``, each after all of its inputs, root last.

    A depth-first walk with an explicit stack rather than recursion, so a
    chain a million nodes deep is fine.  The order only depends on the
    graph's shape (inputs are walked in operand order), so it is the same in
    every run.  With ``leaves=False`` the leaves are left out: backward never
    needs to visit them, it only adds into their ``grad``.
    """
    order = []
    seen = {root}
    path = [root]  # from the root down to the node being expanded
    pending = [iter(root._inputs)]  # for each node on the path, its inputs not yet visited
    while pending:
        for child in pending[-1]:
            if child._inputs:
                if child not in seen:
                    seen.add(child)
                    path.append(child)
                    pending.append(iter(child._inputs))
                    break
            elif leaves and child not in seen:
                seen.add(child)
                order.append(child)
        else:  # every input of the node is placed: the node can follow them
            pending.pop()
            node = path.pop()
            if node._inputs or leaves:
                order.append(node)
    return order


def graph_size(root):
    """(nodes, edges) of the graph below ``root``; ``a + a`` has two edges."""
    order = topological_order(root)
    return len(order), sum(len(node._inputs) for node in order)
