"""Neurons, layers and multi-layer perceptrons built from Values (and microgpt's ``GPT``,
which lives in ``gpt``).

The defaults reproduce micrograd 0.1.0 exactly: ReLU hidden layers, a linear
output layer, weights drawn from ``uniform(-1, 1)`` with Python's ``random``
in order (weights, then a zero bias, neuron by neuron).  So after
``random.seed(1337)``, ``MLP(2, [16, 16, 1])`` is the network of Karpathy's
``demo.ipynb``.
"""

from . import errors
from .engine import Value, fused_dot, input_numbers
from .gpt import GPT
from .module import Module
from .module import random_generator as _rng

__all__ = ["Module", "Neuron", "Layer", "MLP", "GPT", "ACTIVATIONS"]

ACTIVATIONS = {
    "relu": Value.relu,
    "tanh": Value.tanh,
    "sigmoid": Value.sigmoid,
    None: None,
}

_RELU_SWITCH = object()  # activation not given: nonlin decides


def _activation(activation, nonlin):
    """The activation's name: ``activation`` when given, else micrograd 0.1.0's ReLU on/off switch.

    ``nonlin`` may also be the activation's name itself: ``Neuron(3, "tanh")``.
    """
    if isinstance(nonlin, str) or nonlin is None:
        nonlin, activation = True, nonlin if activation is _RELU_SWITCH else activation
    if not isinstance(nonlin, int):
        raise TypeError(
            f"nonlin is True or False (ReLU or none, as in micrograd 0.1.0), got {nonlin!r}; "
            "for another activation pass activation='tanh', 'sigmoid', 'relu' or None"
        )
    if activation is _RELU_SWITCH:
        return "relu" if nonlin else None
    if not nonlin and activation is not None:
        raise ValueError(f"nonlin=False asks for no activation, but activation={activation!r} asks for one; give one of the two")
    if activation not in ACTIVATIONS:
        names = ", ".join(repr(name) for name in ACTIVATIONS)
        raise ValueError(f"unknown activation {activation!r}; choose one of {names}")
    return activation


def _check_count(name, n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{name} must be a positive whole number, got {n!r}")


def _inputs(x, n):
    """The inputs of a layer as the weighted sum takes them, checked."""
    if isinstance(x, (Value, int, float)):
        raise TypeError(f"a model takes a list of {n} inputs, got the single {type(x).__name__} {x!r}; wrap it: [x]")
    x = errors.dot_inputs(x, Value)
    if len(x) != n:
        raise ValueError(f"expected {n} inputs, got {len(x)}; pass one number or Value per input")
    return x


def _joined_parameters(modules):
    """The parameters of each module in turn, in one list."""
    parameters = []
    for module in modules:
        parameters += module.parameters()  # list += list copies at C speed
    return parameters


class Neuron(Module):
    """activation(w · x + b), with one weight per input.

    ``Neuron(3)`` and ``Neuron(3, nonlin=False)`` are micrograd 0.1.0's ReLU
    and linear neurons; ``Neuron(3, "tanh")`` or ``activation="tanh"`` (or
    "sigmoid", "relu", None) chooses any other.
    """

    def __init__(self, nin, nonlin=True, *, activation=_RELU_SWITCH, rng=None):
        _check_count("nin", nin)
        rng = _rng(rng)
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.activation = _activation(activation, nonlin)
        self._activate = ACTIVATIONS[self.activation]

    @property
    def nonlin(self):
        return self.activation is not None

    def __call__(self, x):
        x = _inputs(x, len(self.w))  # checked: one number or Value per weight
        return self.forward(x, input_numbers(x))

    def forward(self, x, x_data):
        """__call__ without the checks, for inputs a Layer has checked once.

        ``x_data`` is ``input_numbers(x)``: the layer reads the numbers once
        for all of its neurons.
        """
        out = fused_dot(self.w, x, x_data, self.b)  # w · x + b, as one node (lesson 10)
        return self._activate(out) if self._activate else out  # no activation: a linear neuron

    def zero_grad(self):
        for w in self.w:
            w.grad = 0.0
        self.b.grad = 0.0

    def parameters(self):
        return self.w + [self.b]

    def named_parameters(self, prefix=""):
        for k, w in enumerate(self.w):
            yield f"{prefix}w{k}", w
        yield f"{prefix}b", self.b

    def __repr__(self):
        kind = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", None: "Linear"}[self.activation]
        return f"{kind}Neuron({len(self.w)})"


class Layer(Module):
    """nout neurons that all see the same inputs."""

    def __init__(self, nin, nout, nonlin=True, *, rng=None, **kwargs):
        """``nonlin`` and ``kwargs`` (``activation``) go to each Neuron, as in micrograd 0.1.0."""
        _check_count("nout", nout)
        rng = _rng(rng)  # one generator for all neurons, so a seed gives distinct weights
        self.neurons = [Neuron(nin, nonlin, rng=rng, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = self.outputs(x)
        return out[0] if len(out) == 1 else out

    def outputs(self, x):
        """The neurons' outputs as a list, even when there is only one."""
        x = _inputs(x, len(self.neurons[0].w))
        x_data = input_numbers(x)
        return [n.forward(x, x_data) for n in self.neurons]

    def zero_grad(self):
        for neuron in self.neurons:
            neuron.zero_grad()

    def parameters(self):
        return _joined_parameters(self.neurons)

    def named_parameters(self, prefix=""):
        for j, neuron in enumerate(self.neurons):
            yield from neuron.named_parameters(f"{prefix}N{j}.")

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: layers of sizes nouts, applied in turn."""

    def __init__(self, nin, nouts, activation="relu", output_activation=None, rng=None):
        _check_count("nin", nin)
        if isinstance(nouts, int):
            raise TypeError(f"nouts is the list of layer sizes, got the single number {nouts}; e.g. MLP({nin}, [{nouts}])")
        nouts = list(nouts)
        if not nouts:
            raise ValueError("nouts lists the layer sizes and needs at least one, e.g. MLP(3, [4, 4, 1])")
        rng = _rng(rng)
        sizes = [nin] + nouts
        last = len(nouts) - 1
        self.layers = [
            Layer(sizes[i], sizes[i + 1], activation=activation if i < last else output_activation, rng=rng)
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer.outputs(x)
        return x[0] if len(x) == 1 else x

    def zero_grad(self):
        for layer in self.layers:
            layer.zero_grad()

    def parameters(self):
        return _joined_parameters(self.layers)

    def named_parameters(self, prefix=""):
        for i, layer in enumerate(self.layers):
            yield from layer.named_parameters(f"{prefix}L{i}.")

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
