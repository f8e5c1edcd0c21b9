"""Any micrograd's graph, read through one small adapter.

The drawings, the text view, the steppers and the checkers read a graph
through this module, so they work on every micrograd-style class alike: the
package's ``Value``, micrograd 0.1.0's, the lecture's as typed from the video,
EurekaLabs' micrograd and the course's ``MyValue``.  A *node* is any object with

- a number in ``.data``;
- its inputs in ``._prev`` (a set, tuple or list), ``.inputs``, ``._children`` (Karpathy's
  microgpt ``Value``) or ``.children``;
- optionally ``.grad`` (a number, or None for 0), ``._op`` or ``.op`` (text),
  ``.label`` (text) and ``._local_grads`` (one number per input, in the
  order of a tuple or list of inputs).

``read_graph(root, caller)`` returns a :class:`GraphView`.  For the package's
own ``Value`` the view is the graph itself, every feature kept and nothing
copied.  For any other class it is a mirror: one package ``Value`` per node,
holding that node's numbers, with ``original()`` and ``mirror_of()`` to go
between the two and ``refresh()`` to copy the numbers again after the
learner's code changed them.

Inputs held in a set have no order of their own (their order follows memory
addresses, which change from run to run).  They are put in a *stable order*
that depends only on the graph: by label, then data, then op, then the
expression below them.  Two inputs that tie on all of these are the same
expression with the same numbers, so either order draws the same picture.
This is what keeps drawings of set-based graphs byte-identical in every
process, and so stored notebook outputs valid under strict nbval.
"""

import hashlib
import math
import numbers
import sys
from collections.abc import Mapping

from .engine import Value

__all__ = ["GraphView", "read_graph", "is_node", "is_torch_tensor", "inputs_of", "post_order", "stable_order", "class_name", "not_a_node"]

_SETS = (set, frozenset)
_SEQUENCES = (tuple, list)
_INPUT_NAMES = ("_prev", "inputs", "_children", "children")


def class_name(obj):
    """``int``, or ``Value (from module __main__)`` for a class outside the builtins: a learner's
    class called ``Value`` is never mistaken for the package's."""
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__qualname__} (from module {cls.__module__})"


def _raw_inputs(node):
    """The inputs as the node holds them (``._prev`` first, then ``.inputs``, ``._children``,
    ``.children``), or None."""
    for name in _INPUT_NAMES:
        try:
            inputs = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(inputs, _SETS + _SEQUENCES):
            return inputs
    return None


def is_node(obj):
    """Does ``obj`` look like a micrograd node: ``.data`` and its inputs (see ``_INPUT_NAMES``)?"""
    if isinstance(obj, Value):
        return True
    return hasattr(obj, "data") and _raw_inputs(obj) is not None


def not_a_node(caller, obj, what="the graph below one node (usually the loss)"):
    """The TypeError for something that is not a graph node, saying what a node needs."""
    hint = ""
    if isinstance(obj, type):
        module = "" if obj.__module__ == "builtins" else f" (from module {obj.__module__})"
        return TypeError(f"{caller} takes {what}, made with your class; got the class {obj.__qualname__}{module} itself")
    if isinstance(obj, _SETS + _SEQUENCES) and obj and is_node(next(iter(obj))):
        hint = f"; pass one node, not a {type(obj).__name__} of them"
    elif hasattr(obj, "data") and not isinstance(obj, (numbers.Number, str, bytes)):
        hint = "; it has .data but no ._prev, .inputs, ._children or .children holding its inputs (a set, tuple or list)"
    return TypeError(
        f"{caller} takes {what}: an object with a number in .data and its inputs in ._prev "
        f"(or .inputs, ._children, .children); got {class_name(obj)}{hint}"
    )


def inputs_of(node):
    """The node's inputs as a tuple: in operand order, or in stable order when held in a set."""
    if isinstance(node, Value):
        return node._inputs
    inputs = _raw_inputs(node)
    if isinstance(inputs, _SETS):
        return stable_order(inputs)
    return tuple(inputs) if inputs is not None else ()


def post_order(root, inputs=inputs_of):
    """Every node below ``root`` once, each after all of its ``inputs(node)``, root last.

    Depth first with an explicit stack, so a chain a million deep is fine; nodes are told apart
    by identity, never by ``==`` or ``hash``, which a learner's class may define otherwise.
    """
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(inputs(node)) if id(child) not in seen)
    return order


def _number(node, name, default=None):
    value = getattr(node, name, default)
    if value is None and default is not None:
        return float(default)
    if isinstance(value, numbers.Real) or hasattr(value, "__float__"):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            pass
    raise TypeError(
        f"a node's .{name} must be a number; a {class_name(node)} in the graph holds "
        f"{value!r:.60} ({type(value).__name__})"
    )


def _text(node, *names):
    for name in names:
        value = getattr(node, name, None)
        if value is not None and not callable(value):
            return value if isinstance(value, str) else str(value)
    return ""


def _sort_key(node):
    """What orders inputs held in a set, before the expression below them is needed."""
    data = getattr(node, "data", 0.0)
    try:
        data = float(data)
    except (TypeError, ValueError, OverflowError):
        data = math.nan
    return (_text(node, "label"), (math.isnan(data), 0.0 if math.isnan(data) else data), _text(node, "_op", "op"))


def _held_inputs(node):
    """The inputs as the node holds them, unordered sets included: all a digest needs."""
    return node._inputs if isinstance(node, Value) else (_raw_inputs(node) or ())


def _digests(root):
    """{id(node): a digest of the expression below node}, for every node below root."""
    digests = {}
    for node in post_order(root, lambda n: tuple(_held_inputs(n))):
        inputs = _held_inputs(node)
        below = [digests[id(child)] for child in inputs]
        if isinstance(inputs, _SETS):
            below.sort()
        text = "\x1f".join(map(str, _sort_key(node))) + "\x1e" + "\x1e".join(below)
        digests[id(node)] = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    return digests


def stable_order(inputs, digests=None):
    """``inputs`` (a set) as a tuple in an order that depends only on the graph: by label, data and
    op, and where those tie, by the expression below each input."""
    inputs = list(inputs)
    keys = [_sort_key(node) for node in inputs]
    if len(set(keys)) < len(keys):  # a tie: look below (rare, and only then worth the walk)
        if digests is None:
            digests = {}
            for node in inputs:
                digests.update(_digests(node))
        keys = [key + (digests[id(node)],) for key, node in zip(keys, inputs)]
    return tuple(inputs[i] for i in sorted(range(len(inputs)), key=keys.__getitem__))


class GraphView:
    """A graph as the package's Values: the graph itself, or a mirror of a foreign one."""

    def __init__(self, root, originals=None, refreshable=True):
        self.root = root
        self._refreshable = refreshable  # False: numbers read once (a PyTorch graph's)
        self._originals = originals  # [(original, mirror)] in topological order, None: not a mirror
        if originals is not None:
            self._mirror = {id(original): mirror for original, mirror in originals}
            self._original = {id(mirror): original for original, mirror in originals}

    @property
    def foreign(self):
        """True when the graph is of another class and this is its mirror."""
        return self._originals is not None

    def mirror_of(self, node):
        """The package Value standing for ``node`` (``node`` itself when not a mirror)."""
        if self._originals is None:
            return node
        return self._mirror.get(id(node), node)

    def original(self, value):
        """The learner's node a mirror Value stands for (``value`` itself when not a mirror)."""
        if self._originals is None:
            return value
        return self._original[id(value)]

    def pairs(self):
        """(original, mirror) for every node, inputs first."""
        return list(self._originals or ())

    @property
    def detached(self):
        """True when the mirror's numbers were read once and its nodes cannot be written back
        (a PyTorch graph's): a stepper steps the mirror alone."""
        return not self._refreshable

    def refresh(self, originals=None):
        """Copy data and grad from the originals into the mirror again (after their code ran):
        from every node, or from ``originals`` only (what one step touched, so a pass stays linear)."""
        if not self._refreshable or self._originals is None:
            return
        pairs = self._originals
        if originals is not None:
            pairs = [(o, self._mirror[id(o)]) for o in originals if id(o) in self._mirror]
        for original, mirror in pairs:
            mirror.data = _number(original, "data")
            mirror.grad = _number(original, "grad", 0.0)

    def mirror_items(self, items):
        """Nodes and (input, output) pairs of nodes, each node replaced by its mirror."""
        if self._originals is None or items is None:
            return items
        try:
            items = list(items)
        except TypeError:
            return items  # not iterable: let the caller say what it takes
        return [tuple(map(self.mirror_of, item)) if isinstance(item, tuple) else self.mirror_of(item) for item in items]

    def map_params(self, params):
        """``params`` (a Module, {name: node} or nodes) with the learner's nodes replaced by mirrors."""
        if self._originals is None or params is None or callable(getattr(params, "named_parameters", None)):
            return params
        if isinstance(params, Mapping):
            return {name: self.mirror_of(p) for name, p in params.items()}
        if callable(getattr(params, "parameters", None)):  # the learner's own MyMLP
            params = params.parameters()
        try:
            return [self.mirror_of(p) for p in params]
        except TypeError:
            return params  # not iterable: let the drawing say what it takes


def read_graph(root, caller):
    """The graph below ``root`` as a :class:`GraphView`; a TypeError naming ``caller`` for a non-node."""
    if isinstance(root, Value):
        return GraphView(root)
    if is_torch_tensor(root):
        return _read_torch_graph(root, caller)
    if not is_node(root):
        raise not_a_node(caller, root)
    digests = None
    inputs = {}

    def ordered_inputs(node):  # each node's inputs, read and put in order once
        nonlocal digests
        raw = _raw_inputs(node)
        if raw is None:
            if not hasattr(node, "data"):
                raise not_a_node(caller, node, "a graph whose every node is a node")
            raw = ()
        if isinstance(raw, _SETS) and len(raw) > 1:
            keys = [_sort_key(child) for child in raw]
            if len(set(keys)) < len(keys) and digests is None:
                digests = _digests(root)
            inputs[id(node)] = stable_order(raw, digests)
        else:
            inputs[id(node)] = tuple(raw)
        return inputs[id(node)]

    order = post_order(root, ordered_inputs)
    originals = []
    mirror = {}
    for node in order:
        value = Value.__new__(Value)
        value.data = _number(node, "data")
        value.grad = _number(node, "grad", 0.0)
        value.op = _text(node, "_op", "op")
        value._inputs = tuple(mirror[id(child)] for child in inputs[id(node)])
        value._local_grads = _local_grads(node, value._inputs)
        label = _text(node, "label")
        if label:
            value.label = label
        mirror[id(node)] = value
        originals.append((node, value))
    return GraphView(mirror[id(root)], originals)


def _local_grads(node, inputs):
    """The node's recorded local derivatives, when it keeps them lined up with ordered inputs."""
    if not inputs:
        return ()
    if isinstance(_raw_inputs(node), _SETS):
        return None  # a set has no order for the derivatives to line up with
    recorded = getattr(node, "_local_grads", None)
    if isinstance(recorded, _SEQUENCES) and len(recorded) == len(inputs):
        try:
            return tuple(float(g) for g in recorded)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


# -- PyTorch: a tensor's grad_fn chain, drawn in the same style -------------------------------
# Read through attributes alone (grad_fn, next_functions, variable), so nothing here imports torch.

NOT_KEPT = "_not_kept"  # on a mirror Value: the fields ("data", "grad") its source did not keep


def is_torch_tensor(obj):
    """Is ``obj`` a PyTorch tensor?  Told by its module, so nothing here imports torch."""
    return type(obj).__module__.startswith("torch") and hasattr(obj, "grad_fn") and hasattr(obj, "requires_grad")


def _tensor_number(tensor):
    if tensor.numel() != 1:
        raise ValueError(
            f"the drawings show scalar graphs: this tensor has shape {tuple(tensor.shape)}; "
            "draw a scalar computed from it (a loss, or one element)"
        )
    return float(tensor.detach().reshape(()).item())


def _tensor_grad(tensor):
    """A tensor's retained .grad (leaves, and tensors that called retain_grad()), else None."""
    if not (tensor.is_leaf or getattr(tensor, "retains_grad", False)) or tensor.grad is None:
        return None
    return _tensor_number(tensor.grad)


def _read_torch_graph(root, caller):
    """A mirror of the autograd graph below a PyTorch scalar: one Value per grad_fn node (its op the
    grad_fn's name), leaves from AccumulateGrad with their data and retained .grad.  An output
    PyTorch did not keep (most intermediate results) is marked as not kept rather than invented."""
    if root.grad_fn is None and not root.requires_grad:
        raise TypeError(f"{caller}: this tensor has no autograd graph (requires_grad is False); "
                        "make its inputs with requires_grad=True")
    start = root.grad_fn if root.grad_fn is not None else root  # a leaf tensor alone

    def next_functions(fn):  # None stands for an input that needs no gradient: not drawn
        return tuple(f for f, _ in getattr(fn, "next_functions", ()) if f is not None)

    order = post_order(start, next_functions)
    mirror = {}
    originals = []
    for fn in order:
        value = Value.__new__(Value)
        tensor = root if fn is start else getattr(fn, "variable", None)  # AccumulateGrad holds a leaf
        not_kept = []
        if tensor is not None:
            value.data, grad = _tensor_number(tensor), _tensor_grad(tensor)
            label = getattr(tensor, "label", "") or ""
        else:  # an intermediate result: only some ops keep it (tanh, exp: for their derivative)
            saved = getattr(fn, "_saved_result", None)
            value.data = _tensor_number(saved) if saved is not None else math.nan
            grad, label = None, ""
            if saved is None:
                not_kept.append("data")
        if grad is None:
            not_kept.append("grad")
        value.grad = 0.0 if grad is None else grad
        value.op = "" if tensor is not None and tensor.is_leaf else type(fn).__name__
        value._inputs = tuple(mirror[id(child)] for child in next_functions(fn))
        value._local_grads = _torch_local_grads(fn, root, len(value._inputs)) if value._inputs else ()
        if label:
            value.label = str(label)
        if not_kept:
            setattr(value, NOT_KEPT, tuple(not_kept))
        mirror[id(fn)] = value
        originals.append((tensor if tensor is not None else fn, value))
    return GraphView(mirror[id(start)], originals, refreshable=False)


def _torch_local_grads(fn, root, count):
    """What PyTorch's backward function hands each input for an upstream gradient of 1: the node's
    local derivatives (a scalar graph's backward functions are linear in the upstream gradient).
    None when PyTorch will not say (saved tensors already freed by a backward())."""
    torch = sys.modules[type(root).__module__.split(".")[0]]
    try:
        with torch.no_grad():
            grads = fn(root.new_ones(()))
    except Exception:  # noqa: BLE001 - whatever PyTorch raises, the derivatives are not to be had
        return None
    if not isinstance(grads, tuple):
        grads = (grads,)
    kept = [g for (f, _), g in zip(fn.next_functions, grads) if f is not None]
    if len(kept) != count:
        return None
    try:
        return tuple(0.0 if g is None else _tensor_number(g) for g in kept)
    except ValueError:
        return None
