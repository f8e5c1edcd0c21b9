"""The package's worked answers for the pieces a learner writes: what a lesson falls back on while
the learner's own piece is not written yet or fails its check.  They are the one source of the
solutions notebooks' build-it cells, which ``make notebooks`` (scripts/execute_notebooks.py) writes
from them: edit an answer here, never in a solutions notebook."""

from . import gpt_pieces

__all__ = ["ANSWERS", "answer"]

ANSWERS = {
    "lesson 2: MyValue": '''\
class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        return MyValue(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return MyValue(self.data * other.data, (self, other), "*")

    def __repr__(self):
        return f"MyValue(data={self.data})"
''',
    "lesson 3: MyValue": '''\
import math


class MyValue:
    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
        self._op = _op
        self._local_grads = _local_grads  # one per input: how fast this value moves per unit of that input

    def __add__(self, other):
        local_grads = (1.0, 1.0)
        return MyValue(self.data + other.data, (self, other), "+", _local_grads=local_grads)

    def __mul__(self, other):
        local_grads = (other.data, self.data)
        return MyValue(self.data * other.data, (self, other), "*", _local_grads=local_grads)

    def tanh(self):
        t = math.tanh(self.data)
        local_grads = (1 - t**2,)
        return MyValue(t, (self,), "tanh", _local_grads=local_grads)

    def _backward(self):
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g})"
''',
    "lesson 4: my_topological_order": '''\
def my_topological_order(root):
    """Every node below root (root and leaves included) once, each after all of its inputs."""
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order
''',
    "lesson 4: my_backward": '''\
def my_backward(root):
    """Fill in .grad of every node below root: d root / d node."""
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        node._backward()
''',
    "lesson 4: more operations": '''\
import math
import numbers


def as_my_value(x):
    """A plain number becomes a leaf MyValue, as a float: an int, a float or any other real number
    (numpy's np.mean divides by its own integer type); anything else stays as it is."""
    return MyValue(float(x)) if isinstance(x, numbers.Real) else x


def one_input_node(x, data, op, local):
    """The node op(x), holding data, whose local derivative d out/d x is local, for either way of
    keeping it: in _local_grads, read by lesson 3's _backward, or in a _backward closure, as the
    lecture writes it."""
    out = MyValue(data, (x,), op)
    out._local_grads = (local,)

    def _backward():
        x.grad += local * out.grad

    out._backward = _backward
    return out


class MyValue(MyValue):
    """Your MyValue from lesson 3, with the lecture's other operations; super() is your lesson-3 class."""

    def __add__(self, other):  # x + 1: the number becomes a leaf, then your +
        return super().__add__(as_my_value(other))

    def __mul__(self, other):  # x * 2
        return super().__mul__(as_my_value(other))

    def __radd__(self, other):  # 1 + x, and sum([...]), which starts from 0
        return self + other

    def __rmul__(self, other):  # 2 * x
        return self * other

    def __neg__(self):  # -x
        return self * -1

    def __sub__(self, other):  # x - 1
        return self + (-other)

    def __rsub__(self, other):  # 1 - x
        return (-self) + other

    def __pow__(self, k):  # x ** k for a plain number k: d/dx x**k = k * x**(k - 1)
        return one_input_node(self, self.data**k, f"**{k}", k * self.data ** (k - 1))

    def exp(self):  # d/dx e**x = e**x
        e = math.exp(self.data)
        return one_input_node(self, e, "exp", e)

    def __truediv__(self, other):  # x / y, the lecture's way: x * y**-1
        return self * as_my_value(other) ** -1

    def __rtruediv__(self, other):  # 2 / x
        return as_my_value(other) * self**-1

    def backward(self):  # L.backward(): your my_backward, as a method, like the lecture's Value
        my_backward(self)
''',
    "lesson 5: MyNeuron, MyLayer, MyMLP": '''\
import random


class MyNeuron:
    def __init__(self, nin):
        self.w = [MyValue(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = MyValue(random.uniform(-1, 1))

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class MyLayer:
    def __init__(self, nin, nout):
        self.neurons = [MyNeuron(nin) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MyMLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]
''',
    "lesson 6: my_train": '''\
def my_train(model, xs, ys, steps, lr):
    """Train model on (xs, ys) for steps steps at learning rate lr; return the loss of each step."""
    losses = []
    for k in range(steps):
        ypred = [model(x) for x in xs]                                  # forward
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))   # the loss
        for p in model.parameters():                                    # zero the gradients
            p.grad = 0.0
        loss.backward()                                                 # backward
        for p in model.parameters():                                    # update, downhill
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
''',
}

ANSWERS.update(gpt_pieces.ANSWERS)  # lesson 11's: microgpt's functions


def answer(key):
    """Show the package's worked answer for a piece: answer("lesson 3: MyValue")."""
    text = ANSWERS[key]
    print(f"# micrograd.course.carry.yours · the worked answer for {key}\n{text}", end="")
