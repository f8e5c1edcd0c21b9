"""Run lessons' code cells in this process, one IPython shell per lesson, as nbval runs them in a kernel.

A kernel per lesson costs seconds of start-up and imports; one process with a fresh shell per lesson costs
the cells alone, so the tests that carry a learner's code through lessons 3 to 6 stay cheap.  Each cell's
text output and error are kept, so a test can read what a lesson said and where it failed.
"""

import atexit
import builtins
import contextlib
import json
import os
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class CellRun:
    def __init__(self, notebook, index, source, output, error):
        self.notebook, self.index, self.source, self.output, self.error = notebook, index, source, output, error

    def __repr__(self):
        return f"{self.notebook} cell {self.index}: {self.error or 'ok'}"


def code_cells(notebook):
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def build_it_cell(notebook, key):
    """The index of the notebook's %%my_micrograd cell saved as key."""
    for index, source in code_cells(notebook):
        if source.startswith("%%my_micrograd") and source.partition("\n")[0].split(None, 1)[1].strip() == key:
            return index
    raise LookupError(f"{Path(notebook).name} has no %%my_micrograd {key} cell")


def close_shell(shell):
    """A shell a test is done with, let go: IPython's exit hook for it dropped, its history thread stopped.  Otherwise
    the hook and the thread keep every shell of a run alive, with everything its lesson made, and at exit each clears
    its namespace and collects garbage in a heap that holds all the others: some 10 s at a test worker's end.  A shell
    let go is freed as any garbage is."""
    atexit.unregister(shell.atexit_operations)
    shell.history_manager.close()


@contextlib.contextmanager
def _shell(folder):
    from IPython.core.interactiveshell import InteractiveShell

    saved = sys.displayhook, sys.excepthook, getattr(builtins, "get_ipython", None), os.getcwd()
    os.environ.setdefault("MPLBACKEND", "Agg")
    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance()
    # Every format a notebook stores, so a drawing or a status is made as JupyterLab would ask for it.
    shell.display_formatter.active_types = ["text/plain", "text/html", "image/svg+xml", "image/png"]
    shell.colors = "nocolor"
    # IPython reports an output that fails to show (a _repr_html_ raising) without failing its cell: count it.
    shell.output_errors = []
    show = shell.showtraceback

    def showtraceback(exc_tuple=None, *args, **kwargs):
        shell.output_errors.append((exc_tuple or sys.exc_info())[1])
        return show(exc_tuple, *args, **kwargs)

    shell.showtraceback = showtraceback
    shell.enable_gui = lambda gui=None: None  # %matplotlib inline: a kernel's, not a terminal's event loop
    os.chdir(folder)
    try:
        yield shell
    finally:
        os.chdir(saved[3])
        close_shell(shell)
        InteractiveShell.clear_instance()
        sys.displayhook, sys.excepthook = saved[0], saved[1]
        if saved[2] is None:
            builtins.__dict__.pop("get_ipython", None)
        else:
            builtins.get_ipython = saved[2]


def run_lesson(notebook, folder, replace=None, then=(), only=None, twice=()):
    """Run the code cells of notebook in folder, top to bottom, then the cells numbered in then, as a learner
    runs a cell again; replace = {cell index: source}; only: the cells to run (all by default); twice: cells
    run a second time straight after the first."""
    replace = replace or {}
    cells = dict(code_cells(notebook))
    order = [j for i in cells if only is None or i in only for j in ([i, i] if i in twice else [i])] + list(then)
    return run_sources(notebook, folder, [(index, replace.get(index, cells[index])) for index in order])


def run_sources(notebook, folder, sources):
    """Run sources, [(cell index, source)], in order in one fresh shell in folder, as a learner runs cells
    (a cell typed anew, or run again after the lesson ran); the index only names the cell in the result."""
    from IPython.utils.capture import capture_output

    runs = []
    with _shell(folder) as shell:
        for index, source in sources:
            del shell.output_errors[:]
            with capture_output() as captured:
                result = shell.run_cell(source, store_history=True)
            error = result.error_before_exec or result.error_in_exec
            if error is None and shell.output_errors:
                error = shell.output_errors[0]
            text = captured.stdout + captured.stderr + "".join(
                o.data.get("text/plain", "") for o in captured.outputs)
            runs.append(CellRun(Path(notebook).name, index, source, text,
                                None if error is None else f"{type(error).__name__}: {error}"))
    return runs


def errors(runs):
    return [run for run in runs if run.error]
