"""Your own micrograd, carried from lesson to lesson.

In lessons 2 to 6 you write a micrograd of your own, one piece per lesson:
``MyValue`` (lessons 2 and 3), ``my_topological_order`` and ``my_backward``
(lesson 4), ``MyNeuron``, ``MyLayer`` and ``MyMLP`` (lesson 5), ``my_train``
(lesson 6).  Two things carry them forward:

- ``yours.enable_magic()`` (a lesson's first cell) gives the notebook the cell magic
  ``%%my_micrograd lesson 3: MyValue``.  A cell that starts with it runs as
  usual, and its code is also saved in ``my_micrograd.py`` in the notebook's
  folder, one section per lesson and piece; running the cell again with other
  code replaces its section and keeps the code it replaces (``restore("lesson 3:
  MyValue")`` lists the versions kept and brings one back).  A cell that still
  shows the lesson's template, after a reload say, runs your saved code instead
  and puts it back in the cell.  After ``python -m micrograd.course.carry.magic --autoload``, every kernel
  of the environment knows the magic from its start, so a build-it cell runs
  even after a restart that skipped the lesson's first cell.
- ``use("MyValue", lesson=3)`` gives a later lesson your piece as it stood at
  the end of lesson 3.  Each piece is checked, quietly, with the checker of the
  lesson that wrote it, and one line says what the lesson runs on: yours, or,
  while yours is not written yet or fails its check, the package's worked
  answer (``answer("lesson 3: MyValue")`` shows it), so a lesson always runs.
  ``whose(MyValue)`` says which, for an output's label: "your MyValue" or "the
  worked answer's MyValue".

Everything is plain Python: ``my_micrograd.py`` can be read and edited, and the
loader runs its sections in lesson order in one namespace, as if the cells had
been run one after the other.
"""

import builtins
import contextlib
import io
import math
import random
import weakref

from . import gpt_pieces
from .answers import ANSWERS, answer
from .cell_code import binds_value, python_of
from .magic import enable_magic, load_ipython_extension
from .pieces import BY_KEY, PIECES, no_prev
from .restore import restore
from .saved import FILE_NAME, order, path_in, sections, store
from .status import Status, row, show

__all__ = ["use", "whose", "answer", "restore", "store", "sections", "FILE_NAME", "PIECES", "ANSWERS", "enable_magic", "load_ipython_extension"]


class _Result:
    def __init__(self, key, status, message, source):
        self.key, self.status, self.message, self.source = key, status, message, source


def _run(code, ns, filename, first_line):
    """Run one section in ns; None, or why it could not run."""
    try:
        compiled = compile("\n" * (first_line - 1) + python_of(code), filename, "exec")
    except SyntaxError as error:
        return f"it has a syntax error on line {error.lineno} of {FILE_NAME}: {error.msg}"
    try:
        exec(compiled, ns)
    except Exception as error:  # noqa: BLE001 - the learner's code: say what it raised
        return f"running it raised {type(error).__name__}: {error}"
    return None


def _check(piece, ns, before):
    missing = [name for name in piece.defines if name not in ns or ns[name] is before.get(name)]
    if missing:
        return ("failed", f"its cell does not define {', '.join(missing)}")
    try:
        outcome = piece.check(ns)
    except NotImplementedError:
        return ("not attempted", "not written yet")
    except AttributeError as error:
        if _lacks_prev(error, ns):
            raise
        return ("failed", f"your code raised {type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001 - as the checkers themselves report it
        return ("failed", f"your code raised {type(error).__name__}: {error}")
    return outcome[0], outcome[1]


def _lacks_prev(error, ns):
    """Is error the given code (or a worked answer) reading _prev from a MyValue that has none?"""
    cls = ns.get("MyValue")
    return getattr(error, "name", None) == "_prev" and isinstance(cls, type) and isinstance(getattr(error, "obj", None), cls)


_CACHE = {}


def _lesson_imports():
    """The names the lessons' first cells import that a saved cell may use (my_train's sum_of_squares, say)."""
    from micrograd.engine import Value
    from micrograd.losses import mse, sum_of_squares

    return {"math": math, "random": random, "Value": Value, "mse": mse, "sum_of_squares": sum_of_squares}


class _NoCheck:
    """Stands for a lesson's ``check`` module while saved cells run: any checker call is a no-op."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


@contextlib.contextmanager
def _quiet():
    """Nothing the learner's code or a checker prints or displays reaches the screen."""
    try:
        from IPython import get_ipython
        from IPython.utils.capture import capture_output
    except ImportError:  # pragma: no cover
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        with capture_output():
            yield
        return
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def _load(lesson, folder=None):
    """Run every section of the lessons up to lesson, in order, checking each known piece."""
    found = sections(folder)
    cache_key = (str(path_in(folder)), lesson, tuple(sorted((k, v[1]) for k, v in found.items())))
    if cache_key in _CACHE:
        return _CACHE[cache_key]
    # A check left in a saved cell (check.my_value(MyValue)) does nothing here: the piece is checked below.
    ns = {"__name__": "my_micrograd", "__builtins__": builtins, "check": _NoCheck(), **_lesson_imports()}
    if lesson >= 11:
        ns.update(gpt_pieces.SETTINGS)  # microgpt's sizes, set by lesson 11 before its build-it cells
    results = {}
    filename = str(path_in(folder))
    keys = [p.key for p in PIECES if p.lesson <= lesson]
    keys += [k for k in found if k not in BY_KEY and order(k, list(found))[0] <= lesson]
    keys.sort(key=lambda k: order(k, list(found)))
    state = random.getstate()  # checkers and classes may draw numbers: the lesson's own sequence is kept
    with _quiet():
        for key in keys:
            piece = BY_KEY.get(key)
            if key in found:
                first_line, code = found[key]
                before = {name: ns.get(name) for name in (piece.defines if piece else ())}
                problem = _run(code, ns, filename, first_line)
                if piece is None:
                    continue
                if problem:
                    status, message = "failed", problem
                elif binds_value(python_of(code)) and "MyValue" in piece.defines:
                    ns["Value"] = _lesson_imports()["Value"]  # the package's again, for the sections after it
                    status, message = "failed", ("it names its class Value, as the lecture does; in these lessons "
                                                 "Value is the package's: name yours MyValue, the class and every "
                                                 "Value inside it")
                else:
                    try:
                        status, message = _check(piece, ns, before)
                    except AttributeError as error:  # _lacks_prev: the cause is MyValue's, named once, there
                        status, message = "failed", no_prev(error.obj)
                        _my_value_falls_back(ns, results, message)
                if status == "not attempted":
                    status, message = "missing", "not written yet"
                source = "yours"
            else:
                if piece is None:
                    continue
                status, message, source = "missing", "not written yet", None
            if status != "passed":
                _run(ANSWERS[key], ns, f"<micrograd.course.carry.yours: the worked answer for {key}>", 1)
            results[key] = _Result(key, status, message, source)
    random.setstate(state)
    _CACHE.clear()
    _CACHE[cache_key] = (ns, results)
    return ns, results


def _my_value_falls_back(ns, results, message):
    """The learner's MyValue has no _prev, which the pieces after it read: the worked answer's MyValue instead
    (lesson 4's operations go on it next), and the reason on MyValue's line."""
    for key in ("lesson 2: MyValue", "lesson 3: MyValue"):
        if key in results and results[key].status == "passed":
            results[key] = _Result(key, "failed", message, "yours")
            results[key].lead = "yours has no _prev"
    key = "lesson 3: MyValue"
    _run(ANSWERS[key], ns, f"<micrograd.course.carry.yours: the worked answer for {key}>", 1)


_WHOSE = weakref.WeakKeyDictionary()  # a piece use() gave -> whose code it is; forgotten with the piece


def whose(piece):
    """Whose code a piece that use() gave is, for an output's label: "your MyValue" or "the worked answer's
    MyValue".  A class made from it (lesson 11's class MyValue(MyValue)) is whose its base is."""
    name = getattr(piece, "__name__", type(piece).__name__)
    for candidate in getattr(piece, "__mro__", (piece,)):
        try:
            owner = _WHOSE.get(candidate)
        except TypeError:  # not something a weak reference can point at: an int, a list
            owner = None
        if owner is not None:
            return f"your {name}" if owner == "yours" else f"the worked answer's {name}"
    raise ValueError(f"{name} did not come from yours.use(...): load it with use() first, then ask whose it is")


def _key_for(name, lesson):
    """The latest piece up to lesson that defines name."""
    keys = [p.key for p in PIECES if p.lesson <= lesson and name in p.defines and p.name != "more operations"]
    if not keys:
        raise ValueError(f"no lesson up to {lesson} writes {name}; the pieces are "
                         + ", ".join(sorted({n for p in PIECES for n in p.defines if p.name != 'more operations'})))
    return keys[-1]


def use(*names, lesson, folder=None):
    """Your pieces as they stood at the end of lesson: MyValue = use("MyValue", lesson=3).

    Shows one line per piece: yours (checked by its lesson's checker), or the package's
    worked answer while yours is not written yet or fails its check, and why.  Returns the piece,
    or a tuple of them for several names.
    """
    if not names:
        raise TypeError('name the pieces to use, e.g. use("MyValue", lesson=3)')
    keys = {name: _key_for(name, lesson) for name in names}
    ns, results = _load(lesson, folder)
    rows, shown = [], set()
    for name in names:
        key = keys[name]
        if key in shown:
            continue
        shown.add(key)
        piece = BY_KEY[key]
        label = ", ".join(piece.defines) if len(piece.defines) > 1 else name
        rows.append(row(label, results[key], results))
    show(Status(rows))
    objects = tuple(ns[name] for name in names)
    for name, obj in zip(names, objects):
        with contextlib.suppress(TypeError):  # classes and functions, the pieces use() gives, take weak references
            _WHOSE[obj] = "yours" if results[keys[name]].status == "passed" else "the worked answer"
    return objects[0] if len(objects) == 1 else objects
