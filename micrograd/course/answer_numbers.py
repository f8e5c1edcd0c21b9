"""A learner's answer read as a number, one way for every checker, and numbers as messages show them.

An answer may be an int or a float, one of numpy's scalars or 0-d arrays, a PyTorch scalar, or a
Value of any micrograd-style class; ``as_number`` reads them all alike, and ``number_problem``
says in a learner's words why something is not a number.  ``verdicts`` re-exports these names,
where the checkers import them from.
"""

import math
import numbers

__all__ = ["close", "as_number", "as_whole_number", "decimals_kept", "number_problem", "whole_number_problem", "fmt",
           "value_wanted", "digits_apart", "fmt_expected", "fmt_apart"]


def close(answer, expected, tol=1e-6):
    """Is a numeric answer within tol (absolute or relative) of expected?"""
    answer = as_number(answer)
    if answer is None:
        return False
    return math.isclose(answer, expected, rel_tol=tol, abs_tol=tol)


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
