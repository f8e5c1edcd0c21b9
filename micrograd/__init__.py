"""micrograd: a scalar autograd engine and a small neural-network library.

    >>> from micrograd import Value
    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> d = a * b + 10
    >>> d.backward()
    >>> d.data, a.grad, b.grad
    (4.0, -3.0, 2.0)
"""

from .engine import Value, graph_size, topological_order
from .nn import GPT, MLP, Layer, Module, Neuron
from .weighted_sum import dot, weighted_sum

__version__ = "1.0.0"

__all__ = ["Value", "Module", "Neuron", "Layer", "MLP", "GPT", "weighted_sum", "dot", "topological_order", "graph_size"]
