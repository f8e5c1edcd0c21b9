"""What the build-it-yourself checkers (lessons 2 to 6) share.

The learner's classes and functions are run on graphs the checker builds
itself; a piece still raising NotImplementedError (or still holding ``...``)
is "not written yet", and a class whose every piece is untouched is "not
attempted".
"""

__all__ = ["Unwritten", "attempt", "fmt", "nodes_below"]


class Unwritten(Exception):
    """A piece of the learner's code that still raises NotImplementedError."""

    def __init__(self, piece):
        super().__init__(piece)
        self.piece = piece


def attempt(piece, make):
    """make(), with NotImplementedError turned into Unwritten(piece)."""
    try:
        return make()
    except NotImplementedError:
        raise Unwritten(piece) from None


def fmt(x):
    """A number as a learner reads it: 6.0, -0.5, 0.7071."""
    x = getattr(x, "data", x)
    if isinstance(x, float):
        return f"{x:.6g}" if x != int(x) or abs(x) >= 1e6 else f"{x:.1f}"
    return repr(x)


def nodes_below(root, inputs_of):
    """Every node reachable from root through inputs_of(node), each once."""
    seen, stack, order = {id(root)}, [root], []
    while stack:
        node = stack.pop()
        order.append(node)
        for child in inputs_of(node):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return order
