"""A tape: the chain rule over the nodes in the order a forward pass made them.

``backward()`` finds its order by walking the graph down from the output (lesson 4), every
edge of it, leaves included.  A forward pass that writes each node down as it makes it has
that order already: a node is made after its inputs, so the order of making is a topological
order, and the chain rule can run over it backwards with no walk.  Reverse-mode automatic
differentiation calls that list a tape.  The graph is the same, and so are the gradients:
the same products, though a node's may be added up in another order than ``backward()``'s
(both orders put a node after its inputs), so they can differ in their last bits.

    tape = Tape()
    loss = document_loss(model, tokens, tape)   # micrograd.gpt records every node it makes
    tape.backward(loss)                         # loss.backward()'s gradients, without the walk

A node made but not recorded passes nothing on, so a tape is for code that records every
node it makes, as ``micrograd.gpt`` does (its tests hold the tape to ``backward()``).
"""

import math
import operator

from . import errors

__all__ = ["Tape"]

_GRAD = operator.attrgetter("grad")


class Tape:
    """The nodes of one forward pass, in the order they were made, for one ``backward``."""

    def __init__(self):
        self._steps = []  # lists of nodes, in the order they were made

    def record(self, nodes):
        """Nodes just made, in the order made (each after its inputs): a list, kept as it is
        and returned, so that ``x = tape.record([...])`` records a layer as it is made."""
        if type(nodes) is not list:  # backward() reads it later, and backwards: not an iterator, spent by then
            raise TypeError(f"Tape.record takes a list of the Values just made, got {type(nodes).__name__}; wrap one: [node]")
        self._steps.append(nodes)
        return nodes

    def backward(self, root, leaves=()):
        """The gradient of ``root``, the last node recorded, on every node the tape holds and on
        every leaf they were made from: what ``root.backward()`` gives, without its walk.

        Leaves add to what they hold, as with ``backward()``; the nodes in between start from 0.
        Then no gradient may be infinite or nan, on the nodes and on ``leaves`` (a model's
        parameters: the tape does not know its leaves).  A tape runs once: a new forward pass
        needs a new tape."""
        steps = self._steps
        if steps is None:
            raise RuntimeError("this tape's backward() has already run; record the next forward pass on a new Tape()")
        if not steps or not steps[-1] or steps[-1][-1] is not root:
            raise ValueError("tape.backward(root) starts from the last node the tape recorded; record the loss, then pass it")
        self._steps = None  # the graph is the caller's again once this returns
        for step in steps:
            for node in step:
                node.grad = 0.0
        root.grad = 1.0
        for step in reversed(steps):
            for node in reversed(step):  # backward()'s loop, over the recorded order
                upstream, local_grads = node.grad, node._local_grads
                if upstream == 0.0:
                    continue
                if local_grads is None:  # a node made the lecture's way
                    node._backward()
                    continue
                for child, local in zip(node._inputs, local_grads):
                    child.grad += local * upstream
        _check_finite(steps, leaves)


def _check_finite(steps, leaves):
    """One sum of every gradient, finite unless one of them is not; only then backward()'s
    search, which names the node or the edge where it went wrong."""
    total = sum(map(_GRAD, leaves))
    for step in steps:
        total += sum(map(_GRAD, step))
    if not -math.inf < total < math.inf:
        order = [node for step in steps for node in step]
        raise errors.gradient_not_finite(order) or OverflowError(
            "tape.backward(): a gradient went infinite or nan; rescale the computation (e.g. a lower learning rate)"
        )
