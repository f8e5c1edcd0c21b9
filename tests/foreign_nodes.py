"""Node classes that are not the package's Value, as learners and other micrographs write them.

Each builds the lecture's tanh neuron with its own operations, so a test can draw it, step it
and compare the stepped gradients with the class's own backward().
"""

import math

from micrograd import Value as PackageValue
from micrograd.course.carry.yours import ANSWERS


class TupleNode:
    """Inputs in a tuple, no label at all, local derivatives recorded (the course's MyValue's shape)."""

    def __init__(self, data, _children=(), _op="", _local_grads=()):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._local_grads = _local_grads

    def __add__(self, other):
        return TupleNode(self.data + other.data, (self, other), "+", (1.0, 1.0))

    def __mul__(self, other):
        return TupleNode(self.data * other.data, (self, other), "*", (other.data, self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return TupleNode(t, (self,), "tanh", (1 - t * t,))

    def _backward(self):
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for child in node._prev:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


class ForkValue(PackageValue):
    """A fork of the package's Value in micrograd 0.1.0's style: its own __init__ sets data, grad,
    _prev and _op without calling super().__init__(), and each op assigns a _backward closure."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        out = ForkValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = ForkValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = ForkValue(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out


def make_leaf(cls, data, label):
    """A leaf of ``cls`` with a label where the class has them."""
    try:
        leaf = cls(data, label=label)
    except TypeError:
        leaf = cls(data)
        if cls is not TupleNode:
            leaf.label = label
    return leaf


def neuron(cls):
    """The lecture's neuron, act(x1*w1 + x2*w2 + b), in ``cls``: (output, {label: leaf}).
    The activation is tanh, or relu for a class without tanh (micrograd 0.1.0)."""
    leaves = {
        name: make_leaf(cls, data, name)
        for name, data in [("x1", 2.0), ("x2", 0.0), ("w1", -3.0), ("w2", 1.0), ("b", 6.8813735870195432)]
    }
    n = leaves["x1"] * leaves["w1"] + leaves["x2"] * leaves["w2"] + leaves["b"]
    return (n.tanh() if hasattr(n, "tanh") else n.relu()), leaves


def twice_used(cls):
    """c = a * w + a: a is used twice, so its gradient is a sum of two contributions."""
    a, w = make_leaf(cls, 3.0, "a"), make_leaf(cls, 2.0, "w")
    return a * w + a, {"a": a, "w": w}


# The lecture's micrograd as a learner types it into lessons 3 to 6's build-it cells, named as the
# cells name it: the complete Value of the lecture's last cell (closures with +=, inputs in a set,
# a recursive build_topo in backward()), then the lecture's topological order, Neuron/Layer/MLP and loop.
LECTURE_MY_VALUE = '''
import math


class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, MyValue) else MyValue(other)
        out = MyValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = MyValue(self.data**other, (self,), f"**{other}")

        def _backward():
            self.grad += other * (self.data ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def __rmul__(self, other):  # other * self
        return self * other

    def __truediv__(self, other):  # self / other
        return self * other**-1

    def __neg__(self):  # -self
        return self * -1

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __radd__(self, other):  # other + self
        return self + other

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = MyValue(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        x = self.data
        out = MyValue(math.exp(x), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)

        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
'''

LECTURE_AUTOGRAD = '''
def my_topological_order(root):
    topo = []
    visited = set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)
    build_topo(root)
    return topo


def my_backward(root):
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        node._backward()
'''

# The lecture's Neuron sums with sum(..., self.b); its Layer and MLP are the worked answer's, line for line
# but for one name (sz for sizes).
_WORKED_NN = ANSWERS["lesson 5: MyNeuron, MyLayer, MyMLP"]
LECTURE_NN = '''
import random


class MyNeuron:
    def __init__(self, nin):
        self.w = [MyValue(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = MyValue(random.uniform(-1, 1))

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        out = act.tanh()
        return out

    def parameters(self):
        return self.w + [self.b]
''' + _WORKED_NN[_WORKED_NN.index("\n\n\nclass MyLayer"):]

LECTURE_TRAIN = '''
def my_train(model, xs, ys, steps, lr):
    losses = []
    for k in range(steps):
        ypred = [model(x) for x in xs]
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data += -lr * p.grad
        losses.append(loss.data)
    return losses
'''


# A learner's MyValue kept microgpt's way, the inputs in _children, with lesson 3's recorded local derivatives; and
# the lecture's order and backward() written for it (v._children where the lecture reads v._prev).
CHILDREN_MY_VALUE = '''
import math


class MyValue:
    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._children = tuple(_children)
        self._op = _op
        self._local_grads = _local_grads

    def __add__(self, other):
        return MyValue(self.data + other.data, (self, other), "+", _local_grads=(1.0, 1.0))

    def __mul__(self, other):
        return MyValue(self.data * other.data, (self, other), "*", _local_grads=(other.data, self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return MyValue(t, (self,), "tanh", _local_grads=(1 - t**2,))

    def _backward(self):
        for child, local in zip(self._children, self._local_grads):
            child.grad += local * self.grad

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g})"
'''
CHILDREN_AUTOGRAD = LECTURE_AUTOGRAD.replace("v._prev", "v._children")


def _lecture_class(name):
    """The class of LECTURE_MY_VALUE under another name, defined as if in this module."""
    namespace = {"__name__": __name__}
    exec(LECTURE_MY_VALUE.replace("MyValue", name), namespace)
    cls = namespace[name]
    cls.__doc__ = "The lecture's Value as typed from the video: inputs in a set, a _backward closure per op."
    return cls


LectureValue = _lecture_class("LectureValue")


def lecture_micrograd():
    """The lecture's micrograd, run as lessons 3 to 6 run their build-it cells: one namespace."""
    namespace = {}
    for source in (LECTURE_MY_VALUE, LECTURE_AUTOGRAD, LECTURE_NN, LECTURE_TRAIN):
        exec(source, namespace)
    return namespace


# -- classes written by others: inputs under other names, layers that return lists, _grad_fn -------

# Names real classes keep their inputs under, besides the lecture's _prev.
OTHER_INPUT_NAMES = ("prev", "_parents", "parents", "_operands")


def inputs_under(name):
    """The lecture's Value with its inputs in ``.<name>`` (a set) instead of ``._prev``, and no ``._prev``."""
    cls_name = "Inputs" + "".join(part.title() for part in name.split("_"))
    namespace = {"__name__": __name__}
    exec(LECTURE_MY_VALUE.replace("MyValue", cls_name).replace("_prev", name), namespace)
    cls = namespace[cls_name]
    cls.__doc__ = f"The lecture's Value with its inputs kept in .{name}."
    return cls


def lecture_nn(value_class, layers_return_lists=False):
    """The lecture's MyNeuron, MyLayer and MyMLP over ``value_class`` ({name: class}); with
    ``layers_return_lists`` a layer returns a list even of one output (no ``outs[0]``)."""
    source = LECTURE_NN
    if layers_return_lists:
        source = source.replace("return outs[0] if len(outs) == 1 else outs", "return outs")
        assert "return outs\n" in source
    namespace = {"MyValue": value_class}
    exec(source, namespace)
    return namespace


class GradFnNode:
    """Nodes that keep their inputs in ._parents and a ``_grad_fn(grad)`` returning the gradient of
    each input, and no _backward: backward() applies what _grad_fn returns."""

    def __init__(self, data, parents=(), grad_fn=None, op=""):
        self.data = data
        self.grad = 0.0
        self._parents = tuple(parents)
        self._grad_fn = grad_fn
        self._op = op

    def __add__(self, other):
        return GradFnNode(self.data + other.data, (self, other), lambda g: (g, g), "+")

    def __mul__(self, other):
        return GradFnNode(self.data * other.data, (self, other), lambda g: (g * other.data, g * self.data), "*")

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node._parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            if node._grad_fn is not None:
                for parent, grad in zip(node._parents, node._grad_fn(node.grad)):
                    parent.grad += grad
