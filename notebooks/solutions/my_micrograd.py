"""my_micrograd.py: your own micrograd, as you wrote it in the lessons.

Every cell that starts with %%my_micrograd saves its code here, in a section
of its own ("# %% lesson 3: MyValue").  Running the cell again with other
code replaces that section, and keeps the code it replaces: the last
5 versions of each piece, in .my_micrograd_history.json beside this file;
yours.restore("lesson 3: MyValue") lists them and brings one back.  A cell
that still shows the lesson's template (after a reload, say) runs your code
from here instead, and puts it back in the cell.  Later lessons load your
pieces from this file with micrograd.course.carry.yours.use(...), which checks each
one and says on screen whether the lesson runs on yours or on the package's
worked answer.

Change your code in the lessons, not here: a cell run replaces its section.
"""


# %% lesson 2: MyValue
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


# %% lesson 3: MyValue
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


# %% lesson 4: my_topological_order
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


# %% lesson 4: my_backward
def my_backward(root):
    """Fill in .grad of every node below root: d root / d node."""
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        node._backward()


# %% lesson 4: more operations
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


# %% lesson 5: MyNeuron, MyLayer, MyMLP
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


# %% lesson 6: my_train
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


# %% lesson 11: more operations
import math


def one_input_node(x, data, op, local):
    """Lesson 4's helper again: the node op(x), holding data, whose local derivative d out/d x is local."""
    out = MyValue(data, (x,), op)
    out._local_grads = (local,)

    def _backward():
        x.grad += local * out.grad

    out._backward = _backward
    return out


class MyValue(MyValue):
    """Your MyValue with lesson 4's operations, and the two more a GPT needs."""

    def log(self):  # d/dx ln x = 1/x: the loss is -log(probability)
        return one_input_node(self, math.log(self.data), "log", 1 / self.data)

    def relu(self):  # d/dx max(0, x) = 1 where x > 0, else 0: the MLP block's activation
        return one_input_node(self, max(0.0, self.data), "ReLU", float(self.data > 0))


# %% lesson 11: softmax
def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


# %% lesson 11: rmsnorm
def rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


# %% lesson 11: attention_head
def attention_head(q_h, k_h, v_h):
    """One head at one position: q_h is its query; k_h and v_h hold the keys and values cached so far."""
    attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5
                   for t in range(len(k_h))]
    attn_weights = softmax(attn_logits)
    head_out = [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim)]
    return head_out


# %% lesson 11: training_step
learning_rate, beta1, beta2, eps_adam = 0.01, 0.85, 0.99, 1e-8  # microgpt's Adam


def training_step(gpt, params, m, v, tokens, step, num_steps):
    """One step of microgpt's training on one document's tokens; returns the loss's number."""
    n = min(block_size, len(tokens) - 1)
    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]
    losses = []
    for pos_id in range(n):
        token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
        logits = gpt(token_id, pos_id, keys, values)
        probs = softmax(logits)
        loss_t = -probs[target_id].log()
        losses.append(loss_t)
    loss = (1 / n) * sum(losses)
    loss.backward()
    lr_t = learning_rate * (1 - step / num_steps)
    for i, p in enumerate(params):
        m[i] = beta1 * m[i] + (1 - beta1) * p.grad
        v[i] = beta2 * v[i] + (1 - beta2) * p.grad ** 2
        m_hat = m[i] / (1 - beta1 ** (step + 1))
        v_hat = v[i] / (1 - beta2 ** (step + 1))
        p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)
        p.grad = 0
    return loss.data
