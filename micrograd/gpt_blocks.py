"""microgpt's building blocks on this package's ``Value``, each microgpt's function of the same name,
each a few fused nodes: a matrix times a vector (one ``dot`` node per row), RMSNorm, softmax and one
attention head.

The sums are added up in microgpt's order, so the numbers are microgpt's; each block takes an
optional ``tape`` (``micrograd.tape.Tape``) and records on it every node it makes, in the order made.
"""

import math

from .engine import fused_dot, result_node

__all__ = ["linear", "linear_rows", "matrix_numbers", "rmsnorm", "softmax", "attention_head", "RMS_EPS"]

RMS_EPS = 1e-5


def linear(x, w):
    """microgpt's ``[sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]``: each row one ``dot`` node.

    Each node is the one ``dot(row, x)`` makes: its inputs the row's weights then x, its local
    derivatives x's numbers then the weights', the products summed from 0.0 in order.
    """
    return linear_rows(x, [tuple(row) for row in w], matrix_numbers(w))


def linear_rows(x, rows, rows_data, tape=None):
    """``linear`` for rows given as tuples, with their numbers read beforehand: the model reads
    its weights once per document, not once per position."""
    x = tuple(x)
    x_data = tuple([xi.data for xi in x])
    out = []
    for row, w_data in zip(rows, rows_data):
        total = 0.0
        for wi, xi in zip(w_data, x_data):
            total += wi * xi
        out.append(result_node(total, row + x, x_data + w_data, "w·x"))  # the node engine.dot makes
    if tape is not None:
        tape.record(out)
    return out


def matrix_numbers(matrix):
    return [tuple([w.data for w in row]) for row in matrix]


def rmsnorm(x, tape=None):
    """microgpt's RMSNorm, without a learnable gain: ``x / sqrt(mean(x²) + 1e-5)``.

    ``ms = sum(xi * xi) / len(x)`` is one ``dot`` node of x with itself, then a scaling;
    ``scale = (ms + 1e-5) ** -0.5``; then each ``xi * scale``.
    """
    x_data = [xi.data for xi in x]
    square_sum = fused_dot(x, x, x_data)
    inverse_n = len(x) ** -1  # microgpt's Value divides by multiplying with other**-1
    ms = result_node(square_sum.data * inverse_n, (square_sum,), (inverse_n,), f"/{len(x)}")
    shifted = ms.data + RMS_EPS
    scale = result_node(shifted**-0.5, (ms,), (-0.5 * shifted**-1.5,), "(·+1e-5)**-0.5")
    s = scale.data
    out = [result_node(d * s, (xi, scale), (s, d), "*") for xi, d in zip(x, x_data)]
    if tape is not None:
        tape.record([square_sum, ms, scale, *out])
    return out


def softmax(logits, tape=None):
    """microgpt's softmax: ``exp(z - max)``, their sum, each divided by the sum.

    ``exp(z - max)`` is one node (max is a number, as in microgpt, so no gradient flows
    to it), the sum of the exps is one node, then one division per output.
    """
    max_val = max(z.data for z in logits)
    exps = []
    total = 0.0
    for z in logits:
        e = math.exp(z.data - max_val)
        exps.append(result_node(e, (z,), (e,), "exp(·-max)"))
        total += e  # in order, as sum() of Values adds them
    total = result_node(total, tuple(exps), (1.0,) * len(exps), "+")
    inverse = total.data**-1  # e / total as microgpt's Value computes it: e * total**-1
    d_total = -(total.data**-2)
    out = [result_node(e.data * inverse, (e, total), (inverse, e.data * d_total), "/") for e in exps]
    if tape is not None:
        tape.record([*exps, total, *out])
    return out


def attention_head(q_h, k_h, v_h, tape=None):
    """One head at one position: ``(head's output, attention weights)``.

    microgpt's three lines: a score ``q_h · k_t / sqrt(head_dim)`` per cached key t (one
    ``dot`` node, then the scaling), their softmax, and per output dimension j the weighted
    sum ``Σ_t weight_t * v_t[j]`` (one ``dot`` node).  ``k_h`` and ``v_h`` hold only the
    positions cached so far: this position and those before it.
    """
    head_dim = len(q_h)
    inverse_scale = (head_dim**0.5) ** -1
    made, scores = [], []
    for key in k_h:
        score = fused_dot(q_h, key, [k.data for k in key])
        scores.append(result_node(score.data * inverse_scale, (score,), (inverse_scale,), "/√d"))
        made += (score, scores[-1])
    if tape is not None:
        tape.record(made)
    weights = softmax(scores, tape)
    weight_data = [w.data for w in weights]
    out = []
    for j in range(head_dim):
        column = [v[j] for v in v_h]
        out.append(fused_dot(weights, column, [v.data for v in column]))
    if tape is not None:
        tape.record(out)
    return out, weight_data
