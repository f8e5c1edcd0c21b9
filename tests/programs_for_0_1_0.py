"""Small programs written for micrograd 0.1.0 and the lecture, run unchanged under either engine.

    python tests/programs_for_0_1_0.py     # prints one JSON object: every number, by name

Whichever package called ``micrograd`` the interpreter finds runs them; the
differential test runs this file once under micrograd 0.1.0 and once under
this package, each in its own process, and compares the two outputs.
"""

import json
import math
import random

import micrograd
from micrograd.engine import Value
from micrograd.nn import MLP, Layer, Neuron

results = {}


def record(name, *values):
    for i, v in enumerate(values):
        results[f"{name}[{i}]"] = v


# micrograd 0.1.0's test_engine.py, test_sanity_check (without the torch half)
x = Value(-4.0)
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
record("sanity_check", y.data, x.grad)

# micrograd 0.1.0's test_engine.py, test_more_ops
a = Value(-4.0)
b = Value(2.0)
c = a + b
d = a * b + b**3
c += c + 1
c += 1 + c + (-a)
d += d * 2 + (b + a).relu()
d += 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g += 10.0 / f
g.backward()
record("more_ops", g.data, a.grad, b.grad)

# A custom op written the lecture's way: a node made by the constructor, with a _backward closure.
x = Value(1.5)
out = Value(x.data**3, (x,), "cube")


def _backward():
    x.grad += 3 * x.data**2 * out.grad


out._backward = _backward
y = out * 2 + x * x
y.backward()
record("custom_backward", y.data, x.grad, out.grad)

# The lecture's backpropagation by hand: seed the output, then each node's _backward in reverse.
a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
e = a * b
d = e + c
L = d * f
L.grad = 1.0
L._backward()
d._backward()
e._backward()
record("manual_backprop", L.data, a.grad, b.grad, c.grad, f.grad, d.grad, e.grad)
record("prev_and_op", len(L._prev), int(d in L._prev and f in L._prev), int(L._op == "*"))

# Karpathy's demo loop for a few steps: same seed, so identical starting weights.
random.seed(1337)
model = MLP(2, [16, 16, 1])
X = [[math.cos(k / 3.0) + (k % 2), math.sin(k / 3.0) - 0.5 * (k % 2)] for k in range(24)]
Y = [1 if k % 2 else -1 for k in range(24)]
for k in range(4):
    inputs = [list(map(Value, xrow)) for xrow in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(Y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    total = data_loss + reg_loss
    model.zero_grad()
    total.backward()
    record(f"demo_step_{k}", total.data, *[p.grad for p in model.parameters()[:40]])
    learning_rate = 1.0 - 0.9 * k / 100
    for p in model.parameters():
        p.data -= learning_rate * p.grad
record("demo_final", *[p.data for p in model.parameters()])
record("parameter_counts", len(model.parameters()), len(Neuron(3, False).parameters()), len(Layer(3, 2).parameters()))

print(json.dumps({
    "micrograd": micrograd.__file__,
    "numbers": results,
    "reprs": [repr(Neuron(3, False)), repr(Neuron(3, True)), repr(Layer(2, 2, nonlin=False)), repr(MLP(2, [3, 1]))],
}))
