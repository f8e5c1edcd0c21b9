"""Lesson 11's exercises, judged: attention over a whole name, sampling with a temperature, counting parameters.

Each ``*_problem`` returns None for a right answer, else what is wrong in the learner's words.
Sampling is judged by its frequencies over a few thousand seeded draws, against the softmax of
the logits divided by the temperature and against each slip's own distribution; Python's random
state (and numpy's, if the learner's session has imported numpy) is restored afterwards.
"""

import itertools
import random
import sys

from micrograd.engine import Value
from micrograd.course.verdicts import as_number, as_whole_number
from .pieces import all_close, numbers, outputs, shown_apart
from .microgpt import answer_class, head_numbers, softmax_numbers

__all__ = ["causal_problem", "sampling_problem", "at_temperature_zero", "parameter_count_problem", "parameter_count_of", "DRAWS"]

# Exercise 1: attention over a whole name ----------------------------------------------------

_QS = [[0.5, -1.2, 0.3, 0.8], [0.1, 0.7, -0.6, 0.2], [-0.9, 0.4, 0.5, -0.3], [0.6, 0.6, -0.2, 1.0]]
_KS = [[0.9, 0.1, -0.4, 0.6], [-0.3, -0.8, 0.5, 0.2], [0.7, -0.5, -0.9, 1.1], [0.2, 0.9, 0.3, -0.7]]
_VS = [[1.0, -0.5, 0.2, 0.4], [-0.7, 0.3, 0.9, -1.2], [0.1, 0.8, -0.6, 0.5], [0.4, -0.9, 1.3, 0.0]]


def _as_values(rows, cls=Value):
    return [[cls(x) for x in row] for row in rows]


def _causal_outputs(fn, ks):
    """The learner's outputs on the exercise's name (with keys ks), as lists of numbers, or a problem."""
    cls = answer_class(fn)
    result = fn(_as_values(_QS, cls), _as_values(ks, cls), _as_values(_VS, cls))
    if result is None:
        return None, "it returns None; return the list of outputs, one per position"
    rows = list(result) if hasattr(result, "__iter__") else [result]
    if len(rows) == 4 and all(as_number(x) is not None for x in rows):
        return None, ("it returns one output, 4 numbers; return one output per position, "
                      "[attention_head(qs[t], ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]")
    if len(rows) != len(_QS):
        return None, f"it returns {len(rows)} outputs for a name of {len(_QS)} positions; one output per position"
    found = []
    for t, row in enumerate(rows):
        items, problem = outputs(row, 4, f"the output at position {t}")
        if problem:
            return None, problem.replace("one Value per input", "one number per dimension of the head")
        found.append(numbers(items))
    return found, None


def _no_key_problem(error):
    return (f"it raised {type(error).__name__}: {error}. Does position 0 read no key at all? Each position reads "
            "the keys up to and including its own: ks[:t + 1]")


def causal_problem(fn):
    try:
        got, problem = _causal_outputs(fn, _KS)
    except ValueError as error:
        if "finite number" not in str(error):
            return _no_key_problem(error)
        return (f"it raised ValueError: {error}. A Value refuses a mask of -inf, GPT-2's way, because it holds "
                "finite numbers only (so that an overflow or a nan is caught at the operation that makes it): leave "
                "the later keys out, ks[:t + 1] and vs[:t + 1], or mask with a large negative number such as -1e9, "
                "whose exp is 0 all the same")
    except (ZeroDivisionError, IndexError) as error:
        return _no_key_problem(error)
    if problem:
        return problem
    want = [head_numbers(_QS[t], _KS[:t + 1], _VS[:t + 1]) for t in range(len(_QS))]
    if all(all_close(g, w) for g, w in zip(got, want)):
        return None
    changed_keys = [list(row) for row in _KS]
    changed_keys[-1] = [3.0, -2.0, 1.0, 0.5]  # the last token's key only
    moved, _ = _causal_outputs(fn, changed_keys)
    if moved is not None and any(not all_close(a, b) for a, b in zip(moved[:-1], got[:-1])):
        return ("attention that looks at later positions: changing the last token's key changes the outputs before "
                "it. Trained that way, a position would read the very letter it has to predict; position t may read "
                "keys 0 to t only: ks[:t + 1]")
    if all(all_close(g, head_numbers(_QS[t], _KS[:t + 1], _VS[:t + 1], "only itself")) for t, g in enumerate(got)):
        return "each position reads only its own key and value; it reads every key up to its own, ks[:t + 1]"
    t = next(t for t, (g, w) in enumerate(zip(got, want)) if not all_close(g, w))
    alone = " (its own value: one key, weight 1)" if t == 0 else ", the first position that differs"
    return (f"position {t} gives {shown_apart(got[t], want[t])}{alone}; position t is one head reading qs[t] "
            "against ks[:t + 1] and vs[:t + 1]")


# Exercise 2: sampling with a temperature -----------------------------------------------------

_SAMPLE_LOGITS = [2.0, 1.0, 0.5, 3.0, 0.1]
DRAWS = 2000
_TOLERANCE = 0.05  # total variation: a right sampler lands within about 0.02 of its distribution in DRAWS draws


def _distribution(slip, temperature):
    if slip == "right":
        return softmax_numbers([z / temperature for z in _SAMPLE_LOGITS])
    if slip == "logits":
        return [z / sum(_SAMPLE_LOGITS) for z in _SAMPLE_LOGITS]
    if slip == "times":
        return softmax_numbers([z * temperature for z in _SAMPLE_LOGITS])
    if slip == "ignored":
        return softmax_numbers(_SAMPLE_LOGITS)
    return [1.0 if z == max(_SAMPLE_LOGITS) else 0.0 for z in _SAMPLE_LOGITS]  # "argmax"


_SAMPLING_SLIPS = {
    "logits": ("it samples in proportion to the logits; a logit can be negative and is no probability. Sample from "
               "softmax([l / temperature for l in logits]): weights=[p.data for p in probs]"),
    "times": ("the logits are multiplied by the temperature, so a higher temperature sharpens the choice; divide them "
              "by it, [l / temperature for l in logits]"),
    "ignored": "the temperature changes nothing: divide the logits by it before the softmax",
    "argmax": ("it always picks the most likely token: that is temperature 0. At a temperature above 0, draw at "
               "random with the probabilities as weights, random.choices(range(len(logits)), weights=...)"),
}


class _Seeded:
    """Python's random (and numpy's, when the session has it) seeded, and put back as they were afterwards."""

    def __init__(self, seed):
        self.seed = seed

    def __enter__(self):
        self.state = random.getstate()
        random.seed(self.seed)
        self.numpy = sys.modules.get("numpy")
        if self.numpy is not None:
            self.numpy_state = self.numpy.random.get_state()
            self.numpy.random.seed(self.seed)

    def __exit__(self, *exc):
        random.setstate(self.state)
        if self.numpy is not None:
            self.numpy.random.set_state(self.numpy_state)


def _draws(fn, temperature, count=DRAWS, seed=0):
    cls = answer_class(fn)
    with _Seeded(seed):
        return [fn([cls(z) for z in _SAMPLE_LOGITS], temperature) for _ in range(count)]


def _token_problem(token):
    index = as_whole_number(token)
    if index is None or not 0 <= index < len(_SAMPLE_LOGITS) or isinstance(token, str):
        return (f"it returns {token!r} ({type(token).__name__}); return the token id, an int from 0 to "
                f"{len(_SAMPLE_LOGITS) - 1} (random.choices(...)[0])")
    return None


def _distance(freq, distribution):
    return 0.5 * sum(abs(f - p) for f, p in zip(freq, distribution))


def at_temperature_zero(fn):
    """(what fn does at temperature 0, "argmax" or "refused", None), or (None, what is wrong with it)."""
    try:
        greedy = _draws(fn, 0, count=5)
    except ZeroDivisionError:
        return None, ("at temperature 0 it divides by zero (l / 0). Temperature 0 is where ever lower temperatures "
                      "lead: the most likely token every time. Return max(range(len(logits)), key=lambda i: "
                      "logits[i].data) for it, or raise a ValueError that says why 0 is refused")
    except ValueError:
        return "refused", None
    for token in greedy:
        problem = _token_problem(token)
        if problem:
            return None, problem
    best = _SAMPLE_LOGITS.index(max(_SAMPLE_LOGITS))
    if any(as_whole_number(t) != best for t in greedy):
        return None, (f"at temperature 0 it returns {sorted({as_whole_number(t) for t in greedy})}; temperature 0 "
                      f"means the most likely token every time, here {best}")
    return "argmax", None


def sampling_problem(fn):
    """(None, what fn does at temperature 0) when fn samples right, else (what is wrong, None)."""
    at_zero, problem = at_temperature_zero(fn)
    if problem:
        return problem, None
    for temperature in (1.0, 0.5):
        tokens = _draws(fn, temperature)
        for token in tokens[:20]:
            problem = _token_problem(token)
            if problem:
                return problem, None
        freq = [sum(as_whole_number(t) == i for t in tokens) / len(tokens) for i in range(len(_SAMPLE_LOGITS))]
        if _distance(freq, _distribution("right", temperature)) > _TOLERANCE:
            for slip, message in _SAMPLING_SLIPS.items():
                if _distance(freq, _distribution(slip, temperature)) <= _TOLERANCE:
                    return message, None
            want = _distribution("right", temperature)
            return (f"at temperature {temperature:g} its {len(tokens)} draws land "
                    f"{shown_apart(freq, want, 2, 'expected about')} of the time: softmax of the logits divided by the "
                    "temperature"), None
    if _draws(fn, 1.0, count=50, seed=7) != _draws(fn, 1.0, count=50, seed=7):
        return ("two runs seeded alike draw different tokens: draw with Python's random (random.choices), which "
                "random.seed(...) makes repeatable"), None
    return None, at_zero


# Exercise 3: the parameters of a GPT ----------------------------------------------------------

_SIZES = [(27, 16, 16, 1), (27, 16, 16, 2), (65, 32, 64, 3), (100, 8, 10, 1)]


def parameter_count_of(vocab_size, n_embd, block_size, n_layer):
    """microgpt's count: wte, wpe, lm_head, and per layer wq, wk, wv, wo and the MLP's two matrices."""
    return 2 * vocab_size * n_embd + block_size * n_embd + n_layer * 12 * n_embd * n_embd


_TIED = ("lm_head is missing: microgpt's lm_head is a vocab_size × n_embd matrix of its own (GPT-2 ties its output "
         "layer to wte; microgpt does not)")

_COUNT_SLIPS = [
    (lambda V, n, B, L: V * n + B * n + L * 12 * n * n, _TIED),
    (lambda V, n, B, L: 2 * V * n + L * 12 * n * n,
     "the position embeddings are missing: wpe has one row of n_embd numbers per position, block_size rows"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * 6 * n * n,
     "the MLP is 4 times as wide as the model: mlp_fc1 is (4·n_embd) × n_embd and mlp_fc2 n_embd × (4·n_embd)"),
    (lambda V, n, B, L: 2 * V * n + B * n + 12 * n * n,
     "every layer has its own attention and MLP matrices: multiply them by n_layer"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * 4 * n * n,
     "the attention's four matrices are there, the MLP's two are missing: 8 · n_embd² more per layer"),
]


# What microgpt leaves out of GPT-2, in its own words "no biases" and "layernorm -> rmsnorm" (an RMSNorm with no
# weights): each a count of parameters a learner may add, from the sizes.
_BIASES = {"the attention's four biases": lambda V, n, B, L: L * 4 * n,
           "the MLP's two biases": lambda V, n, B, L: L * 5 * n,
           "lm_head's bias": lambda V, n, B, L: V}
_NORM_WEIGHTS = {"": lambda V, n, B, L: 0,
                 "a weight per number for each RMSNorm": lambda V, n, B, L: (2 * L + 1) * n,
                 "LayerNorm's weight and bias for each norm, as GPT-2's": lambda V, n, B, L: (2 * L + 1) * 2 * n}


def _extras_counted(fn):
    """The biases and norm weights a count adds to microgpt's, in words, or None when it is not that."""
    extra = {s: as_whole_number(fn(*s)) for s in _SIZES}
    if any(x is None for x in extra.values()):
        return None
    extra = {s: x - parameter_count_of(*s) for s, x in extra.items()}
    for k, tied, norms in itertools.product(range(len(_BIASES) + 1), (False, True), _NORM_WEIGHTS):
        for biases in itertools.combinations(_BIASES, k):
            if (biases or norms) and all(extra[s] == sum(_BIASES[b](*s) for b in biases) + _NORM_WEIGHTS[norms](*s)
                                         - tied * s[0] * s[1] for s in _SIZES):
                said = [_TIED] if tied else []
                if biases:
                    said.append(f"it counts biases ({', '.join(biases)}), and microgpt has none: \"no biases\", in "
                                "its own words, so each of its layers is a matrix alone")
                if norms:
                    said.append(f"it counts {norms}, and microgpt's RMSNorm has no weights: it only rescales")
                return "; ".join(said)
    return None


def parameter_count_problem(fn):
    for sizes in _SIZES:
        got = fn(*sizes)
        count = as_whole_number(got)
        want = parameter_count_of(*sizes)
        if count is None:
            return f"parameter_count{sizes} returns {got!r}; return a whole number"
        if count != want:
            for slip, message in _COUNT_SLIPS:
                if all(as_whole_number(fn(*s)) == slip(*s) for s in _SIZES):
                    return f"parameter_count{sizes} gives {count}, expected {want}: {message}"
            extras = _extras_counted(fn)
            if extras:
                return f"parameter_count{sizes} gives {count}, expected {want}: {extras}"
            return (f"parameter_count{sizes} gives {count}, expected {want}: wte and lm_head are vocab_size × n_embd, "
                    "wpe block_size × n_embd, and each layer has four n_embd × n_embd attention matrices and the "
                    "MLP's two of 4·n_embd × n_embd")
    return None
