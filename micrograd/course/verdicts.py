"""What every lesson's checkers share: the verdict and how it is shown.

A checker shows its verdict once.  In a notebook that is one display bundle
with three forms of the same verdict: ``text/plain`` (the ✓/✗/… line),
``text/html`` (the same line, coloured) and
``application/vnd.micrograd.verdict+json`` (``Verdict.to_dict()``, what the
course's grading reads from an executed notebook).  Outside IPython the
checker prints the text line.
"""

import functools
import inspect
import html
import math
import numbers
import re
from dataclasses import dataclass

from ..nodes import class_name
from ..palette import VERDICT_COLOURS

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
    """'micrograd.course.lesson05' -> '05'; '' for a module that is not a lesson's."""
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
        importlib.import_module(f"{__package__}.lesson{lesson_id}")
    except ModuleNotFoundError as error:
        if error.name != f"{__package__}.lesson{lesson_id}":
            raise
        return []
    return list(_TITLES.get(lesson_id, []))


def close(answer, expected, tol=1e-6):
    """Is a numeric answer within tol (absolute or relative) of expected?"""
    answer = as_number(answer)
    if answer is None:
        return False
    return math.isclose(answer, expected, rel_tol=tol, abs_tol=tol)


# Reading an answer: one way for every checker ------------------------------------------------


def _from_array_library(x):
    """Is x one of numpy's (or PyTorch's) objects?  Told by its module, so neither is imported here."""
    return type(x).__module__.split(".")[0] in ("numpy", "torch")


def _plain(number):
    """An int stays an int (a count is exact); any other real number (a Fraction, np.float64) becomes a float."""
    return int(number) if isinstance(number, numbers.Integral) else float(number)


def as_number(answer):
    """The one real number an answer stands for (an int or a float), or None if it is not one.

    Taken as numbers: ints and floats; numpy's scalars and 0-d arrays and a PyTorch scalar
    (``np.float64(2.5)``, ``np.tanh(np.dot(w, x) + b)``, ``np.trace(m) / m.sum()``), read with
    ``.item()``; and a Value of any micrograd-style class (the package's, the learner's own, the
    lecture's), read from its ``.data`` the same way.  A bool is a yes or no, not a number.
    numpy's scalars are checked before anything reads ``.data``: theirs is a memoryview of their bytes.
    """
    for _ in range(2):  # the answer itself, then the number a Value holds in .data
        if isinstance(answer, bool):
            return None
        if _from_array_library(answer):
            if getattr(answer, "shape", None) != ():
                return None
            answer = answer.item()
            return None if isinstance(answer, bool) or not isinstance(answer, numbers.Real) else _plain(answer)
        if isinstance(answer, numbers.Real):
            return _plain(answer)
        if isinstance(answer, (str, bytes)) or not hasattr(answer, "data"):
            return None
        answer = answer.data
    return None


def as_whole_number(answer):
    """An answer that is a count as an int (7, 7.0, np.int64(7), np.float64(7.0)), or None."""
    number = as_number(answer)
    if isinstance(number, numbers.Integral):
        return int(number)
    if number is not None and math.isfinite(number) and float(number).is_integer():
        return int(number)
    return None


def decimals_kept(answer, exact, fewest=1):
    """How many decimals of ``exact`` the answer gives, as a lesson prints numbers, or None.

    An answer typed from a printed number (-8.726 for -8.726304, 2.30 or 2.302 for 2.302585) is exact to
    the decimals it has: ``exact`` rounded or cut off there.  ``fewest`` is the fewest decimals that
    still tell the right answer from the slips a checker knows.
    """
    number = as_number(answer)
    if number is None or not math.isfinite(number):
        return None
    text = repr(float(number))
    if "e" in text or "." not in text:
        return None
    decimals = len(text.split(".")[1])
    if decimals < fewest:
        return None
    scale = 10.0**decimals
    shown = (round(exact * scale) / scale, math.trunc(exact * scale) / scale)  # rounded, or cut off
    return decimals if any(abs(number - x) < 0.5 / scale for x in shown) else None


def _given(answer):
    """What an answer is, in a learner's words: the thing itself, its type, and why it is not a number."""
    shown = repr(answer)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    kind = type(answer).__name__
    shape = getattr(answer, "shape", None) if _from_array_library(answer) else None
    if answer is None:
        return "None (NoneType), nothing: a function without a return statement gives None"
    if isinstance(answer, bool) or (shape == () and isinstance(answer.item(), bool)):
        return f"{answer} ({kind}), a yes or no, not a number"
    if isinstance(answer, (str, bytes)):
        return f"{shown} ({kind}), text: write the number without quotes"
    if shape is not None and shape != ():
        return (f"{shown} ({kind} of shape {tuple(shape)}): one number belongs here, not an array "
                "(take the number out with .item(), or index it)")
    if isinstance(answer, (list, tuple, set, frozenset, dict)):
        return f"{shown} ({kind}): one number belongs here, not a {kind} of them"
    number = as_number(answer)
    if number is not None and not math.isfinite(number):
        return f"{number}, not a finite number"
    if hasattr(answer, "data") and number is None:
        return f"{shown} ({kind}), whose .data is {getattr(answer, 'data')!r:.40}, not a number"
    return f"{shown} ({kind})"


def number_problem(answer, what="your answer is", want="give one number, e.g. 1.5"):
    """None when answer is one finite number; else what was given and what is expected, e.g.
    "your answer is [2.3] (list): one number belongs here, not a list of them; give one number, e.g. 1.5"."""
    number = as_number(answer)
    if number is not None and math.isfinite(number):
        return None
    return f"{what} {_given(answer)}; {want}"


def whole_number_problem(answer, what="your answer is", want="give a whole number, e.g. 41"):
    """None when answer is a count (a whole number); else what was given and what is expected."""
    if as_whole_number(answer) is not None:
        return None
    number = as_number(answer)
    if number is not None and math.isfinite(number):
        return f"{what} {number:g}, not a whole number; {want}"
    return f"{what} {_given(answer)}; {want}"


def fmt(x):
    """A number as a learner reads it: 6.0, -0.5, 0.7071."""
    number = as_number(x)
    x = x if number is None else number
    if isinstance(x, float):
        return f"{x:.6g}" if x != int(x) or abs(x) >= 1e6 else f"{x:.1f}"
    return repr(x)


def value_wanted(got):
    """The Value a verdict asks for, named beside what it got: "a Value", or the package's with its module when
    got's class is called Value too, so that no verdict reads "returns a Value, not a Value"."""
    cls = type(got)
    if cls.__name__ == "Value" and cls.__module__ != "micrograd.engine":
        return "the package's Value (from module micrograd.engine)"
    return "a Value"


def digits_apart(got, want, fewest=4):
    """The fewest significant digits, ``fewest`` or more, that show got and want (numbers, or lists of them)
    differently: a verdict never reads "gives 3.3000, expected 3.3000".  17 when even those agree."""
    got = [as_number(x) for x in got] if isinstance(got, (list, tuple)) else [as_number(got)]
    want = [as_number(x) for x in want] if isinstance(want, (list, tuple)) else [as_number(want)]
    if None in got or None in want:
        return fewest
    for digits in range(fewest, 17):
        if [f"{x:.{digits}g}" for x in got] != [f"{x:.{digits}g}" for x in want]:
            return digits
    return 17


def fmt_expected(got, want):
    """ "got, expected want", as fmt shows numbers, with digits enough for the two to read differently."""
    got, want = fmt_apart(got, want)
    return f"{got}, expected {want}"


def fmt_apart(got, want):
    """got and want as fmt shows them, with more digits where fmt's would read the same."""
    if fmt(got) != fmt(want) or as_number(got) is None or as_number(want) is None:
        return fmt(got), fmt(want)
    digits = digits_apart(got, want, 7)
    return f"{as_number(got):.{digits}g}", f"{as_number(want):.{digits}g}"
