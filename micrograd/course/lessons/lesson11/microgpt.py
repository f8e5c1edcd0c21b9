"""microgpt's pieces, as lesson 11's checkers run them: the right way, and each slip they name.

Karpathy's microgpt (https://gist.github.com/karpathy/8627fe009c40f57531cb18360106ce95) writes a
GPT on a scalar Value in one file: softmax, rmsnorm, an attention head inside ``gpt()``, and a
training loop with Adam.  Here they are again, on plain floats where a checker only needs the
numbers, and on the package's Value where it needs gradients.  Each takes ``slip=``: one mistake a
learner makes, run on the checker's own numbers, so that a wrong answer that matches it can be
told what it did.
"""

import math
import random

from micrograd.engine import Value
from micrograd.engine import dot

__all__ = ["softmax_numbers", "rmsnorm_numbers", "head_numbers", "TinyGPT", "reference_step", "ADAM", "answer_class"]

LEARNING_RATE, BETA1, BETA2, EPS_ADAM = 0.01, 0.85, 0.99, 1e-8  # microgpt's Adam
ADAM = {"learning_rate": LEARNING_RATE, "beta1": BETA1, "beta2": BETA2, "eps_adam": EPS_ADAM}
EPS_RMS = 1e-5  # rmsnorm's: (ms + 1e-5) ** -0.5


def _names_in(code):
    """The global names a function's code reads, its comprehensions' and inner functions' included."""
    if code is None:
        return []
    names = list(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names += _names_in(const)
    return names


def _own_value_class(cls):
    """Is cls a micrograd-style Value class other than the package's: made from a number, with .grad and backward()?"""
    if not isinstance(cls, type) or issubclass(cls, Value) or not callable(getattr(cls, "backward", None)):
        return False
    try:
        made = cls(1.5)
        return made.data == 1.5 and hasattr(made, "grad")
    except Exception:  # noqa: BLE001 - a class that cannot hold a number is no Value to build the check from
        return False


def answer_class(fn):
    """The Value class an answer builds with: a micrograd-style class of its own that its code names (``MyValue``,
    a copy of microgpt's ``Value``), or its module's own ``Value``; else the package's.

    An answer that starts a sum from ``Value(0.0)`` or tests ``isinstance(v, Value)`` means its module's
    class; given the package's Values, it would wrap one class's Value inside the other's.  So the check
    gives it Values of its own class, and compares their numbers with microgpt's.
    """
    found = getattr(fn, "__globals__", {})
    for name in _names_in(getattr(fn, "__code__", None)) + ["Value"]:
        if _own_value_class(found.get(name)):
            return found[name]
    return Value


def softmax_numbers(logits, slip=None):
    """softmax of plain numbers; ``slip="no max"`` exponentiates them as they are (and may overflow)."""
    shift = 0.0 if slip == "no max" else max(logits)
    exps = [math.exp(z - shift) for z in logits]
    total = sum(exps)
    if slip == "exps":
        return exps
    return [e / total for e in exps]


def rmsnorm_numbers(x, slip=None):
    """rmsnorm of plain numbers, or one of its slips."""
    n = len(x)
    if slip == "layernorm":  # subtracts the mean first, as LayerNorm does
        mean = sum(x) / n
        x = [xi - mean for xi in x]
    ms = sum(xi * xi for xi in x) / n
    if slip == "mean":
        ms = sum(x) / n
    elif slip == "sum":
        ms = sum(xi * xi for xi in x)
    if slip == "no eps":
        scale = ms**-0.5
    elif slip == "eps outside":
        scale = 1.0 / (math.sqrt(ms) + EPS_RMS)
    elif slip == "no root":
        scale = 1.0 / (ms + EPS_RMS)
    else:
        scale = (ms + EPS_RMS) ** -0.5
    return [xi * scale for xi in x]


def head_numbers(q, keys, values, slip=None):
    """One attention head at one position, on plain numbers: softmax(q·k / √head_dim) weighting the values."""
    head_dim = len(q)
    if slip == "without itself":
        keys, values = keys[:-1], values[:-1]
    if slip == "only itself":
        keys, values = keys[-1:], values[-1:]
    divisor = {"no scale": 1.0, "by head_dim": head_dim}.get(slip, math.sqrt(head_dim))
    scores = [sum(qj * kj for qj, kj in zip(q, k)) / divisor for k in keys]
    weights = scores if slip == "no softmax" else softmax_numbers(scores)
    if slip == "uniform":
        weights = [1.0 / len(keys)] * len(keys)
    mixed = keys if slip == "keys for values" else values
    return [sum(w * vt[j] for w, vt in zip(weights, mixed)) for j in range(head_dim)]


# -- a small GPT, microgpt's model, on the package's Value -------------------------------------


def _softmax(logits):
    shift = max(z.data for z in logits)
    exps = [(z - shift).exp() for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + EPS_RMS) ** -0.5
    return [xi * scale for xi in x]


class TinyGPT:
    """microgpt's model with its ``gpt(token_id, pos_id, keys, values)``, small enough for a check to train.

    Each matrix row times a vector is one ``dot`` node, as in the package's GPT: the same
    numbers as microgpt's ``sum(wi * xi ...)``, in far fewer nodes.  ``copy()`` gives a model
    with the same numbers in new Values, so a learner's step and the checker's own run side by side.
    """

    def __init__(self, vocab_size=27, n_embd=8, n_head=2, block_size=16, seed=11):
        self.value_class = Value
        self.vocab_size, self.n_embd, self.n_head, self.block_size = vocab_size, n_embd, n_head, block_size
        self.n_layer, self.head_dim = 1, n_embd // n_head
        rng = random.Random(seed)

        def matrix(nout, nin, std=0.08):
            return [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]

        self.state_dict = {"wte": matrix(vocab_size, n_embd), "wpe": matrix(block_size, n_embd),
                           "lm_head": matrix(vocab_size, n_embd)}
        for name, nout, nin in [("attn_wq", n_embd, n_embd), ("attn_wk", n_embd, n_embd), ("attn_wv", n_embd, n_embd),
                                ("attn_wo", n_embd, n_embd), ("mlp_fc1", 4 * n_embd, n_embd),
                                ("mlp_fc2", n_embd, 4 * n_embd)]:
            self.state_dict[f"layer0.{name}"] = matrix(nout, nin)
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]

    def copy(self, value_class=Value):
        """The same numbers in new Values, of value_class (a learner's own class, say)."""
        twin = TinyGPT.__new__(TinyGPT)
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("state_dict", "params")})
        twin.value_class = value_class
        twin.state_dict = {name: [[value_class(p.data) for p in row] for row in mat]
                           for name, mat in self.state_dict.items()}
        twin.params = [p for mat in twin.state_dict.values() for row in mat for p in row]
        return twin

    def _dot(self, a, b):
        if self.value_class is Value:
            return dot(a, b, 0.0)
        return sum(ai * bi for ai, bi in zip(a, b))  # microgpt's own way, on another class

    def _linear(self, x, w):
        return [self._dot(row, x) for row in w]

    def gpt(self, token_id, pos_id, keys, values):
        sd, hd = self.state_dict, self.head_dim
        x = [t + p for t, p in zip(sd["wte"][token_id], sd["wpe"][pos_id])]
        x = _rmsnorm(x)
        x_residual = x
        x = _rmsnorm(x)
        q, k, v = (self._linear(x, sd[f"layer0.attn_w{name}"]) for name in "qkv")
        keys[0].append(k)
        values[0].append(v)
        x_attn = []
        for h in range(self.n_head):
            hs = h * hd
            q_h = q[hs:hs + hd]
            k_h = [ki[hs:hs + hd] for ki in keys[0]]
            v_h = [vi[hs:hs + hd] for vi in values[0]]
            weights = _softmax([self._dot(q_h, kt) / hd**0.5 for kt in k_h])
            x_attn.extend(self._dot(weights, [vt[j] for vt in v_h]) for j in range(hd))
        x = [a + b for a, b in zip(self._linear(x_attn, sd["layer0.attn_wo"]), x_residual)]
        x_residual = x
        x = [xi.relu() for xi in self._linear(_rmsnorm(x), sd["layer0.mlp_fc1"])]
        x = [a + b for a, b in zip(self._linear(x, sd["layer0.mlp_fc2"]), x_residual)]
        return self._linear(x, sd["lm_head"])


def reference_step(model, m, v, tokens, step, num_steps, slip=None, cache=None, adam=None):
    """microgpt's training step on one document, or one of its slips; returns the loss's number.

    ``cache`` is the KV cache the slip "cache kept" carries from one document to the next; ``adam``
    holds settings other than microgpt's (``{"beta1": 0.9}``), by the names of ``ADAM``.
    """
    settings = {**ADAM, **(adam or {})}
    beta1, beta2, eps_adam = settings["beta1"], settings["beta2"], settings["eps_adam"]
    n = min(model.block_size, len(tokens) - 1)
    keys, values = cache if slip == "cache kept" else ([[]], [[]])
    if slip == "fresh moments":  # m and v made anew inside the step: Adam forgets every earlier step
        m, v = [0.0] * len(m), [0.0] * len(v)
    losses = []
    for pos_id in range(n):
        logits = model.gpt(tokens[pos_id], pos_id, keys, values)
        probs = _softmax(logits)
        losses.append(probs[tokens[pos_id + 1]].log() if slip == "no minus" else -probs[tokens[pos_id + 1]].log())
    loss = sum(losses) if slip == "sum" else (1 / n) * sum(losses)
    loss.backward()
    lr_t = settings["learning_rate"] * (1 if slip == "no decay" else 1 - step / num_steps)
    t = step + 2 if slip == "late correction" else step + 1  # Adam counts its steps from 1
    for i, p in enumerate(model.params):
        m[i] = beta1 * m[i] + (1 - beta1) * p.grad
        v[i] = beta2 * v[i] + (1 - beta2) * p.grad ** 2
        if slip == "no bias correction":
            m_hat, v_hat = m[i], v[i]
        else:
            m_hat = m[i] / (1 - beta1 ** t)
            v_hat = v[i] / (1 - beta2 ** t)
        sign = -1.0 if slip == "uphill" else 1.0
        p.data -= sign * lr_t * m_hat / (v_hat ** 0.5 + eps_adam)
        if slip != "no zero":
            p.grad = 0
    return loss.data
