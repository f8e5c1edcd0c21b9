"""What the tests of the lessons' claims share: a claim found in a lesson, a lesson's code run, the models they try.

Every claim the lessons make about behaviour is demonstrated by a small experiment, one test per
claim, in the file of its lesson: tests/test_claims_lesson00.py to tests/test_claims_lesson11.py,
and tests/test_claims_guides.py for the site's guide pages.  Each first checks that the lesson still says what
the test demonstrates (an anchor phrase, whitespace aside), so a claim that is reworded or dropped
fails there instead of leaving a test behind that proves something nobody says any more.  Code the
lessons run is found by a phrase too, never by cell index, since cells move.  PyTorch claims run
where PyTorch is installed (CI installs it); claims about micrograd 0.1.0 run on the copy the
differential tests install.
"""

import contextlib
import functools
import gc
import io
import json
import random
from pathlib import Path

import pytest
from micrograd import MLP, Value, topological_order
from micrograd.data import moons
from micrograd.losses import hinge
from micrograd.optim import Adam


REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
# The course site's guide pages that make claims, as paths under the repository (claim() reads them).
SPEED = "docs/guide/speed.md"
BESIDE_0_1_0 = "docs/guide/micrograd_0_1_0.md"


def squeezed(text):
    return " ".join(text.split())


@functools.cache
def lesson_cells(lesson):
    """(kind, source) of every cell of lesson ``lesson`` (0 to 11), or of a page (a path under the repository)."""
    if isinstance(lesson, str):
        return (("markdown", (REPO / lesson).read_text(encoding="utf-8")),)
    (path,) = NOTEBOOKS.glob(f"{lesson:02d}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return tuple((cell["cell_type"], "".join(cell["source"])) for cell in cells)


def claim(lesson, phrase):
    """Fail unless the lesson (a number) or the page (a path: README.md, docs/...) still makes the claim."""
    where = lesson if isinstance(lesson, str) else f"lesson {lesson}"
    text = squeezed(" ".join(source for _, source in lesson_cells(lesson)))
    assert squeezed(phrase) in text, f"{where} no longer says {phrase!r}: test what it says now, or drop this test"


def lesson_code(lesson, phrase):
    """The source of the one code cell of a lesson that contains ``phrase``, IPython magics left out."""
    found = [source for kind, source in lesson_cells(lesson) if kind == "code" and phrase in source]
    assert len(found) == 1, f"lesson {lesson}: {len(found)} code cells contain {phrase!r}, expected one"
    return "\n".join(line for line in found[0].splitlines() if not line.lstrip().startswith("%"))


def run_lesson_code(lesson, *phrases, namespace=None, replace=()):
    """Run the code cells found by ``phrases``, in order, in one namespace (printing silenced)."""
    namespace = {} if namespace is None else namespace
    with contextlib.redirect_stdout(io.StringIO()):
        for phrase in phrases:
            source = lesson_code(lesson, phrase)
            for old, new in replace:
                source = source.replace(old, new)
            exec(compile(source, f"lesson {lesson}: {phrase}", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def mlp_0_1_0(micrograd_0_1_0_folder, micrograd_0_1_0_value):
    """micrograd 0.1.0's nn module, run on its own Value (loaded under another name)."""
    source = (micrograd_0_1_0_folder / "micrograd" / "nn.py").read_text(encoding="utf-8")
    namespace = {"__name__": "micrograd_0_1_0_nn", "Value": micrograd_0_1_0_value}
    exec(compile(source.replace("from micrograd.engine import Value", ""), "micrograd 0.1.0 nn.py", "exec"), namespace)
    return namespace


def train_on_moons(model, steps=15):
    X, y = moons(n_samples=50, noise=0.1)
    optimizer = Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        loss = hinge([model(x) for x in X], y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


@pytest.fixture(scope="module")
def course_models():
    """The two-input networks of lessons 7 and 9, fresh and briefly trained, with ReLU and tanh."""
    random.seed(1337)
    demo = MLP(2, [16, 16, 1])  # lesson 7's, with the demo's weights
    models = {
        "fresh ReLU MLP(2, [16, 16, 1])": demo,
        "fresh ReLU MLP(2, [8, 1])": MLP(2, [8, 1], rng=9),
        "fresh tanh MLP(2, [8, 1])": MLP(2, [8, 1], activation="tanh", rng=9),
        "fresh tanh MLP(2, [16, 16, 1])": MLP(2, [16, 16, 1], activation="tanh", rng=1),
    }
    trained = {
        "trained ReLU MLP(2, [16, 16, 1])": train_on_moons(MLP(2, [16, 16, 1], rng=3)),
        "trained ReLU MLP(2, [8, 1])": train_on_moons(MLP(2, [8, 1], rng=9)),
        "trained tanh MLP(2, [8, 1])": train_on_moons(MLP(2, [8, 1], activation="tanh", rng=9)),
    }
    return models | trained


def lecture_graph():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c, f = Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    L = d * f; L.label = "L"
    return L


def labelled(root):
    return {node.label: node for node in topological_order(root) if node.label}


class Recorder(Value):
    """A node made the lecture's way (its own _backward) that notes every call of it."""

    __slots__ = ()
    calls = []

    @classmethod
    def passing(cls, x):
        out = cls(x.data, (x,), "noted")

        def _backward():
            cls.calls.append(out)
            x.grad += out.grad

        out._backward = _backward
        return out


def lesson3_neuron():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    bias = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + bias; n.label = "n"
    o = n.tanh(); o.label = "o"
    return o


def young_objects(kind):
    """How many objects of this kind the cycle collector's youngest generation holds: with the collector
    off, every object made since it was switched off is there, and counting it is quick."""
    return sum(type(o) is kind for o in gc.get_objects(generation=0))
