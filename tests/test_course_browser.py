"""micrograd.course.browser, the browser app's IPython extension, on CPython with numpy, matplotlib,
scikit-learn and scipy hidden as the app lacks them (tests/test_pyodide.py runs it under Pyodide)."""

import html
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LESSON_01 = REPO / "notebooks" / "01_derivatives.ipynb"

# Runs each cell given (a JSON list on stdin) in an IPython shell with the extension loaded, and
# prints a JSON list: per cell, what it printed and the error it showed, if any.
SHELL = r"""
import contextlib, importlib.machinery, io, json, sys

HIDDEN = {"numpy", "matplotlib", "sklearn", "scipy", "PIL"}
found = importlib.machinery.PathFinder.find_spec
def find_spec(name, path=None, target=None):
    return None if name.split(".")[0] in HIDDEN else found(name, path, target)
importlib.machinery.PathFinder.find_spec = staticmethod(find_spec)  # as if they were not installed

from IPython.core.interactiveshell import InteractiveShell

class Kernel:  # what JupyterLite's kernel keeps of the request that runs a cell: the cell's id among it
    request = {}
    def get_parent(self):
        return self.request

shell = InteractiveShell.instance(colors="nocolor")
shell.kernel = Kernel()
shell.extension_manager.load_extension("micrograd.course.browser")
out = []
for cell in json.load(sys.stdin):
    cell_id, code = cell if isinstance(cell, list) else (None, cell)  # [id, code], or code alone
    shell.kernel.request = {"metadata": {"cellId": cell_id}} if cell_id else {}
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        result = shell.run_cell(code)
    shown = [getattr(value, "static_html", lambda: "")() for value in [result.result] if value is not None]
    out.append({"printed": printed.getvalue(), "error": None if result.success else errors.getvalue() + printed.getvalue(),
                "shown": "".join(shown)})
print(json.dumps(out))
"""


def run_cells(cells, cwd=REPO, **env):
    done = subprocess.run(
        [sys.executable, "-c", SHELL], input=json.dumps(cells), capture_output=True, text=True, timeout=300,
        cwd=cwd, env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def code_cells(notebook, with_ids=False):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [[cell["id"], "".join(cell["source"])] if with_ids else "".join(cell["source"])
            for cell in cells if cell["cell_type"] == "code"]


def lesson_table(tmp_path, *lessons):
    """The table the app's build writes (browser_app/app_lessons.py): the lesson of each cell id, each lesson's page."""
    sys.path.insert(0, str(REPO / "browser_app"))
    try:
        import app_lessons
    finally:
        del sys.path[0]
    table = tmp_path / "lesson_cells.json"
    table.write_text(json.dumps(app_lessons.lesson_cells([REPO / "notebooks" / f"{name}.ipynb" for name in lessons])))
    return str(table)


def test_lesson_01_runs_and_each_figure_cell_says_once_where_to_see_its_figure():
    cells = code_cells(LESSON_01)
    runs = run_cells(cells, MICROGRAD_SITE_URL="https://example.org/course/")
    note = ("This figure needs matplotlib, which this browser app does not have; the course site shows it: "
            "https://example.org/course/ (or run the lesson in JupyterLab, `make lab`).")
    assert [run["error"] for run in runs] == [None] * len(cells)
    assert runs[0]["printed"] == ""  # %matplotlib inline and %config InlineBackend run quietly
    figure_cells = [i for i, cell in enumerate(cells) if "plt.subplots" in cell]
    assert len(figure_cells) == 3
    for i, run in enumerate(runs):
        assert run["printed"].count(note) == (1 if i in figure_cells else 0), (i, run["printed"])


def test_two_panels_and_a_grid_of_axes_unpack_and_a_figure_without_show_still_says_so():
    runs = run_cells([
        "import matplotlib.pyplot as plt\n"
        "fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.2), sharey=True)\n"
        "left.plot([1, 2], [3, 4]); right.set(title='ReLU'); plt.tight_layout(); plt.show()",
        "fig, axes = plt.subplots(2, 8)\nfor ax in axes.flat:\n    ax.axis('off')\nline, = axes[1, 7].plot([1])",
        "print('no figure here')",
        "plt.subplots(0, 1)",
    ])
    assert [run["printed"].count("This figure needs matplotlib") for run in runs[:3]] == [1, 1, 0]
    assert [run["error"] for run in runs[:3]] == [None] * 3
    assert "plt.subplots takes the number of rows as a whole number ≥ 1, got 0" in runs[3]["error"]


def test_a_figure_cell_coloured_by_the_course_palette_runs_and_says_so():
    runs = run_cells([
        "import matplotlib.pyplot as plt\n"
        "from micrograd.palette import class_colormap\n"
        "fig, ax = plt.subplots()\n"
        "ax.contourf([0, 1], [0, 1], [[0, 1], [1, 0]], levels=[-1, 0, 1], cmap=class_colormap(2, light=True))\n"
        "plt.show()",
        "from matplotlib.colors import ListedColormap\nprint(repr(ListedColormap(['red'])))",
    ])
    assert runs[0]["error"] is None and runs[0]["printed"].startswith("This figure needs matplotlib"), runs[0]
    assert runs[1] == {"printed": "<not drawn: no matplotlib here>\n", "error": None, "shown": ""}


def test_the_package_pictures_show_the_line_instead_of_raising():
    runs = run_cells([
        "from micrograd.viz import loss_curve, attention_heatmaps\n"
        "print(repr(loss_curve([3.0, 2.5, 2.0], 27)))",
        "print(repr(attention_heatmaps([[[1.0]]], ['BOS'])))",
    ])
    for run in runs:
        assert run["error"] is None and run["printed"].startswith("This figure needs matplotlib"), run


def test_numpy_scikit_learn_and_scipy_say_in_one_line_where_the_lesson_runs():
    runs = run_cells(["import numpy as np", "from sklearn.datasets import make_moons", "import scipy", "import matplotlib.figure"])
    for run, package in zip(runs, ("numpy", "scikit-learn", "scipy", "matplotlib")):
        assert run["error"].strip() == (
            f"NotInThisBrowser: This browser app has no {package}, so this cell cannot run here: the lesson runs in "
            "full in JupyterLab (`make lab`), or in a JupyterLite app built with a full Pyodide distribution."
        ), run["error"]


def test_packages_that_are_there_import_as_usual_and_nothing_stands_in_without_the_extension():
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.extension_manager.load_extension('micrograd.course.browser')\n"
        "import numpy, matplotlib.pyplot\n"
        "print(numpy.__name__, matplotlib.__file__ is not None, 'InlineBackend' in [type(c).__name__ for c in shell.configurables])\n"
        "from micrograd.course.browser import freeing as browser_freeing\n"
        "print(browser_freeing.installed())\n"
        "shell.extension_manager.unload_extension('micrograd.course.browser')\n"
        "print(browser_freeing.installed())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    # The finaliser that frees deep graphs comes with the extension, and goes with it.
    assert done.stdout.split() == ["numpy", "True", "False", "True", "False"]


# In a process of its own: the finaliser sees every Value freed while it is installed, and in the test process
# that includes whatever earlier tests left for it to free meanwhile.
FREEING = """
import gc, json, sys
from micrograd import Value
from micrograd.course.browser import freeing as browser_freeing

seen = []  # for each node freed: was the loop of an outer finaliser at work, and how deep the stack was

def depth():
    frame, count = sys._getframe(), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count

class Pending(list):  # the finaliser's list of inputs, noting both as each node's inputs arrive
    def append(self, inputs):
        seen.append((browser_freeing._draining, depth()))
        super().append(inputs)

def values_alive():
    return sum(type(o) is Value for o in gc.get_objects())

unraisable = []
sys.unraisablehook = unraisable.append  # where an error in a finaliser goes
browser_freeing._pending = Pending()
browser_freeing.install()
before = values_alive()
chain = Value(1.0)
for _ in range(10_000):
    chain = -chain
Value.__new__(Value)  # a node never filled in is freed without a word
del chain
after = values_alive()
browser_freeing.uninstall()
print(json.dumps({"seen": seen, "alive": [before, after], "unraisable": len(unraisable),
                  "uninstalled": not browser_freeing.installed() and "__del__" not in Value.__dict__}))
"""


def test_the_finaliser_frees_a_deep_chain_whole_from_one_loop_never_nesting_more_than_one_node_deep():
    done = subprocess.run([sys.executable, "-c", FREEING], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    before, after = found["alive"]
    assert after == before and found["unraisable"] == 0 and found["uninstalled"]
    (outermost, depth), *others_freed = [tuple(entry) for entry in found["seen"]]
    assert len(found["seen"]) == 10_000 and not outermost
    assert set(others_freed) == {(True, depth + 1)}  # each freed by the outermost's loop, one call below it


def test_under_pyodide_a_missing_package_is_not_answered_with_pip_install(monkeypatch):
    from micrograd import optional

    monkeypatch.setattr(sys, "platform", "emscripten")
    try:
        optional.require("numpy_that_is_not_there", "micrograd.widgets.TrainingStepper's figure", "widgets")
    except ImportError as error:
        message, shown = str(error), error._render_traceback_()
        assert error.__cause__ is None and error.__suppress_context__  # one line under the cell, not a chain
    assert shown == [f"NotInThisApp: {message}"]
    assert "pip install" not in message
    assert message.startswith("micrograd.widgets.TrainingStepper's figure needs numpy_that_is_not_there")
    assert "which this browser app does not have: run this lesson in JupyterLab (`make lab`)" in message


SITE = "https://example.org/course/"


def test_each_note_links_to_the_page_of_the_lesson_whose_cell_runs(tmp_path):
    table = lesson_table(tmp_path, "01_derivatives", "09_debugging_autograd")
    lesson_01 = dict(code_cells(LESSON_01, with_ids=True))
    figure_01 = next(cell_id for cell_id, code in lesson_01.items() if "plt.subplots" in code)
    first_09 = code_cells(REPO / "notebooks" / "09_debugging_autograd.ipynb", with_ids=True)[0][0]
    figure = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nplt.show()"
    runs = run_cells([
        figure,                                     # no cell of a lesson has run yet: the site's front page
        "import numpy",
        [figure_01, figure],                        # a cell of lesson 1
        [None, figure],                             # a cell the learner added: still lesson 1
        [first_09, "import numpy"],                 # a cell of lesson 9
        [None, figure],
        ["no-such-cell", "import scipy"],
    ], MICROGRAD_SITE_URL=SITE, MICROGRAD_LESSON_CELLS=table)
    note = "This figure needs matplotlib, which this browser app does not have; the course site shows it: {} (or run the lesson in JupyterLab, `make lab`).\n"
    lesson_1, lesson_9 = SITE + "lessons/01_derivatives.html", SITE + "lessons/09_debugging_autograd.html"
    assert runs[0]["printed"] == note.format(SITE)
    assert runs[1]["error"].strip().endswith(f"; the course site shows what it prints: {SITE}.")
    assert [runs[2]["printed"], runs[3]["printed"], runs[5]["printed"]] == [note.format(lesson_1)] * 2 + [note.format(lesson_9)]
    assert runs[4]["error"].strip() == (
        "NotInThisBrowser: This browser app has no numpy, so this cell cannot run here: the lesson runs in full in "
        f"JupyterLab (`make lab`), or in a JupyterLite app built with a full Pyodide distribution; the course site shows "
        f"what it prints: {lesson_9}."
    )
    assert runs[6]["error"].strip().endswith(f"shows what it prints: {lesson_9}.")


def test_lesson_6_runs_to_its_end_and_the_training_stepper_steps_with_its_line_for_the_figure(tmp_path):
    lesson = REPO / "notebooks" / "06_training_loop.ipynb"
    cells = code_cells(lesson, with_ids=True)
    runs = run_cells(cells + [[None, "stepper"]],  # then a cell of the learner's own shows the stepper
                     cwd=tmp_path,  # where the lesson's build-it cells keep my_micrograd.py
                     MICROGRAD_SITE_URL=SITE, MICROGRAD_LESSON_CELLS=lesson_table(tmp_path, "06_training_loop"))
    assert [run["error"] for run in runs] == [None] * (len(cells) + 1)  # Run All reaches the last cell
    note = ("This figure needs matplotlib, which this browser app does not have; the course site shows it: "
            f"{SITE}lessons/06_training_loop.html (or run the lesson in JupyterLab, `make lab`).")
    figure_cells = [i for i, (_, code) in enumerate(cells) if "plt.subplots" in code]
    assert figure_cells and all(runs[i]["printed"] == note + "\n" for i in figure_cells)
    (stepper,) = [i for i, (_, code) in enumerate(cells) if "TrainingStepper(" in code]
    assert "step 5: loss" in runs[stepper]["printed"]  # it stepped, and its numbers are there
    shown = runs[-1]["shown"]
    assert "step <b class='micrograd-step'>5</b>" in shown
    assert html.escape(note) in shown and "<svg" not in shown and "data:image" not in shown
