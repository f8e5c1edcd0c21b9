"""Lesson 2's checkers: right answers pass, typical mistakes get a useful hint."""

import pytest

from micrograd import Value
from micrograd.exercises import lesson02 as check
from micrograd.exercises.checking import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def _leaves(b=6.8813735870195432):
    return (Value(2.0, label="x1"), Value(0.0, label="x2"), Value(-3.0, label="w1"),
            Value(1.0, label="w2"), Value(b, label="b"))


def _neuron(labelled=True, b=6.8813735870195432):
    x1, x2, w1, w2, b = _leaves(b)
    x1w1, x2w2 = x1 * w1, x2 * w2
    s = x1w1 + x2w2
    n = s + b
    if labelled:
        x1w1.label, x2w2.label, s.label, n.label = "x1w1", "x2w2", "x1w1 + x2w2", "n"
    return n


def test_neuron_graph():
    assert check.neuron_graph(_neuron()).passed
    unlabelled = check.neuron_graph(_neuron(labelled=False))
    assert unlabelled.status == "failed" and "label" in unlabelled.message
    assert "b holds" in check.neuron_graph(_neuron(b=7.0)).message
    assert "Value" in check.neuron_graph(0.8813735870195432).message
    x1, x2, w1, w2, b = _leaves()
    no_products = x1 + w1 + x2 + w2 + b
    no_products.label = "n"
    assert "products" in check.neuron_graph(no_products).message
    assert check.neuron_graph(TODO).status == "not attempted"


@pytest.mark.parametrize(
    "answer, words",
    [((-2 / 3, 1 / 3), "swapped"), ((3.0, 6.0), "rule for a * b"), ((1 / 3, 2 / 3), "mind the sign"),
     ((1 / 3, 0.0), "dq/da is right"), ((1.0, 1.0), "nudge a"), ("1/3, -2/3", "two numbers"), (1 / 3, "two numbers")],
)
def test_division_local_grads_rejects_mistakes(answer, words):
    verdict = check.division_local_grads(answer)
    assert verdict.status == "failed" and words in verdict.message


def test_division_local_grads_accepts_the_derivatives():
    assert check.division_local_grads((1 / 3, -6 / 9)).passed
    assert check.division_local_grads(TODO).status == "not attempted"


def test_count_nodes_and_edges():
    # a * a + a: the leaf a, the product, the sum; edges a->*, a->*, *->+, a->+.
    assert check.count_nodes_and_edges(3, 4).passed
    assert "too many" in check.count_nodes_and_edges(5, 4).message
    assert "too few" in check.count_nodes_and_edges(2, 4).message
    assert "each use is an edge" in check.count_nodes_and_edges(3, 3).message
    assert "whole number" in check.count_nodes_and_edges(3.0, 4).message
    assert check.count_nodes_and_edges(TODO, 4).status == "not attempted"
