"""A graph read once for drawing: numbered nodes, their roles and names.

A :class:`GraphReading` is the one reading of a graph every view of it takes: the DOT writer, the
accessible description, the text view and a kept plan.  It holds the ``graphs.GraphView`` (the
package's own Values, or a mirror of a learner's class) and the topological order, so a drawing
reads a learner's nodes once and walks the graph once, whatever it shows.

Nodes are numbered by their place in ``topological_order`` (inputs first,
the root last), which depends only on the graph's shape.  Every name a
drawing uses comes from this numbering, never from ``id()``, so the same
graph gives the same text in every process.
"""

from collections.abc import Mapping

from ..engine import Value, topological_order
from ..graphs import read_graph

INPUT = "input"
PARAMETER = "parameter"
INTERMEDIATE = "intermediate"
OUTPUT = "output"
ROLES = (INPUT, PARAMETER, INTERMEDIATE, OUTPUT)

# The ops of engine.dot: a neuron's weighted sum as one node, and a dot product without a bias.
WEIGHTED_SUM, DOT_PRODUCT = "w·x+b", "w·x"


def parameter_names(params):
    """{Value: name} from a Module, a {name: Value} mapping or an iterable of Values."""
    if params is None:
        return {}
    if callable(getattr(params, "named_parameters", None)):
        pairs = list(params.named_parameters())
    elif isinstance(params, Mapping):
        pairs = [(str(name), p) for name, p in params.items()]
    else:
        try:
            pairs = [("", p) for p in params]
        except TypeError:
            raise TypeError(
                "params takes a Module (e.g. the MLP), a {name: Value} dict or a list "
                f"of Values such as model.parameters(), got {type(params).__name__}"
            ) from None
    names = {}
    for name, p in pairs:
        if not isinstance(p, Value):
            raise TypeError(f"params must all be nodes of the graph, got {type(p).__name__} {p!r:.40}")
        names.setdefault(p, name)
    return names


class GraphReading:
    """The graph below a node, read once: ``view`` (a ``graphs.GraphView``), its ``root`` (a package
    Value) and ``order``, every node after its inputs, the root last."""

    def __init__(self, view):
        self.view = view
        self.root = view.root
        self.order = topological_order(self.root)

    def refresh(self):
        """A mirror's numbers copied again from the learner's nodes (their shape is kept)."""
        self.view.refresh()


def read_for_drawing(root, caller):
    """``root``'s graph as a :class:`GraphReading`; a TypeError naming ``caller`` for a non-node."""
    return GraphReading(read_graph(root, caller))


class GraphIndex:
    """A reading's nodes in topological order, with position, role and name lookups (``params`` the
    learner's or the package's nodes: a mirror's are looked up through the reading)."""

    def __init__(self, reading, params=None):
        self.root = reading.root
        self.order = reading.order
        self.position = {node: i for i, node in enumerate(self.order)}
        self.param_names = parameter_names(reading.view.map_params(params))
        self._inferred_params = _weighted_sum_parameters(self.order)

    def __len__(self):
        return len(self.order)

    def is_parameter(self, node):
        return node in self.param_names or node in self._inferred_params

    def role(self, node):
        """input, parameter, intermediate or output.

        Parameters are the Values given as ``params``, plus the weights and
        bias of every ``w·x+b`` node (a neuron's parameters by construction).
        """
        if node is self.root:
            return OUTPUT
        if node.op or node.inputs:  # a class may record no op name for an operation
            return INTERMEDIATE
        return PARAMETER if self.is_parameter(node) else INPUT


def _weighted_sum_parameters(order):
    found = set()
    for node in order:
        if node.op in (WEIGHTED_SUM, DOT_PRODUCT):
            found.update(p for p in weighted_sum_parameters(node) if not p.op)
    return found


def weighted_sum_parameters(node):
    """The weights and bias among the inputs of an ``engine.dot`` node.

    ``engine.dot`` records (w0..wn, x0..xn, bias) when the x are Values and
    (w0..wn, bias) when they are plain numbers, without the bias when it has none.
    The first layout is told apart by its local derivatives: the one recorded for
    w_i is x_i's data.
    """
    inputs, local = node.inputs, node.local_grads
    bias = inputs[-1:] if node.op == WEIGHTED_SUM else ()
    n = (len(inputs) - len(bias)) // 2
    if local is not None and n and len(inputs) == 2 * n + len(bias) and all(local[i] == inputs[n + i].data for i in range(n)):
        return inputs[:n] + bias
    return inputs
