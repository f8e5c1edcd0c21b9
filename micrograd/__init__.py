"""micrograd: a scalar autograd engine and a small neural-network library.

    >>> from micrograd import Value
    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> d = a * b + 10
    >>> d.backward()
    >>> d.data, a.grad, b.grad
    (4.0, -3.0, 2.0)
"""

from .engine import Value, dot, graph_size, topological_order, weighted_sum
from .nn import GPT, MLP, Layer, Module, Neuron

__version__ = "1.0.0"

__all__ = ["Value", "Module", "Neuron", "Layer", "MLP", "GPT", "weighted_sum", "dot", "topological_order", "graph_size"]

# Forks of micrograd export draw_dot from the package itself.  It is imported from micrograd.viz
# on first use, so that `import micrograd` (and `from micrograd import *`) needs only the standard
# library: drawings need the graphviz package.
_FROM_VIZ = ("draw_dot",)


def __getattr__(name):
    if name in _FROM_VIZ:
        from . import viz

        return getattr(viz, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_FROM_VIZ])
