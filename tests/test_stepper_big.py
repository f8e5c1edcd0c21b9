"""The backprop stepper on a big foreign graph: one position's loss of microgpt's GPT, on microgpt's
own Value (inputs in ``_children``, local derivatives in ``_local_grads``, backward() in a dozen
lines).  Its speed is measured by ``benchmarks/stepper_gpt.py``; here, that the answers stay exact
and that a step no longer reads and collapses the whole graph again."""

import html
import random
import re
import sys

import pytest

from gpt_answers import MICROGPT_VALUE, load_source
from micrograd.viz import collapse, draw_dot
from micrograd.widgets import BackpropStepper


MicroValue = load_source(MICROGPT_VALUE, "Value", {})  # microgpt's Value, as its file writes it


def linear(x, w):
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def position_loss(position, vocab_size=27, n_embd=16, n_head=4, seed=42):
    """microgpt's loss at one position of a name (one layer, its sizes), the keys and values of the
    positions before it included: (loss, every node of the graph in a fixed order)."""
    rng = random.Random(seed)
    matrix = lambda nout, nin: [[MicroValue(rng.gauss(0, 0.08)) for _ in range(nin)] for _ in range(nout)]  # noqa: E731
    sd = {"wte": matrix(vocab_size, n_embd), "wpe": matrix(16, n_embd), "lm_head": matrix(vocab_size, n_embd),
          "wq": matrix(n_embd, n_embd), "wk": matrix(n_embd, n_embd), "wv": matrix(n_embd, n_embd),
          "wo": matrix(n_embd, n_embd), "fc1": matrix(4 * n_embd, n_embd), "fc2": matrix(n_embd, 4 * n_embd)}
    tokens = [rng.randrange(vocab_size) for _ in range(position + 2)]
    head_dim = n_embd // n_head
    keys, values = [], []
    for pos in range(position + 1):
        x = rmsnorm([t + p for t, p in zip(sd["wte"][tokens[pos]], sd["wpe"][pos])])
        x_residual = x
        x = rmsnorm(x)
        q = linear(x, sd["wq"])
        keys.append(linear(x, sd["wk"]))
        values.append(linear(x, sd["wv"]))
        x_attn = []
        for h in range(n_head):
            hs = h * head_dim
            q_h = q[hs:hs + head_dim]
            k_h = [ki[hs:hs + head_dim] for ki in keys]
            v_h = [vi[hs:hs + head_dim] for vi in values]
            weights = softmax([sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5 for t in range(len(k_h))])
            x_attn.extend(sum(weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim))
        x = [a + b for a, b in zip(linear(x_attn, sd["wo"]), x_residual)]
        x_residual = x
        x = [xi.relu() for xi in linear(rmsnorm(x), sd["fc1"])]
        x = [a + b for a, b in zip(linear(x, sd["fc2"]), x_residual)]
        logits = linear(x, sd["lm_head"])
    loss = -softmax(logits)[tokens[position + 1]].log()
    return loss, every_node(loss)


def every_node(root):
    order, seen, stack = [], {id(root)}, [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node._children:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return order


def drawn_dot(stepper):
    return html.unescape(re.search(r'data-dot="([^"]*)"', stepper.graph.value).group(1))


@pytest.fixture(scope="module")
def stepped():
    """One position's loss stepped to the end (after a few steps, and one back), and the same graph
    built again and run through microgpt's own backward()."""
    loss, nodes = position_loss(2)
    stepper = BackpropStepper(loss)
    for _ in range(3):
        stepper.step()
    stepper.back()
    stepper.finish()
    reference, reference_nodes = position_loss(2)
    reference.backward()
    return stepper, nodes, reference_nodes


def test_one_position_of_microgpts_gpt_is_the_size_the_stepper_is_measured_on(stepped):
    _, nodes, _ = stepped
    assert 11_000 <= len(position_loss(0)[1]) < len(nodes) <= 21_000


def test_the_stepper_leaves_exactly_the_gradients_microgpts_own_backward_gives(stepped):
    stepper, nodes, reference_nodes = stepped
    assert stepper.done
    assert [node.data for node in nodes] == [node.data for node in reference_nodes]  # the same graph twice
    assert [node.grad for node in nodes] == [node.grad for node in reference_nodes]  # every node, exactly
    assert any(node.grad for node in nodes[len(nodes) // 2:])  # and they are not all zero


def test_the_stepper_draws_what_a_fresh_drawing_of_each_state_shows(stepped):
    stepper, _, _ = stepped
    fresh = draw_dot(stepper.root, stepper.options, highlight=[stepper.current, *((c, stepper.current) for c in stepper.current.inputs)])
    assert drawn_dot(stepper) == fresh.source
    stepper.reset()
    stepper.step()
    node = stepper.current
    fresh = draw_dot(stepper.root, stepper.options, highlight=[node, *((child, node) for child in node.inputs)])
    assert drawn_dot(stepper) == fresh.source


def test_a_step_reads_and_collapses_the_graph_no_more(monkeypatch):
    loss, _ = position_loss(0)
    stepper = BackpropStepper(loss)
    fits = []
    real_fit = collapse.fit

    def counted(index, max_nodes):
        fits.append(len(index))
        return real_fit(index, max_nodes)

    for module in list(sys.modules.values()):  # wherever the drawings call it from
        if module.__name__.startswith("micrograd.") and getattr(module, "fit", None) is real_fit:
            monkeypatch.setattr(module, "fit", counted)
    for _ in range(3):
        stepper.step()
    stepper.back()
    stepper.finish()
    assert stepper.done and fits == []  # the plan made when the stepper started serves every step
    draw_dot(stepper.root)
    assert fits == [len(every_node(loss))]  # a drawing of its own reads and fits the graph afresh, once for both directions


def test_edges_show_the_local_derivatives_a_lecture_class_hands_on_as_a_fresh_drawing_does():
    from foreign_nodes import LectureValue, neuron

    out = neuron(LectureValue)[0]
    stepper = BackpropStepper(out)
    labelled = []
    while not stepper.done:
        stepper.step()
        node = stepper.current
        fresh = draw_dot(stepper.root, stepper.options, highlight=[node, *((child, node) for child in node.inputs)])
        assert drawn_dot(stepper) == fresh.source
        labelled.append(drawn_dot(stepper).count('label="local '))
    assert labelled[0] > 0 and labelled == sorted(labelled) and labelled[-1] > labelled[0]  # learned step by step


def test_a_foreign_graph_is_read_once_by_a_drawing_and_by_the_stepper(monkeypatch):
    from micrograd import graphs

    loss, _ = position_loss(0)
    reads = []
    real_post_order = graphs.post_order
    monkeypatch.setattr(graphs, "post_order", lambda root, *args: reads.append(root) or real_post_order(root, *args))
    drawing = draw_dot(loss)
    assert drawing.rankdir == "TB" and reads == [loss]  # left to right was tried first, on the same reading
    reads.clear()
    stepper = BackpropStepper(loss)
    stepper.step()
    stepper.finish()
    assert reads == [loss]
