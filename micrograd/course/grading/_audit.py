"""Kernel side of the grader's integrity check: a fingerprint of what shows verdicts.

The worker evaluates ``fingerprint(lesson, alias)`` in the kernel (as a user
expression of its own request, before the notebook's first cell and after each
of its cells) and compares every fingerprint with the first one, which it keeps
outside the kernel.  A fingerprint names each function and class of
micrograd.course (the checkers, the checker decorator, Verdict, show) and of
the rest of the package (its engine, whose numbers the checkers compare with;
and its module-level data), the standard library's number tools (math,
operator, numbers, functools, the builtins), the IPython functions a verdict
is displayed through, and the name the notebook
calls its checkers by, with the identity of the object behind it (and of its
code and closure).  Replacing any of them (monkeypatching ``checking.show``, a
checker, a method of Verdict, IPython's display, or rebinding ``check`` to
something else) changes the fingerprint.

The first call keeps a reference to every object it fingerprinted, so that a
replaced object's memory (and id) cannot be reused by its replacement.

This runs in the student's process: a student who reads this file can defeat
it.  It catches the patching a student would try, not one who studies the grader.
"""

import json
import sys

_KEPT = []  # the objects of the first fingerprint, kept alive so their ids stay theirs
STANDARD_LIBRARY = ("builtins", "math", "cmath", "numbers", "operator", "functools")


def _identity(value):
    parts = [type(value).__name__, str(id(value))]
    function = getattr(value, "__func__", value)  # a bound method: its function
    code = getattr(function, "__code__", None)
    if code is not None:
        parts.append(str(id(code)))
        parts.append(str(hash(code.co_code)))
        for cell in getattr(function, "__closure__", None) or ():
            try:
                parts.append(str(id(cell.cell_contents)))
            except ValueError:  # an empty cell
                parts.append("empty")
    return ":".join(parts)


def fingerprint(lesson, alias=None):
    """A JSON object: what -> identity, for everything a verdict passes through."""
    marks = {}
    keep = []
    lesson_module = f"micrograd.course.lessons.lesson{lesson}"
    __import__(lesson_module)
    # The checkers, and everything they compute with: the package's modules, and the standard
    # library's number tools (a patched math.isclose would pass any answer).
    watched = sorted(
        name for name in sys.modules
        if (name == "micrograd" or name.startswith("micrograd.")) and not name.startswith("micrograd.course.grading.")
    ) + [__name__, *STANDARD_LIBRARY]
    for name in watched:
        module = sys.modules.get(name) or __import__(name)
        marks[name] = _identity(module) + ":" + str(id(vars(module)))
        keep.append(module)
        for key, value in vars(module).items():
            if isinstance(value, type(sys)) or (name == "builtins" and key.startswith("_")):
                continue  # modules are watched by name; builtins._ is the last result shown
            watch_data = name.startswith("micrograd.") and not callable(value)
            if not (callable(value) or watch_data):
                continue
            marks[f"{name}.{key}"] = _identity(value)
            keep.append(value)
            if isinstance(value, type) and value.__module__ == name:
                for attribute, member in vars(value).items():
                    if callable(member) or isinstance(member, (staticmethod, classmethod, property)):
                        marks[f"{name}.{key}.{attribute}"] = _identity(getattr(member, "__func__", member))
                        keep.append(member)
    # How a checker's display reaches the notebook's output.
    import IPython.core.display_functions as display_functions
    import IPython.display

    from IPython import get_ipython

    shell = get_ipython()
    publisher = shell.display_pub
    session = getattr(publisher, "session", None)
    for what, value in {
        "IPython.display.display": IPython.display.display,
        "IPython.core.display_functions.display": display_functions.display,
        "IPython.core.display_functions.publish_display_data": display_functions.publish_display_data,
        "shell.display_pub": publisher,
        "shell.display_pub.publish": type(publisher).publish,
        "shell.display_pub.publish (instance)": vars(publisher).get("publish"),
        "session": session,
        "session.send": getattr(type(session), "send", None),
        "session.send (instance)": vars(session).get("send") if session is not None else None,
        "session.pack": getattr(session, "pack", None),
        "session.serialize": getattr(type(session), "serialize", None),
    }.items():
        marks[what] = _identity(value)
        keep.append(value)
    if alias:
        bound = shell.user_ns.get(alias)
        marks[f"the name {alias!r}"] = "missing" if bound is None else (
            "the lesson's checkers" if bound is sys.modules[lesson_module] else f"something else ({type(bound).__name__})"
        )
    if not _KEPT:
        _KEPT.extend(keep)
    return json.dumps(marks)
