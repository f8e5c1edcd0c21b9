"""Checkers for lesson 11, from your micrograd to a GPT.

The build-it pieces are microgpt's functions (softmax, rmsnorm, one attention head, the training
step), each run on Values of the checker's own and held against microgpt's own code, numbers and
gradients (``pieces``, ``training``); the exercises are attention over a whole name,
sampling with a temperature and counting a GPT's parameters (``exercises``).  A wrong answer
is matched against the slips learners make, each run on the same numbers, so the verdict names it.
"""

from micrograd.nodes import class_name
from micrograd.course.verdicts import as_number, checker, close, failed, passed
from .microgpt import answer_class
from .exercises import DRAWS, causal_problem, parameter_count_of, parameter_count_problem, sampling_problem
from .pieces import function_problem, head_problem, hint_from_softmax, rmsnorm_problem, softmax_problem
from . import pieces as _pieces
from .training import DOCS, training_problem

__all__ = ["softmax", "rmsnorm", "attention_head", "training_step", "causal_attention", "sample_next",
           "parameter_count"]


def _verdict(problem, message):
    return failed(problem) if problem else passed(message)


def _judged(problem_of, fn):
    """problem_of(fn), with a TypeError from two Value classes meeting told as that, naming the check's class."""
    try:
        return problem_of(fn)
    except TypeError as error:
        if "Value" not in str(error):
            raise
        cls = answer_class(fn)
        theirs = getattr(fn, "__globals__", {}).get("Value")
        other = (f"a {theirs.__qualname__} (from module {theirs.__module__}), your module's class,"
                 if isinstance(theirs, type) and theirs is not cls else "a Value of another class")
        return (f"your code raised TypeError: {error}. The check gave it Values of {class_name(cls(0.0))}, and "
                f"{other} was handed one of them where a number belongs (a Value(x) made of a Value, or a sum "
                "started from Value(0.0)). Build the result from the inputs' own operations, sum(...) starting from "
                "0, so that every Value is of the inputs' class")


# The inputs each piece is also run on as MyValues: the checks above use the package's Value, the GPT of the
# lesson's later cells the MyValue in the learner's notebook, which numpy or a method only Value has can break.
_MY_VALUE_RUNS = {
    "softmax": ("softmax(logits)", lambda cls: ([cls(z) for z in _pieces._LOGITS],)),
    "rmsnorm": ("rmsnorm(x)", lambda cls: ([cls(x) for x in _pieces._X],)),
    "attention_head": ("attention_head(q, keys, values)",
                       lambda cls: ([cls(x) for x in _pieces._Q], [[cls(x) for x in row] for row in _pieces._KEYS],
                                    [[cls(x) for x in row] for row in _pieces._VALUES])),
}


def on_my_value_problem(fn, piece):
    """Why fn, right on the package's Values, fails on the notebook's MyValue (the class the GPT cell runs it
    on), or None; None too where the notebook has no MyValue class."""
    cls = getattr(fn, "__globals__", {}).get("MyValue")
    if not isinstance(cls, type):
        return None
    call, make = _MY_VALUE_RUNS[piece]
    from micrograd.engine import Value

    want = [as_number(v) for v in fn(*make(Value))]
    where = f"{call} is right on the package's Values, but on MyValue, the class the GPT below runs it on,"
    fix = "Use only what MyValue has (+, -, *, /, ** a number, exp(), log(), relu()) and plain Python numbers"
    try:
        got = list(fn(*make(cls)))
        total = got[0]
        for item in got[1:]:
            total = total + item
        total.backward()
    except Exception as error:  # noqa: BLE001 - the learner's code on the learner's class: say what it raised
        return f"{where} it raised {type(error).__name__}: {error}. {fix}"
    numbers = [as_number(v) if hasattr(v, "data") else None for v in got]  # made by MyValue's own ops
    if len(numbers) != len(want) or not all(n is not None and close(n, w, 1e-9) for n, w in zip(numbers, want)):
        return f"{where} it gives {got!r:.120}, not {want}. {fix}"
    return None


@checker("Build it: softmax")
def softmax(fn):
    problem = (function_problem(fn, "check.softmax(softmax)") or _judged(softmax_problem, fn)
               or on_my_value_problem(fn, "softmax"))
    return _verdict(problem, "probabilities that add up to 1, the right gradients, and no overflow on logits near "
                             "1000 nor on logits 2000 apart: exp(z - max) never sees more than 0")


@checker("Build it: RMSNorm")
def rmsnorm(fn):
    problem = (function_problem(fn, "check.rmsnorm(rmsnorm)") or _judged(rmsnorm_problem, fn)
               or on_my_value_problem(fn, "rmsnorm"))
    return _verdict(problem, "each x divided by the root of its mean square (plus 1e-5), with the right gradients; "
                             "an x of all zeros stays 0")


@checker("Build it: one attention head")
def attention_head(fn):
    problem = (function_problem(fn, "check.attention_head(attention_head)")
               or hint_from_softmax(fn, _judged(head_problem, fn)) or on_my_value_problem(fn, "attention_head"))
    return _verdict(problem, "scores q·k / √4, their softmax, the values mixed by it, and the right gradients; with "
                             "one key cached, the output is that key's value")


@checker("Build it: the training step")
def training_step(fn):
    problem = function_problem(fn, "check.training_step(training_step)") or _judged(training_problem, fn)
    return _verdict(problem, f"{len(DOCS)} steps on {len(DOCS)} names of a small GPT: the same losses and every "
                             "parameter the same as microgpt's loop gives, a fresh KV cache for each name and Adam "
                             "with its bias correction")


@checker("Exercise 1: attention over a whole name")
def causal_attention(fn):
    problem = function_problem(fn, "check.causal_attention(causal_attention)") or _judged(causal_problem, fn)
    return _verdict(problem, "each position reads the keys up to its own and none after: the outputs the KV cache "
                             "gives, one position at a time")


@checker("Exercise 2: sampling with a temperature")
def sample_next(fn):
    problem = function_problem(fn, "check.sample_next(sample_next)")
    problem, at_zero = (problem, None) if problem else sampling_problem(fn)
    zero = "the most likely token at temperature 0" if at_zero == "argmax" else "temperature 0 refused with a ValueError"
    return _verdict(problem, f"{zero}, and over {DRAWS} seeded draws at 1 and 0.5 the frequencies of the softmax of "
                             "the logits divided by the temperature")


@checker("Exercise 3: the parameters of a GPT")
def parameter_count(fn):
    problem = function_problem(fn, "check.parameter_count(parameter_count)") or parameter_count_problem(fn)
    return _verdict(problem, f"{parameter_count_of(27, 16, 16, 1):,} for microgpt, and "
                             f"{parameter_count_of(27, 16, 16, 2) - parameter_count_of(27, 16, 16, 1):,} more for "
                             "each layer: 12 · n_embd²")
