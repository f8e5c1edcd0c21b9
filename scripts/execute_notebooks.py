"""Re-run the lessons and store their outputs: what `make notebooks` runs.

    python scripts/execute_notebooks.py [NOTEBOOK.ipynb ...]

With no arguments, every notebook in notebooks/ and notebooks/solutions/.
Each one runs top to bottom on a fresh kernel of this Python (the kernel
`pytest --nbval --nbval-current-env` uses), in its own folder, and is written
back in place.  The stored outputs are what strict nbval compares against,
so the result is made reproducible: execution counts run 1, 2, 3, ..., no
timing metadata is kept, text printed to one stream is stored as one output
however the kernel happened to split it, and widget model ids (random in the
kernel) are renumbered in order of appearance.

First, whatever it runs, it writes the lessons' build-it templates where the
package ships them (micrograd/course/carry/templates.json), so that the kernels, and
the browser app built next, know each template as the lessons now hold it.
Then it writes the solutions' build-it cells (``%%my_micrograd KEY`` and the
code under it) from the worked answers, micrograd/course/carry/answers.py, their one
source: edit an answer there, never in a solutions notebook.  A solutions
notebook whose text this changes is run too, asked for or not, so that its
stored outputs are its code's.

Last, it stops with an error if a cell wrote to standard error (a library's
warning, most often), naming the notebook and the cell: strict nbval would
hold a stored warning equal to a fresh run's, and every learner would read it.
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager
from traitlets import default

from micrograd.course.carry import templates
from micrograd.course.carry.answers import ANSWERS

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT_SECONDS = 600
_MODEL_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")


class CurrentEnvKernelManager(KernelManager):
    """Starts nbval's kernel for this very Python, whatever kernels are registered."""

    @default("kernel_spec_manager")
    def _kernel_spec_manager_default(self):
        return NbvalKernelspecManager(data_dir=self.data_dir)


def lesson_notebooks():
    """Every lesson and solution notebook, in a fixed order."""
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb"))


def lesson_templates_from():
    """The notebooks whose build-it cells are the templates: every lesson, none of the solutions."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def solutions_notebooks():
    """The solutions notebooks, whose build-it cells are the worked answers."""
    return sorted(NOTEBOOKS.glob("solutions/*.ipynb"))


def solution_cell(key):
    """A solutions notebook's build-it cell for key: the magic line, then the worked answer."""
    if key not in ANSWERS:
        raise KeyError(f"a solutions notebook has a build-it cell {templates.MAGIC} {key}, and micrograd/course/carry/answers.py "
                       f"has no worked answer of that name: name the cell as one of {sorted(ANSWERS)}")
    answer = ANSWERS[key].rstrip("\n")
    return f"{templates.MAGIC} {key}\n{answer}"


def build_it_key(cell):
    """The key of a %%my_micrograd cell ('lesson 3: MyValue'), or None for any other cell."""
    if cell.cell_type != "code" or not cell.source.startswith(templates.MAGIC):
        return None
    return templates.section_key(cell.source.partition("\n")[0][len(templates.MAGIC):])


def with_worked_answers(nb):
    """Write the worked answers into nb's build-it cells; returns the keys of the cells this changed."""
    changed = []
    for cell in nb.cells:
        key = build_it_key(cell)
        if key is not None and cell.source != solution_cell(key):
            cell.source = solution_cell(key)
            changed.append(key)
    return changed


def write_worked_answers(notebooks):
    """Write the worked answers into the build-it cells of each notebook; returns those whose text changed."""
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        if with_worked_answers(nb):
            nbformat.write(nb, path)
            written.append(path)
    return written


def _clear(nb):
    """Drop everything a previous run left, so nothing stale survives."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None


def _merge_streams(nb):
    """Join adjacent stdout (or stderr) outputs: how the kernel chunks them depends on timing."""
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                output.output_type == "stream"
                and previous is not None
                and previous.output_type == "stream"
                and previous.name == output.name
            ):
                previous.text += output.text
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def _widget_model_ids(nb):
    """Widget model ids: those the outputs show, in order, then the rest of the saved state.

    The saved state is still in the order the kernel created the widgets (it
    is only sorted when written), which the code fixes, so the order is too.
    """
    ids = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view and view.get("model_id") not in ids:
                ids.append(view["model_id"])
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    ids.extend(model_id for model_id in state.get("state", {}) if model_id not in ids)
    return ids


def _renumber_widget_models(nb):
    """Replace the kernel's random widget model ids with 0000...0001, 0000...0002, ..."""
    ids = _widget_model_ids(nb)
    if not ids:
        return nb
    new_ids = {old: f"{n:032x}" for n, old in enumerate(ids, start=1)}
    text = nbformat.writes(nb)
    text = _MODEL_ID.sub(lambda m: new_ids.get(m.group(0), m.group(0)), text)
    return nbformat.reads(text, as_version=nbformat.NO_CONVERT)


def execute(path):
    """Run one notebook on a fresh kernel and write it back in place; returns the notebook written."""
    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    _clear(nb)
    client = NotebookClient(
        nb,
        kernel_name=CURRENT_ENV_KERNEL_NAME,
        kernel_manager_class=CurrentEnvKernelManager,
        timeout=CELL_TIMEOUT_SECONDS,
        record_timing=False,
        store_widget_state=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    _merge_streams(nb)
    nb = _renumber_widget_models(nb)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return nb


def stderr_outputs(nb):
    """(cell number, first line) of what each code cell wrote to standard error: a warning, most often (a call that a
    library deprecates), which a learner would take for something gone wrong in their lesson."""
    found = []
    for number, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append((number, (output.get("text", "").strip().splitlines() or [""])[0]))
    return found


def _named(path):
    """The notebook's path from the current folder when it is inside it (a lesson and its solution share a name)."""
    path, here = Path(path).resolve(), Path.cwd().resolve()
    return path.relative_to(here).as_posix() if path.is_relative_to(here) else str(path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every notebook in notebooks/ and notebooks/solutions/)")
    paths = parser.parse_args(argv).notebooks or lesson_notebooks()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    if not paths:
        sys.exit(f"No notebooks found in {NOTEBOOKS}")
    print(f"writing {templates.write(lesson_templates_from())}", flush=True)
    for path in write_worked_answers(solutions_notebooks()):
        print(f"wrote the worked answers into {path}", flush=True)
        if all(path.resolve() != p.resolve() for p in paths):
            paths.append(path)
    warned = []
    for path in paths:
        print(f"executing {path}", flush=True)
        warned += [(path, number, line) for number, line in stderr_outputs(execute(path))]
    if warned:
        sys.exit("Written, but these cells wrote to standard error, which the tests refuse in a lesson; remove the "
                 "cause and run make notebooks again:\n" + "\n".join(f"  {_named(path)}, cell {number}: {line}" for path, number, line in warned))


if __name__ == "__main__":
    main(sys.argv[1:])
