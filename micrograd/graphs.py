"""Any micrograd's graph, read as the package's Values: the one adapter every picture, stepper
and checker reads a graph through.

A *node* is any object ``nodes`` recognises: a number in ``.data`` and its inputs under one of
the names micrograd-style classes use; optionally ``.grad`` (a number, or None for 0), ``._op``
or ``.op`` (text), ``.label`` (text) and ``._local_grads`` or ``.local_grads`` (one number per
input, in the order of a tuple or list of inputs).  So the package's ``Value``, micrograd 0.1.0's, the lecture's as
typed from the video, EurekaLabs' micrograd, microgpt's and the course's ``MyValue`` all read
alike; a PyTorch scalar's ``grad_fn`` chain reads through a second adapter, below.

``read_graph(root, caller)`` returns a :class:`GraphView`.  For the package's
own ``Value`` the view is the graph itself, every feature kept and nothing
copied.  For any other class it is a mirror: one package ``Value`` per node,
holding that node's numbers, with ``original()`` and ``mirror_of()`` to go
between the two and ``refresh()`` to copy the numbers again after the
learner's code changed them.  Inputs held in a set are mirrored in the stable
order ``nodes.stable_order`` gives them, so drawings stay byte-identical in every process.
"""

import math
import sys
from collections.abc import Mapping

from .engine import Value
from .nodes import (SETS, class_name, expression_digests, has_data, inputs_of, is_node, node_number, node_text,
                    not_a_node, post_order, raw_inputs, recorded_local_grads, sort_key, stable_order)

__all__ = ["GraphView", "read_graph", "is_node", "has_data", "is_torch_tensor", "inputs_of", "post_order", "stable_order",
           "class_name", "not_a_node", "unusable_local_grads"]


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
            mirror.data = node_number(original, "data")
            mirror.grad = node_number(original, "grad", 0.0)

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
    held = {}  # id(node): its inputs as it holds them, read from the node once

    def held_inputs(node):
        key = id(node)
        if key not in held:
            held[key] = raw_inputs(node)
        return held[key]

    if not hasattr(root, "data") or held_inputs(root) is None:  # is_node(root), reading its inputs once
        raise not_a_node(caller, root)
    digests = None
    inputs = {}  # id(node): its inputs in order
    in_sets = set()  # id(node) of the nodes holding their inputs in a set

    def ordered_inputs(node):  # each node's inputs put in order once
        nonlocal digests
        raw = held_inputs(node)
        if raw is None:
            if not hasattr(node, "data"):
                raise not_a_node(caller, node, "a graph whose every node is a node")
            raw = ()
        if isinstance(raw, SETS):
            in_sets.add(id(node))
            if len(raw) > 1:
                keys = [sort_key(child) for child in raw]
                if len(set(keys)) < len(keys) and digests is None:
                    digests = expression_digests(root, lambda node: held_inputs(node) or ())
                inputs[id(node)] = ordered = stable_order(raw, digests)
                return ordered
        inputs[id(node)] = ordered = tuple(raw)
        return ordered

    order = post_order(root, ordered_inputs)
    originals = []
    mirror = {}
    for node in order:
        value = Value.__new__(Value)
        value.data = node_number(node, "data")
        value.grad = node_number(node, "grad", 0.0)
        value.op = node_text(node, "_op", "op")
        value._inputs = tuple(mirror[id(child)] for child in inputs[id(node)])
        # a set has no order for the local derivatives to line up with
        value._local_grads = None if id(node) in in_sets and value._inputs else _local_grads(node, value._inputs)
        label = node_text(node, "label")
        if label:
            value.label = label
        mirror[id(node)] = value
        originals.append((node, value))
    return GraphView(mirror[id(root)], originals)


def _local_grads(node, inputs):
    """The node's recorded local derivatives, when it keeps them lined up with inputs held in order."""
    if not inputs:
        return ()
    recorded = recorded_local_grads(node)[1]
    if isinstance(recorded, (tuple, list)) and len(recorded) == len(inputs):
        try:
            return tuple(map(float, recorded))
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def unusable_local_grads(node):
    """Why ``node``'s recorded local derivatives cannot be applied, in a few words (``has neither
    field``, ``has 1 numbers in ._local_grads for its 2 inputs``), for a message that says which
    fields were looked for."""
    name, recorded = recorded_local_grads(node)
    inputs = raw_inputs(node) or ()
    if name is None:
        return "has neither field"
    if isinstance(inputs, SETS):
        return f"has .{name}, but its inputs are in a set, which has no order for them to line up with"
    if not isinstance(recorded, (tuple, list)):
        return f"has a {type(recorded).__name__} in .{name} where a tuple or list of numbers belongs"
    if len(recorded) != len(inputs):
        return f"has {len(recorded)} numbers in .{name} for its {len(inputs)} inputs"
    for g in recorded:
        try:
            float(g)
        except (TypeError, ValueError, OverflowError):
            return f"has a {type(g).__name__} in .{name} where a number belongs"
    return "has neither field"


# -- PyTorch: a tensor's grad_fn chain, drawn in the same style -------------------------------
# Read through attributes alone (grad_fn, next_functions, variable), so nothing here imports torch.

NOT_KEPT = "_not_kept"  # on a mirror Value: the fields ("data", "grad") its source did not keep


def is_torch_tensor(obj):
    """Is ``obj`` a PyTorch tensor?  Told by its module, so nothing here imports torch."""
    return type(obj).__module__.startswith("torch") and hasattr(obj, "grad_fn") and hasattr(obj, "requires_grad")


def _tensornode_number(tensor):
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
    return _tensornode_number(tensor.grad)


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
            value.data, grad = _tensornode_number(tensor), _tensor_grad(tensor)
            label = getattr(tensor, "label", "") or ""
        else:  # an intermediate result: only some ops keep it (tanh, exp: for their derivative)
            saved = getattr(fn, "_saved_result", None)
            value.data = _tensornode_number(saved) if saved is not None else math.nan
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
        return tuple(0.0 if g is None else _tensornode_number(g) for g in kept)
    except ValueError:
        return None
