"""What every lesson's checkers share: the verdict and how it is shown.

A checker shows its verdict once.  In a notebook that is one display bundle
with three forms of the same verdict: ``text/plain`` (the ✓/✗/… line),
``text/html`` (the same line, coloured) and
``application/vnd.micrograd.verdict+json`` (``Verdict.to_dict()``, what the
course's grading reads from an executed notebook).  Outside IPython the
checker prints the text line.
"""

import functools
import html
import math
import numbers
import re
from dataclasses import dataclass

__all__ = [
    "Verdict",
    "VERDICT_MIME",
    "checker",
    "close",
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

# Text and background colours for the HTML verdict: readable on a white page
# (contrast above 4.5:1) and told apart by the mark as well as by colour.
_COLOURS = {
    "passed": ("#1b5e20", "#e8f5e9", "#2e7d32"),
    "failed": ("#b71c1c", "#ffebee", "#c62828"),
    "not attempted": ("#5d4037", "#fff8e1", "#f9a825"),
}


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
            f"<b>{MARKS[self.status]} {html.escape(self.exercise)}</b>: {html.escape(self.message)}</div>"
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
    """'micrograd.exercises.lesson05' -> '05'; '' for a module that is not a lesson's."""
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


def exercise_titles(lesson):
    """The titles of a lesson's exercises, in order: exercise_titles(5) or exercise_titles("05")."""
    import importlib

    lesson_id = f"{int(lesson):02d}"
    try:
        importlib.import_module(f"{__package__}.lesson{lesson_id}")
    except ModuleNotFoundError as error:
        if error.name != f"{__package__}.lesson{lesson_id}":
            raise
        return []
    return list(_TITLES.get(lesson_id, []))


def close(answer, expected, tol=1e-6):
    """Is a numeric answer within tol (absolute or relative) of expected?"""
    answer = getattr(answer, "data", answer)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return False
    return math.isclose(answer, expected, rel_tol=tol, abs_tol=tol)
