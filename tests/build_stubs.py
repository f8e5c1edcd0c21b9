"""The build-it-yourself code of lessons 2 to 6, as the notebooks give it (stubs) and as the solutions fill it in.

The tests exec these sources, so a checker is tested against the very text a learner starts from.
"""

from micrograd.course.carry.yours import ANSWERS

VALUE_STUB = '''
class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = ...  # your code here: the inputs, in order, as a tuple
        self._op = ...  # your code here: the operation that made this value ("" for a leaf)

    def __add__(self, other):
        # your code here: a new MyValue holding self.data + other.data, made by "+" from (self, other)
        raise NotImplementedError

    def __mul__(self, other):
        # your code here: the same for "*"
        raise NotImplementedError

    def __repr__(self):
        # your code here: e.g. MyValue(data=4.0)
        raise NotImplementedError
'''

# The solutions fill the stubs in as the package's worked answers do (test_yours holds those to the
# solution notebooks' cells): one text for both.
VALUE_SOLUTION = ANSWERS["lesson 2: MyValue"]


# Every source the loaders below ran, last one last: what a learner would have typed into the build-it cell.
LOADED = []


def load(source, *swaps, name="MyValue"):
    """exec source, after each (old, new) text swap, and return the object called name."""
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    LOADED.append(source)
    namespace = {}
    exec(source, namespace)
    return namespace[name]


STEP_STUB = '''
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
        local_grads = ...  # your code here: (d out/d self, d out/d other) for out = self + other
        return MyValue(self.data + other.data, (self, other), "+", _local_grads=local_grads)

    def __mul__(self, other):
        local_grads = ...  # your code here: the same for out = self * other
        return MyValue(self.data * other.data, (self, other), "*", _local_grads=local_grads)

    def tanh(self):
        t = math.tanh(self.data)
        local_grads = ...  # your code here: (d t/d self,), a tuple of one, written with t
        return MyValue(t, (self,), "tanh", _local_grads=local_grads)

    def _backward(self):
        # your code here: the chain rule at this one node: each input's grad grows by its local derivative times self.grad
        raise NotImplementedError

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g})"
'''

STEP_SOLUTION = ANSWERS["lesson 3: MyValue"]


AUTOGRAD_STUB = '''
def my_topological_order(root):
    """Every node below root (root and leaves included) once, each after all of its inputs."""
    # your code here
    raise NotImplementedError


def my_backward(root):
    """Fill in .grad of every node below root: d root / d node."""
    order = my_topological_order(root)
    # your code here: seed the root's gradient, then pass each node's gradient to its inputs, root first
    raise NotImplementedError
'''

AUTOGRAD_SOLUTION = '''
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


def my_backward(root):
    """Fill in .grad of every node below root: d root / d node."""
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        for child, local in zip(node._prev, node._local_grads):
            child.grad += local * node.grad
'''

AUTOGRAD_ITERATIVE = '''
def my_topological_order(root):
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            stack.extend((child, False) for child in node._prev)
    return order


def my_backward(root):
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        node._backward()
'''


NN_STUB = '''
class MyNeuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x):
        # your code here: tanh(w · x + b), built from * and +, as a Value
        raise NotImplementedError

    def parameters(self):
        # your code here: the weights, then the bias, in one list
        raise NotImplementedError


class MyLayer:
    def __init__(self, nin, nout):
        # your code here: nout neurons, each with nin inputs
        raise NotImplementedError

    def __call__(self, x):
        # your code here: a list of every neuron's output (just the Value when there is one neuron)
        raise NotImplementedError

    def parameters(self):
        # your code here: every neuron's parameters, neuron by neuron, in one list
        raise NotImplementedError


class MyMLP:
    def __init__(self, nin, nouts):
        # your code here: one MyLayer per entry of nouts, each fed by the one before
        raise NotImplementedError

    def __call__(self, x):
        # your code here: run the layers in turn
        raise NotImplementedError

    def parameters(self):
        # your code here: every layer's parameters, layer by layer
        raise NotImplementedError
'''

# Lesson 5's on the package's Value, so that it is checked apart from any MyValue (load_nn_on puts it on one).
NN_SOLUTION = ANSWERS["lesson 5: MyNeuron, MyLayer, MyMLP"].replace("import random\n", "").replace(
    "MyValue(random", "Value(random")

NN_PRELUDE = "import random\nfrom micrograd import Value\n"


def load_nn(source, *swaps):
    """MyNeuron, MyLayer, MyMLP from one run of source."""
    neuron = load(NN_PRELUDE + source, *swaps, name="MyNeuron")
    namespace = neuron.__init__.__globals__
    return neuron, namespace["MyLayer"], namespace["MyMLP"]


TRAIN_STUB = '''
def my_train(model, xs, ys, steps, lr):
    """Train model on (xs, ys) for steps steps at learning rate lr; return the loss of each step."""
    losses = []
    for k in range(steps):
        # your code here: forward and loss (sum_of_squares), zero the gradients, backward, update; append the loss
        raise NotImplementedError
    return losses
'''

TRAIN_SOLUTION = '''
def my_train(model, xs, ys, steps, lr):
    """Train model on (xs, ys) for steps steps at learning rate lr; return the loss of each step."""
    losses = []
    for k in range(steps):
        loss = sum_of_squares([model(x) for x in xs], ys)
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
'''


def load_train(source, *swaps):
    """my_train from source, with the names lesson 6's notebook imports."""
    from micrograd.losses import mse, sum_of_squares

    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    LOADED.append(source)
    namespace = {"sum_of_squares": sum_of_squares, "mse": mse}
    exec(source, namespace)
    return namespace["my_train"]


# Lesson 3's MyValue, grown so that it takes plain numbers (as a learner's must, to build a neuron on it).
STEP_WITH_NUMBERS = STEP_SOLUTION.replace(
    "    def __add__(self, other):\n",
    "    def __add__(self, other):\n        other = other if isinstance(other, MyValue) else MyValue(other)\n",
).replace(
    "    def __mul__(self, other):\n",
    "    def __mul__(self, other):\n        other = other if isinstance(other, MyValue) else MyValue(other)\n",
)


def load_nn_on(value_source, nn_source, *swaps):
    """MyNeuron, MyLayer, MyMLP written on the learner's own MyValue (from value_source) instead of Value."""
    for old, new in swaps:
        assert old in nn_source, old
        nn_source = nn_source.replace(old, new)
    LOADED.append(nn_source)
    namespace = {}
    exec("import random\n" + value_source, namespace)
    exec(nn_source.replace("Value(random", "MyValue(random"), namespace)
    return namespace["MyNeuron"], namespace["MyLayer"], namespace["MyMLP"]


def load_lesson4_value(autograd=None):
    """Lesson 4's MyValue as a learner ends the lesson: lesson 3's class, an autograd (the worked answer's
    my_topological_order and my_backward by default), the given operations, and backward() running
    my_backward, all in one namespace, as the lesson's cells run."""
    autograd = autograd or ANSWERS["lesson 4: my_topological_order"] + ANSWERS["lesson 4: my_backward"]
    namespace = {}
    for source in (ANSWERS["lesson 3: MyValue"], autograd, ANSWERS["lesson 4: more operations"]):
        exec(source, namespace)
    return namespace["MyValue"]
