# Run under Pyodide by tests/test_lessons_in_pyodide*.py (through serve.mjs), which then calls
# run_lesson(path) once per lesson: the lesson's code cells, in order, in a fresh IPython shell set up
# as the browser app's kernel profile sets it up (micrograd.course.carry.magic, then micrograd.course.browser),
# in a fresh working folder holding the shipped my_micrograd.py, as nbval runs them in a fresh kernel.
# ``path``: a JSON file under /packages, [[cell index, source], ...], written by the test.
# Prints one line per cell, "CELL " and a JSON object: the cell's outputs in the order a notebook keeps
# them (stdout and stderr streams; each result's or display's text/plain and the list of its formats),
# the error it raised, and the seconds it took.  Printed as each cell ends, so a lesson that stops
# Pyodide still shows how far it got.
import gc
import json
import os
import shutil
import sys
import time
import types

sys.modules["fcntl"] = types.ModuleType("fcntl")  # pyodide_kernel's mock: a fcntl without flock
# The app's build sets these, relative to the kernel worker's location (here: node_modules/pyodide/).
os.environ["MICROGRAD_GRAPHVIZ_URL"] = "../@viz-js/viz/dist/viz.js"
os.environ["MICROGRAD_SITE_URL"] = "../../site/"
EXTENSIONS = ("micrograd.course.carry.magic", "micrograd.course.browser")  # the app's kernel profile, in its order

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from micrograd.course.browser import resolve  # noqa: E402
from micrograd.viz import wasm  # noqa: E402

wasm.start_loading(resolve(os.environ["MICROGRAD_GRAPHVIZ_URL"]))  # as the browser extension starts it
await wasm.loaded()  # noqa: F704 - a learner's drawings are drawn once viz.js is there, as in the app


class Outputs(list):
    """A cell's outputs as a notebook keeps them: consecutive prints to a stream make one output."""

    def stream(self, name):
        outputs = self

        class Stream:
            def write(self, text):
                if outputs and outputs[-1]["kind"] == name:
                    outputs[-1]["text"] += text
                elif text:
                    outputs.append({"kind": name, "formats": [], "text": text})
                return len(text)

            def flush(self):
                pass

            def isatty(self):
                return False

        return Stream()

    def shown(self, kind, data):
        self.append({"kind": kind, "formats": sorted(data), "text": data.get("text/plain", "")})


def _shell(outputs):
    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance(colors="nocolor")
    # Every format a notebook stores, as the kernel computes them for JupyterLab.
    shell.display_formatter.active_types = ["text/plain", "text/html", "image/svg+xml", "image/png"]
    shell.enable_gui = lambda gui=None: None  # %matplotlib: a kernel's, not a terminal's event loop
    # A result goes where a kernel sends it, among the cell's outputs, without a terminal's "Out[n]:".
    shell.displayhook.write_output_prompt = lambda: None
    shell.displayhook.write_format_data = lambda data, metadata=None: outputs.shown("execute_result", data)
    shell.display_pub.publish = lambda data, metadata=None, **kwargs: outputs.shown("display_data", data)
    shell.display_pub.clear_output = lambda wait=False: outputs.clear()  # as the notebook clears a cell's outputs
    for extension in EXTENSIONS:
        shell.extension_manager.load_extension(extension)
    return shell


def run_lesson(path):
    with open(path, encoding="utf-8") as cells:
        lesson = json.load(cells)
    folder = f"/home/learner/{os.path.splitext(os.path.basename(path))[0]}"
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy("/packages/my_micrograd.py", folder)  # the lessons' build-it cells as shipped, unfilled
    os.chdir(folder)
    outputs = Outputs()
    shell = _shell(outputs)
    saved = sys.stdout, sys.stderr
    try:
        for index, source in lesson:
            del outputs[:]
            started = time.perf_counter()
            sys.stdout, sys.stderr = outputs.stream("stdout"), outputs.stream("stderr")
            try:
                result = shell.run_cell(source, store_history=True)
            finally:
                sys.stdout, sys.stderr = saved
            error = result.error_before_exec or result.error_in_exec
            print("CELL " + json.dumps({
                "index": index, "outputs": outputs, "seconds": round(time.perf_counter() - started, 3),
                "error": None if error is None else f"{type(error).__name__}: {error}",
            }), flush=True)
    finally:
        sys.stdout, sys.stderr = saved
        # The lesson's names and results go while the extension's finaliser is there to free a deep graph
        # (lesson 10 keeps a chain of 100 000), then the extension, whose next load sets up anew.
        shell.reset(new_session=False)
        gc.collect()
        shell.extension_manager.unload_extension("micrograd.course.browser")
        InteractiveShell.clear_instance()
