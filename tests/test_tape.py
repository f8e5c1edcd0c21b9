"""The tape: the chain rule over the nodes in the order they were made, held to backward()."""

import math

import pytest

from micrograd import Value
from micrograd.data import CharTokenizer
from micrograd.engine import topological_order
from micrograd.gpt import GPT
from micrograd.gpt_training import document_loss, microgpt_adam, train_step
from micrograd.tape import Tape

DOCS = ["emma", "olivia", "ava", "isabella", "christopher", "mia"]
TOKENIZER = CharTokenizer(DOCS)
SIZES = [{}, {"n_layer": 2}, {"n_embd": 8, "n_head": 2, "block_size": 8}]


def _taped_loss(model, doc):
    tape = Tape()
    return tape, document_loss(model, TOKENIZER.document(doc), tape)


@pytest.mark.parametrize("sizes", SIZES)
def test_a_gpt_records_every_node_backward_walks_each_after_its_inputs(sizes):
    model = GPT(TOKENIZER.vocab_size, rng=3, **sizes)
    for doc in DOCS:
        tape, loss = _taped_loss(model, doc)
        recorded = [node for step in tape._steps for node in step]
        assert len(recorded) == len(set(recorded))
        assert set(recorded) == set(topological_order(loss, leaves=False))
        place = {node: k for k, node in enumerate(recorded)}
        assert all(place[child] < place[node] for node in recorded for child in node._inputs if child._inputs)
        assert recorded[-1] is loss


@pytest.mark.parametrize("sizes", SIZES)
def test_its_gradients_are_backwards_to_the_last_bits(sizes):
    model = GPT(TOKENIZER.vocab_size, rng=4, **sizes)
    for doc in DOCS:
        model.zero_grad()
        loss = document_loss(model, TOKENIZER.document(doc))
        loss.backward()
        by_walk = [p.grad for p in model.parameters()]
        model.zero_grad()
        tape, taped = _taped_loss(model, doc)
        tape.backward(taped, leaves=model.parameters())
        assert taped.data == loss.data
        assert any(by_walk)
        for a, b in zip(by_walk, (p.grad for p in model.parameters())):
            assert b == pytest.approx(a, rel=1e-12, abs=1e-15)


def test_train_step_trains_as_backward_would():
    """The step's loss at each of a few steps, against the same steps with loss.backward()."""
    taped, walked = GPT(TOKENIZER.vocab_size, rng=5), GPT(TOKENIZER.vocab_size, rng=5)
    taped_adam, walked_adam = microgpt_adam(taped.parameters(), 10), microgpt_adam(walked.parameters(), 10)
    for k in range(6):
        tokens = TOKENIZER.document(DOCS[k])
        loss = train_step(taped, taped_adam, tokens)
        by_walk = document_loss(walked, tokens)
        walked_adam.zero_grad()
        by_walk.backward()
        walked_adam.step()
        assert loss == pytest.approx(by_walk.data, abs=1e-12)
    assert all(p.data == pytest.approx(q.data, abs=1e-12) for p, q in zip(taped.parameters(), walked.parameters()))


def test_leaves_add_up_and_nodes_in_between_start_from_zero_as_with_backward():
    a, b = Value(2.0), Value(-3.0)
    tape = Tape()
    c = tape.record([a * b])[0]
    d = tape.record([c + a])[0]
    e = tape.record([d * d])[0]
    e.backward()  # a walk first: c and d hold gradients now, and a and b
    first = (a.grad, b.grad, c.grad, d.grad)
    tape.backward(e)
    assert (c.grad, d.grad) == first[2:]  # started again from 0
    assert (a.grad, b.grad) == (2 * first[0], 2 * first[1])  # added to what they held
    assert first == (2 * d.data * (b.data + 1), 2 * d.data * a.data, 2 * d.data, 2 * d.data)


def test_a_node_made_the_lectures_way_runs_its_own_backward():
    x = Value(0.5)
    t = Value(math.tanh(x.data), (x,), "tanh")

    def _backward():
        x.grad += (1 - t.data**2) * t.grad

    t._backward = _backward
    tape = Tape()
    tape.record([t])
    out = tape.record([t * 3.0])[0]
    tape.backward(out)
    assert x.grad == pytest.approx(3 * (1 - math.tanh(0.5) ** 2))


def test_a_node_not_recorded_passes_nothing_on():
    """What the module's docstring warns of: the tape knows only what was recorded."""
    a = Value(2.0)
    hidden = a * 3.0  # made, not recorded
    tape = Tape()
    out = tape.record([hidden * 4.0])[0]
    tape.backward(out)
    assert hidden.grad == 4.0 and a.grad == 0.0
    out.backward()
    assert a.grad == 12.0


def test_backward_starts_from_the_last_node_recorded_and_runs_once():
    a = Value(1.0)
    tape = Tape()
    with pytest.raises(ValueError, match="last node the tape recorded"):
        tape.backward(a)
    b = tape.record([a * 2.0])[0]
    c = tape.record([b + 1.0])[0]
    with pytest.raises(ValueError, match="last node the tape recorded"):
        tape.backward(b)
    tape.backward(c)
    assert a.grad == 2.0
    with pytest.raises(RuntimeError, match="new Tape"):
        tape.backward(c)


def test_record_takes_a_list():
    tape = Tape()
    a = Value(1.0)
    for wrong in (a, (a,), iter([a])):
        with pytest.raises(TypeError, match="takes a list of the Values just made"):
            tape.record(wrong)


def test_a_gradient_that_overflows_is_named_on_a_node_and_on_a_leaf():
    big, small = Value(1e200), Value(1e-200)
    tape = Tape()
    y = tape.record([big * small])[0]  # 1.0, with local derivatives 1e-200 and 1e200
    out = tape.record([y * 1e200])[0]
    with pytest.raises(OverflowError, match="overflows a float"):
        tape.backward(out, leaves=[big, small])  # small's gradient: 1e200 × 1e200
    assert math.isinf(small.grad)

    x = Value(1e-300)
    tape = Tape()
    k = tape.record([x * 1.0])[0]
    m = tape.record([k * 1e300])[0]  # 1.0
    out = tape.record([m * 1e300])[0]  # m's gradient 1e300, so k's 1e300 × 1e300
    with pytest.raises(OverflowError, match="overflows a float"):
        tape.backward(out)  # no leaves given: the node's own gradient is checked
