"""Lesson 11's pieces of your micrograd: the GPT's operations, softmax, rmsnorm, one attention head, the training step.

``micrograd.course.carry.yours`` carries them as it carries lessons 2 to 6: ``ANSWERS`` holds the worked
answers (microgpt's own functions, as its file writes them; ``make notebooks`` writes the solution's cells from them), and
``CHECKS`` how each saved piece is checked when a lesson loads it.  ``SETTINGS`` are microgpt's
sizes, which lesson 11 sets before its build-it cells and a saved cell may use (``head_dim``,
``n_layer``, ``block_size``), so they are there when ``my_micrograd.py`` is loaded too.
"""

import math

__all__ = ["ANSWERS", "CHECKS", "SETTINGS", "DEFINES"]

SETTINGS = {"n_layer": 1, "n_embd": 16, "block_size": 16, "n_head": 4, "head_dim": 4}

DEFINES = {
    "lesson 11: more operations": ("MyValue",),
    "lesson 11: softmax": ("softmax",),
    "lesson 11: rmsnorm": ("rmsnorm",),
    "lesson 11: attention_head": ("attention_head",),
    "lesson 11: training_step": ("training_step",),
}

ANSWERS = {
    "lesson 11: more operations": '''\
import math


def one_input_node(x, data, op, local):
    """Lesson 4's helper again: the node op(x), holding data, whose local derivative d out/d x is local."""
    out = MyValue(data, (x,), op)
    out._local_grads = (local,)

    def _backward():
        x.grad += local * out.grad

    out._backward = _backward
    return out


class MyValue(MyValue):
    """Your MyValue with lesson 4's operations, and the two more a GPT needs."""

    def log(self):  # d/dx ln x = 1/x: the loss is -log(probability)
        return one_input_node(self, math.log(self.data), "log", 1 / self.data)

    def relu(self):  # d/dx max(0, x) = 1 where x > 0, else 0: the MLP block's activation
        return one_input_node(self, max(0.0, self.data), "ReLU", float(self.data > 0))
''',
    "lesson 11: softmax": '''\
def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]
''',
    "lesson 11: rmsnorm": '''\
def rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]
''',
    "lesson 11: attention_head": '''\
def attention_head(q_h, k_h, v_h):
    """One head at one position: q_h is its query; k_h and v_h hold the keys and values cached so far."""
    attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5
                   for t in range(len(k_h))]
    attn_weights = softmax(attn_logits)
    head_out = [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim)]
    return head_out
''',
    "lesson 11: training_step": '''\
learning_rate, beta1, beta2, eps_adam = 0.01, 0.85, 0.99, 1e-8  # microgpt's Adam


def training_step(gpt, params, m, v, tokens, step, num_steps):
    """One step of microgpt's training on one document's tokens; returns the loss's number."""
    n = min(block_size, len(tokens) - 1)
    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]
    losses = []
    for pos_id in range(n):
        token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
        logits = gpt(token_id, pos_id, keys, values)
        probs = softmax(logits)
        loss_t = -probs[target_id].log()
        losses.append(loss_t)
    loss = (1 / n) * sum(losses)
    loss.backward()
    lr_t = learning_rate * (1 - step / num_steps)
    for i, p in enumerate(params):
        m[i] = beta1 * m[i] + (1 - beta1) * p.grad
        v[i] = beta2 * v[i] + (1 - beta2) * p.grad ** 2
        m_hat = m[i] / (1 - beta1 ** (step + 1))
        v_hat = v[i] / (1 - beta2 ** (step + 1))
        p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)
        p.grad = 0
    return loss.data
''',
}


def _lesson11(name):
    import importlib

    return getattr(importlib.import_module("micrograd.course.lessons.lesson11"), name).__wrapped__


def _check_operations(ns):
    """log and relu on MyValue: the package's numbers and local derivatives, through your backward()."""
    cls = ns["MyValue"]
    for text, make, value, grad in [("x.log() at x = 2", lambda x: x.log(), math.log(2.0), 0.5),
                                    ("x.relu() at x = 2", lambda x: x.relu(), 2.0, 1.0),
                                    ("x.relu() at x = -2", lambda x: x.relu(), 0.0, 0.0)]:
        x = cls(-2.0 if "-2" in text else 2.0)
        out = make(x)
        out.backward()
        if not math.isclose(out.data, value, abs_tol=1e-12) or not math.isclose(x.grad, grad, abs_tol=1e-12):
            return ("failed", f"{text} gives {out.data!r} with x.grad {x.grad!r}, expected {value!r} and {grad!r}")
    return ("passed", "log and relu give the package's numbers and gradients")


CHECKS = {
    "lesson 11: more operations": _check_operations,
    "lesson 11: softmax": lambda ns: _lesson11("softmax")(ns["softmax"]),
    "lesson 11: rmsnorm": lambda ns: _lesson11("rmsnorm")(ns["rmsnorm"]),
    "lesson 11: attention_head": lambda ns: _lesson11("attention_head")(ns["attention_head"]),
    "lesson 11: training_step": lambda ns: _lesson11("training_step")(ns["training_step"]),
}
