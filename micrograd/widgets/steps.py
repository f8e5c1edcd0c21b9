"""What one step of the backprop stepper did, and how it tells a learner's _backward() apart."""

import dis

from ..graphs import unusable_local_grads
from ..nodes import LOCAL_GRAD_NAMES

__all__ = ["Step", "check_each_operation_can_pass_gradients", "no_grad_field", "grad_of", "held_grad", "stores_grad", "same", "last_share"]


def check_each_operation_can_pass_gradients(view, nodes):
    """Refuse, before the first step, a graph with operations the stepper could not step: neither
    a ``_backward()`` to call nor recorded local derivatives to apply (say, a ``_grad_fn``), in one
    sentence that names the fields looked for and what the first such node has instead."""
    stuck = [node for node in nodes if node.inputs and node.local_grads is None
             and not callable(getattr(view.original(node), "_backward", None))]
    if not stuck:
        return
    first = view.original(stuck[0])
    cls = type(first)
    where = "" if cls.__module__ == "builtins" else f" from module {cls.__module__}"
    found = unusable_local_grads(first)
    others = [name for name in ("_grad_fn", "grad_fn", "backward_fn", "_backward_fn") if hasattr(first, name)]
    if others:
        found += f", but a {others[0]} the stepper does not know how to call"
    op = f"a {stuck[0].op!r} node" if stuck[0].op else "a node with inputs"
    operations = sum(1 for node in nodes if node.inputs)
    names = " or ".join(f".{name}" for name in LOCAL_GRAD_NAMES)
    raise TypeError(
        f"BackpropStepper steps a node by calling its _backward() or applying the local derivatives it keeps in "
        f"{names} (one number per input, the inputs in a tuple or list), and {len(stuck)} of the {operations} "
        f"operations here give it neither (the first, {op} of {cls.__qualname__}{where}, {found}); "
        "give each operation a _backward() that adds local derivative × the node's grad into each input's grad"
    )


def no_grad_field(view, nodes):
    """Why the learner's nodes cannot hold a gradient (their class has no ``.grad`` to set), or "".

    Only then may the stepper keep the gradients on the mirror; when a step would need a node's own
    ``_backward()``, which writes ``.grad``, that is refused in one sentence."""
    for cls, node in {type(view.original(n)): view.original(n) for n in nodes}.items():
        try:
            node.grad = getattr(node, "grad", 0.0)
        except (AttributeError, TypeError) as error:
            why = f"{cls.__qualname__} has no .grad it can set"
            if any(n.inputs and n.local_grads is None for n in nodes):
                raise TypeError(f"BackpropStepper sets each node's .grad, and {why} ({type(error).__name__}: {error}); "
                                "give the class a grad field, as _backward() adds into it") from None
            return why
    return ""


class Step:
    """What one step did: chain-rule updates, or the gradients a node's own _backward() changed."""

    __slots__ = ("node", "updates", "own", "overwritten", "error", "idle")

    def __init__(self, node, updates, own=False, overwritten=(), error="", idle=False):
        self.node = node
        # own: (input, before, after); else (input, local, upstream, before, after)
        self.updates = updates
        self.own = own or bool(error)
        self.overwritten = overwritten  # (input, before, after, what += would give)
        self.error = error
        self.idle = idle  # its _backward() never sets a .grad, and changed nothing


def grad_of(grad):
    return 0.0 if grad is None else float(grad)


def held_grad(holder):
    return grad_of(holder.grad)


def stores_grad(function):
    """Does the code of ``function`` assign a ``.grad`` anywhere?  A _backward() that changed no
    gradient is a bug when it never could (``lambda: None``), and a zero local derivative (a ReLU
    at 0, a saturated tanh) when it could.  Code Python cannot show is taken to assign one."""
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return True
    return any(op.opname == "STORE_ATTR" and op.argval == "grad" for op in dis.get_instructions(code))


def same(a, b):
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def last_share(node, child, grad):
    """Does child, an input node uses twice, hold only the last use's share (a _backward() that sets with =)?"""
    shares = [local * node.grad for c, local in zip(node.inputs, node.local_grads) if c is child]
    return len(shares) > 1 and same(grad, shares[-1]) and not same(grad, sum(shares))
