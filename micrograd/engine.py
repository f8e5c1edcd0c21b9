"""A scalar autograd engine: `Value` and the chain rule.

Every operation computes its output and records the *local derivative* of that output with
respect to each input (for ``c = a * b``: ``(b.data, a.data)``).  Backpropagation is then the
chain rule in one loop, from the output back: ``input.grad += local * node.grad``.  Numbers,
not closures, so a graph has no reference cycles and is freed as soon as it is dropped.

``errors`` turns bad input into clear errors and holds the check, after ``backward()``, that no
gradient went infinite; ``dot`` (lesson 10) is a whole weighted sum as one node.
"""

import math
import operator

from . import errors

__all__ = ["Value", "topological_order", "graph_size", "result_node", "dot", "weighted_sum"]


def _swapped(operation):
    """``number ⊕ value`` as ``Value(number) ⊕ value``: the same rule, operands swapped."""
    def reflected(self, other):
        return NotImplemented if (other := _operand(other)) is None else operation(other, self)
    return reflected


def _comparison(order):
    """An ordering of data, exact against any real number as in Python (2.0 < 10**400)."""
    def compare(self, other):
        other = other.data if isinstance(other, Value) else errors.comparable(other, "a comparison")
        return NotImplemented if other is None else bool(order(self.data, other))
    return compare


class Value:
    """A scalar in a computation graph, with the gradient of the output."""

    # Fixed slots keep a node small; the __dict__ holds what is attached now and then.
    __slots__ = ("data", "grad", "op", "_inputs", "_local_grads", "__dict__")
    # numpy defers to our reflected operators: np.float64(2) * v is a Value, not an array.
    __array_ufunc__ = None

    def __init__(self, data, _children=(), _op="", label=""):
        if isinstance(_children, str):  # Value(2.0, "a"): the label given second
            _children, label = (), _children
        self.data = errors.as_float(data)
        self.grad = 0.0
        self.op = _op
        self._inputs = errors.children(_children, Value) if _children else ()
        self._local_grads = None if self._inputs else ()  # a leaf: (); None: its _backward passes gradients (lesson 3)
        if label != "":
            self.label = label

    @classmethod
    def from_op(cls, data, inputs, local_grads, op):
        """The output of a custom operation; ``local_grads[i]`` is d(output)/d(inputs[i])."""
        data, inputs, local_grads = errors.custom_op(data, inputs, local_grads, op, Value)
        return result_node(data, inputs, local_grads, op)

    label = property(lambda self: getattr(self, "_label", ""),  # no __dict__ made for unlabelled nodes
                     lambda self, text: setattr(self, "_label", errors.label(text)))
    inputs = property(lambda self: self._inputs, doc="The Values this one was computed from, in operand order.")
    local_grads = property(lambda self: self._local_grads, doc="d(self)/d(input), for each input.")
    # -- drop-in: micrograd 0.1.0's names, assignable as there (forks set them in their own __init__) --
    @property
    def _prev(self):
        return set(self._inputs)

    @_prev.setter
    def _prev(self, children):
        """New inputs: the local derivatives recorded for the old ones no longer apply, so the
        node keeps only a ``_backward`` function, if it has one; ``_prev = set()`` makes a leaf."""
        self._inputs = errors.children(children, Value)
        self._local_grads = () if not self._inputs else None

    @property
    def _op(self):
        return self.op

    @_op.setter
    def _op(self, op):
        self.op = errors.op_name(op)

    @property
    def _backward(self):
        """This node's chain-rule step, ``input.grad += local * self.grad``: called node by node
        from the output down, backprop by hand.  Assign a function (a custom op written the
        lecture's way) and backward() calls it for this node instead."""
        return getattr(self, "_backward_function", self._chain_rule_step)

    @_backward.setter
    def _backward(self, step):
        self._backward_function = step
        self._local_grads = None
    # -- end of the drop-in names --

    def _chain_rule_step(self):
        if self._local_grads is None:
            raise errors.no_backward(self.op)
        for child, local in zip(self._inputs, self._local_grads):
            child.grad += local * self.grad

    # -- arithmetic: each op's output, then its local derivatives ----------------
    def __add__(self, other):  # d/da (a + b) = 1, d/db = 1
        if (other := _operand(other)) is None:
            return NotImplemented
        return result_node(self.data + other.data, (self, other), (1.0, 1.0), "+")

    def __sub__(self, other):  # d/da (a - b) = 1, d/db = -1
        if (other := _operand(other)) is None:
            return NotImplemented
        return result_node(self.data - other.data, (self, other), (1.0, -1.0), "-")

    def __mul__(self, other):  # d/da (a * b) = b, d/db = a
        if (other := _operand(other)) is None:
            return NotImplemented
        return result_node(self.data * other.data, (self, other), (other.data, self.data), "*")

    def __truediv__(self, other):  # d/da (a / b) = 1/b, d/db = -a/b² = -out/b
        if (other := _operand(other)) is None:
            return NotImplemented
        if other.data == 0.0:
            raise errors.divide_by_zero(self.data)
        out = self.data / other.data
        return result_node(out, (self, other), (1.0 / other.data, -out / other.data), "/")

    def __neg__(self):  # d/da (-a) = -1
        return result_node(-self.data, (self,), (-1.0,), "neg")

    def __pow__(self, n):  # d/dx x**n = n·x**(n-1); for a Value n also d/dn x**n = x**n·ln x
        x = self.data
        if isinstance(n, Value):
            errors.value_exponent(x)
            out = _power(x, n.data)
            return result_node(out, (self, n), (n.data * _power(x, n.data - 1), out * math.log(x)), "**")
        if (n := errors.exponent(n, x)) is None:
            return NotImplemented
        local = n * _power(x, n - 1) if n else 0.0
        return result_node(_power(x, n), (self,), (local,), f"**{n:g}")

    __radd__, __rsub__, __rmul__ = map(_swapped, (__add__, __sub__, __mul__))
    __rtruediv__, __rpow__ = map(_swapped, (__truediv__, __pow__))

    # -- functions ------------------------------------------------------------------
    def exp(self):  # d/dx e^x = e^x
        try:
            out = math.exp(self.data)
        except OverflowError:
            raise errors.exp_overflow(self.data) from None
        return result_node(out, (self,), (out,), "exp")

    def log(self):  # d/dx ln x = 1/x
        if self.data <= 0.0:
            raise errors.log_domain(self.data)
        return result_node(math.log(self.data), (self,), (1.0 / self.data,), "log")

    def tanh(self):  # d/dx tanh x = 1 - tanh² x
        t = math.tanh(self.data)
        return result_node(t, (self,), (1.0 - t * t,), "tanh")

    def sigmoid(self):  # d/dx σ(x) = σ(x)(1 - σ(x))
        x = self.data  # exp of a large positive number overflows: only ever take exp(-|x|)
        s = 1.0 / (1.0 + math.exp(-x)) if x >= 0.0 else math.exp(x) / (1.0 + math.exp(x))
        return result_node(s, (self,), (s * (1.0 - s),), "sigmoid")

    def relu(self):  # d/dx max(0, x) = 1 where x > 0, else 0; op named as in micrograd 0.1.0
        if self.data > 0.0:
            return result_node(self.data, (self,), (1.0,), "ReLU")
        return result_node(0.0, (self,), (0.0,), "ReLU")

    # -- comparisons: of data, so max() and sorted() work.  `==` stays identity: a Value is a
    # node, a key in the sets that walk a graph; two nodes holding one number are two nodes.
    __lt__, __le__, __gt__, __ge__ = map(_comparison, (operator.lt, operator.le, operator.gt, operator.ge))

    # -- backpropagation --------------------------------------------------------------
    def backward(self):
        """Fill in d(self)/d(node) as ``node.grad`` for every node below self.

        self is seeded with 1; leaves (inputs, parameters) accumulate across calls, as in
        PyTorch (``Module.zero_grad()`` resets them); nodes in between start from zero each call,
        where PyTorch keeps no gradient on a node in between unless asked with ``retain_grad()``,
        and then adds up there too.  Nothing is freed, so a second call on the same graph always
        runs (PyTorch frees what its nodes saved for the backward pass: lesson 5).
        """
        order = topological_order(self, leaves=False)  # leaves have nothing to pass on
        for node in order:
            node.grad = 0.0
        self.grad += 1.0
        for node in reversed(order):  # a node's gradient is complete once all above it are done
            upstream, local_grads = node.grad, node._local_grads
            if upstream == 0.0:  # local × 0 adds nothing: where a gradient of 0 arrives, a whole branch is skipped
                continue
            if local_grads is None:
                node._backward()  # a node made the lecture's way: its own function does the step
                continue
            for child, local in zip(node._inputs, local_grads):
                child.grad += local * upstream  # the chain rule
        errors.check_gradients_finite(order)  # where the rule for 0 × ∞ lives

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad}" + (f", label={self.label!r})" if self.label else ")")


def result_node(data, inputs, local_grads, op):
    """The Value an op makes: its number, its inputs and d(output)/d(input) for each, its op's name.

    Made without ``__init__``'s checks, which the op's own inputs have passed, but refused if the
    number is infinite.  Your own op: ``Value.from_op``, which checks everything."""
    if not -math.inf < data < math.inf:  # math.isfinite, without a function call per node
        raise errors.result_not_finite(op, inputs, data)
    out = Value.__new__(Value)
    out.data, out.grad, out.op, out._inputs, out._local_grads = data, 0.0, op, inputs, local_grads
    return out


def _operand(x):
    """A Value for the other side of an operator, or None if it is not a number."""
    if isinstance(x, Value):
        return x
    return None if errors.comparable(x) is None else Value(x)


def _power(x, n):
    """x ** n as a float: ±inf where it overflows, for result_node or backward() to refuse."""
    try:
        return x**n
    except (OverflowError, ZeroDivisionError):  # 0.1 ** -400, or 0.0 ** -0.5 in a derivative
        return -math.inf if x < 0.0 and n % 2 == 1 else math.inf


def topological_order(root, leaves=True):
    """Every node below ``root``, each after all of its inputs, root last (``leaves=False``:
    without the leaves).  The order depends only on the graph's shape, inputs in operand order.

    Lesson 4's depth-first walk, ``visit(node)``: mark the node, visit each of its inputs, then
    append the node.  Its recursion is written out, so that a chain a million nodes deep costs a
    long list rather than a million nested Python calls (lesson 10): ``visiting`` is visit()'s
    call stack, and ``inputs_to_visit`` holds, for each node on it, the rest of its inputs.
    """
    order, seen = [], {root}
    visiting = [root]  # the nodes whose visit() is running, from the root down
    inputs_to_visit = [iter(root._inputs)]  # for each of them: its inputs not yet visited
    while visiting:
        for child in inputs_to_visit[-1]:  # the deepest node's inputs, from where it left off
            if not child._inputs:  # a leaf waits for nothing: it is placed at once
                if leaves and child not in seen:
                    seen.add(child)
                    order.append(child)
            elif child not in seen:  # visit(child): go down into it; this loop resumes after it
                seen.add(child)
                visiting.append(child)
                inputs_to_visit.append(iter(child._inputs))
                break
        else:  # the loop ran out (no break): every input is placed, so the node can follow them
            inputs_to_visit.pop()
            node = visiting.pop()
            if leaves or node._inputs:
                order.append(node)
    return order


def graph_size(root):
    """(nodes, edges) of the graph below ``root``; ``a + a`` has two edges."""
    order = topological_order(root)
    return len(order), sum(len(node._inputs) for node in order)


# -- a weighted sum as one node (lesson 10) ----------------------------------------

def dot(weights, inputs, bias=None):  # d/dwi = xi, d/dxi = wi, d/dbias = 1
    """``bias + w0*x0 + w1*x1 + ...`` as one node: the number and gradients of the ``*`` and ``+``
    nodes it stands for, summed in the same order.  Inputs that are plain numbers (a data sample)
    are constants: no nodes, no gradients.  ``bias=None``: none, as in a matrix row times a vector."""
    weights = [w if isinstance(w, Value) else Value(w) for w in weights]
    inputs = errors.dot_inputs(inputs, Value)
    if len(weights) != len(inputs):
        raise ValueError(f"dot got {len(weights)} weights but {len(inputs)} inputs; they must match")
    if bias is not None and not isinstance(bias, Value):
        bias = Value(bias)
    return fused_dot(weights, inputs, input_numbers(inputs), bias)


weighted_sum = dot  # the name a neuron's w·x + b goes by


def input_numbers(inputs):  # of checked dot inputs: the list itself when they are constants
    return inputs if not inputs or type(inputs[0]) is float else [x.data for x in inputs]


def fused_dot(weights, inputs, numbers, bias=None):
    """The node itself, for equally long, checked lists (``numbers = input_numbers(inputs)``), so a
    layer checks and reads its inputs once for all of its neurons."""
    total, tail, tail_grad, op = (0.0, (), (), "w·x") if bias is None else (bias.data, (bias,), (1.0,), "w·x+b")
    if numbers is inputs:  # constants: only the weights (and the bias) are inputs of the node
        for w, x in zip(weights, numbers):
            total += w.data * x
        return result_node(total, (*weights, *tail), (*numbers, *tail_grad), op)
    weight_numbers = [w.data for w in weights]  # read once: the sum and the local derivatives both need them
    for w, x in zip(weight_numbers, numbers):
        total += w * x
    return result_node(total, (*weights, *inputs, *tail), (*numbers, *weight_numbers, *tail_grad), op)
