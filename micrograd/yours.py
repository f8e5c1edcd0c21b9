"""Your own micrograd, carried from lesson to lesson.

In lessons 2 to 6 you write a micrograd of your own, one piece per lesson:
``MyValue`` (lessons 2 and 3), ``my_topological_order`` and ``my_backward``
(lesson 4), ``MyNeuron``, ``MyLayer`` and ``MyMLP`` (lesson 5), ``my_train``
(lesson 6).  Two things carry them forward:

- ``%load_ext micrograd.yours`` gives the notebook the cell magic
  ``%%my_micrograd lesson 3: MyValue``.  A cell that starts with it runs as
  usual, and its code is also saved in ``my_micrograd.py`` in the notebook's
  folder, one section per lesson and piece; running the cell again replaces
  its section.  After ``python -m micrograd.yours --autoload``, every kernel
  of the environment knows the magic from its start, so a build-it cell runs
  even after a restart that skipped the lesson's first cell.
- ``use("MyValue", lesson=3)`` gives a later lesson your piece as it stood at
  the end of lesson 3.  Each piece is checked, quietly, with the checker of the
  lesson that wrote it, and one line says what the lesson runs on: yours, or,
  while yours is not written yet or fails its check, the package's worked
  answer (``answer("lesson 3: MyValue")`` shows it), so a lesson always runs.

Everything is plain Python: ``my_micrograd.py`` can be read and edited, and the
loader runs its sections in lesson order in one namespace, as if the cells had
been run one after the other.
"""

import builtins
import contextlib
import io
import math
import os
import random
import re
import tempfile
from pathlib import Path

from . import yours_gpt

__all__ = ["use", "answer", "store", "sections", "FILE_NAME", "PIECES"]

FILE_NAME = "my_micrograd.py"

HEADER = '''\
"""my_micrograd.py: your own micrograd, as you wrote it in the lessons.

Every cell that starts with %%my_micrograd saves its code here, in a section
of its own ("# %% lesson 3: MyValue"), and running the cell again replaces
that section.  Later lessons load your pieces from this file with
micrograd.yours.use(...), which checks each one and says on screen whether
the lesson runs on yours or on the package's worked answer.

Change your code in the lessons, not here: a cell run overwrites its section.
"""
'''

_MARK = re.compile(r"^# %% lesson (\d+): (.+?)\s*$")
_LINE = re.compile(r"^\s*lesson\s*(\d+)\s*:\s*(\S.*?)\s*$")


class Piece:
    """One section a lesson writes: its key, the names it defines, and how it is checked."""

    def __init__(self, lesson, name, defines, check):
        self.lesson, self.name, self.defines, self.check = lesson, name, defines, check

    @property
    def key(self):
        return f"lesson {self.lesson}: {self.name}"


def _checker(module, name):
    """The undecorated checker lesson<module>.<name>: returns (status, message[, figure])."""

    def run(*args):
        import importlib

        checker = getattr(importlib.import_module(f"micrograd.exercises.lesson{module:02d}"), name)
        return checker.__wrapped__(*args)

    return run


def _check_value_2(ns):
    return _checker(2, "my_value")(ns["MyValue"])


def _check_value_3(ns):
    return _checker(3, "my_backward_step")(ns["MyValue"])


def _check_order(ns):
    return _checker(4, "my_topological_order")(ns["my_topological_order"])


def _check_backward(ns):
    return _checker(4, "my_backward")(ns["my_backward"])


def _check_operations(ns):
    """Lesson 4's operations are given code: check they give the package's numbers on MyValue."""
    from .engine import Value

    cls = ns["MyValue"]
    x, px = cls(3.0), Value(3.0)
    cases = {
        "2 * x": (lambda v: 2 * v), "x * 2": (lambda v: v * 2), "x + 1": (lambda v: v + 1),
        "1 + x": (lambda v: 1 + v), "x - 1": (lambda v: v - 1), "1 - x": (lambda v: 1 - v),
        "-x": (lambda v: -v), "x ** 2": (lambda v: v**2), "x / 2": (lambda v: v / 2),
        "2 / x": (lambda v: 2 / v), "x.exp()": (lambda v: v.exp()), "sum([x, x])": (lambda v: sum([v, v])),
    }
    for text, op in cases.items():
        got, want = op(x), op(px).data
        if not isinstance(got, cls) or not math.isclose(got.data, want, rel_tol=1e-12, abs_tol=1e-12):
            shown = got.data if isinstance(got, cls) else got
            return ("failed", f"with x = MyValue(3.0), {text} gives {shown!r}, expected {want!r}")
    y = x * x + 2 * x
    y.backward()
    if not math.isclose(x.grad, 8.0):
        return ("failed", f"y = x * x + 2 * x at x = 3: y.backward() gives x.grad = {x.grad!r}, expected 8.0")
    return ("passed", "every operation gives the package's number, and y.backward() runs my_backward")


def _check_network(ns):
    return _checker(5, "my_mlp")(ns["MyNeuron"], ns["MyLayer"], ns["MyMLP"])


def _check_train(ns):
    return _checker(6, "my_training_loop")(ns["my_train"])


PIECES = [
    Piece(2, "MyValue", ("MyValue",), _check_value_2),
    Piece(3, "MyValue", ("MyValue",), _check_value_3),
    Piece(4, "my_topological_order", ("my_topological_order",), _check_order),
    Piece(4, "my_backward", ("my_backward",), _check_backward),
    Piece(4, "more operations", ("MyValue",), _check_operations),
    Piece(5, "MyNeuron, MyLayer, MyMLP", ("MyNeuron", "MyLayer", "MyMLP"), _check_network),
    Piece(6, "my_train", ("my_train",), _check_train),
    *(Piece(11, key.split(": ", 1)[1], yours_gpt.DEFINES[key], check) for key, check in yours_gpt.CHECKS.items()),
]
_BY_KEY = {piece.key: piece for piece in PIECES}

# Shown with a piece that passes: the pieces folded into it, mentioned only when they did not.
_COMPANIONS = {"lesson 3: MyValue": ["lesson 4: more operations", "lesson 11: more operations"], "lesson 4: my_backward": ["lesson 4: my_topological_order"]}


# The package's worked answers: what a lesson falls back on, the same code as the solutions' cells.
ANSWERS = {
    "lesson 2: MyValue": '''\
class MyValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        return MyValue(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return MyValue(self.data * other.data, (self, other), "*")

    def __repr__(self):
        return f"MyValue(data={self.data})"
''',
    "lesson 3: MyValue": '''\
import math


class MyValue:
    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data = data
        self.grad = 0.0
        self.label = label
        self._prev = tuple(_children)
        self._op = _op
        self._local_grads = _local_grads  # one per input: how fast this value moves per unit of that input

    def __add__(self, other):
        local_grads = (1.0, 1.0)
        return MyValue(self.data + other.data, (self, other), "+", _local_grads=local_grads)

    def __mul__(self, other):
        local_grads = (other.data, self.data)
        return MyValue(self.data * other.data, (self, other), "*", _local_grads=local_grads)

    def tanh(self):
        t = math.tanh(self.data)
        local_grads = (1 - t**2,)
        return MyValue(t, (self,), "tanh", _local_grads=local_grads)

    def _backward(self):
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g})"
''',
    "lesson 4: my_topological_order": '''\
def my_topological_order(root):
    """Every node below root (root and leaves included) once, each after all of its inputs."""
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order
''',
    "lesson 4: my_backward": '''\
def my_backward(root):
    """Fill in .grad of every node below root: d root / d node."""
    order = my_topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        node._backward()
''',
    "lesson 4: more operations": '''\
import math


def as_my_value(x):
    """A plain number becomes a leaf MyValue; anything else stays as it is."""
    return MyValue(x) if isinstance(x, (int, float)) else x


def one_input_node(x, data, op, local):
    """The node op(x), holding data, whose local derivative d out/d x is local, for either way of keeping it:
    in _local_grads, read by lesson 3's _backward, or in a _backward closure, as the lecture writes it."""
    out = MyValue(data, (x,), op)
    out._local_grads = (local,)

    def _backward():
        x.grad += local * out.grad

    out._backward = _backward
    return out


class MyValue(MyValue):
    """Your MyValue from lesson 3, with the lecture's other operations; super() is your lesson-3 class."""

    def __add__(self, other):  # x + 1: the number becomes a leaf, then your +
        return super().__add__(as_my_value(other))

    def __mul__(self, other):  # x * 2
        return super().__mul__(as_my_value(other))

    def __radd__(self, other):  # 1 + x, and sum([...]), which starts from 0
        return self + other

    def __rmul__(self, other):  # 2 * x
        return self * other

    def __neg__(self):  # -x
        return self * -1

    def __sub__(self, other):  # x - 1
        return self + (-other)

    def __rsub__(self, other):  # 1 - x
        return (-self) + other

    def __pow__(self, k):  # x ** k for a plain number k: d/dx x**k = k * x**(k - 1)
        return one_input_node(self, self.data**k, f"**{k}", k * self.data ** (k - 1))

    def exp(self):  # d/dx e**x = e**x
        e = math.exp(self.data)
        return one_input_node(self, e, "exp", e)

    def __truediv__(self, other):  # x / y, the lecture's way: x * y**-1
        return self * as_my_value(other) ** -1

    def __rtruediv__(self, other):  # 2 / x
        return as_my_value(other) * self**-1

    def backward(self):  # L.backward(): your my_backward, as a method, like the lecture's Value
        my_backward(self)
''',
    "lesson 5: MyNeuron, MyLayer, MyMLP": '''\
import random


class MyNeuron:
    def __init__(self, nin):
        self.w = [MyValue(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = MyValue(random.uniform(-1, 1))

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class MyLayer:
    def __init__(self, nin, nout):
        self.neurons = [MyNeuron(nin) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MyMLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]
''',
    "lesson 6: my_train": '''\
def my_train(model, xs, ys, steps, lr):
    """Train model on (xs, ys) for steps steps at learning rate lr; return the loss of each step."""
    losses = []
    for k in range(steps):
        ypred = [model(x) for x in xs]                                  # forward
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))   # the loss
        for p in model.parameters():                                    # zero the gradients
            p.grad = 0.0
        loss.backward()                                                 # backward
        for p in model.parameters():                                    # update, downhill
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
''',
}
ANSWERS.update(yours_gpt.ANSWERS)  # lesson 11's: microgpt's functions


def answer(key):
    """Show the package's worked answer for a piece: answer("lesson 3: MyValue")."""
    text = ANSWERS[key]
    print(f"# micrograd.yours · the worked answer for {key}\n{text}", end="")


# -- the file -----------------------------------------------------------------------


def _path(folder=None):
    return Path(folder if folder is not None else os.getcwd()) / FILE_NAME


def sections(folder=None):
    """{key: (first line number of the code, code)} of my_micrograd.py in folder (the working folder)."""
    path = _path(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return {}
    return _parse(text)


def _parse(text):
    found, key, start, lines = {}, None, 0, []
    for number, line in enumerate(text.splitlines(), start=1):
        mark = _MARK.match(line)
        if mark:
            if key is not None:
                found[key] = (start, _body(lines))
            key, start, lines = f"lesson {int(mark.group(1))}: {mark.group(2)}", number + 1, []
        elif key is not None:
            lines.append(line)
    if key is not None:
        found[key] = (start, _body(lines))
    return found


def _body(lines):
    return "\n".join(lines).strip("\n") + "\n"


def _order(key, seen):
    lesson = int(_MARK.match(f"# %% {key}").group(1))
    known = [piece.key for piece in PIECES]
    return (lesson, known.index(key) if key in known else len(known) + seen.index(key))


def _render(found):
    seen = list(found)
    parts = [HEADER]
    for key in sorted(found, key=lambda k: _order(k, seen)):
        parts.append(f"\n\n# %% {key}\n{found[key][1]}")
    return "".join(parts)


@contextlib.contextmanager
def _locked(folder):
    """Hold a lock on the folder while the file is read and rewritten (several kernels may share it)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS: no lock, the write is still atomic
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def store(key, code, folder=None):
    """Save code as the section key of my_micrograd.py in folder, replacing the one there; atomic."""
    path = _path(folder)
    folder = path.parent
    with _locked(folder):
        found = sections(folder)
        found = {k: v for k, v in found.items()}
        found[key] = (0, _body(code.splitlines()))
        text = _render(found)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".my_micrograd.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(temporary, 0o644)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    return path


def section_key(line):
    """'lesson 3: MyValue' (the magic's line) -> 'lesson 3: MyValue', or None if it is not that form."""
    match = _LINE.match(line or "")
    if not match:
        return None
    return f"lesson {int(match.group(1))}: {match.group(2)}"


# -- the cell magic -------------------------------------------------------------------


def my_micrograd(line, cell):
    """%%my_micrograd lesson N: piece -- run the cell as usual, and save it in my_micrograd.py if it ran."""
    from IPython import get_ipython

    key = section_key(line)
    result = get_ipython().run_cell(cell)
    if key is None:
        print("not saved: name the cell's piece after the magic, e.g. %%my_micrograd lesson 3: MyValue")
        return
    error = result.error_before_exec or result.error_in_exec
    if error is not None:
        kept = "the code it saved last time" if key in sections() else "no code for it yet"
        what = "has a syntax error" if isinstance(error, SyntaxError) else f"raised {type(error).__name__}"
        _show(Status([(f"not saved: this cell {what} (above), so {FILE_NAME} keeps {kept} as \"{key}\". "
                       "Fix the cell and run it again.", None)]))
        return
    store(key, cell)
    print(f"(saved in {FILE_NAME} as \"{key}\")")
    if "check" not in get_ipython().user_ns:
        _show(Status([("This kernel has not run the lesson's first cell (after a restart, say): run it, or "
                       "Run > Run All Above, before the check below.", None)]))


def load_ipython_extension(ipython):
    """%load_ext micrograd.yours: adds the %%my_micrograd cell magic."""
    ipython.register_magic_function(my_micrograd, magic_kind="cell", magic_name="my_micrograd")


AUTOLOAD_CONFIG = "ipython_kernel_config.py"
_AUTOLOAD = (
    "\n# micrograd.yours: every kernel of this environment knows the %%my_micrograd cell magic from its start,\n"
    "# so a lesson's build-it cell runs even when a restart skipped the lesson's first cell.\n"
    "c.InteractiveShellApp.exec_lines.append(\n"
    "    \"try:\\n    __import__('micrograd.yours').yours.load_ipython_extension(get_ipython())\\n\"\n"
    "    \"except ImportError:\\n    pass\\n\"\n"
    ")\n"
)


def install_autoload(prefix=None):
    """Have every IPython kernel run by the Python at prefix (this one's) register %%my_micrograd at start.

    IPython reads <prefix>/etc/ipython/ipython_kernel_config.py in each kernel it starts; this is
    `python -m micrograd.yours --autoload`.  Running it again changes nothing.
    """
    import sys

    folder = Path(prefix if prefix is not None else sys.prefix) / "etc" / "ipython"
    path = folder / AUTOLOAD_CONFIG
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if _AUTOLOAD not in text:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text + _AUTOLOAD, encoding="utf-8")
    return path


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--autoload"]:
        print("usage: python -m micrograd.yours --autoload   (kernels of this environment know %%my_micrograd)")
        return 2
    print(f"%%my_micrograd is registered in every kernel of this environment: {install_autoload()}")
    return 0


# -- loading ------------------------------------------------------------------------------


class _Result:
    def __init__(self, key, status, message, source):
        self.key, self.status, self.message, self.source = key, status, message, source


def _transform(code):
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return code
    return TransformerManager().transform_cell(code)


def _run(code, ns, filename, first_line):
    """Run one section in ns; None, or why it could not run."""
    try:
        compiled = compile("\n" * (first_line - 1) + _transform(code), filename, "exec")
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
    except Exception as error:  # noqa: BLE001 - as the checkers themselves report it
        return ("failed", f"your code raised {type(error).__name__}: {error}")
    return outcome[0], outcome[1]


_CACHE = {}


def _lesson_imports():
    """The names the lessons' first cells import that a saved cell may use (my_train's sum_of_squares, say)."""
    from .engine import Value
    from .losses import mse, sum_of_squares

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
    cache_key = (str(_path(folder)), lesson, tuple(sorted((k, v[1]) for k, v in found.items())))
    if cache_key in _CACHE:
        return _CACHE[cache_key]
    # A check left in a saved cell (check.my_value(MyValue)) does nothing here: the piece is checked below.
    ns = {"__name__": "my_micrograd", "__builtins__": builtins, "check": _NoCheck(), **_lesson_imports()}
    if lesson >= 11:
        ns.update(yours_gpt.SETTINGS)  # microgpt's sizes, set by lesson 11 before its build-it cells
    results = {}
    filename = str(_path(folder))
    keys = [p.key for p in PIECES if p.lesson <= lesson]
    keys += [k for k in found if k not in _BY_KEY and _order(k, list(found))[0] <= lesson]
    keys.sort(key=lambda k: _order(k, list(found)))
    state = random.getstate()  # checkers and classes may draw numbers: the lesson's own sequence is kept
    with _quiet():
        for key in keys:
            piece = _BY_KEY.get(key)
            if key in found:
                first_line, code = found[key]
                before = {name: ns.get(name) for name in (piece.defines if piece else ())}
                problem = _run(code, ns, filename, first_line)
                if piece is None:
                    continue
                if problem:
                    status, message = "failed", problem
                else:
                    status, message = _check(piece, ns, before)
                if status == "not attempted":
                    status, message = "missing", "not written yet"
                source = "yours"
            else:
                if piece is None:
                    continue
                status, message, source = "missing", "not written yet", None
            if status != "passed":
                _run(ANSWERS[key], ns, f"<micrograd.yours: the worked answer for {key}>", 1)
            results[key] = _Result(key, status, message, source)
    random.setstate(state)
    _CACHE.clear()
    _CACHE[cache_key] = (ns, results)
    return ns, results


def _key_for(name, lesson):
    """The latest piece up to lesson that defines name."""
    keys = [p.key for p in PIECES if p.lesson <= lesson and name in p.defines and p.name != "more operations"]
    if not keys:
        raise ValueError(f"no lesson up to {lesson} writes {name}; the pieces are "
                         + ", ".join(sorted({n for p in PIECES for n in p.defines if p.name != 'more operations'})))
    return keys[-1]


def _row(name, result, results):
    """(the line saying what runs, the reason behind it, or None) for one piece."""
    lesson = result.key.split(":")[0]
    shows = f'yours.answer("{result.key}") shows the worked answer'
    if result.status == "passed":
        replaced = [results[k] for k in _COMPANIONS.get(result.key, []) if k in results and results[k].status != "passed"]
        if not replaced:
            return f"✓ {name}: using yours, from {lesson} (it passes {lesson}'s check)", None
        what = " and ".join(other.key.split(": ", 1)[1] for other in replaced)
        reasons = [f"Yours passes {lesson}'s check; here it runs with the worked answer's {what}."]
        for other in replaced:
            piece = other.key.split(": ", 1)[1]
            if other.status == "missing":
                reasons.append(f"Your {piece} ({other.key.split(':')[0]}) is not written yet.")
            else:
                reasons.append(f"Your {piece} fails its check: {other.message}.")
        return f"✓ {name}: using yours, from {lesson}, with the worked answer's {what}", " ".join(reasons)
    if result.status == "missing":
        return (f"… {name}: using the worked answer, as {lesson}'s is not written yet",
                f"{shows}. Write yours in {lesson} and run its cell: from then on, this lesson runs on it.")
    return (f"✗ {name}: using the worked answer, as yours fails {lesson}'s check",
            f"{result.message.rstrip('.')}. {shows}; fix yours in {lesson} and run its cell again.")


class Status:
    """Lines for the learner, each with an optional reason one click away (a <details> in a notebook): what a
    lesson runs on, one line per piece, or what a %%my_micrograd cell did."""

    def __init__(self, rows):
        self.rows = rows

    def text(self):
        return "\n".join(line + (f"\n    {reason}" if reason else "") for line, reason in self.rows)

    def __repr__(self):
        return self.text()

    def _repr_html_(self):
        from html import escape

        # Proportional type, wrapped between words: a monospace output box breaks lines mid-word.
        parts = ['<div class="micrograd-yours" style="font-family: var(--jp-content-font-family, sans-serif); '
                 'font-size: 13px; line-height: 1.5; white-space: normal; word-break: normal; overflow-wrap: break-word">']
        for line, reason in self.rows:
            if reason is None:
                parts.append(f"<div>{escape(line)}</div>")
            else:
                parts.append(f'<details><summary style="cursor: pointer">{escape(line)}</summary>'
                             f'<div style="margin: 2px 0 4px 1.4em">{escape(reason)}</div></details>')
        parts.append("</div>")
        return "".join(parts)


def _show(status):
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(status)
    else:
        print(status.text())


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
        piece = _BY_KEY[key]
        label = ", ".join(piece.defines) if len(piece.defines) > 1 else name
        rows.append(_row(label, results[key], results))
    _show(Status(rows))
    objects = tuple(ns[name] for name in names)
    return objects[0] if len(objects) == 1 else objects


def stored_cells(notebook):
    """[(key, code)] of a notebook's %%my_micrograd cells, in order: what running them stores."""
    import json

    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and source.startswith("%%my_micrograd"):
            line, _, body = source.partition("\n")
            found.append((section_key(line[len("%%my_micrograd"):]), body))
    return found


def expected_file(notebooks):
    """The text my_micrograd.py holds after the notebooks' %%my_micrograd cells have run, in any order."""
    found = {}
    for notebook in notebooks:
        for key, code in stored_cells(notebook):
            found[key] = (0, _body(code.splitlines()))
    return _render(found)


if __name__ == "__main__":
    raise SystemExit(main())
