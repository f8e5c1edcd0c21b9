"""Lesson 2's checkers: right answers pass, typical mistakes get a useful hint."""

import pytest

from micrograd import Value
from micrograd.engine import graph_size
from micrograd.course.lessons import lesson02 as check
from micrograd.course.verdicts import TODO

B = 6.8813735870195432


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def neuron(label_all=True, b=B, x2w2_op="*"):
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    bias = Value(b, label="b")
    x1w1 = x1 * w1
    x2w2 = x2 * w2 if x2w2_op == "*" else x2 + w2
    total = x1w1 + x2w2
    n = total + bias
    if label_all:
        x1w1.label, x2w2.label, total.label = "x1w1", "x2w2", "x1w1 + x2w2"
    n.label = "n"
    return n


def test_neuron_graph_accepts_a_labelled_neuron():
    verdict = check.neuron_graph(neuron())
    assert verdict.passed and "0.8814" in verdict.message


def test_neuron_graph_accepts_another_order_of_operands():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(B, label="b")
    p1 = w1 * x1; p1.label = "p1"
    p2 = w2 * x2; p2.label = "p2"
    s = b + p1; s.label = "s"
    n = s + p2; n.label = "n"
    assert check.neuron_graph(n).passed


@pytest.mark.parametrize(
    "n, words",
    [
        (neuron(label_all=False), "label every node"),
        (neuron(b=6.88), "b holds 6.88"),
        (neuron(x2w2_op="+"), "x2*w2"),
        (neuron() + Value(B, label="b2"), "b added once"),
        (0.8813735870195432, "build it from the Values"),
        (Value(2.0, label="x1") * Value(-3.0, label="w1"), "no leaf labelled x2, w2, b"),
    ],
)
def test_neuron_graph_rejects_typical_mistakes(n, words):
    verdict = check.neuron_graph(n)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_neuron_graph_untouched_is_not_attempted():
    assert check.neuron_graph(TODO).status == "not attempted"


def test_division_local_grads():
    q = Value(6.0) / Value(3.0)
    assert check.division_local_grads(q.local_grads).passed
    assert check.division_local_grads([1 / 3, -2 / 3]).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        ((-2 / 3, 1 / 3), "swapped"),
        ((3.0, 6.0), "the rule for a * b"),
        ((1 / 3, 2 / 3), "mind the sign"),
        ((1 / 3, -1 / 9), "leaves out a"),
        ((1 / 3, -0.5), "a nudge of h = 1 gives"),
        ((1 / 3, 0.25), "nudge only b"),
        ((2.0, 0.0), "not yet"),
        (2.0, "give two numbers"),
        ("1/3, -2/3", "give two numbers"),
    ],
)
def test_division_local_grads_rejects_typical_mistakes(answer, words):
    verdict = check.division_local_grads(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_division_local_grads_untouched_is_not_attempted():
    assert check.division_local_grads(TODO).status == "not attempted"


def test_count_nodes_and_edges():
    a = Value(2.0)
    assert check.count_nodes_and_edges(*graph_size(a * a + a)).passed


@pytest.mark.parametrize(
    "nodes, edges, words",
    [
        (3, 3, "uses a twice"),  # a * a counted as one edge
        (5, 4, "too many"),  # a counted once per use
        (2, 4, "too few"),  # the leaf forgotten
        (3.5, 4, "whole number"),
    ],
)
def test_count_nodes_and_edges_rejects_typical_mistakes(nodes, edges, words):
    verdict = check.count_nodes_and_edges(nodes, edges)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_count_nodes_and_edges_untouched_is_not_attempted():
    assert check.count_nodes_and_edges(TODO, TODO).status == "not attempted"


# Build it yourself: the learner's MyValue ----------------------------------

from build_stubs import VALUE_SOLUTION, VALUE_STUB, load  # noqa: E402


def test_my_value_accepts_the_solution():
    verdict = check.my_value(load(VALUE_SOLUTION))
    assert verdict.passed and "L = -8.0" in verdict.message


def test_my_value_accepts_a_list_of_inputs_and_another_repr():
    cls = load(
        VALUE_SOLUTION,
        ("self._prev = tuple(_children)", "self._prev = list(_children)"),
        ('return f"MyValue(data={self.data})"', 'return f"V({self.data}, {self.label!r})"'),
    )
    assert check.my_value(cls).passed


def test_my_value_untouched_stub_is_not_attempted():
    assert check.my_value(load(VALUE_STUB)).status == "not attempted"


@pytest.mark.parametrize(
    "swap, words",
    [
        (("self._prev = tuple(_children)", "self._prev = set(_children[:1])"),
         "a * b (a = 2, b = -3): _prev has 1 entry; it should hold the 2 inputs"),
        (("self._prev = tuple(_children)", "self._prev = set(c.data for c in _children)"),
         "keep the input Values themselves"),
        (("(self, other), \"*\")", "{MyValue(self.data), MyValue(other.data)}, \"*\")"), "copies of the inputs"),
        (("self._prev = tuple(_children)", "self._prev = ..."), "_prev is still ..."),
        (("(self, other), \"*\")", "(other, self), \"*\")"), "a * b (a = 2, b = -3): _prev has the inputs the other way round"),
        (("(self, other), \"+\")", "(self.data, other.data), \"+\")"), "keep the input Values themselves"),
        (("self.data * other.data", "self.data + other.data"), "a * b (a = 2, b = -3) holds data -1.0, expected -6.0"),
        (("(self, other), \"+\")", "(self, other), \"add\")"), "has _op 'add', expected '+'"),
        (("return MyValue(self.data + other.data, (self, other), \"+\")", "MyValue(self.data + other.data, (self, other), \"+\")"), "returned None"),
        (("return f\"MyValue(data={self.data})\"", "return object.__repr__(self)"), "show the data"),
        (("self._op = _op", "self._op = _op or None"), "a leaf has _op None"),
    ],
)
def test_my_value_names_what_is_wrong(swap, words):
    verdict = check.my_value(load(VALUE_SOLUTION, swap))
    assert verdict.status == "failed"
    assert words in verdict.message


def test_my_value_mutating_the_inputs_is_caught():
    cls = load(
        VALUE_SOLUTION,
        ('return MyValue(self.data * other.data, (self, other), "*")',
         'self.data = self.data * other.data\n        return MyValue(self.data, (self, other), "*")'),
    )
    verdict = check.my_value(cls)
    assert verdict.status == "failed" and "leave the operands alone" in verdict.message


def test_my_value_partly_written_names_the_missing_piece():
    cls = load(
        VALUE_STUB,
        ("self._prev = ...  #", "self._prev = tuple(_children)  #"),
        ('self._op = ...  #', 'self._op = _op  #'),
        ("# your code here: the same for \"*\"\n        raise NotImplementedError",
         "return MyValue(self.data * other.data, (self, other), \"*\")"),
    )
    verdict = check.my_value(cls)
    assert verdict.status == "failed" and "__add__ is not written yet" in verdict.message


def test_my_value_wants_the_class():
    instance = check.my_value(load(VALUE_SOLUTION)(1.0))
    assert instance.status == "failed" and "pass the class itself" in instance.message


def test_division_local_grads_accepts_nudged_slopes_as_lesson_1_does():
    h = 1e-4
    q = lambda a, b: a / b  # noqa: E731
    nudged = ((q(6 + h, 3) - q(6, 3)) / h, (q(6, 3 + h) - q(6, 3)) / h)  # one-sided: (0.33333, -0.666644)
    verdict = check.division_local_grads(nudged)
    assert verdict.passed and "nudged" in verdict.message and "(1/3, -2/3)" in verdict.message
    exact = check.division_local_grads((1 / 3, -2 / 3))
    assert exact.message == "q grows by 1/b per unit of a, and falls by a/b² per unit of b"  # as the solution shows it


def test_my_value_add_that_changes_self_is_told_to_return_a_new_value():
    cls = load(VALUE_SOLUTION, ('return MyValue(self.data + other.data, (self, other), "+")',
                                'self.data = self.data + other.data\n        return self'))
    verdict = check.my_value(cls)
    assert verdict.status == "failed"
    assert "must return a new MyValue" in verdict.message and "leave its operands" in verdict.message
    assert "_op" not in verdict.message


def test_count_nodes_and_edges_names_the_drawings_shapes_and_arrows():
    # draw_dot draws 5 shapes (3 Values, 2 operation circles) and 6 arrows for a * a + a
    verdict = check.count_nodes_and_edges(5, 6)
    assert verdict.status == "failed" and "shapes and arrows of the drawing" in verdict.message
    assert "however often it is used" not in verdict.message  # a was not counted twice: don't say so
    verdict = check.count_nodes_and_edges(3, 6)
    assert verdict.status == "failed" and "nodes are right" in verdict.message and "arrow" in verdict.message


def test_neuron_graph_with_tanh_applied_is_told_the_sum_comes_before_it():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2, b = Value(-3.0, label="w1"), Value(1.0, label="w2"), Value(B, label="b")
    x1w1 = x1 * w1; x1w1.label = "x1w1"  # noqa: E702
    x2w2 = x2 * w2; x2w2.label = "x2w2"  # noqa: E702
    s = x1w1 + x2w2; s.label = "s"  # noqa: E702
    n = (s + b).tanh()
    verdict = check.neuron_graph(n)
    assert verdict.status == "failed" and "tanh of x1*w1 + x2*w2 + b" in verdict.message
    assert "added once" not in verdict.message


def test_my_value_keeping_copies_of_its_inputs_is_told_so():
    cls = load(VALUE_SOLUTION, ('(self, other), "*")', '(MyValue(self.data), MyValue(other.data)), "*")'))
    verdict = check.my_value(cls)
    assert verdict.status == "failed" and "copies of the inputs" in verdict.message
    assert "it should hold the 2 inputs" not in verdict.message


# The lecture keeps the inputs in a set: right, and carried forward like a tuple.

SET_OF_INPUTS = ("self._prev = tuple(_children)", "self._prev = set(_children)")


def test_my_value_with_its_inputs_in_a_set_passes_and_is_told_why_the_course_keeps_a_tuple():
    verdict = check.my_value(load(VALUE_SOLUTION, SET_OF_INPUTS))
    assert verdict.passed, verdict.message
    assert "Your _prev is a set, as in the lecture, and that is right" in verdict.message
    assert "a set holds a + a's input once" in verdict.message and "no stable order" in verdict.message
    assert "a set" not in check.my_value(load(VALUE_SOLUTION)).message  # the tuple's pass says nothing of sets


def test_what_the_set_message_says_is_what_a_set_does():
    MyValue = load(VALUE_SOLUTION, SET_OF_INPUTS)
    a = MyValue(2.0)
    assert len((a + a)._prev) == 1  # a + a's input held once
    # No stable order: the same sum of two leaves iterates its inputs both ways, as memory addresses fall.
    firsts = set()
    for garbage in range(60):
        kept = [MyValue(0.0) for _ in range(garbage)]
        x, y = MyValue(1.0), MyValue(2.0)
        firsts.add(next(iter((x + y)._prev)).data)
        del kept
    assert firsts == {1.0, 2.0}


def test_a_class_with_its_inputs_in_a_set_is_carried_forward_and_drawn_in_one_order(tmp_path, capsys):
    from micrograd.course.carry import yours
    from micrograd.viz import text_graph

    yours.store("lesson 2: MyValue", VALUE_SOLUTION.replace(*SET_OF_INPUTS), tmp_path)
    MyValue = yours.use("MyValue", lesson=2, folder=tmp_path)
    assert capsys.readouterr().out.startswith("✓ MyValue: using yours, from lesson 2")

    def lesson_L(garbage):
        kept = [MyValue(0.0) for _ in range(garbage)]  # other objects first: the set's own order moves with memory
        a, b, c, f = (MyValue(x, label=name) for x, name in ((2.0, "a"), (-3.0, "b"), (10.0, "c"), (-2.0, "f")))
        e = a * b; e.label = "e"  # noqa: E702
        d = e + c; d.label = "d"  # noqa: E702
        L = d * f; L.label = "L"  # noqa: E702
        return L, kept

    drawn = {text_graph(lesson_L(garbage)[0]) for garbage in range(0, 40, 7)}
    assert len(drawn) == 1 and "L  data -8.0000" in drawn.pop()


def test_too_many_edges_is_not_told_that_a_times_a_uses_a_twice():
    verdict = check.count_nodes_and_edges(3, 5)
    assert verdict.status == "failed" and "too many" in verdict.message, verdict.message
    assert "uses a twice" not in verdict.message
    verdict = check.count_nodes_and_edges(3, 3)  # a * a counted as one edge: there it is the point
    assert verdict.status == "failed" and "uses a twice" in verdict.message


@pytest.mark.parametrize("shown", ['f"MyValue(data={self.data:g}, grad={self.grad:g})"', 'f"MyValue({self.data:.3f})"',
                                   'f"<{self.data:.0e}>"'])
def test_a_repr_that_says_the_number_its_own_way_passes(shown):
    from build_stubs import VALUE_SOLUTION, load

    cls = load(VALUE_SOLUTION, ('return f"MyValue(data={self.data})"', f"return {shown}"))
    assert check.my_value(cls).passed


def test_a_repr_without_the_number_is_refused():
    from build_stubs import VALUE_SOLUTION, load

    cls = load(VALUE_SOLUTION, ('return f"MyValue(data={self.data})"', 'return "MyValue(data=40.0)"'))
    verdict = check.my_value(cls)
    assert verdict.status == "failed" and "show the data" in verdict.message
