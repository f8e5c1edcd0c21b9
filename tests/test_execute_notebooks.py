"""`make notebooks` (scripts/execute_notebooks.py) stores outputs strict nbval can compare."""

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def load_script():
    spec = importlib.util.spec_from_file_location(
        "execute_notebooks", ROOT / "scripts" / "execute_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stale_notebook():
    """A notebook as an editing session leaves it: old counts, outputs, timings and widget state."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["widgets"] = {WIDGET_STATE: {"state": {"f" * 32: {}}, "version_major": 2, "version_minor": 0}}
    nb.cells = [
        new_code_cell("import os\nprint(os.path.basename(os.getcwd()))", execution_count=7),
        new_code_cell(
            "import ipywidgets\nipywidgets.VBox([ipywidgets.IntSlider(3), ipywidgets.Button()])",
            execution_count=3,
            outputs=[new_output("stream", name="stdout", text="stale\n")],
        ),
        new_code_cell("", execution_count=9, outputs=[new_output("stream", name="stdout", text="x\n")]),
        new_markdown_cell("prose"),
        new_code_cell("21 * 2"),
        new_code_cell(
            "import sys, time\n"
            "for part in ('one', ' two', ' three'):\n"
            "    sys.stdout.write(part)\n"
            "    sys.stdout.flush()\n"
            "    time.sleep(0.05)  # lets each part reach the notebook as its own message\n"
            "print()"
        ),
    ]
    nb.cells[0].metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00.000000Z"}
    for n, cell in enumerate(nb.cells):
        cell.id = f"cell-{n}"
    return nb


def test_reruns_on_a_fresh_kernel_with_reproducible_bytes(tmp_path):
    folder = tmp_path / "lesson-folder"
    folder.mkdir()
    path = folder / "lesson.ipynb"
    nbformat.write(stale_notebook(), path)
    script = load_script()

    script.execute(path)
    first = path.read_text()
    script.execute(path)
    assert path.read_text() == first

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == [1, 2, None, 3, 4]
    assert code[0].outputs[0].text == "lesson-folder\n"  # runs in the notebook's own folder
    assert code[2].outputs == []
    assert code[3].outputs[0].data["text/plain"] == "42"
    assert [(o.name, o.text) for o in code[4].outputs] == [("stdout", "one two three\n")]
    assert all("execution" not in cell.metadata for cell in nb.cells)


def test_widget_model_ids_are_numbered_in_order_of_appearance(tmp_path):
    path = tmp_path / "lesson.ipynb"
    nbformat.write(stale_notebook(), path)
    load_script().execute(path)
    nb = nbformat.read(path, as_version=4)

    view = nb.cells[1].outputs[0].data[WIDGET_VIEW]
    assert view["model_id"] == f"{1:032x}"  # the VBox: the first id a cell shows
    state = nb.metadata["widgets"][WIDGET_STATE]["state"]
    assert sorted(state) == [f"{n:032x}" for n in range(1, len(state) + 1)]
    assert "f" * 32 not in state  # the stale state is gone
    children = state[view["model_id"]]["state"]["children"]
    assert len(children) == 2
    for reference in children:
        assert re.fullmatch(r"IPY_MODEL_[0-9a-f]{32}", reference)
        assert reference.removeprefix("IPY_MODEL_") in state
    # No id the kernel made up survives anywhere in the file.
    renumbered = {f"{n:032x}" for n in range(1, len(state) + 1)}
    assert set(re.findall(r"[0-9a-f]{32}", json.dumps(nb))) <= renumbered


# -- the solutions' build-it cells: written from the worked answers, their one source -------------


def test_the_stored_solutions_cells_are_what_make_notebooks_writes_from_the_worked_answers():
    from micrograd.course.carry.answers import ANSWERS

    script = load_script()
    keys = []
    for path in script.solutions_notebooks():
        nb = nbformat.read(path, as_version=4)
        changed = script.with_worked_answers(nb)
        assert changed == [], (f"{path.name}: the build-it cells {changed} differ from their worked answers; edit the "
                               "answer in micrograd/course/carry/answers.py and run make notebooks, which writes the cells")
        keys += [key for key in map(script.build_it_key, nb.cells) if key is not None]
    assert sorted(keys) == sorted(ANSWERS)  # every worked answer in a solutions cell, once


def test_a_hand_edit_of_a_solutions_cell_is_written_over_with_the_worked_answer(tmp_path):
    script = load_script()
    shipped = next(p for p in script.solutions_notebooks() if p.name.startswith("11_"))
    nb = nbformat.read(shipped, as_version=4)
    cell = next(c for c in nb.cells if script.build_it_key(c) == "lesson 11: softmax")
    cell.source = cell.source.replace("total = sum(exps)", "total = sum(exps)  # edited by hand")
    path = tmp_path / shipped.name
    nbformat.write(nb, path)
    assert script.write_worked_answers([path]) == [path]
    assert ([c.source for c in nbformat.read(path, as_version=4).cells]
            == [c.source for c in nbformat.read(shipped, as_version=4).cells])
    assert script.write_worked_answers([path]) == []  # nothing left to write: the notebook is not touched again


def test_a_solutions_cell_with_no_worked_answer_is_refused_by_name():
    script = load_script()
    nb = new_notebook(cells=[new_code_cell("%%my_micrograd lesson 3: MyValeu\nclass MyValue: ...")])
    with pytest.raises(KeyError) as refused:
        script.with_worked_answers(nb)
    assert "lesson 3: MyValeu" in str(refused.value) and "'lesson 3: MyValue'" in str(refused.value)


# -- nothing on standard error: a warning in a lesson reads as something gone wrong -----------------------------


def test_no_lesson_or_solution_stores_output_on_standard_error():
    script = load_script()
    found = {path.relative_to(ROOT).as_posix(): script.stderr_outputs(nbformat.read(path, as_version=4))
             for path in script.lesson_notebooks()}
    assert len(found) >= 23, sorted(found)  # lessons 00-11, solutions 01-11
    assert {name: cells for name, cells in found.items() if cells} == {}, "a warning (or other text on standard error) stored"


def test_a_warning_a_cell_printed_is_found_by_cell_and_first_line():
    script = load_script()
    warning = ("/site-packages/graphviz/_tools.py:171: PendingDeprecationWarning: The signature of render will be "
               "reduced to 1 positional arg\n  return func(*args, **kwargs)\n")
    nb = new_notebook(cells=[
        new_code_cell("print('fine')", outputs=[new_output("stream", name="stdout", text="fine\n")]),
        new_markdown_cell("prose"),
        new_code_cell("drawing.render('x')", outputs=[new_output("stream", name="stderr", text=warning)]),
    ])
    assert script.stderr_outputs(nb) == [(2, warning.splitlines()[0])]


def test_a_notebook_is_named_by_its_path_so_a_lesson_and_its_solution_are_told_apart(monkeypatch, tmp_path):
    script = load_script()
    monkeypatch.chdir(ROOT)
    assert script._named(ROOT / "notebooks" / "solutions" / "03_backprop_by_hand.ipynb") == "notebooks/solutions/03_backprop_by_hand.ipynb"
    assert script._named(tmp_path / "warns.ipynb") == str((tmp_path / "warns.ipynb").resolve())  # outside: in full
