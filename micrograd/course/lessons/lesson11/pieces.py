"""Lesson 11's build-it pieces, judged: softmax, rmsnorm and one attention head.

Each piece is run on the checker's numbers, held in Values of the class the answer builds with (the
package's, or one of its own: ``microgpt.answer_class``), its numbers compared with
``microgpt`` (this folder's copy of microgpt's pieces, on plain floats), then its gradients
through ``backward()``.  A wrong answer is run against the slips learners make, each computed on the
same numbers, so the verdict can say which one it is.  Each ``*_problem`` returns None for a right answer, else what is
wrong, in the learner's words; ``lesson11`` turns that into a verdict.
"""


import math

from micrograd.engine import Value
from micrograd.nodes import class_name, has_data, inputs_of, post_order
from micrograd.course.verdicts import as_number, close, digits_apart
from .microgpt import EPS_RMS, answer_class, head_numbers, rmsnorm_numbers, softmax_numbers

__all__ = ["function_problem", "outputs", "numbers", "all_close", "shown", "shown_apart", "gradient_problem", "weighted",
           "softmax_problem", "rmsnorm_problem", "head_problem", "hint_from_softmax"]


def function_problem(fn, call):
    return None if callable(fn) else f"pass the function itself, {call}, not {type(fn).__name__}"


def outputs(result, n, call):
    """(the Values a piece returned, None), or (None, what is wrong with them)."""
    if result is None:
        return None, f"{call} returns None; return the list of Values (a function without return gives None)"
    try:
        items = list(result)
    except TypeError:
        return None, f"{call} returns one {type(result).__name__}; return a list of Values, one per input"
    if len(items) != n:
        return None, f"{call} returns {len(items)} numbers for {n} inputs; return one Value per input"
    if any(not hasattr(item, "data") or as_number(item) is None for item in items):
        item = next(i for i in items if not hasattr(i, "data") or as_number(i) is None)
        if has_data(getattr(item, "data", None)):
            return None, (f"{call} returns a {class_name(item)} that holds a {class_name(item.data)} in .data, not a "
                          "number: a Value of one class was given a Value of the other as its number, where the two "
                          "met (a sum started from Value(0.0), say, on inputs of another class). Build the result from "
                          "the inputs' own operations, sum(...) starting from 0, so that it is of their class")
        kind = type(item).__name__
        return None, (f"{call} returns a {kind}, not a Value: build the result from the inputs' operations "
                      "(not from their .data), so that backward() can reach them")
    return items, None


def numbers(items):
    return [as_number(item) for item in items]


def all_close(got, want, tol=1e-9):
    return len(got) == len(want) and all(close(g, w, tol) for g, w in zip(got, want))


def shown(xs, digits=4):
    return "[" + ", ".join(f"{x:.{digits}g}" for x in xs) + "]"


def shown_apart(got, want, fewest=4, expected="expected"):
    """"got, expected want", with ``fewest`` digits or as many more as it takes for the two to read differently."""
    digits = digits_apart(got, want, fewest)
    return f"{shown(got, digits)}, {expected} {shown(want, digits)}"


def gradient_problem(leaves, want, what):
    """Why the gradients the leaves hold are not want, or None."""
    got = [leaf.grad for leaf in leaves]
    if all_close(got, want, 1e-7):
        return None
    if all(g == 0 for g in got):
        return (f"backward() leaves every gradient of {what} at 0: the result is not connected to them. Compute "
                "with the Values themselves (v - max_val, v.exp()), not with their .data")
    return f"the numbers are right but the gradients of {what} are {shown_apart(got, want)}"


def weighted(items, coefficients):
    """Σ c·item, a Value of the items' class to call backward() on (started from the first term, not from 0, which
    a class without __radd__ could not take)."""
    terms = [c * item for c, item in zip(coefficients, items)]
    return sum(terms[1:], terms[0])


# Build it: softmax ------------------------------------------------------------------------------

_LOGITS = [2.0, -1.0, 0.5, 3.5, 0.0]
_COEFFICIENTS = [0.3, -1.1, 0.7, 0.2, -0.4]
_LARGE = [1000.0, 999.0, 998.5]
_FAR_APART = [-1000.0, 1000.0, 0.0]  # any shift but the largest leaves some z - shift near 1000 or 2000


def _softmax_numbers_problem(got):
    want = softmax_numbers(_LOGITS)
    if all_close(got, want):
        return None
    if all_close(got, softmax_numbers(_LOGITS, "exps")) or all_close(got, [math.exp(z) for z in _LOGITS]):
        return (f"the numbers add up to {sum(got):.4g}, not 1: they are the exps; divide each by their total, "
                "[e / total for e in exps]")
    if all_close(got, [z / sum(_LOGITS) for z in _LOGITS]):
        return "it divides the logits by their sum; softmax divides exp(logit) by the sum of the exps"
    if all_close(got, [math.exp(z - max(_LOGITS)) for z in _LOGITS]):
        return "the largest logit's probability is 1 and the sum is more than 1: divide each exp by the total"
    return (f"softmax({_LOGITS}) gives {shown_apart(got, want)}: exp of each logit minus the largest, "
            "divided by their total")


def _softmax_of(fn, logits):
    """(probabilities, None) from fn on Values holding logits, or (None, what went wrong)."""
    leaves = [answer_class(fn)(z) for z in logits]
    try:
        probs, problem = outputs(fn(leaves), len(leaves), "softmax(logits)")
    except (OverflowError, ZeroDivisionError) as error:
        what = ("exp of a large logit overflows a float" if isinstance(error, OverflowError)
                else "every exp is 0 (too small for a float) and so is their total")
        return None, (f"on the logits {logits} it raised {type(error).__name__}: {what}. Subtract the largest logit "
                      "before exp (a plain number, max(val.data for val in logits)): the probabilities stay the same, "
                      "and exp never sees more than 0")
    return (probs, leaves), problem


def _shift_of(fn):
    """The number fn's softmax subtracts from each logit before exp, read from the exp nodes of its graph, or None."""
    probs = fn([answer_class(fn)(z) for z in _LOGITS])
    found = set()
    for node in (node for root in probs for node in post_order(root)):
        ins = inputs_of(node)
        exp_input = len(ins) == 1 and has_data(ins[0]) and ins[0].data < 700  # math.exp overflows past 709
        if exp_input and close(node.data, math.exp(ins[0].data), 1e-12):
            found.add(ins[0].data)
    shifts = [{round(z - d, 9) for z in _LOGITS} for d in found]
    common = set.intersection(*shifts) if len(shifts) == len(_LOGITS) else set()
    return common.pop() if len(common) == 1 else None


def _shift_problem(fn, problem):
    """The overflow on logits far apart, told as the shift that is not the largest logit."""
    try:
        shift = _shift_of(fn)
    except Exception:  # noqa: BLE001 - the learner's code ran once already; the plain problem is said then
        shift = None
    names = {max(_LOGITS): None, min(_LOGITS): "the smallest logit", sum(_LOGITS) / len(_LOGITS): "their mean",
             _LOGITS[0]: "the first logit"}
    if shift is None or names.get(shift, "") is None:
        return problem
    which = f"{names[shift]} ({shift:g})" if shift in names else f"{shift:g}"
    return (f"it subtracts {which} from the logits {_LOGITS}, where microgpt subtracts the largest, "
            f"{max(_LOGITS):g}. Any other shift overflows on logits far apart: on {_FAR_APART}, exp(z - shift) sees "
            "1000 or more. Subtract max(val.data for val in logits): exp never sees more than 0")


def softmax_problem(fn):
    """None when fn is microgpt's softmax, else what is wrong (also used by the later pieces' hints)."""
    found, problem = _softmax_of(fn, _LOGITS)
    if problem:
        return problem
    probs, leaves = found
    problem = _softmax_numbers_problem(numbers(probs))
    if problem:
        return problem
    weighted(probs, _COEFFICIENTS).backward()
    p = softmax_numbers(_LOGITS)
    mean = sum(c * pi for c, pi in zip(_COEFFICIENTS, p))
    problem = gradient_problem(leaves, [pi * (c - mean) for pi, c in zip(p, _COEFFICIENTS)], "the logits")
    if problem:
        return problem
    for large in (_LARGE, [-z for z in _LARGE], _FAR_APART):
        found, problem = _softmax_of(fn, large)
        if problem and large is _FAR_APART:
            return _shift_problem(fn, problem)
        if problem:
            return problem
        if not all_close(numbers(found[0]), softmax_numbers(large)):
            return f"on the logits {large} it gives {shown_apart(numbers(found[0]), softmax_numbers(large))}"
    return None


# Build it: RMSNorm --------------------------------------------------------------------------------

_X = [0.8, -1.5, 0.25, 2.0, -0.6, 1.1]
_RMS_COEFFICIENTS = [0.5, -0.2, 1.3, -0.7, 0.4, 0.9]
_RMS_SLIPS = {
    "no eps": "the 1e-5 is missing: scale = (ms + 1e-5) ** -0.5, so that an x of all zeros cannot divide by 0",
    "eps outside": "the 1e-5 is added after the square root; microgpt adds it inside, (ms + 1e-5) ** -0.5",
    "no root": "it divides by the mean square itself; divide by its square root, (ms + 1e-5) ** -0.5",
    "mean": "ms is the mean of x; RMSNorm takes the mean of the squares, sum(xi * xi for xi in x) / len(x)",
    "sum": "ms is the sum of the squares; divide it by len(x) for their mean",
    "layernorm": ("it subtracts the mean first, as LayerNorm does; RMSNorm (microgpt's, as in Llama) only divides "
                  "by the root of the mean square"),
}


def _rmsnorm_gradients(x, c):
    n = len(x)
    s = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    pull = sum(ci * xi for ci, xi in zip(c, x))
    return [cj * s - s**3 * xj * pull / n for cj, xj in zip(c, x)]


def _epsilon_of(got):
    """The epsilon of an rmsnorm that is microgpt's but for it, (ms + eps) ** -0.5, read from its output; else None."""
    if any(x == 0 for x in _X):
        return None
    scales = [g / x for g, x in zip(got, _X)]
    if scales[0] <= 0 or not all(close(s, scales[0], 1e-9) for s in scales):
        return None
    eps = scales[0] ** -2 - sum(x * x for x in _X) / len(_X)
    return eps if 0 < eps < 1 and not math.isclose(eps, EPS_RMS, rel_tol=1e-3) else None


def rmsnorm_problem(fn):
    leaves = [answer_class(fn)(x) for x in _X]
    result, problem = outputs(fn(leaves), len(leaves), "rmsnorm(x)")
    if problem:
        return problem
    got = numbers(result)
    if not all_close(got, rmsnorm_numbers(_X)):
        for slip, message in _RMS_SLIPS.items():
            if all_close(got, rmsnorm_numbers(_X, slip)):
                return message
        eps = _epsilon_of(got)
        if eps is not None:
            eps = f"{eps:.2g}".replace("e-0", "e-")  # 1e-8, as the lesson writes it, not 1e-08
            return (f"its epsilon is {eps}; microgpt's is 1e-5, inside the root: scale = (ms + 1e-5) ** -0.5. "
                    f"rmsnorm({_X}) gives {shown_apart(got, rmsnorm_numbers(_X))}")
        return (f"rmsnorm({_X}) gives {shown_apart(got, rmsnorm_numbers(_X))}: each x divided by "
                "the root of the mean of the squares (plus 1e-5)")
    weighted(result, _RMS_COEFFICIENTS).backward()
    problem = gradient_problem(leaves, _rmsnorm_gradients(_X, _RMS_COEFFICIENTS), "x")
    if problem:
        return problem
    try:
        zeros, problem = outputs(fn([answer_class(fn)(0.0) for _ in range(4)]), 4, "rmsnorm(x)")
    except (ZeroDivisionError, OverflowError) as error:
        return f"an x of all zeros raised {type(error).__name__}: {_RMS_SLIPS['no eps']}"
    return problem



# Build it: one attention head ---------------------------------------------------------------------

_Q = [0.5, -1.2, 0.3, 0.8]
_KEYS = [[0.9, 0.1, -0.4, 0.6], [-0.3, -0.8, 0.5, 0.2], [0.7, -0.5, -0.9, 1.1]]
_VALUES = [[1.0, -0.5, 0.2, 0.4], [-0.7, 0.3, 0.9, -1.2], [0.1, 0.8, -0.6, 0.5]]
_HEAD_SLIPS = {
    "no scale": ("the scores are not divided by √head_dim: q·k / head_dim**0.5. Without it the scores grow with "
                 "the head's width and the softmax turns into a max"),
    "by head_dim": "the scores are divided by head_dim (4); divide by its square root, head_dim**0.5 (2)",
    "no softmax": "the scores weight the values as they are; turn them into weights that add up to 1 with softmax",
    "uniform": "every value gets the same weight; the weights are the softmax of the scores q·k / √head_dim",
    "keys for values": "it adds up the keys; the weights mix the values, Σ_t weights[t] · values[t]",
    "only itself": "it reads only the last key and value, this position's own; attention reads every one cached so far",
    "without itself": ("it leaves out the last key and value, this position's own: the cache holds every position "
                       "so far, this one included"),
}


def _head_call(fn, keys, values):
    cls = answer_class(fn)
    q = [cls(x) for x in _Q]
    k = [[cls(x) for x in row] for row in keys]
    v = [[cls(x) for x in row] for row in values]
    return fn(q, k, v), q, k, v


def _head_reference(keys, values):
    q = [Value(x) for x in _Q]
    k = [[Value(x) for x in row] for row in keys]
    v = [[Value(x) for x in row] for row in values]
    scores = [sum((qj * kj for qj, kj in zip(q, kt)), Value(0.0)) / 2.0 for kt in k]
    shift = max(s.data for s in scores)
    exps = [(s - shift).exp() for s in scores]
    total = sum(exps, Value(0.0))
    weights = [e / total for e in exps]
    out = [sum((w * vt[j] for w, vt in zip(weights, v)), Value(0.0)) for j in range(len(q))]
    return out, q, k, v


def head_problem(fn):
    for keys, values in ((_KEYS, _VALUES), (_KEYS[:1], _VALUES[:1])):
        result, q, k, v = _head_call(fn, keys, values)
        call = f"attention_head(q, keys, values) with {len(keys)} key{'s' * (len(keys) > 1)}"
        if result is not None and hasattr(result, "__len__") and len(result) == len(keys) != len(_Q):
            return (f"{call} returns {len(keys)} numbers, one per key: the weights. The head's output is their mix "
                    f"of the values, Σ_t weights[t] · values[t]: {len(_Q)} numbers, one per dimension of the head")
        items, problem = outputs(result, len(_Q), call)
        if problem:
            return problem.replace("for 4 inputs", "for a head of width 4").replace("one per input", "one per dimension")
        got = numbers(items)
        want = head_numbers(_Q, keys, values)
        if not all_close(got, want):
            for slip, message in _HEAD_SLIPS.items():
                if all_close(got, head_numbers(_Q, keys, values, slip)):
                    return message
            return (f"{call} gives {shown_apart(got, want)}: scores q·k / √head_dim, their softmax, "
                    "and the values weighted by it")
        reference, rq, rk, rv = _head_reference(keys, values)
        coefficients = [0.6, -0.9, 0.4, 1.3]
        weighted(items, coefficients).backward()
        weighted(reference, coefficients).backward()
        for name, mine, theirs in (("q", q, rq), ("the keys", sum(k, []), sum(rk, [])),
                                   ("the values", sum(v, []), sum(rv, []))):
            problem = gradient_problem(mine, [x.grad for x in theirs], name)
            if problem:
                return problem
    return None


def hint_from_softmax(fn, problem):
    """A head that fails may fail through the learner's softmax: say so."""
    theirs = getattr(fn, "__globals__", {}).get("softmax")
    if problem and callable(theirs):
        try:
            softmax_wrong = softmax_problem(theirs)
        except NotImplementedError:
            softmax_wrong = "it is not written yet"
        except Exception as error:  # noqa: BLE001 - the learner's softmax: say what it raised
            softmax_wrong = f"it raised {type(error).__name__}: {error}"
        if softmax_wrong:
            return f"{problem}. (The softmax your head calls fails its own check: {softmax_wrong})"
    return problem
