"""Lesson 11's training step, judged: the learner's step beside microgpt's, on a small GPT.

The learner's ``training_step(gpt, params, m, v, tokens, step, num_steps)`` trains a copy of a
small microgpt model (``microgpt.TinyGPT``) for three steps on three names, while microgpt's own
step trains another copy from the same numbers.  The losses and every parameter must agree.  When
they do not, each usual slip (Adam without bias correction, a KV cache kept across documents, ...)
is run on a third copy; a slip that gives the learner's numbers is named.
"""

from .verdicts import as_number, close
from .lesson11_microgpt import TinyGPT, reference_step

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
    "uphill": "each parameter moves up its gradient: p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)",
    "fresh moments": ("m and v start from 0 at every step: update the lists the step is given, m[i] = beta1 * m[i] "
                      "+ ..., so that Adam keeps its running averages from step to step"),
}


def tokens_of(doc):
    return [BOS] + [UCHARS.index(ch) for ch in doc] + [BOS]


def _run(step_function, model, slip=None):
    """Losses of three steps, and the moments, of step_function (the learner's) or of microgpt's step with slip."""
    m, v = [0.0] * len(model.params), [0.0] * len(model.params)
    cache = ([[]], [[]])
    losses = []
    for step, doc in enumerate(DOCS):
        if step_function is None:
            losses.append(reference_step(model, m, v, tokens_of(doc), step, len(DOCS), slip=slip, cache=cache))
        else:
            losses.append(step_function(model.gpt, model.params, m, v, tokens_of(doc), step, len(DOCS)))
    return losses, m, v


def _same(model, losses, other, other_losses):
    return (all(close(a, b, 1e-9) for a, b in zip(losses, other_losses))
            and all(close(p.data, q.data, 1e-9) for p, q in zip(model.params, other.params)))


def _cache_from_outside(fn):
    """Does fn read a name keys that it never assigns (a KV cache made once, outside the step)?"""
    code = getattr(fn, "__code__", None)
    return code is not None and "keys" in code.co_names and "keys" not in code.co_varnames


def training_problem(fn):
    """None when fn trains as microgpt's step does, else what is wrong."""
    start = TinyGPT()
    model = start.copy()
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
    if all(close(a, b, 1e-9) for a, b in zip(numbers[:1], want[:1])):
        if all(close(p.data, q.data, 1e-12) for p, q in zip(model.params, start.params)):
            return ("the parameters never move: after loss.backward(), step every parameter with Adam, "
                    "p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)")
        return (f"the first loss is right ({numbers[0]:.4f}) but the update is not microgpt's: the later losses are "
                f"{', '.join(f'{x:.4f}' for x in numbers[1:])}, expected {', '.join(f'{x:.4f}' for x in want[1:])}. "
                "Check Adam's lines against the lesson's: beta1, beta2, eps_adam, m_hat, v_hat, lr_t")
    return (f"the first document's loss is {numbers[0]:.6g}, expected {want[0]:.6g}: the mean over its positions of "
            "-log(probability of the next token), with a fresh KV cache")
