"""Lesson 11's training step, judged: the learner's step beside microgpt's, on a small GPT.

The learner's ``training_step(gpt, params, m, v, tokens, step, num_steps)`` trains a copy of a
small microgpt model (``microgpt.TinyGPT``, in Values of the class the answer builds with)
for three steps on three names, while microgpt's own step trains another copy from the same
numbers.  The losses and every parameter must agree.  When they do not, each usual slip (Adam
without bias correction, a KV cache kept across documents, ...) is run on a third copy, and so is
Adam with other settings (the learner's own, or PyTorch's and common learning rates); one that
gives the learner's numbers is named.  Last, a first step that moves every parameter by the same
multiple of microgpt's tells its learning rate.
"""

import math

from micrograd.course.verdicts import as_number, close, digits_apart
from .microgpt import ADAM, TinyGPT, answer_class, reference_step

__all__ = ["DOCS", "training_problem", "tokens_of"]

DOCS = ["emma", "ava", "leo"]
UCHARS = "abcdefghijklmnopqrstuvwxyz"
BOS = len(UCHARS)

_SLIPS = {
    "no bias correction": ("Adam without bias correction: m and v start at 0, so for the first steps they are far "
                           "too small. Divide them by 1 - beta1 ** (step + 1) and 1 - beta2 ** (step + 1): "
                           "m_hat and v_hat"),
    "cache kept": ("the KV cache is kept from one document to the next, so the second name's attention also reads "
                   "the first name's keys and values. Start every step with a fresh cache, keys, values = "
                   "[[] for _ in range(n_layer)], [[] for _ in range(n_layer)]"),
    "no decay": "the learning rate does not decay: microgpt's step uses lr_t = learning_rate * (1 - step / num_steps)",
    "no zero": ("the gradients are never set back to 0, so every step's gradient adds onto the last ones: after "
                "the update, p.grad = 0"),
    "sum": "the loss adds up the positions' losses; microgpt averages them, (1 / n) * sum(losses)",
    "no minus": ("the loss is log(probability), below 0, and minimising it pushes the right letters' probabilities "
                 "down: the loss is -probs[target_id].log()"),
    "late correction": ("the bias correction is one step late: at step 0 Adam's t is 1, so m_hat = m[i] / (1 - beta1 ** "
                        "(step + 1)) and v_hat = v[i] / (1 - beta2 ** (step + 1)), not step + 2"),
    "uphill": "each parameter moves up its gradient: p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)",
    "fresh moments": ("m and v start from 0 at every step: update the lists the step is given, m[i] = beta1 * m[i] "
                      "+ ..., so that Adam keeps its running averages from step to step"),
}


def tokens_of(doc):
    return [BOS] + [UCHARS.index(ch) for ch in doc] + [BOS]


# Adam's settings a learner may take from elsewhere (PyTorch's defaults, a tutorial's learning rate), each tried alone.
_OTHER_SETTINGS = ([{"beta1": 0.9}, {"beta2": 0.999}, {"beta1": 0.9, "beta2": 0.999}, {"beta2": 0.95},
                    {"eps_adam": 1e-6}, {"eps_adam": 1e-5}]
                   + [{"learning_rate": lr} for lr in (0.001, 0.003, 0.005, 0.02, 0.03, 0.1, 0.0003)]
                   + [{"learning_rate": 0.001, "beta1": 0.9, "beta2": 0.999}])


def _run(step_function, model, slip=None, adam=None):
    """Losses of three steps, and the moments, of step_function (the learner's) or of microgpt's step with slip."""
    m, v = [0.0] * len(model.params), [0.0] * len(model.params)
    cache = ([[]], [[]])
    losses = []
    for step, doc in enumerate(DOCS):
        if step_function is None:
            losses.append(reference_step(model, m, v, tokens_of(doc), step, len(DOCS), slip=slip, cache=cache,
                                         adam=adam))
        else:
            losses.append(step_function(model.gpt, model.params, m, v, tokens_of(doc), step, len(DOCS)))
    return losses, m, v


def _same(model, losses, other, other_losses):
    return (all(close(a, b, 1e-9) for a, b in zip(losses, other_losses))
            and all(close(p.data, q.data, 1e-9) for p, q in zip(model.params, other.params)))


def _settings_named(adam):
    """Adam's settings that differ from microgpt's, in words."""
    said = [f"{name} is {adam[name]:g}, microgpt's {ADAM[name]:g}" for name in ADAM if name in adam]
    return ("Adam's settings are not microgpt's: " + "; ".join(said) + ". microgpt's are learning_rate, beta1, "
            "beta2, eps_adam = 0.01, 0.85, 0.99, 1e-8")


def _settings_of(fn):
    """Adam's settings by microgpt's names where fn's module holds other numbers under them (``{}`` if none)."""
    found = getattr(fn, "__globals__", {})
    theirs = {name: as_number(found.get(name)) for name in ADAM}
    return {name: x for name, x in theirs.items()
            if x is not None and math.isfinite(x) and not math.isclose(x, ADAM[name], rel_tol=1e-12)}


def _other_settings_problem(fn, start, model, numbers):
    """Adam with other settings than microgpt's that gives the learner's numbers, named; else None."""
    candidates = [_settings_of(fn)] + _OTHER_SETTINGS
    for adam in (c for c in candidates if c):
        twin = start.copy()
        slipped, _, _ = _run(None, twin, adam=adam)
        if _same(model, numbers, twin, slipped):
            return _settings_named(adam)
    return None


def _losses_apart(got, want):
    """The losses with 4 decimals, or as many more as it takes for got and want to read differently."""
    decimals = next((d for d in range(4, 17) if [f"{x:.{d}f}" for x in got] != [f"{x:.{d}f}" for x in want]), 17)
    return ", ".join(f"{x:.{decimals}f}" for x in got), ", ".join(f"{x:.{decimals}f}" for x in want)


def _learning_rate_problem(fn, start):
    """A first step that moves every parameter the same multiple of microgpt's: its learning rate, named; else None."""
    mine, theirs = start.copy(answer_class(fn)), start.copy()
    for model, step in ((mine, fn), (theirs, None)):
        m, v = [0.0] * len(model.params), [0.0] * len(model.params)
        if step is None:
            reference_step(model, m, v, tokens_of(DOCS[0]), 0, len(DOCS))
        else:
            step(model.gpt, model.params, m, v, tokens_of(DOCS[0]), 0, len(DOCS))
    ratios = [(p.data - s.data) / (q.data - s.data) for p, q, s in zip(mine.params, theirs.params, start.params)
              if abs(q.data - s.data) > 1e-6]
    if not ratios or not all(math.isclose(r, ratios[0], rel_tol=1e-6) for r in ratios) or math.isclose(ratios[0], 1):
        return None
    rate, digits = ratios[0] * ADAM["learning_rate"], digits_apart(ratios[0], 1.0)
    return (f"the first step moves every parameter {ratios[0]:.{digits}g} times as far as microgpt's: a learning rate "
            f"of {rate:.{digits}g} where microgpt's is 0.01, decaying to 0 over the run: lr_t = learning_rate * "
            "(1 - step / num_steps)")


def _cache_from_outside(fn):
    """Does fn read a name keys that it never assigns (a KV cache made once, outside the step)?"""
    code = getattr(fn, "__code__", None)
    return code is not None and "keys" in code.co_names and "keys" not in code.co_varnames


def training_problem(fn):
    """None when fn trains as microgpt's step does, else what is wrong."""
    start = TinyGPT()
    model = start.copy(answer_class(fn))
    try:
        got, m, v = _run(fn, model)
    except ZeroDivisionError as error:
        return (f"it raised ZeroDivisionError ({error}). Is it the bias correction? 1 - beta1 ** step is 0 at step 0; "
                "the steps count from 0 and Adam's from 1: 1 - beta1 ** (step + 1)")
    except Exception:  # noqa: BLE001 - the learner's code; the checker wrapper reports it unless it is a known slip
        if _cache_from_outside(fn):
            return _SLIPS["cache kept"]
        raise
    if any(loss is None for loss in got):
        return "it returns None; return the loss's number, loss.data"
    if any(callable(getattr(loss, "backward", None)) for loss in got):
        return (f"it returns the loss itself, a {type(got[0]).__name__}; return its number, loss.data. A loss Value "
                "holds on to the step's whole graph, every node of the GPT's forward pass, for as long as it is kept "
                "(in a list of losses, say): the number is all a training loop needs to keep")
    numbers = [as_number(loss) for loss in got]
    if any(x is None for x in numbers):
        return f"it returns {type(got[0]).__name__}; return the loss's number, loss.data"
    reference = start.copy()
    want, _, _ = _run(None, reference)
    if _same(model, numbers, reference, want):
        if not any(m) or not any(v):
            return ("the step does not update the m and v it is given (they are still all 0): keep Adam's moments "
                    "in those lists, m[i] = beta1 * m[i] + (1 - beta1) * p.grad, so the next step has them")
        return None
    for slip, message in _SLIPS.items():
        twin = start.copy()
        slipped, _, _ = _run(None, twin, slip)
        if _same(model, numbers, twin, slipped):
            return message
    if _cache_from_outside(fn):
        return _SLIPS["cache kept"]
    problem = _other_settings_problem(fn, start, model, numbers)
    if problem:
        return problem
    if all(close(a, b, 1e-9) for a, b in zip(numbers[:1], want[:1])):
        if all(close(p.data, q.data, 1e-12) for p, q in zip(model.params, start.params)):
            return ("the parameters never move: after loss.backward(), step every parameter with Adam, "
                    "p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)")
        problem = _learning_rate_problem(fn, start)
        if problem:
            return problem
        later, expected = _losses_apart(numbers[1:], want[1:])
        return (f"the first loss is right ({numbers[0]:.4f}) but the update is not microgpt's: the later losses are "
                f"{later}, expected {expected}. Check Adam's lines against the lesson's: learning_rate, beta1, beta2, "
                "eps_adam, m_hat, v_hat, lr_t")
    first, expected = _losses_apart(numbers[:1], want[:1])
    return (f"the first document's loss is {first}, expected {expected}: the mean over its positions of "
            "-log(probability of the next token), with a fresh KV cache")
