"""What a learner's ``_backward()`` does to its inputs' gradients, found by calling it.

The backprop stepper calls a node's own ``_backward()`` (the lecture's closures) with the node's grad
at 1: from inputs holding 0 it hands on its local derivatives, and from inputs holding 1 it shows
whether it adds its share (+=) or sets it (=).  ``=`` goes wrong only where a value is used twice
(the lecture's ``a + a``, whose set of inputs holds ``a`` once), so it is asked on every node.
"""

import math

from .steps import held_grad

__all__ = ["probe", "sets"]


def probe(original, backward, holders):
    """[what each holder's grad ends at from 0, ... from 1] after ``backward()`` with original.grad = 1,
    or None if it raised.  Every grad it touched is put back."""
    before = [(h, h.grad) for h in holders] + [(original, original.grad)]
    try:
        ends = []
        for start in (0.0, 1.0):
            for h in holders:
                h.grad = start
            original.grad = 1.0
            backward()
            ends.append([held_grad(h) for h in holders])
        return ends
    except Exception:  # noqa: BLE001 - the stepper's real call says what it raises
        return None
    finally:
        for node, grad in reversed(before):
            node.grad = grad


def sets(holders, ends):
    """The holders whose grad ``_backward()`` sets (=) rather than adds to: from 1 it did not end 1 higher."""
    if not ends:
        return []
    return [h for h, zero, one in zip(holders, *ends)
            if math.isfinite(zero) and math.isfinite(one) and abs(one - 1.0 - zero) > 1e-9 * (1.0 + abs(zero))]
