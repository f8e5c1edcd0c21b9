"""Lesson 0's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import re

import pytest
from claims import claim, lesson_cells, run_lesson_code
from micrograd.gradcheck import central_difference


# The lecture's chapters (the video's own list): what each row of the welcome's map names, and where it starts.
LECTURE_CHAPTERS = {
    "derivative of a function with one input": "8:08",
    "then with several": "14:12",
    "the core `Value` object and its visualisation": "19:09",
    "manual backpropagation on $L$": "32:10",
    "one optimisation step": "51:10",
    "the neuron": "52:52",
    "each operation's backward": "1:09:02",
    "backward for a whole graph": "1:17:32",
    "the bug when a node is used twice": "1:22:28",
    "tanh broken up": "1:27:05",
    "the same numbers in PyTorch": "1:39:31",
    "building a neural-net library": "1:43:55",
    "a tiny dataset, the loss": "1:51:04",
    "collecting the parameters": "1:57:56",
    "gradient descent by hand": "2:01:12",
    "the micrograd repository's demo": "2:16:46",
}


def test_lesson00_lecture_map_puts_each_part_in_the_lesson_that_covers_it():
    """Each part the map names lies in its row's stretch of the lecture: from the row's start time to the
    next row's. Collecting the parameters (1:57:56) comes after the training loop's start (1:51:04), so it
    is lesson 6's; PyTorch's numbers (1:39:31) come before the neural-net library (1:43:55), so they open lesson 5."""
    claim(0, "| 6 · The training loop | a tiny dataset, the loss, collecting the parameters")
    claim(0, "| 5 · Neurons, layers and MLPs | the same numbers in PyTorch, then building a neural-net library")

    def seconds(stamp):  # 19:09 or 1:51:04
        return sum(int(part) * 60**k for k, part in enumerate(reversed(stamp.split(":"))))

    rows = [line for kind, source in lesson_cells(0) if kind == "markdown" for line in source.splitlines()
            if re.match(r"\| \d+ · ", line)]
    start = {int(row.split()[1]): seconds(re.search(r"\(((?:\d+:)?\d+:\d\d)\)", row)[1]) for row in rows[:7]}
    assert sorted(start) == list(range(1, 8)) and list(start.values()) == sorted(start.values())
    ends = {k: start.get(k + 1, seconds("2:21:10")) for k in start}  # lesson 7 runs to the code walkthrough's end
    for part, stamp in LECTURE_CHAPTERS.items():
        (lesson,) = [int(row.split()[1]) for row in rows if part in row]
        assert start[lesson] <= seconds(stamp) < ends[lesson], f"{part} ({stamp}) is not in lesson {lesson}'s stretch"


def test_lesson00_d_moves_minus_three_times_a_and_one_for_one_with_c():
    claim(0, "Nudging `a` up by a little moves `d` by −3 times as much")
    claim(0, "`c` is added, so it moves `d` one for one")
    namespace = run_lesson_code(0, "d = a * b + c", replace=(("draw_dot(d)", ""),))
    assert (namespace["a"].grad, namespace["c"].grad) == (-3.0, 1.0)
    assert central_difference(lambda a: a * -3.0 + 10.0, 2.0) == pytest.approx(-3.0)
