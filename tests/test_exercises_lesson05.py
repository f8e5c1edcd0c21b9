"""Lesson 5's checkers: right answers pass, typical mistakes get a useful hint."""

import math

import pytest

from micrograd.exercises import lesson05 as check
from micrograd.exercises.checking import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def _sizes(nin, nouts):
    sizes = [nin] + list(nouts)
    return list(zip(sizes, sizes[1:]))


def test_parameter_count_accepts_the_layer_formula():
    assert check.parameter_count(lambda nin, nouts: sum((k + 1) * m for k, m in _sizes(nin, nouts))).passed


@pytest.mark.parametrize(
    "count, words",
    [
        (lambda nin, nouts: sum(k * m for k, m in _sizes(nin, nouts)), "weights only"),
        (lambda nin, nouts: sum(k * m for k, m in _sizes(nin, nouts)) + len(nouts), "one bias per layer"),
        (lambda nin, nouts: sum((nin + 1) * m for m in nouts), "not per model input"),
        (lambda nin, nouts: 41, "parameter_count(2, [16, 16, 1]) gives 41"),  # the lesson's number typed in
        (lambda nin, nouts: 41.0, "(float)"),
        (lambda nin, nouts: nouts[5], "IndexError"),
    ],
)
def test_parameter_count_rejects_typical_mistakes(count, words):
    verdict = check.parameter_count(count)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_parameter_count_needs_the_function_itself():
    verdict = check.parameter_count(41)
    assert verdict.status == "failed" and "pass the function itself" in verdict.message


def test_parameter_count_untouched_is_not_attempted():
    def parameter_count(nin, nouts):
        raise NotImplementedError

    assert check.parameter_count(parameter_count).status == "not attempted"


def test_neuron_nodes():
    assert check.neuron_nodes(8).passed
    for answer, words in [
        (13, "counts the inputs too"),
        (22, "built from * and +"),
        (7, "one short"),
        (3, "hint"),
        (8.0, "(float)"),
        (True, "(bool)"),
    ]:
        verdict = check.neuron_nodes(answer)
        assert verdict.status == "failed", answer
        assert words in verdict.message
    assert check.neuron_nodes(TODO).status == "not attempted"


def test_neuron_output_accepts_the_formula():
    assert check.neuron_output(lambda w, x, b: math.tanh(sum(wi * xi for wi, xi in zip(w, x)) + b)).passed


@pytest.mark.parametrize(
    "output, words",
    [
        (lambda w, x, b: sum(wi * xi for wi, xi in zip(w, x)) + b, "squashes it with tanh"),
        (lambda w, x, b: math.tanh(sum(wi * xi for wi, xi in zip(w, x))), "leaves out the bias"),
        (lambda w, x, b: math.tanh(sum(w) * sum(x) + b), "its own input"),
        (lambda w, x, b: math.tanh(sum(w) + sum(x) + b), "not tanh(w·x + b)"),
        (lambda w, x, b: [math.tanh(b)], "(list)"),
    ],
)
def test_neuron_output_rejects_typical_mistakes(output, words):
    verdict = check.neuron_output(output)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_neuron_output_untouched_is_not_attempted():
    def neuron_output(w, x, b):
        raise NotImplementedError

    assert check.neuron_output(neuron_output).status == "not attempted"
    assert check.neuron_output(TODO).status == "not attempted"
