"""Lesson 11's pieces as learners write them: microgpt's own (the worked answers), other right ways, and slips.

Each answer is source text, run the way the lesson runs a build-it cell: in a namespace holding
what the lesson has defined before it (microgpt's sizes, ``math``, ``random``, and the softmax and
attention head of the cells above).  ``load(key, *swaps)`` runs the worked answer with text swaps,
``load_source(text, name)`` any text.
"""

import math
import random

from micrograd import Value
from micrograd.course.yours import ANSWERS
from micrograd.course.lesson11_carried import SETTINGS


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
    "moments-made-each-step": ((("    n = min(block_size", "    m, v = [0.0] * len(params), [0.0] * len(params)\n    n = min(block_size"),),
                               "m and v start from 0 at every step"),
}
