"""What the build-it-yourself checkers (lessons 2 to 6) share.

The learner's classes and functions are run on graphs the checker builds
itself; a piece still raising NotImplementedError (or still holding ``...``)
is "not written yet", and a class whose every piece is untouched is "not
attempted".
"""

from .checking import failed, not_attempted

__all__ = ["Unwritten", "attempt", "still_stub", "check_classes", "fmt", "nodes_below"]


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


def still_stub(call):
    """Does call() still raise NotImplementedError, as the stub given in the lesson does?

    Anything else it does (return, or raise another error) means the learner changed it.
    """
    try:
        call()
    except NotImplementedError:
        return True
    except Exception:
        return False
    return False


def check_classes(classes, call, untouched, check, pieces):
    """The verdict on the learner's classes, as every build-it checker of a class gives it.

    ``call`` is how the checker is called (for the message when something other than
    the classes is passed), ``untouched(*classes)`` says whether they are still the
    stubs as given, ``check(*classes)`` runs them, and ``pieces`` names what to fill in.
    """
    if not all(isinstance(c, type) for c in classes):
        passed = ", ".join(type(c).__name__ for c in classes)
        return failed(f"pass the class itself: {call}, not an instance or a value ({passed})")
    if untouched(*classes):
        return not_attempted(f"not attempted yet: fill in {pieces}, then run the cell again")
    try:
        return check(*classes)
    except Unwritten as missing:
        return failed(f"{missing.piece} is not written yet (it still raises NotImplementedError)")


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
