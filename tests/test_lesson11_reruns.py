"""Lesson 11 run as a learner runs it: every code cell twice in a row prints the same both times, and the
pieces a learner writes in its build-it cells are what it runs on.

The lesson's cells run in this process (tests/lesson_runner.py), in a folder holding the
my_micrograd.py the repository ships, each one straight after itself.  A cell that trained a model
further, drew new random numbers or added to gradients on its second run would print other numbers.
The training runs 30 steps here instead of the lesson's 300: what is checked is the same either way.
"""

import re
import shutil

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
    assert "loss 3.3660 on your MyValue" in next(run.output for run in firsts if "on your MyValue (ln 27" in run.source)


def test_the_pieces_a_learner_writes_in_lesson_11_are_what_it_runs_on(tmp_path):
    """The build-it cells filled in (with loops, not the worked answers' text): each check passes, and the lesson
    says it runs on the learner's pieces, with the same loss as on the worked answers."""
    from gpt_answers import HEAD_LOOPS, RMSNORM_LOOPS, SOFTMAX_LOOPS

    from micrograd.course.yours import ANSWERS

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
    assert "loss 3.3660 on your MyValue" in said and "(within 1e-9: True)" in said
