"""Pieces left from before: what a build-it cell's last run did not define, so no check passes an older one.

When a ``%%my_micrograd`` cell was not run, raised, or defines something else, the ``MyValue`` (say) the
kernel still holds is not the cell's: an earlier run's, or the one a later cell loaded.  The magic marks
it here, in the kernel's own shell; a build-it check given a marked object says so instead of judging
it, until the cell defines the piece again.  Outside IPython nothing is marked.
"""

__all__ = ["mark", "clear", "problem"]

_ATTRIBUTE = "_micrograd_stale"  # on the IPython shell: {key: ([objects], why)}


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return None
    return get_ipython()


def _marks(shell):
    if shell is None:
        return {}
    if not isinstance(getattr(shell, _ATTRIBUTE, None), dict):
        setattr(shell, _ATTRIBUTE, {})
    return getattr(shell, _ATTRIBUTE)


def mark(shell, key, named, why):
    """named = {name: object the kernel holds}: left from before, as the cell saved as key did not define them."""
    left = {name: obj for name, obj in named.items() if obj is not None}
    if left:
        _marks(shell)[key] = (left, why)
    else:
        clear(shell, key)


def clear(shell, key):
    _marks(shell).pop(key, None)


def problem(*objects):
    """Why the first of objects is left from before, as a check's message, or None."""
    for key, (left, why) in _marks(_shell()).items():
        for name, obj in left.items():
            if any(o is obj for o in objects):
                return (f"the {name} here is left from before: the build-it cell above did not define it when it "
                        f"last ran ({why}), so it is not checked. Fix that cell and run it, then this check again")
    return None
