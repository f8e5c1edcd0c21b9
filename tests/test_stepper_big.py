"""The backprop stepper on a big foreign graph: one position's loss of microgpt's GPT, on microgpt's
own Value (inputs in ``_children``, local derivatives in ``_local_grads``, backward() in a dozen
lines).  Its speed is measured by ``benchmarks/stepper_gpt.py``; here, that the answers stay exact
and that a step no longer reads and collapses the whole graph again."""

import html
import random
import re
import sys

import pytest

from gpt_answers import microgpt
from micrograd.viz import collapse, draw_dot
from micrograd.widgets import BackpropStepper


def position_loss(position, vocab_size=27, seed=42):
    """microgpt's loss at one position of a name (its model: one layer, its sizes), the keys and values of
    the positions before it included: (loss, every node of the graph in a fixed order)."""
    rng = random.Random(seed)
    model = microgpt.Microgpt(microgpt.Value, vocab_size, rng)
    tokens = [rng.randrange(vocab_size) for _ in range(position + 2)]
    keys, values = [[] for _ in range(model.n_layer)], [[] for _ in range(model.n_layer)]
    for pos in range(position + 1):
        logits = model.gpt(tokens[pos], pos, keys, values)
    loss = -model.softmax(logits)[tokens[position + 1]].log()
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
