"""A learner's micrograd carried through the lessons: what a build-it check accepts, the lessons after it run.

Each test runs lessons top to bottom in one folder, as nbval does (tests/lesson_runner.py runs their cells
in this process, a fresh IPython shell per lesson), with the learner's code typed into a build-it cell, and
asks two things: no cell ends in an error, and each lesson says it runs on the learner's piece.
"""

import re
import shutil

import build_stubs
import foreign_nodes
import pytest
import test_slip_catalogue
from lesson_runner import NOTEBOOKS, build_it_cell, code_cells, errors, run_lesson

from micrograd.course import pieces, yours
from micrograd.course import lesson05, lesson06

LESSONS = {int(path.name[:2]): path for path in NOTEBOOKS.glob("0[3-6]_*.ipynb")}

# A catalogue entry's piece, and the build-it cells (lesson, key) a learner types it into.
CELLS = {
    "MyValue": [(2, "lesson 2: MyValue")],
    "_backward": [(3, "lesson 3: MyValue")],
    "topological order": [(4, "lesson 4: my_topological_order"), (4, "lesson 4: my_backward")],
    "backward()": [(4, "lesson 4: my_topological_order"), (4, "lesson 4: my_backward")],
    "MyNeuron/MyLayer/MyMLP": [(5, "lesson 5: MyNeuron, MyLayer, MyMLP")],
    "training loop": [(6, "lesson 6: my_train")],
}


def status_lines(runs):
    return [line for run in runs for line in run.output.splitlines() if line[:2] in ("✓ ", "✗ ", "… ")]


def run_from(tmp_path, typed):
    """typed = {(lesson, key): code}: saved as if its cell ran, typed into its cell, lessons run from the first."""
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    for (_, key), code in typed.items():
        yours.store(key, code, tmp_path)
    first = max(3, min(lesson for lesson, _ in typed))
    runs = {}
    for lesson in range(first, 7):
        replace = {build_it_cell(LESSONS[lesson], key): f"%%my_micrograd {key}\n{code}"
                   for (where, key), code in typed.items() if where == lesson}
        runs[lesson] = run_lesson(LESSONS[lesson], tmp_path, replace)
    return runs


@pytest.fixture(scope="module")
def lecture_run(tmp_path_factory):
    return run_from(tmp_path_factory.mktemp("lecture"), {(3, "lesson 3: MyValue"): foreign_nodes.LECTURE_MY_VALUE})


def test_the_lecture_s_value_runs_through_lessons_3_to_6_without_an_error(lecture_run):
    assert {lesson: errors(runs) for lesson, runs in lecture_run.items()} == {3: [], 4: [], 5: [], 6: []}


def test_every_lesson_after_3_says_it_runs_on_the_lecture_s_value(lecture_run):
    for lesson in (4, 5, 6):
        lines = [line for line in status_lines(lecture_run[lesson]) if " MyValue: " in line]
        assert lines, f"lesson {lesson} never says what MyValue it runs on"
        assert all(line == "✓ MyValue: using yours, from lesson 3 (it passes lesson 3's check)" for line in lines), (
            lesson, lines)


def test_the_lecture_s_value_is_what_lesson_4_draws_and_differentiates(lecture_run):
    # Lesson 4's neuron through tanh_from_exp, on the lecture's class with the given operations: the same
    # gradients as the package's tanh op, printed side by side.
    cell = next(run for run in lecture_run[4] if "tanh_from_exp(n); o.label" in run.source)
    pairs = re.findall(r"do/d\w+\s+(-?\d+\.\d+)\s+\(the package's tanh op:\s+(-?\d+\.\d+)\)", cell.output)
    assert len(pairs) == 6 and all(mine == theirs for mine, theirs in pairs), cell.output


def test_the_lecture_s_whole_micrograd_typed_into_every_build_it_cell_runs_on_yours_to_the_end(tmp_path):
    typed = {(3, "lesson 3: MyValue"): foreign_nodes.LECTURE_MY_VALUE,
             (4, "lesson 4: my_topological_order"): foreign_nodes.LECTURE_AUTOGRAD,
             (4, "lesson 4: my_backward"): foreign_nodes.LECTURE_AUTOGRAD,
             (5, "lesson 5: MyNeuron, MyLayer, MyMLP"): foreign_nodes.LECTURE_NN,
             (6, "lesson 6: my_train"): foreign_nodes.LECTURE_TRAIN}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    lines = status_lines(runs[6])
    assert len(lines) == 4 and all(line.startswith("✓ ") and "using yours" in line for line in lines), lines


def _variants():
    """(id, piece, check, answer) of every catalogue entry and of the right pieces."""
    found = [(param.id,) + tuple(param.values[:3]) for param in test_slip_catalogue.CATALOGUE]
    # The right answers the catalogue's own test passes, as variants too: what a check accepts must carry.
    found += [
        ("train-right", "training loop", lesson06.my_training_loop,
         lambda: (build_stubs.load_train(build_stubs.TRAIN_SOLUTION),)),
        ("nn-right", "MyNeuron/MyLayer/MyMLP", lesson05.my_mlp, lambda: build_stubs.load_nn(build_stubs.NN_SOLUTION)),
    ]
    return found


def _accepted():
    """(id, piece, source) of each variant its own lesson's check passes, called as the loader calls it."""
    accepted = []
    for variant, piece, check, answer in _variants():
        del build_stubs.LOADED[:]
        try:
            status = check.__wrapped__(*answer())[0]
        except Exception:  # noqa: BLE001 - a variant the check cannot run is not accepted
            continue
        if status == "passed":
            accepted.append((variant, piece, build_stubs.LOADED[-1]))
    return accepted


def as_typed(piece, source):
    """A catalogue source as the learner types it in the lesson: lesson 5's neurons on MyValue, not Value."""
    if piece == "MyNeuron/MyLayer/MyMLP":
        source = source.replace(build_stubs.NN_PRELUDE, "import random\n")
        source = re.sub(r"(?<![\w.])Value\(", "MyValue(", source)
    return source


ACCEPTED = _accepted()


def test_the_worked_answers_all_carry_to_lesson_6(tmp_path):
    typed = {(lesson, key): yours.ANSWERS[key] for lesson, key in
             [(3, "lesson 3: MyValue"), (4, "lesson 4: my_topological_order"), (4, "lesson 4: my_backward"),
              (5, "lesson 5: MyNeuron, MyLayer, MyMLP"), (6, "lesson 6: my_train")]}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    lines = status_lines(runs[6])
    assert len(lines) == 4 and all(line.startswith("✓ ") and "using yours" in line for line in lines), lines


def test_the_right_pieces_are_among_the_accepted():
    assert {"nn-right", "train-right"} <= {variant for variant, _, _ in ACCEPTED}


@pytest.mark.parametrize("variant, piece, source", ACCEPTED, ids=[variant for variant, _, _ in ACCEPTED])
def test_a_variant_its_check_accepts_runs_to_the_end_of_lesson_6(tmp_path, variant, piece, source):
    typed = {cell: as_typed(piece, source) for cell in CELLS[piece]}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == dict.fromkeys(runs, []), variant
    names = pieces.BY_KEY[CELLS[piece][-1][1]].defines
    mine = [line for r in runs.values() for line in status_lines(r) if any(f" {name}" in line for name in names)]
    assert mine and all(line.startswith("✓ ") for line in mine), (variant, mine)


# -- the lessons as shipped, run with a learner's reruns: the worked answers everywhere ---------------------------

ONE_STEP = "print(f\"L after one step:"
FIRST_USE = 'MyValue = yours.use("MyValue"'
TANH_FROM_EXP = "tanh_from_exp(n); o.label"


def cell_with(lesson, text):
    return next(index for index, source in code_cells(LESSONS[lesson]) if text in source)


@pytest.fixture(scope="module")
def shipped_run(tmp_path_factory):
    """Lessons 3 to 6 as shipped, top to bottom, lesson 3's step cell and lesson 4's operations run twice; then,
    after Run All, lesson 4's first use() of MyValue again (as after fixing lesson 3) and its neuron on the
    given operations."""
    folder = tmp_path_factory.mktemp("shipped")
    shutil.copy(NOTEBOOKS / "my_micrograd.py", folder)
    twice = {3: [cell_with(3, ONE_STEP)], 4: [build_it_cell(LESSONS[4], "lesson 4: more operations")]}
    then = {4: [cell_with(4, FIRST_USE), cell_with(4, TANH_FROM_EXP)]}
    return {lesson: run_lesson(LESSONS[lesson], folder, then=then.get(lesson, ()), twice=twice.get(lesson, ()))
            for lesson in range(3, 7)}


def runs_of(runs, index):
    return [run for run in runs if run.index == index]


def test_the_shipped_lessons_and_their_reruns_end_in_no_error(shipped_run):
    assert {lesson: errors(runs) for lesson, runs in shipped_run.items()} == {3: [], 4: [], 5: [], 6: []}


def test_lesson_3_s_step_cell_prints_the_same_numbers_when_run_again(shipped_run):
    first, again = runs_of(shipped_run[3], cell_with(3, ONE_STEP))
    assert "L after one step: -7.286" in first.output and "real rise: 0.714" in first.output
    assert again.output == first.output


def test_lesson_4_s_operations_survive_its_first_use_run_again_after_run_all(shipped_run):
    first, again = runs_of(shipped_run[4], cell_with(4, TANH_FROM_EXP))
    assert again.error is None and again.output == first.output


def test_no_output_of_the_worked_answers_is_labelled_yours(shipped_run):
    # Every piece is the worked answer here: only the status lines may say whose code runs.
    labelled = re.compile(r"\b(yours|your (micrograd|MyValue|MyMLP|my_train|division|network))\b", re.I)
    found = [(lesson, run.index, line) for lesson, runs in shipped_run.items() for run in runs
             for line in run.output.splitlines()
             if labelled.search(line) and not line.startswith(("✓ ", "✗ ", "… ", "    ")) and "not attempted yet" not in line]
    assert found == []
