"""A learner's micrograd carried through the lessons: what a build-it check accepts, the lessons after it run.

Each test runs lessons top to bottom in one folder, as nbval does (tests/lesson_runner.py runs their cells
in this process, a fresh IPython shell per lesson), with the learner's code typed into a build-it cell, and
asks two things: no cell ends in an error, and each lesson says it runs on the learner's piece.
"""

import json
import re
import shutil

import build_stubs
import foreign_nodes
import pytest
from lesson_runner import NOTEBOOKS, build_it_cell, code_cells, errors, run_lesson, run_sources

from micrograd.course.carry import pieces, yours
from micrograd.course.lessons import lesson05, lesson06

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


# The right pieces of lessons 5 and 6, as their checks load them: what a check accepts must carry to the end
# of lesson 6.  (Each slip of the catalogue is rejected by its check, and named: tests/test_slip_catalogue.py.)
RIGHT_PIECES = [
    pytest.param("training loop", lesson06.my_training_loop,
                 lambda: (build_stubs.load_train(build_stubs.TRAIN_SOLUTION),), id="train-right"),
    pytest.param("MyNeuron/MyLayer/MyMLP", lesson05.my_mlp, lambda: build_stubs.load_nn(build_stubs.NN_SOLUTION),
                 id="nn-right"),
]


def accepted_source(check, answer):
    """The source of ``answer`` as the check loaded it, which it passes, called as the lessons' loader calls it."""
    del build_stubs.LOADED[:]
    status, message, *_ = check.__wrapped__(*answer())
    assert status == "passed", message
    return build_stubs.LOADED[-1]


def as_typed(piece, source):
    """A catalogue source as the learner types it in the lesson: lesson 5's neurons on MyValue, not Value."""
    if piece == "MyNeuron/MyLayer/MyMLP":
        source = source.replace(build_stubs.NN_PRELUDE, "import random\n")
        source = re.sub(r"(?<![\w.])Value\(", "MyValue(", source)
    return source


def test_the_worked_answers_all_carry_to_lesson_6(tmp_path):
    typed = {(lesson, key): yours.ANSWERS[key] for lesson, key in
             [(3, "lesson 3: MyValue"), (4, "lesson 4: my_topological_order"), (4, "lesson 4: my_backward"),
              (5, "lesson 5: MyNeuron, MyLayer, MyMLP"), (6, "lesson 6: my_train")]}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    lines = status_lines(runs[6])
    assert len(lines) == 4 and all(line.startswith("✓ ") and "using yours" in line for line in lines), lines


@pytest.mark.parametrize("piece, check, answer", RIGHT_PIECES)
def test_a_piece_its_check_accepts_runs_to_the_end_of_lesson_6(tmp_path, piece, check, answer):
    typed = {cell: as_typed(piece, accepted_source(check, answer)) for cell in CELLS[piece]}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == dict.fromkeys(runs, [])
    names = pieces.BY_KEY[CELLS[piece][-1][1]].defines
    mine = [line for r in runs.values() for line in status_lines(r) if any(f" {name}" in line for name in names)]
    assert mine and all(line.startswith("✓ ") for line in mine), mine


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


# -- the lecture's name, a restart, other people's classes, a loop that prints ------------------------------------

def until_the_first_error(runs):
    """The cells Run All runs: up to and with the first that ends in an error (JupyterLab stops there)."""
    for k, run in enumerate(runs):
        if run.error:
            return runs[:k + 1]
    return runs


NAMED_VALUE = foreign_nodes.LECTURE_MY_VALUE.replace("MyValue", "Value")  # the lecture's class, under its own name
LESSON_2 = next(NOTEBOOKS.glob("02_*.ipynb"))


@pytest.mark.parametrize("lesson", [2, 3])
@pytest.mark.parametrize("after_a_run_all", [False, True], ids=["fresh", "after-run-all"])
def test_the_lecture_s_class_typed_as_value_is_not_run_and_no_stale_class_passes(tmp_path, lesson, after_a_run_all):
    notebook = LESSON_2 if lesson == 2 else LESSONS[3]
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    key = f"lesson {lesson}: MyValue"
    cell = build_it_cell(notebook, key)
    check_cell = next(i for i, source in code_cells(notebook) if i > cell and source.startswith("check."))
    shipped = code_cells(notebook)
    typed = [(i, f"%%my_micrograd {key}\n{NAMED_VALUE}" if i == cell else source) for i, source in shipped]
    # Run All (as shipped, when after_a_run_all), then the learner types the lecture's class and runs Run All
    # again, and then the check cell by hand.
    before = shipped if after_a_run_all else []
    runs = run_sources(notebook, tmp_path, before + typed)
    shown = until_the_first_error(runs[len(before):])
    assert shown[-1].index == cell, [(r.index, r.error) for r in shown]  # Run All stops at the typed cell, nowhere before
    # What Run All ran, then the check cell by hand, in a kernel of its own.
    runs = run_sources(notebook, tmp_path, before + typed[:len(shown)] + [(check_cell, dict(shipped)[check_cell])])
    said = shown[-1].output
    assert shown[-1].error.startswith("NotRun: ") and "Traceback" not in said
    assert said.startswith("Not run, not saved: this cell names its class Value, as the lecture does") and \
        "Name yours MyValue" in said
    by_hand = runs[-1]
    if after_a_run_all or lesson == 3:  # the kernel holds an older MyValue (lesson 3 loads lesson 2's at its top)
        assert "✗ " in by_hand.output and "the MyValue here is left from before" in by_hand.output, by_hand.output
        assert "✓ " not in by_hand.output
    else:
        assert by_hand.error == "NameError: name 'MyValue' is not defined"  # only by hand, after the message above
    assert "class Value" not in (tmp_path / "my_micrograd.py").read_text()  # not saved
    said_in_lesson_2 = next(t for t in ("".join(c["source"]) for c in json.loads(LESSON_2.read_text())["cells"])
                            if "## Build it yourself: your own Value" in t)
    assert "Call yours `MyValue`, not `Value` as the lecture does" in said_in_lesson_2
    assert "build-it cell that names its class `Value` is not run, and says so" in said_in_lesson_2


def test_the_package_s_version_shows_the_package_s_code_after_a_cell_took_the_name_value(tmp_path):
    # A learner who names a class Value in a plain cell (no %%my_micrograd) still sees micrograd/engine.py in
    # "The package's version": show_source looks the name up in the package.
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    cells = code_cells(LESSONS[3])
    source = next((i, s) for i, s in cells if s.startswith("show_source(Value.tanh"))
    runs = run_sources(LESSONS[3], tmp_path, [cells[0], (-1, NAMED_VALUE), source])
    assert [run.error for run in runs] == [None, None, None]
    assert "# micrograd/engine.py · Value.tanh" in runs[-1].output and "__main__" not in runs[-1].output
    assert "(math.exp(2 * x) - 1)" not in runs[-1].output  # the learner's tanh is not shown as the package's


BUILD_IT = {3: ["lesson 3: MyValue"], 4: ["lesson 4: my_topological_order", "lesson 4: my_backward"],
            5: ["lesson 5: MyNeuron, MyLayer, MyMLP"], 6: ["lesson 6: my_train"]}


def after_a_restart(lesson):
    """What a learner runs after a kernel restart: the lesson's first cell, then straight its build-it section
    (each build-it cell, typed with the worked answer, and its check), then the cell after the section."""
    notebook = LESSONS[lesson]
    cells = code_cells(notebook)
    indices = [i for i, _ in cells]
    ran = [cells[0]]
    for key in BUILD_IT[lesson]:
        cell = build_it_cell(notebook, key)
        check_cell = indices[indices.index(cell) + 1]
        ran += [(cell, f"%%my_micrograd {key}\n{yours.ANSWERS[key]}"), (check_cell, dict(cells)[check_cell])]
    after = indices[indices.index(ran[-1][0]) + 1]
    return ran + [(after, dict(cells)[after])]


@pytest.mark.parametrize("lesson", [3, 4, 5, 6])
def test_after_a_restart_the_build_it_section_runs_or_says_what_to_run_first(tmp_path, lesson):
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    runs = run_sources(LESSONS[lesson], tmp_path, after_a_restart(lesson))
    assert errors(runs) == [], [(run.index, run.error) for run in runs]
    checks = [run.output for run in runs if run.source.startswith("check.")]
    if lesson == 5:  # its classes use MyValue, which the lesson loads in "One neuron, by hand"
        said = runs[1].output
        assert "This kernel has no MyValue yet, which this cell uses" in said and "Run > Run All Above" in said
        assert "your code uses MyValue, which this kernel does not have yet" in checks[0] and "Run All Above" in checks[0]
        assert "raised NameError" not in checks[0]
    else:
        assert all("✓ " in output for output in checks), checks


def test_lesson_5_says_where_my_value_is_loaded():
    text = next(t for t in ("".join(c["source"]) for c in json.loads(LESSONS[5].read_text())["cells"])
                if "## Build it yourself: `Neuron`, `Layer`, `MLP`" in t)
    assert "loaded at the top of this lesson" not in text
    assert "loaded in \"One neuron, by hand\"\nabove" in text
    assert "the cell below says so when this kernel has no `MyValue`" in text  # shown by the restart test above
    cells = code_cells(LESSONS[5])
    loads = next(i for i, source in cells if 'MyValue, my_topological_order, my_backward = yours.use(' in source)
    assert loads < build_it_cell(LESSONS[5], "lesson 5: MyNeuron, MyLayer, MyMLP")
    heading = next(i for i, c in enumerate(json.loads(LESSONS[5].read_text())["cells"])
                   if "## One neuron, by hand" in "".join(c["source"]))
    assert heading < loads


def test_a_class_keeping_its_inputs_in_children_runs_on_yours_through_lesson_6(tmp_path):
    # microgpt's way: the learner's lesson-3 class keeps _children, and their lesson-4 order reads v._children,
    # which the checks' own nodes answer to as well.
    typed = {(3, "lesson 3: MyValue"): foreign_nodes.CHILDREN_MY_VALUE,
             (4, "lesson 4: my_topological_order"): foreign_nodes.CHILDREN_AUTOGRAD,
             (4, "lesson 4: my_backward"): foreign_nodes.CHILDREN_AUTOGRAD}
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    lines = [line for line in status_lines(runs[6]) if " MyValue: " in line or " my_backward: " in line]
    assert len(lines) == 2 and all(line.startswith("✓ ") and "using yours" in line for line in lines), lines


def test_a_class_keeping_its_inputs_in_children_with_its_own_network_passes_lesson_5_s_check(tmp_path):
    # The same class and order, and the lecture's network typed in lesson 5: its parameters are MyValues, so the
    # check passes and lessons 5 and 6 run on yours, whatever name the inputs are kept under.
    typed = {(3, "lesson 3: MyValue"): foreign_nodes.CHILDREN_MY_VALUE,
             (4, "lesson 4: my_topological_order"): foreign_nodes.CHILDREN_AUTOGRAD,
             (4, "lesson 4: my_backward"): foreign_nodes.CHILDREN_AUTOGRAD,
             (5, "lesson 5: MyNeuron, MyLayer, MyMLP"): foreign_nodes.LECTURE_NN}
    runs = run_from(tmp_path, typed)
    said = "\n".join(run.output for run in runs[5] + runs[6])
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    assert "which is not a Value" not in said
    assert "✓ Build it: Neuron, Layer and MLP" in said
    assert "✓ MyNeuron, MyLayer, MyMLP: using yours, from lesson 5" in said


def test_a_class_keeping_its_inputs_in_children_is_told_once_it_has_no_prev(tmp_path):
    # microgpt's name for the inputs, in lessons 2 and 3, with lesson 4's pieces left to the worked answers (which
    # read _prev): lesson 2's check names the missing _prev, and lessons 4 to 6 run on the worked answer's MyValue,
    # saying why on MyValue's own line, not under a ✓ about the given operations.
    typed = {(2, "lesson 2: MyValue"): foreign_nodes.CHILDREN_MY_VALUE, (3, "lesson 3: MyValue"): foreign_nodes.CHILDREN_MY_VALUE}
    lesson2 = run_lesson(LESSON_2, tmp_path, {build_it_cell(LESSON_2, "lesson 2: MyValue"):
                                              f"%%my_micrograd lesson 2: MyValue\n{foreign_nodes.CHILDREN_MY_VALUE}"})
    verdict = next(run.output for run in lesson2 if run.source.startswith("check.my_value("))
    assert "your MyValue has no _prev: lesson 2 asks for it" in verdict and "_children, microgpt's name" in verdict
    assert "NoneType" not in verdict
    runs = run_from(tmp_path, typed)
    assert {lesson: errors(r) for lesson, r in runs.items()} == {3: [], 4: [], 5: [], 6: []}
    for lesson in (4, 5, 6):
        said = "\n".join(run.output for run in runs[lesson])
        assert "✗ MyValue: using the worked answer, as yours has no _prev" in said, lesson
        assert "AttributeError" not in said and "Your more operations fails" not in said, lesson
        assert "which is not a Value" not in said, lesson


def test_lesson_6_shows_its_verdict_first_when_my_train_prints_every_step(tmp_path):
    printing = foreign_nodes.LECTURE_TRAIN.replace("        losses.append(loss.data)\n",
                                                   "        losses.append(loss.data)\n        print(k, loss.data)\n")
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    key = "lesson 6: my_train"
    cells = code_cells(LESSONS[6])
    cell = build_it_cell(LESSONS[6], key)
    check_cell = next(i for i, source in cells if i > cell and source.startswith("check."))
    runs = run_sources(LESSONS[6], tmp_path, [cells[0], (cell, f"%%my_micrograd {key}\n{printing}"),
                                             (check_cell, dict(cells)[check_cell])])
    assert errors(runs) == []
    shown = re.sub(r"^Out\[\d+\]: ", "", runs[-1].output)  # the terminal shell's prompt, which a notebook has not
    assert shown.startswith("✓ Build it: the training loop: loss 3.5902 → 0.0164"), shown[:300]
    assert "\n0 3.59" not in shown and "49 0.0164" not in shown  # the 50 printed lines are folded under the verdict


@pytest.mark.parametrize("lesson", [2, 3, 4, 5, 6])
def test_the_first_cell_prints_nothing_on_a_first_run_or_a_second(tmp_path, lesson):
    notebook = LESSON_2 if lesson == 2 else LESSONS[lesson]
    first = code_cells(notebook)[0]
    assert "%load_ext" not in first[1] and "yours.enable_magic()" in first[1]
    runs = run_sources(notebook, tmp_path, [first, first, (-1, "%%my_micrograd lesson 9: nothing\nanswer = 1\n")])
    assert [(run.error, run.output) for run in runs[:2]] == [(None, ""), (None, "")]
    assert runs[2].error is None and "saved in my_micrograd.py" in runs[2].output  # the magic is there
