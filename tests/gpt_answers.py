"""Lesson 11's pieces as learners write them: microgpt's own (the worked answers), other right ways, and slips.

Each answer is source text, run the way the lesson runs a build-it cell: in a namespace holding
what the lesson has defined before it (microgpt's sizes, ``math``, ``random``, and the softmax and
attention head of the cells above).  ``load(key, *swaps)`` runs the worked answer with text swaps,
``load_source(text, name)`` any text.  microgpt itself, its ``Value`` and model, is
``benchmarks/microgpt.py``, the project's one copy, loaded here by its path as ``microgpt``.
"""

import importlib.util
import math
import random
from pathlib import Path

from micrograd import Value
from micrograd.course.carry.yours import ANSWERS
from micrograd.course.carry.gpt_pieces import SETTINGS

MICROGPT_FILE = Path(__file__).resolve().parents[1] / "benchmarks" / "microgpt.py"


def _load_microgpt():
    """benchmarks/microgpt.py as a module; the benchmarks import it by name from their own folder."""
    spec = importlib.util.spec_from_file_location("microgpt", MICROGPT_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


microgpt = _load_microgpt()


def namespace():
    ns = {"math": math, "random": random, "Value": Value, **SETTINGS}
    for key in ("lesson 11: softmax", "lesson 11: attention_head"):
        exec(ANSWERS[key], ns)
    return ns


def load_source(source, name, ns=None):
    ns = namespace() if ns is None else ns
    exec(source, ns)
    return ns[name]


def swapped(key, *swaps):
    """The worked answer of key with each (old, new) swapped in (old must be there)."""
    source = ANSWERS[key]
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    return source


def load(key, *swaps, name=None):
    """The worked answer of key, swapped, run; returns the piece."""
    return load_source(swapped(key, *swaps), name or key.split(": ", 1)[1])


SOFTMAX_LOOPS = '''
def softmax(logits):
    biggest = max(logits, key=lambda z: z.data).data
    exps = []
    for z in logits:
        exps.append((z - biggest).exp())
    total = exps[0]
    for e in exps[1:]:
        total = total + e
    return [e * total**-1 for e in exps]
'''

SOFTMAX_NUMPY = '''
import numpy as np

def softmax(logits):
    z = np.array(logits, dtype=object)
    exps = np.exp(z - max(v.data for v in logits))  # an object array: each Value's own exp()
    total = exps.sum()
    return [e / total for e in exps]  # an array divided by a Value is refused: a Value holds one number
'''

SOFTMAX_MAX_AS_A_VALUE = '''
def softmax(logits):
    top = max(logits)  # the Value itself: its gradient is exactly 0, so nothing changes
    exps = [(z - top).exp() for z in logits]
    total = sum(exps)
    return [e / total for e in exps]
'''

RMSNORM_LOOPS = '''
def rmsnorm(x):
    ms = 0
    for xi in x:
        ms = ms + xi * xi
    ms = ms / len(x)
    scale = 1 / (ms + 1e-5) ** 0.5
    out = []
    for xi in x:
        out.append(xi * scale)
    return out
'''

RMSNORM_NUMPY = '''
import numpy as np

def rmsnorm(x):
    a = np.array(x, dtype=object)
    scale = ((a * a).sum() / len(x) + 1e-5) ** -0.5
    return [xi * scale for xi in a]
'''

RMSNORM_NUMPY_MEAN = '''
import numpy as np

def rmsnorm(x):
    ms = np.mean([xi * xi for xi in x])  # a Value, divided by numpy's own integer, len(x) as an np.intp
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]
'''

HEAD_LOOPS = '''
def attention_head(q_h, k_h, v_h):
    d = len(q_h)
    scores = []
    for key in k_h:
        s = q_h[0] * key[0]
        for j in range(1, d):
            s = s + q_h[j] * key[j]
        scores.append(s / math.sqrt(d))
    weights = softmax(scores)
    out = []
    for j in range(d):
        acc = weights[0] * v_h[0][j]
        for t in range(1, len(v_h)):
            acc = acc + weights[t] * v_h[t][j]
        out.append(acc)
    return out
'''

HEAD_NUMPY = '''
import numpy as np

def attention_head(q_h, k_h, v_h):
    q, keys, values = np.array(q_h, dtype=object), np.array(k_h, dtype=object), np.array(v_h, dtype=object)
    weights = softmax(list(keys.dot(q) / np.sqrt(len(q_h))))
    return list(np.array(weights, dtype=object).dot(values))
'''

# GPT-2's way: every key read, the later ones masked out of the softmax; MASK is the number added to their scores.
CAUSAL_MASKED = '''
def causal_attention(qs, ks, vs):
    T, out = len(qs), []
    for t in range(T):
        scores = [sum(q * k for q, k in zip(qs[t], ks[s])) / head_dim**0.5 + (0.0 if s <= t else MASK)
                  for s in range(T)]
        w = softmax(scores)
        out.append([sum(w[s] * vs[s][j] for s in range(T)) for j in range(head_dim)])
    return out
'''


STEP_KEY = "lesson 11: training_step"

# microgpt's first version: backward() at every position, on the loss divided by n; the gradients add up to
# those of the mean, since backward() starts the nodes in between from 0 each time and the leaves add up.
STEP_BACKWARD_PER_POSITION = (
    '''    losses = []
    for pos_id in range(n):
        token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
        logits = gpt(token_id, pos_id, keys, values)
        probs = softmax(logits)
        loss_t = -probs[target_id].log()
        losses.append(loss_t)
    loss = (1 / n) * sum(losses)
    loss.backward()
''',
    '''    lossf = 0.0
    for pos_id in range(n):
        logits = gpt(tokens[pos_id], pos_id, keys, values)
        probs = softmax(logits)
        loss = -probs[tokens[pos_id + 1]].log()
        loss = (1 / n) * loss
        loss.backward()
        lossf += loss.data
''')

STEP_ADAM_WRITTEN_OUT = (
    '''        m_hat = m[i] / (1 - beta1 ** (step + 1))
        v_hat = v[i] / (1 - beta2 ** (step + 1))
        p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)''',
    '''        t = step + 1
        p.data = p.data - lr_t * (m[i] / (1 - beta1**t)) / (math.sqrt(v[i] / (1 - beta2**t)) + eps_adam)''')

STEP_CROSS_ENTROPY = (
    '''        probs = softmax(logits)
        loss_t = -probs[target_id].log()''',
    '''        from micrograd.losses import cross_entropy
        loss_t = cross_entropy(logits, target_id)''')

# The usual slips in the training step: (swap, words the verdict names it by).
STEP_SLIPS = {
    "no-bias-correction": ((("m_hat = m[i] / (1 - beta1 ** (step + 1))", "m_hat = m[i]"),
                            ("v_hat = v[i] / (1 - beta2 ** (step + 1))", "v_hat = v[i]")), "without bias correction"),
    "bias-correction-from-step-0": ((("beta1 ** (step + 1)", "beta1 ** step"), ("beta2 ** (step + 1)", "beta2 ** step")),
                                    "1 - beta1 ** step is 0 at step 0"),
    "cache-kept-across-documents": ((("    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]\n", ""),
                                     ("\n\ndef training_step", "\nkeys, values = [[]], [[]]\n\n\ndef training_step")),
                                    "KV cache is kept from one document to the next"),
    "no-decay": ((("lr_t = learning_rate * (1 - step / num_steps)", "lr_t = learning_rate"),), "does not decay"),
    "grad-never-zeroed": ((("        p.grad = 0\n", ""),), "never set back to 0"),
    "sum-not-mean": ((("loss = (1 / n) * sum(losses)", "loss = sum(losses)"),), "microgpt averages them"),
    "log-without-minus": ((("loss_t = -probs[target_id].log()", "loss_t = probs[target_id].log()"),), "below 0"),
    "uphill": ((("p.data -= lr_t", "p.data += lr_t"),), "moves up its gradient"),
    "bias-correction-one-step-late": ((("beta1 ** (step + 1)", "beta1 ** (step + 2)"), ("beta2 ** (step + 1)", "beta2 ** (step + 2)")),
                                      "the bias correction is one step late"),
    "pytorchs-betas": ((("0.01, 0.85, 0.99, 1e-8", "0.01, 0.9, 0.999, 1e-8"),),
                       "beta1 is 0.9, microgpt's 0.85; beta2 is 0.999, microgpt's 0.99"),
    "learning-rate-0.003": ((("0.01, 0.85, 0.99, 1e-8", "0.003, 0.85, 0.99, 1e-8"),), "learning_rate is 0.003, microgpt's 0.01"),
    "learning-rate-written-in-the-step": ((("lr_t = learning_rate * (1 - step / num_steps)",
                                            "lr_t = 0.004 * (1 - step / num_steps)"),),
                                          "0.4 times as far as microgpt's: a learning rate of 0.004"),
    "moments-made-each-step": ((("    n = min(block_size", "    m, v = [0.0] * len(params), [0.0] * len(params)\n    n = min(block_size"),),
                               "m and v start from 0 at every step"),
}


# -- two copies of microgpt as learners paste them: its own Value class, and the pieces built on it -------------------

MICROGPT_VALUE = microgpt.value_source()  # microgpt's Value, as its file writes it

# Every sum started from a Value of the copy's own class; the training step is the worked answer's (microgpt's).
MICROGPT_SUMS_FROM_ZERO = MICROGPT_VALUE + '''

def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps, Value(0.0))
    return [e / total for e in exps]


def rmsnorm(x):
    ms = sum((xi * xi for xi in x), Value(0.0)) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def attention_head(q_h, k_h, v_h):
    attn_logits = [sum((q_h[j] * k_h[t][j] for j in range(head_dim)), Value(0.0)) / head_dim**0.5
                   for t in range(len(k_h))]
    attn_weights = softmax(attn_logits)
    return [sum((attn_weights[t] * v_h[t][j] for t in range(len(v_h))), Value(0.0)) for j in range(head_dim)]


def causal_attention(qs, ks, vs):
    return [attention_head(qs[t], ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]


''' + swapped(STEP_KEY, ("loss = (1 / n) * sum(losses)", "loss = (1 / n) * sum(losses, Value(0.0))"))

# Every input made a Value of the copy's own class first, unless it is one already.
MICROGPT_ISINSTANCE = MICROGPT_VALUE + '''

def as_values(xs):
    return [x if isinstance(x, Value) else Value(x) for x in xs]


def softmax(logits):
    logits = as_values(logits)
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x):
    x = as_values(x)
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def attention_head(q_h, k_h, v_h):
    q_h, k_h, v_h = as_values(q_h), [as_values(k) for k in k_h], [as_values(v) for v in v_h]
    attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5 for t in range(len(k_h))]
    attn_weights = softmax(attn_logits)
    return [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim)]


def causal_attention(qs, ks, vs):
    return [attention_head(qs[t], ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]


def sample_next(logits, temperature):
    logits = as_values(logits)
    if temperature == 0:
        return max(range(len(logits)), key=lambda i: logits[i].data)
    probs = softmax([l / temperature for l in logits])
    return random.choices(range(len(logits)), weights=[p.data for p in probs])[0]


''' + ANSWERS[STEP_KEY]  # the training step: microgpt's, the worked answer


def microgpt_copy(source, name):
    """One function of a microgpt copy, run in a module of its own (its own Value, the lesson's sizes)."""
    ns = {"__name__": "__main__", "random": random, **SETTINGS}  # as a notebook's cell defines them
    exec(source, ns)
    return ns[name]
