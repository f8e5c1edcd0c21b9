"""Lesson 3's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math

import pytest
from claims import claim, labelled, lecture_graph, lesson3_neuron
from micrograd import Value, topological_order
from micrograd.gradcheck import central_difference


def test_lesson03_nudging_d_and_f_moves_L_by_minus_two_and_four_times():
    claim(3, "Nudge $d$ up a little and $L$ goes *down* twice as much; nudge $f$ up and $L$ goes up four times as much")
    assert central_difference(lambda d: d * -2.0, 4.0) == pytest.approx(-2.0)
    assert central_difference(lambda f: 4.0 * f, -2.0) == pytest.approx(4.0)


def test_lesson03_one_step_rises_close_to_but_not_exactly_what_the_gradient_predicts():
    claim(3, "the real rise, $0.714$, is close but not equal")
    a, b, c, f = 2.0 + 0.06, -3.0 - 0.04, 10.0 - 0.02, -2.0 + 0.04
    rise = (a * b + c) * f + 8
    assert round(rise, 3) == 0.714 and rise != pytest.approx(0.72, abs=1e-3)


def test_lesson03_a_weight_whose_input_is_0_gets_gradient_0():
    claim(3, "its gradient is 0, because its input $x_2$ is 0")
    for w2 in (-5.0, 1.0, 3.0):
        x1, x2, w1, w = Value(2.0), Value(0.0), Value(-3.0), Value(w2)
        (x1 * w1 + x2 * w + 6.88).tanh().backward()
        assert w.grad == 0.0


def test_lesson03_backprop_stepper_steps_the_five_op_nodes_from_zero_gradients():
    claim(3, "(only the 5 nodes made by an operation: a leaf has nothing to pass on)")
    claim(3, "It starts from zero gradients")
    claim(3, "$n$ and $b$ have theirs, the weights are still at 0")
    from micrograd.widgets import BackpropStepper

    o = lesson3_neuron()
    nodes = labelled(o)
    nodes["w1"].grad = 7.0  # a stale gradient: the stepper must start from zero
    stepper = BackpropStepper(o)
    assert len([n for n in topological_order(o) if n.inputs]) == 5
    stepper.step(redraw=False) if "redraw" in stepper.step.__code__.co_varnames else stepper.step()
    stepper.step(redraw=False) if "redraw" in stepper.step.__code__.co_varnames else stepper.step()
    assert nodes["n"].grad == pytest.approx(0.5) and nodes["b"].grad == pytest.approx(0.5)
    assert nodes["w1"].grad == 0.0 and nodes["w2"].grad == 0.0


def test_lesson03_the_steppers_drawing_stands_the_other_way_up_from_lesson_2s():
    claim(3, "Its drawing stands the other way up from lesson 2's: the output $o$ is at the top")
    claim(2, "This drawing runs top to bottom")
    from micrograd.viz import draw_dot
    from micrograd.widgets import BackpropStepper

    assert "rankdir=TB" in draw_dot(lecture_graph()).source  # lesson 2: L at the foot
    assert "rankdir=BT" in BackpropStepper(lesson3_neuron()).static_html()  # edges point up: o on top


def test_lesson03_the_stepper_calls_your_nodes_own_backward():
    claim(3, "each step calls **your** node's `_backward()`")
    from micrograd.widgets import BackpropStepper

    called = []

    class Closures:  # the lecture's way: _prev a set, the step a closure
        def __init__(self, data, _children=(), _op=""):
            self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(_children), _op, ""
            self._backward = lambda: None

        def tanh(self):
            t = math.tanh(self.data)
            out = Closures(t, (self,), "tanh")

            def _backward():
                called.append(out)
                self.grad += (1 - t**2) * out.grad

            out._backward = _backward
            return out

    n = Closures(0.8813735870195432)
    o = n.tanh()
    BackpropStepper(o).step()
    assert o in called and o.grad == 1.0 and n.grad == pytest.approx(0.5)


def test_lesson03_a_node_answers_to_backward_underscore_so_the_lectures_walk_runs():
    claim(3, "a node also answers to `node._backward()`, so the lecture's code runs on it unchanged")
    L = lecture_graph()
    L.grad = 1.0
    for node in reversed(topological_order(L)):  # the lecture's manual walk
        node._backward()
    assert {k: v.grad for k, v in labelled(L).items()} == {"a": 6.0, "b": -4.0, "e": -2.0, "c": -2.0, "d": -2.0, "f": 4.0, "L": 1.0}


def test_lesson03_the_lecture_writes_backward_as_a_closure_and_prev_as_a_set(micrograd_0_1_0_value):
    claim(3, "The lecture writes each `_backward` as a closure inside its operation (`self.grad += … * out.grad`), with `_prev` a set")
    a, b = micrograd_0_1_0_value(2.0), micrograd_0_1_0_value(-3.0)
    out = a * b
    assert isinstance(out._prev, set) and out._backward.__closure__
    assert out in [cell.cell_contents for cell in out._backward.__closure__]
    out.grad = 1.0
    out._backward()
    assert (a.grad, b.grad) == (-3.0, 2.0)


def test_lesson03_values_made_afresh_have_grad_0():
    claim(3, "Values you make afresh have `.grad` 0")
    assert Value(2.0).grad == 0
