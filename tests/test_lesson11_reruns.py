"""Lesson 11 run as a learner runs it: every code cell twice in a row prints the same both times, and the
pieces a learner writes in its build-it cells are what it runs on.

The lesson's cells run in this process (tests/lesson_runner.py), in a folder holding the
my_micrograd.py the repository ships, each one straight after itself.  A cell that trained a model
further, drew new random numbers or added to gradients on its second run would print other numbers.
The training runs 30 steps here instead of the lesson's 300: what is checked is the same either way.
"""

import re
import shutil

import pytest

from lesson_runner import NOTEBOOKS, build_it_cell, code_cells, errors, run_lesson

LESSON = NOTEBOOKS / "11_gpt.ipynb"
TIMES = [re.compile(r"\d+(\.\d+)? (ms|s)\b"), re.compile(r"\d+× faster")]  # measured, as notebooks/sanitize.cfg says
PROMPT = re.compile(r"^Out\[\d+\]: ", re.M)  # the shell's execution count, which a notebook keeps apart


def without_times(text):
    text = PROMPT.sub("", text)
    for pattern in TIMES:
        text = pattern.sub("TIME", text)
    return text


def test_every_cell_of_lesson_11_prints_the_same_when_run_twice_in_a_row(tmp_path):
    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    cells = dict(code_cells(LESSON))
    (training,) = [index for index, source in cells.items() if "NUM_STEPS = 300" in source]
    replace = {training: cells[training].replace("NUM_STEPS = 300", "NUM_STEPS = 30")}
    runs = run_lesson(LESSON, tmp_path, replace=replace, twice=set(cells))
    assert errors(runs) == []
    firsts, seconds = runs[::2], runs[1::2]
    assert [run.index for run in firsts] == [run.index for run in seconds] == list(cells)
    differ = [first.index for first, second in zip(firsts, seconds) if without_times(first.output) != without_times(second.output)]
    assert differ == [], [(runs[2 * list(cells).index(i)].output, runs[2 * list(cells).index(i) + 1].output) for i in differ]
    assert "loss 3.3660 on the worked answer's MyValue" in next(run.output for run in firsts if "(ln 27 =" in run.source)


def test_the_pieces_a_learner_writes_in_lesson_11_are_what_it_runs_on(tmp_path):
    """The build-it cells filled in (with loops, not the worked answers' text): each check passes, and the lesson
    says it runs on the learner's pieces, with the same loss as on the worked answers."""
    from gpt_answers import HEAD_LOOPS, RMSNORM_LOOPS, SOFTMAX_LOOPS

    from micrograd.course.carry.yours import ANSWERS

    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    cells = dict(code_cells(LESSON))
    typed = {"lesson 11: softmax": SOFTMAX_LOOPS, "lesson 11: rmsnorm": RMSNORM_LOOPS,
             "lesson 11: attention_head": HEAD_LOOPS, "lesson 11: training_step": ANSWERS["lesson 11: training_step"]}
    replace = {build_it_cell(LESSON, key): f"%%my_micrograd {key}\n{code.strip()}\n" for key, code in typed.items()}
    (training,) = [index for index, source in cells.items() if "NUM_STEPS = 300" in source]
    replace[training] = cells[training].replace("NUM_STEPS = 300", "NUM_STEPS = 30")
    runs = run_lesson(LESSON, tmp_path, replace=replace)
    assert errors(runs) == []
    said = "\n".join(run.output for run in runs)
    assert said.count("✓ Build it:") == 4
    for name in ("softmax", "rmsnorm", "attention_head"):
        assert f"✓ {name}: using yours, from lesson 11 (it passes lesson 11's check)" in said
    assert "loss 3.3660 on the worked answer's MyValue" in said and "(within 1e-9: True)" in said  # lesson 3's is not written


def _up_to_the_loss(cells):
    """The cells from the first to the one that computes the loss on MyValue: the pieces' first use."""
    (loss,) = [index for index, source in cells.items() if "(ln 27 =" in source]
    return {index for index in cells if index <= loss}, loss


@pytest.mark.parametrize("key, name", [("lesson 11: rmsnorm", "RMSNORM_NUMPY_MEAN"), ("lesson 11: rmsnorm", "RMSNORM_NUMPY"),
                                       ("lesson 11: softmax", "SOFTMAX_NUMPY"), ("lesson 11: attention_head", "HEAD_NUMPY")])
def test_a_piece_written_with_numpy_that_passes_its_check_runs_on_my_value(tmp_path, key, name):
    """numpy hands MyValue its own numbers (np.mean divides by an np.intp): the given code takes any real number,
    so what the check passes is what the GPT cell runs."""
    import gpt_answers

    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    cells = dict(code_cells(LESSON))
    only, loss = _up_to_the_loss(cells)
    replace = {build_it_cell(LESSON, key): f"%%my_micrograd {key}\n{getattr(gpt_answers, name).strip()}\n"}
    runs = run_lesson(LESSON, tmp_path, replace=replace, only=only)
    assert errors(runs) == [], [(run.index, run.error) for run in errors(runs)]
    said = "\n".join(run.output for run in runs)
    piece = key.split(": ")[1]
    assert f"✓ {piece}: using yours, from lesson 11" in said
    assert "loss 3.3660" in runs[-1].output


OLD_AS_MY_VALUE = ('    return MyValue(float(x)) if isinstance(x, numbers.Real) else x\n',
                   '    return MyValue(x) if isinstance(x, (int, float)) else x\n')


def test_a_piece_that_fails_on_my_value_fails_its_check_and_the_gpt_runs_on_the_worked_answer(tmp_path):
    """A check passes only what the next cells run: np.mean's np.intp reaching a MyValue whose lesson-4 code (saved
    before that code took any real number) takes only int and float fails the check there, named, not in the GPT."""
    import gpt_answers

    from micrograd.course.carry.yours import ANSWERS, store

    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    assert OLD_AS_MY_VALUE[0] in ANSWERS["lesson 4: more operations"]
    store("lesson 4: more operations", ANSWERS["lesson 4: more operations"].replace(*OLD_AS_MY_VALUE), tmp_path)
    cells = dict(code_cells(LESSON))
    only, loss = _up_to_the_loss(cells)
    key = "lesson 11: rmsnorm"
    replace = {build_it_cell(LESSON, key): f"%%my_micrograd {key}\n{gpt_answers.RMSNORM_NUMPY_MEAN.strip()}\n"}
    runs = run_lesson(LESSON, tmp_path, replace=replace, only=only)
    assert errors(runs) == [], [(run.index, run.error) for run in errors(runs)]
    verdict = next(run.output for run in runs if run.source.startswith("check.rmsnorm("))
    assert "✗ Build it: RMSNorm: rmsnorm(x) is right on the package's Values, but on MyValue" in verdict
    assert "raised ValueError: Integers to negative integer powers are not allowed" in verdict
    assert "✗ rmsnorm: using the worked answer, as yours fails lesson 11's check" in runs[-1].output
    assert "loss 3.3660" in runs[-1].output
    import json

    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = " ".join(" ".join("".join(cell["source"]) for cell in cells).split())
    assert "then once more on `MyValue`, the class the model below runs it on" in text  # what the lesson says


AUTOLOAD = "__import__('importlib').import_module('micrograd.course.carry.magic').load_ipython_extension(get_ipython())"


@pytest.mark.parametrize("heading", ["## Your engine computes a GPT", "## Training", "## What the heads look at",
                                     "## Sampling with a temperature", "## Exercises"])
def test_after_a_restart_each_cell_from_a_heading_down_says_what_to_run_first(tmp_path, heading):
    """A kernel restarted (its start runs the autoload line, as make setup has every kernel do), then each code
    cell from a heading to the end run one at a time: each one runs, or its error ends in one sentence that says
    to run the cells above first."""
    import json

    from lesson_runner import run_sources

    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    start = next(i for i, cell in enumerate(cells) if "".join(cell["source"]).startswith(heading))
    below = [(index, source) for index, source in code_cells(LESSON) if index > start]
    stopped = 0
    for index, source in below:
        runs = run_sources(LESSON, tmp_path, [(-1, AUTOLOAD), (index, source)])
        assert runs[0].error is None
        run = runs[1]
        if run.error is not None:
            stopped += 1
            assert run.error.startswith("NameError"), (index, run.error)
            name = run.error.split("'")[1]
            assert (f"This kernel has no {name}: if a cell above makes it, this kernel has not run that cell yet "
                    "(after a restart, say), so run Run > Run All Above, then this cell again.") in run.output, run.output
    assert stopped, "no cell below the heading needs one above: nothing was shown"


def _labels(runs):
    """The lines a lesson printed that are not status lines (which name whose code runs, with their reason)."""
    return [line for run in runs for line in run.output.splitlines()
            if not line.startswith(("✓ ", "✗ ", "… ", "    ")) and "not attempted yet" not in line]


@pytest.mark.parametrize("lesson_3_written", [False, True], ids=["worked-answer", "learner-s-own"])
def test_the_gpt_s_outputs_say_whose_my_value_they_ran_on(tmp_path, lesson_3_written):
    """On the worked answer's MyValue, no output line calls it yours; on the learner's, they do."""
    from micrograd.course.carry.yours import ANSWERS, store

    shutil.copy(NOTEBOOKS / "my_micrograd.py", tmp_path)
    if lesson_3_written:
        store("lesson 3: MyValue", ANSWERS["lesson 3: MyValue"], tmp_path)
    cells = dict(code_cells(LESSON))
    timing = next(index for index, source in cells.items() if "def seconds(" in source)
    runs = run_lesson(LESSON, tmp_path, only={index for index in cells if index <= timing})
    assert errors(runs) == []
    labels = "\n".join(_labels(runs))
    whose = "your MyValue" if lesson_3_written else "the worked answer's MyValue"
    assert f"'yuheng': loss 3.3660 on {whose} (ln 27 = 3.2958)" in labels
    said = "\n".join(run.output for run in runs)
    assert f"\n{whose:>58}{'the package':>20}\n" in said  # the comparison's column heading
    assert f"one pass: {whose} " in labels
    if not lesson_3_written:
        assert "your MyValue" not in labels


# JupyterLab at 1280×800 with the file browser open gives a code cell's editor 846 px, and its monospace font
# 7.83 px a character (measured in Chromium, as tests/test_jupyterlab.py opens the lessons): 107 characters show,
# a longer line is cut at the editor's right edge.
EDITOR_CHARACTERS = 107


# The lessons whose code has been fitted to that width: 11, and 2, 4, 5 and 6, which carry the learner's MyValue
# to it, with their solutions.
FITTED = [path for lesson in ("02", "04", "05", "06", "11") for path in
          (*NOTEBOOKS.glob(f"{lesson}_*.ipynb"), *NOTEBOOKS.glob(f"solutions/{lesson}_*.ipynb"))]


@pytest.mark.parametrize("notebook", FITTED, ids=[path.relative_to(NOTEBOOKS).as_posix() for path in FITTED])
def test_every_code_line_fits_the_editor_of_a_learner_s_page(notebook):
    long = [(index, len(line), line) for index, source in code_cells(notebook) for line in source.splitlines()
            if len(line) > EDITOR_CHARACTERS]
    assert long == []
