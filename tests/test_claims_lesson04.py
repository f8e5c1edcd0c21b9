"""Lesson 4's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math
import sys

import pytest
from build_stubs import load_lesson4_value
from claims import SPEED, BESIDE_0_1_0, Recorder, claim, lecture_graph, run_lesson_code, squeezed
from micrograd import Value, dot, graph_size, topological_order
from micrograd.gradcheck import central_difference


def test_lesson04_topological_order_puts_each_node_after_its_inputs_and_backward_reads_it_reversed():
    claim(4, "An order in which every node comes *after* all of its inputs is called a **topological order**")
    L = lecture_graph()
    order = topological_order(L)
    place = {node: k for k, node in enumerate(order)}
    assert all(place[i] < place[node] for node in order for i in node.inputs)
    assert order[-1] is L and len(order) == len(set(order)) == 7


def test_lesson04_a_for_loops_else_runs_only_when_the_loop_ran_out_without_break():
    claim(4, "the `else` of a `for` runs only when the loop ran out without a `break`")
    ran = []
    for item in [1, 2]:
        if item == 2:
            break
    else:
        ran.append("after a break")
    for item in [1, 2]:
        pass
    else:
        ran.append("ran out")
    assert ran == ["ran out"]


def test_lesson04_backward_skips_a_zero_gradient_node_and_still_refuses_an_infinite_local_derivative():
    claim(4, "It **skips a node whose gradient is exactly 0**: each of its inputs would receive")
    claim(4, "or a local derivative that is infinite, as $\\sqrt{x}$'s is at 0. Even at a skipped node")
    Recorder.calls.clear()
    x = Value(-1.0)
    noted = Recorder.passing(x)
    (noted.relu() * 3 + Value(2.0) * 5).backward()  # the ReLU is off: noted's gradient is 0
    assert Recorder.calls == [] and x.grad == 0.0
    y = Value(2.0)
    (Recorder.passing(y).relu() * 3).backward()
    assert len(Recorder.calls) == 1 and y.grad == 3.0
    claim(SPEED, "where such a node's local derivative is infinite, 0 × ∞ has no value, and `backward()` stops with an error saying so")
    with pytest.raises(ArithmeticError):
        ((Value(0.0) ** 0.5) * Value(0.0)).backward()


def test_lesson04_backward_resets_the_nodes_in_between_while_leaves_add_up():
    claim(4, "It sets the gradients of the nodes **in between** to 0 before it starts, while the leaves keep adding up across calls")
    claim(4, "With the package's `Value`, the leaves $a, b, c, f$ hold twice their gradients; $e$, $d$ and $L$ hold one pass's worth.")
    claim(4, "the package's `backward()` resets them before it starts")
    namespace = run_lesson_code(4, "def lecture_graph():", "L = lecture_graph()\nL.backward()\nL.backward()",
                                namespace={"Value": Value, "topological_order": topological_order,
                                           "MyValue": load_lesson4_value()})
    L = namespace["lecture_graph"]()
    L.backward()
    L.backward()
    grads = {name: node.grad for name, node in namespace["nodes"](L).items()}
    assert grads == {"a": 12.0, "b": -8.0, "c": -4.0, "f": 8.0, "e": -2.0, "d": -2.0, "L": 1.0}


def test_lesson04_the_lessons_my_backward_keeps_the_nodes_in_between_as_the_lecture_and_0_1_0_do(micrograd_0_1_0_value):
    """What lesson 4 says of the my_backward it asks for, beside the package's: run on its worked answer, on the
    lecture's code and on micrograd 0.1.0, and on a my_backward that resets the nodes in between."""
    from build_stubs import AUTOGRAD_ITERATIVE
    from foreign_nodes import LectureValue

    claim(4, "A `my_backward` written as this lesson asks (seed the root, then each node's `_backward()`) does not, "
             "and neither do the lecture's code and micrograd 0.1.0: a node in between keeps what the call before "
             "left, and passes it down again with the new.")
    claim(4, "the nodes in between keep what the first call left, and in the second call each passes down all it "
             "holds, old and new together. $d$ gets its −2 again on top of the −2 it kept: −4, twice its gradient. $e$ "
             "gets those −4 on top of its own −2: −6, three times its gradient, and so does $c$ (−6). $a$ and $b$ get "
             "$e$'s −6 times their local derivative on top of what they kept: 24 and −16, four times theirs. Only $f$, "
             "an input of the root, which each call seeds with 1, holds the same on both.")
    claim(4, "If your `my_backward` resets the nodes in between, as the package's does, your line matches the first one.")
    claim(4, "Either way, zeroing the gradients before each `backward()` makes both right.")
    kept = {"a": 24.0, "b": -16.0, "c": -6.0, "f": 8.0, "e": -6.0, "d": -4.0, "L": 1.0}
    namespace = run_lesson_code(4, "def lecture_graph():", "L = lecture_graph()\nL.backward()\nL.backward()",
                                namespace={"Value": Value, "topological_order": topological_order,
                                           "MyValue": load_lesson4_value()})
    mine = {name: namespace[name].grad for name in "abcfedL"}
    assert mine == kept
    L = namespace["lecture_graph"]()
    L.backward()
    one_pass = {name: node.grad for name, node in namespace["nodes"](L).items()}
    assert (one_pass["d"], one_pass["e"], one_pass["c"]) == (-2.0, -2.0, -2.0)  # "its −2", "its own −2"
    times = {name: kept[name] / one_pass[name] for name in "abcfed"}
    assert times == {"d": 2.0, "e": 3.0, "c": 3.0, "a": 4.0, "b": 4.0, "f": 2.0}  # twice, three times, four times
    assert kept["e"] == one_pass["e"] + kept["d"] and kept["c"] == one_pass["c"] + kept["d"]  # those −4 on top
    assert kept["a"] == one_pass["a"] + namespace["b"].data * kept["e"]  # e's −6 times their local derivative
    assert kept["b"] == one_pass["b"] + namespace["a"].data * kept["e"]
    for cls in (LectureValue, micrograd_0_1_0_value):
        a, b, c, f = cls(2.0), cls(-3.0), cls(10.0), cls(-2.0)
        e = a * b
        d = e + c
        L = d * f
        L.backward()
        L.backward()
        assert [n.grad for n in (a, b, c, f, e, d)] == [kept[k] for k in "abcfed"]
    resetting = load_lesson4_value(AUTOGRAD_ITERATIVE.replace(
        "    root.grad = 1.0\n", "    for node in order:\n        if node._prev:\n            node.grad = 0.0\n    root.grad = 1.0\n"))
    namespace = run_lesson_code(4, "def lecture_graph():", "L = lecture_graph()\nL.backward()\nL.backward()",
                                namespace={"Value": Value, "topological_order": topological_order, "MyValue": resetting})
    assert {name: namespace[name].grad for name in "abcfedL"} == {
        "a": 12.0, "b": -8.0, "c": -4.0, "f": 8.0, "e": -2.0, "d": -2.0, "L": 1.0}
    a, b, c, f = (namespace["MyValue"](v) for v in (2.0, -3.0, 10.0, -2.0))  # zeroed before each call: one pass's worth
    L = (a * b + c) * f
    for _ in range(2):
        for node in (a, b, c, f):
            node.grad = 0.0
        L.backward()
    assert (a.grad, b.grad, c.grad, f.grad) == (6.0, -4.0, -2.0, 4.0)


def test_lesson04_backward_stops_with_an_error_naming_the_node_for_an_infinite_gradient():
    claim(4, "adds up in one cheap pass what every node passed on, its gradient times the sum of its local derivatives")
    claim(4, "If that total is infinite or not a number, it stops with an error naming the node and its input where "
             "it went wrong: a gradient that overflowed")
    x = Value(0.0, label="x")
    with pytest.raises(ArithmeticError, match="x"):
        ((x ** 0.5) * Value(0.0, label="z")).backward()
    tiny = Value(1e-300, label="tiny")  # finite values, an overflowing gradient: 1e200 · 1e200
    with pytest.raises(ArithmeticError, match="tiny"):
        ((tiny * 1e200) * 1e200).backward()


def test_lesson04_the_total_misses_cancelling_local_derivatives_and_a_leaf_overflowing_over_two_calls():
    claim(4, "A total is cheap, not thorough: huge local derivatives of opposite signs cancel in it, and a leaf whose "
             "gradient overflows only when added to what an earlier call left there (two calls, no zeroing between) "
             "ends at `inf` without an error.")
    u, x = Value(1.5e308, label="u"), Value(0.5, label="x")
    y = u * x
    y.backward()  # x.grad = 1.5e308: finite, as is everything this call passed on
    assert x.grad == 1.5e308
    y.backward()  # adds 1.5e308 more: past the largest float, and no error
    assert x.grad == math.inf
    x = Value(0.5, label="x")
    with pytest.raises(ArithmeticError, match="x"):  # within one call, the same sum is an error
        (u * x + u * x).backward()
    a, b = Value(1e-200, label="a"), Value(1e-200, label="b")
    node = dot([a, b], [Value(1e200), Value(-1e200)])  # local derivatives 1e200 and -1e200: they cancel in the total
    (node * Value(1e200)).backward()
    assert (a.grad, b.grad) == (math.inf, -math.inf)


def test_lesson04_a_node_with_its_own_backward_gets_it_called():
    claim(4, "gets that function called")
    Recorder.calls.clear()
    x = Value(3.0)
    (Recorder.passing(x) * 2).backward()
    assert len(Recorder.calls) == 1 and x.grad == 2.0


def test_lesson04_pytorch_gives_nan_for_zero_times_infinity():
    torch = pytest.importorskip("torch")
    claim(4, "PyTorch computes $0 \\times \\infty$ and gives `nan`")
    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (x**0.5 * z).backward()
    assert math.isnan(x.grad.item())


def test_lesson04_overwriting_loses_an_edge_and_plus_equals_counts_both():
    claim(4, "Wrong: the second edge overwrote the first")
    namespace = run_lesson_code(4, "b = a + a\nprint", "def backprop_overwriting(root):",
                                namespace={"Value": Value, "topological_order": topological_order})
    assert namespace["a"].grad == 1.0
    a = Value(3.0)
    (a + a).backward()
    assert a.grad == 2.0


def test_lesson04_one_tanh_node_gives_the_gradients_of_seventeen_nodes_from_ten():
    claim(4, "One big node is cheaper (10 nodes instead of 17 here)")
    claim(4, "The same to the four decimals printed")
    namespace = run_lesson_code(4, "def lecture_graph():", "def neuron(tanh):",
                                namespace={"Value": Value, "topological_order": topological_order})
    one_op, pieces = namespace["neuron"](Value.tanh), namespace["neuron"](namespace["tanh_from_exp"])
    assert (graph_size(one_op["o"])[0], graph_size(pieces["o"])[0]) == (10, 17)
    for name in ["n", "x1", "w1", "x2", "w2", "b"]:
        assert round(one_op[name].grad, 4) == round(pieces[name].grad, 4)


def test_lesson04_the_lectures_engine_divides_by_a_power_of_minus_one_and_a_product(micrograd_0_1_0_value):
    claim(4, "the lecture's engine writes $a / b$ as $a \\cdot b^{-1}$ instead, a power of $-1$ and a product, two nodes")
    a, b = micrograd_0_1_0_value(6.0), micrograd_0_1_0_value(3.0)
    q = a / b
    assert q._op == "*" and {node._op for node in q._prev} == {"", "**-1"}
    assert graph_size(Value(6.0) / Value(3.0))[0] == 3


def test_lesson04_the_walk_uses_no_recursion_so_depth_is_no_limit_while_recursion_stops_near_1000():
    claim(4, "A list can hold a chain a million nodes deep; recursion stops at Python's limit of about a thousand calls")
    claim(10, "`topological_order` keeps its own stack in a list instead of using Python's call stack, so depth costs nothing but memory")
    x = chain = Value(1.0)
    for _ in range(20_000):
        chain = chain + 1
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # no room for recursion at all: the walk must not need any
    try:
        chain.backward()
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad == 1.0
    namespace = run_lesson_code(10, "def recursive_order(node, order, seen):", replace=(("100_000", "10"),),
                                namespace={"Value": Value, "topological_order": topological_order, "sys": sys})

    def survives(depth):
        y = Value(1.0)
        for _ in range(depth):
            y = -y
        try:
            namespace["recursive_order"](y, [], set())
            return True
        except RecursionError:
            return False

    assert survives(limit // 2) and not survives(limit)
    assert limit == 1000


def test_lesson04_separate_graphs_add_up_to_the_gradient_of_their_sum():
    claim(4, "gradients of separate graphs add up to the gradient of their sum")
    w = Value(3.0)
    (2 * w).backward()
    (w * w).backward()
    assert w.grad == 8.0 == pytest.approx(central_difference(lambda v: 2 * v + v * v, 3.0))


def test_lesson04_pytorch_keeps_no_gradient_in_between_unless_asked_and_then_adds_up():
    """What the engine's docstring (quoted in lesson 4) and the site's page on micrograd 0.1.0 say of PyTorch's nodes in between."""
    torch = pytest.importorskip("torch")
    claim(BESIDE_0_1_0, "keeps no gradient on a node in between unless asked with `retain_grad()`, and then adds up there too")
    docstring = squeezed(Value.backward.__doc__)  # lesson 4 quotes it
    assert "keeps no gradient on a node in between unless asked with ``retain_grad()``, and then adds up there too" in docstring
    assert "As in PyTorch: self is seeded" not in docstring
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    L = b * 1.0
    L.backward(retain_graph=True)
    with pytest.warns(UserWarning, match="not a leaf"):
        assert b.grad is None
    b.retain_grad()
    L.backward(retain_graph=True)
    first = b.grad.item()
    L.backward()
    assert (first, b.grad.item()) == (1.0, 2.0)
