"""What every lesson's checkers share: the verdict and how it is shown.

A checker shows its verdict once.  In a notebook that is one display bundle
with three forms of the same verdict: ``text/plain`` (the ✓/✗/… line),
``text/html`` (the same line, coloured) and
``application/vnd.micrograd.verdict+json`` (``Verdict.to_dict()``, what the
course's grading reads from an executed notebook).  Outside IPython the
checker prints the text line.

How an answer is read as a number is ``answer_numbers``'s job; its names are re-exported here,
where every checker imports them from.
"""

import functools
import inspect
import html
import re
from dataclasses import dataclass

from ..nodes import class_name
from ..palette import VERDICT_COLOURS
from .answer_numbers import (as_number, as_whole_number, close, decimals_kept, digits_apart, fmt, fmt_apart, fmt_expected,
                             number_problem, value_wanted, whole_number_problem)

__all__ = [
    "fmt",
    "class_name",
    "value_wanted",
    "fmt_apart",
    "fmt_expected",
    "digits_apart",
    "Verdict",
    "VERDICT_MIME",
    "checker",
    "close",
    "as_number",
    "as_whole_number",
    "decimals_kept",
    "number_problem",
    "whole_number_problem",
    "not_attempted",
    "passed",
    "failed",
    "show",
    "TODO",
    "lesson_of",
    "exercise_titles",
]

TODO = ...  # what an exercise's answer is until the learner fills it in

VERDICT_MIME = "application/vnd.micrograd.verdict+json"

MARKS = {"passed": "✓", "failed": "✗", "not attempted": "…"}

# Text, background and bar colours for the HTML verdict: a card of its own, readable on a light
# page and a dark one (contrast above 4.5:1), told apart by the mark and a word as well as by colour.
_COLOURS = VERDICT_COLOURS
# What a screen reader says for each mark, which it might read as "check mark" or "ballot x", or skip.
WORDS = {"passed": "passed", "failed": "not yet", "not attempted": "not attempted"}
# Out of sight, still read by a screen reader.
_SCREEN_READER_ONLY = "position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: passed, or not, or not attempted yet."""

    lesson: str  # two digits, "05"
    exercise: str  # the exercise's title, "Exercise 1: the neuron's graph"
    status: str  # "passed", "failed" or "not attempted"
    message: str
    # HTML shown under the verdict line (a drawing of the learner's graph, say): an extra
    # form for people, left out of the text and the data that grading reads.
    figure: str = ""

    @property
    def passed(self):
        return self.status == "passed"

    def to_dict(self):
        return {"lesson": self.lesson, "exercise": self.exercise, "status": self.status, "message": self.message}

    def __str__(self):
        return f"{MARKS[self.status]} {self.exercise}: {self.message}"

    def _repr_html_(self):
        text, background, border = _COLOURS[self.status]
        return (
            f'<div class="micrograd-verdict micrograd-verdict-{self.status.replace(" ", "-")}" '
            f'style="color:{text};background:{background};border-left:4px solid {border};'
            f'padding:4px 8px;margin:2px 0;font-family:sans-serif;font-size:14px;line-height:1.4">'
            f'<b><span aria-hidden="true">{MARKS[self.status]}</span>'
            f'<span style="{_SCREEN_READER_ONLY}">{WORDS[self.status]}: </span> {html.escape(self.exercise)}</b>: '
            f"{html.escape(self.message)}</div>"
            f"{self.figure}"
        )

    def bundle(self):
        """The verdict in every form a notebook keeps: text, coloured HTML, and data."""
        return {"text/plain": str(self), "text/html": self._repr_html_(), VERDICT_MIME: self.to_dict()}

    def _ipython_display_(self):
        pass  # the checker has shown the verdict already; don't show it twice


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def show(verdict):
    """Show a verdict once: a display bundle in IPython, a printed line elsewhere."""
    if _ipython() is not None:
        from IPython.display import display

        display(verdict.bundle(), raw=True)
    else:
        print(verdict)
    return verdict


def passed(message="correct"):
    return ("passed", message)


def failed(message, figure=""):
    """A failure; ``figure`` is HTML to show under it, e.g. the learner's graph with the wrong node marked."""
    return ("failed", message, figure)


def not_attempted(message="not attempted yet: replace ... with your answer and run the cell again"):
    return ("not attempted", message)


def lesson_of(module_name):
    """'micrograd.course.lessons.lesson05' -> '05'; '' for a module that is not a lesson's."""
    match = re.search(r"lesson(\d+)$", module_name or "")
    return f"{int(match.group(1)):02d}" if match else ""


_TITLES = {}  # lesson -> exercise titles, in the order their checkers are defined


def checker(title, lesson=None):
    """Turn ``f(answer) -> passed(...)/failed(...)`` into a checker that shows its verdict.

    The wrapped checker shows its verdict once and returns it.  An answer
    that is still ``...`` (or a function that raises NotImplementedError)
    counts as not attempted; any other exception in the learner's code is
    reported as a failure with its message rather than a traceback.  The
    lesson is taken from the module the checker is defined in
    (``lesson05.py`` -> "05") unless given.
    """

    def wrap(check):
        lesson_id = lesson if lesson is not None else lesson_of(check.__module__)
        if lesson_id:
            titles = _TITLES.setdefault(lesson_id, [])
            if title not in titles:
                titles.append(title)

        @functools.wraps(check)
        def run(*answers):
            if any(answer is TODO for answer in answers):
                outcome = not_attempted()
            elif _arity_problem(check, answers):
                outcome = failed(_arity_problem(check, answers))
            else:
                try:
                    outcome = check(*answers)
                except NotImplementedError:
                    outcome = not_attempted("not attempted yet: fill in the code and run the cell again")
                except Exception as error:  # the learner's code failed: say how, don't crash the lesson
                    outcome = failed(f"your code raised {type(error).__name__}: {error}")
            return show(Verdict(lesson_id, title, *outcome))

        run.title = title
        return run

    return wrap


def _arity_problem(check, answers):
    """What is wrong with the number of answers a checker was given, or None: said as the checker's, not as the
    learner's code raising a TypeError."""
    signature = inspect.signature(check)
    try:
        signature.bind(*answers)
    except TypeError:
        names = list(signature.parameters)
        return (f"check.{check.__name__} takes {len(names)} answer{'s' * (len(names) != 1)}, ({', '.join(names)}), "
                f"and was given {len(answers)}; call it as the exercise's cell does, with each answer in its place")
    return None


def exercise_titles(lesson):
    """The titles of a lesson's exercises, in order: exercise_titles(5) or exercise_titles("05")."""
    import importlib

    lesson_id = f"{int(lesson):02d}"
    try:
        importlib.import_module(f"{__package__}.lessons.lesson{lesson_id}")
    except ModuleNotFoundError as error:
        if error.name != f"{__package__}.lessons.lesson{lesson_id}":
            raise
        return []
    return list(_TITLES.get(lesson_id, []))
