# Run under Pyodide by tests/test_pyodide.py (through run.mjs): the course as the browser app's
# kernel runs it. Writes what it found, as one JSON object, to /packages/found.json for the test to
# check (a file: what is still on its way to standard output is lost when Pyodide stops); then drops
# a chain of a class of its own, which ends Pyodide (the browser app's limit, docs/teaching/browser_app.md).
import contextlib
import gc
import io
import json
import os
import sys
import types

found = {"platform": sys.platform}

# What pyodide_kernel's mocks do: an empty fcntl module, with no flock.
sys.modules["fcntl"] = types.ModuleType("fcntl")
# The app's build sets these, relative to the kernel worker's location (here: node_modules/pyodide/).
os.environ["MICROGRAD_GRAPHVIZ_URL"] = "../@viz-js/viz/dist/viz.js"
os.environ["MICROGRAD_SITE_URL"] = "../../site/"
os.environ["MICROGRAD_LESSON_CELLS"] = "/packages/lesson_table.json"  # written by the test, as the build writes it

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

class Kernel:  # what JupyterLite's kernel keeps of the request that runs a cell: the cell's id among it
    request = {}

    def get_parent(self):
        return self.request


shell = InteractiveShell.instance(colors="nocolor")
shell.kernel = Kernel()
shell.extension_manager.load_extension("micrograd.course.browser")


def run_cell(code, cell_id=None):
    shell.kernel.request = {"metadata": {"cellId": cell_id}} if cell_id else {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        result = shell.run_cell(code)
    return {"printed": printed.getvalue(), "success": result.success}


from micrograd import Value  # noqa: E402
from micrograd.viz import draw_dot, wasm  # noqa: E402
from micrograd.viz.render import renderer_name  # noqa: E402

found["graphviz_url"] = wasm.loading_started()

a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
e = a * b
e.label = "e"
d = e + c
d.label = "d"
L = d * f
L.label = "L"
L.backward()
found["grads"] = [a.grad, b.grad, c.grad, f.grad]

drawing = draw_dot(L, show_local_grads=True)
found["source"] = drawing.source
# No JavaScript Promise Integration in Node's runPythonAsync: before viz.js is there, a drawing says so.
found["before_loaded"] = None if wasm.ready() else drawing._repr_mimebundle_()["text/plain"].splitlines()[0]
await wasm.loaded()  # noqa: F704 - top-level await, as a cell in the browser may
found["renderer"] = renderer_name()
found["svg"] = drawing._repr_svg_()
found["drawn_by"] = drawing.drawn_by
found["svg_without_font_fix"] = wasm._state().render(drawing.source, "svg", "dot")  # what the layout was before

from micrograd.widgets import BackpropStepper  # noqa: E402

stepper = BackpropStepper(L)
while not stepper.done:
    stepper.step()
found["stepper"] = stepper.summary()
found["stepper_layouts"] = stepper.layout.layouts
found["stepper_picture"] = stepper.static_html()
found["kept_svg"] = stepper.layout.svg(draw_dot(L))

os.makedirs("/home/learner", exist_ok=True)
os.chdir("/home/learner")
found["enable_magic"] = run_cell("from micrograd.course.carry import yours\nyours.enable_magic()")
found["magic"] = run_cell("%%my_micrograd lesson 2: MyValue\nclass MyValue:\n    pass\n")
with open("my_micrograd.py", encoding="utf-8") as saved:
    found["saved"] = saved.read()

# Nothing is lost: other code keeps the code it replaces, and the lesson's template, run again, runs the
# learner's saved code instead and hands the cell its text back (a payload, which the app's front end honours).
from micrograd.course.carry import templates  # noqa: E402

found["replaced"] = run_cell("%%my_micrograd lesson 2: MyValue\nclass MyValue:\n    second = True\n")
found["template_run"] = run_cell("%%my_micrograd lesson 2: MyValue\n" + templates.template("lesson 2: MyValue"))
found["payload"] = shell.payload_manager.read_payload()
shell.payload_manager.clear_payload()
found["restored"] = run_cell('yours.restore("lesson 2: MyValue", 1)')
with open("my_micrograd.py", encoding="utf-8") as saved:
    found["saved_after_restore"] = saved.read()
found["files"] = sorted(os.listdir("."))

with open("/packages/lesson_cells.json", encoding="utf-8") as cells:  # written by the test
    found["cells"] = [run_cell(code, cell_id) for cell_id, code in json.load(cells)]
found["numpy"] = run_cell("import numpy as np")  # a cell of the learner's own, after lesson 1's

from micrograd import MLP  # noqa: E402
from micrograd.widgets import TrainingStepper  # noqa: E402

training = TrainingStepper(MLP(2, [2, 1], rng=0), [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0], lr=0.1)
training.step()
training.run(4)
found["training"] = {"summary": training.summary(), "note": training.figure_note, "shown": training.image.value}

# Lesson 4's check on the lecture's recursive order: each run makes Python give up on a chain
# 5 000 nodes deep, then frees it.  Freed whole, such a chain kills Pyodide within a few runs.
from lecture_autograd import my_topological_order as lecture_order  # noqa: E402  (written by the test)
from micrograd.course.lessons import lesson04 as check  # noqa: E402  (as lesson 4 imports it)

found["deep_checks"] = [str(check.my_topological_order(lecture_order)) for _ in range(8)]

# Lesson 10's chain of 100 000 negations, dropped: the browser extension's finaliser frees it one node at a time.
from micrograd.course.browser import freeing as browser_freeing  # noqa: E402


def values_alive():
    return sum(type(o) is Value for o in gc.get_objects())


found["finaliser_installed"] = browser_freeing.installed()
others = values_alive()
leaf = chain = Value(1.0)
for _ in range(100_000):
    chain = -chain
found["deep_chain"] = {"alive_while_kept": values_alive() - others}
del chain
found["deep_chain"]["alive_after"] = values_alive() - others


class OwnNode:  # a learner's class: nothing frees its chains one node at a time
    def __init__(self, inputs=()):
        self.inputs = inputs


chain = OwnNode()
for _ in range(100_000):
    chain = OwnNode((chain,))
found["own_class_chain"] = "built"
with open("/packages/found.json", "w", encoding="utf-8") as written:
    json.dump(found, written)
del chain  # ends Pyodide: the test checks that it still does, as docs/teaching/browser_app.md says
print("the chain of OwnNode freed")
