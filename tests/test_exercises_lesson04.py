"""Lesson 4's checkers: right answers pass, typical mistakes get a useful hint."""

import math

import pytest
from build_stubs import AUTOGRAD_ITERATIVE, load_lesson4_value

from micrograd import Value
from micrograd.course.lessons import lesson04 as check
from micrograd.course.verdicts import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def right_gradf(a, b, c):
    return [-3 * a**2 - 0.5 * a**-0.5, 3 * math.cos(3 * b) + 2.5 * b**1.5, 1 / c**2]


def test_analytic_gradient_accepts_the_right_derivatives():
    assert right_gradf(2, 3, 4) == pytest.approx([-12.353553390593273, 10.25699027111255, 0.0625], rel=1e-12)
    assert check.analytic_gradient(right_gradf).passed
    assert check.analytic_gradient(lambda a, b, c: tuple(right_gradf(a, b, c))).passed


@pytest.mark.parametrize(
    "gradf, words",
    [
        (lambda a, b, c: [-3 * a**2, *right_gradf(a, b, c)[1:]], "−a^0.5 term depends on a"),
        (lambda a, b, c: [right_gradf(a, b, c)[0], math.cos(3 * b) + 2.5 * b**1.5, 1 / c**2], "chain rule"),
        (lambda a, b, c: [*right_gradf(a, b, c)[:2], -1 / c**2], "mind the sign"),
        (lambda a, b, c: [*right_gradf(a, b, c)[:2], 0.0], "only −1/c involves c"),
        # The reference figures typed in: right at (2, 3, 4), caught at the second point.
        (lambda a, b, c: [-12.353553390593273, 10.25699027111255, 0.0625], "(1.0, 0.5, -2.0)"),
        (lambda a, b, c: right_gradf(a, b, c)[:2], "list of three numbers"),
        (lambda a, b, c: "gradient", "list of three numbers"),
        (lambda a, b, c: [a.grad, b.grad, c.grad], "AttributeError"),
    ],
)
def test_analytic_gradient_points_at_the_wrong_term(gradf, words):
    verdict = check.analytic_gradient(gradf)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_analytic_gradient_untouched_or_not_a_function():
    def gradf(a, b, c):
        raise NotImplementedError

    assert check.analytic_gradient(gradf).status == "not attempted"
    assert "pass the function itself" in check.analytic_gradient([1, 2, 3]).message


def right_sin(x):
    return Value.from_op(math.sin(x.data), (x,), (math.cos(x.data),), "sin")


def sin_by_closure(assign):
    """sin as the lecture writes an op: a node and a _backward closure that passes the gradient down by assign."""

    def sin(x):
        out = Value(math.sin(x.data), (x,), "sin")

        def _backward():
            share = math.cos(x.data) * out.grad
            x.grad = share if assign == "=" else x.grad + share

        out._backward = _backward
        return out

    return sin


def test_sin_op_accepts_a_node_with_the_right_local_derivative():
    verdict = check.sin_op(sin_by_closure("+="))
    assert verdict.passed and "in sin(x) + x adds sin's share to the other use's" in verdict.message
    assert check.sin_op(right_sin).passed


@pytest.mark.parametrize(
    "sin, words",
    [
        (lambda x: Value.from_op(math.sin(x.data), (x,), (math.sin(x.data),), "sin"), "sin(x) itself"),
        (lambda x: Value.from_op(math.sin(x.data), (x,), (-math.cos(x.data),), "sin"), "wrong sign"),
        (lambda x: Value.from_op(math.sin(x.data), (x,), (1.0,), "sin"), "not the slope of sin"),
        (lambda x: Value.from_op(math.sin(x.data), (Value(x.data),), (math.cos(x.data),), "sin"), "among its inputs"),
        (lambda x: math.sin(x.data), "return a Value"),
        (lambda x: Value.from_op(math.cos(x.data), (x,), (-math.sin(x.data),), "sin"), "math.sin"),
        # Correct at each point checked alone, but the derivative is frozen at x = 0.7.
        (lambda x, d=math.cos(0.7): Value.from_op(math.sin(x.data), (x,), (d,), "sin"), "not the slope"),
        (sin_by_closure("="), "sets x.grad (=) where it must add to it (+=)"),
    ],
)
def test_sin_op_rejects_typical_mistakes(sin, words):
    verdict = check.sin_op(sin)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_sin_op_untouched_is_not_attempted():
    def sin(x):
        raise NotImplementedError

    assert check.sin_op(sin).status == "not attempted"


# A my_backward that starts the nodes in between from 0, as the package's backward() does.
RESETTING = AUTOGRAD_ITERATIVE.replace("    root.grad = 1.0\n",
                                       "    for node in order:\n        if node._prev:\n            node.grad = 0.0\n"
                                       "    root.grad = 1.0\n")


def three_backwards(cls):
    a = cls(2.0)
    y = a * a + a
    for _ in range(3):
        y.backward()
    return a.grad


def test_grad_after_three_backwards_judges_each_engine_by_what_it_computes():
    mine = load_lesson4_value()
    assert (three_backwards(Value), three_backwards(mine)) == (15.0, 27.0)  # the worked answer keeps e and d
    verdict = check.grad_after_three_backwards(three_backwards(Value), three_backwards(mine), mine)
    assert verdict.passed and "27 on your MyValue" in verdict.message, verdict.message
    resetting = load_lesson4_value(RESETTING)
    assert three_backwards(resetting) == 15.0
    verdict = check.grad_after_three_backwards(15, 15, resetting)
    assert verdict.passed and "15 on your MyValue too" in verdict.message, verdict.message


def test_grad_after_three_backwards_on_mine_27_is_not_blamed_on_the_lecture_alone():
    """The repro: the learner's own MyValue gives 27; 27 for the package's Value says so, and
    27 for MyValue is right."""
    mine = load_lesson4_value()
    verdict = check.grad_after_three_backwards(27, 27, mine)
    assert verdict.status == "failed" and verdict.message.startswith("on the package's Value")
    assert "and your MyValue," in verdict.message and "from 0 on every call" in verdict.message
    verdict = check.grad_after_three_backwards(15, 15, mine)
    assert verdict.status == "failed" and verdict.message.startswith("on your MyValue")
    assert "15 is the package's Value's" in verdict.message
    verdict = check.grad_after_three_backwards(15, 15, load_lesson4_value(RESETTING))
    assert verdict.passed


def test_grad_after_three_backwards_given_one_numpy_number_asks_for_the_other_two_answers():
    import numpy as np

    verdict = check.grad_after_three_backwards(np.float64(15.0))
    assert verdict.status == "failed" and "your code raised" not in verdict.message, verdict.message
    assert "takes 3 answers, (answer, answer_mine, my_value), and was given 1" in verdict.message
    assert check.grad_after_three_backwards(np.float64(15.0), np.float64(27.0), load_lesson4_value()).passed


def test_grad_after_three_backwards_needs_a_class_with_backward():
    from micrograd.course.carry.yours import ANSWERS

    namespace = {}
    exec(ANSWERS["lesson 3: MyValue"], namespace)  # lesson 3's class: no backward() until the given cell runs
    verdict = check.grad_after_three_backwards(15, 27, namespace["MyValue"])
    assert verdict.status == "failed" and "'more operations' cell" in verdict.message


@pytest.mark.parametrize(
    "answer, words",
    [
        (5.0, "one backward()"),
        (12.0, "misses part of y"),
        (4.0, "misses part of y"),
        (7.0, "think about what backward() does"),
        ("15", "(str)"),
    ],
)
def test_grad_after_three_backwards_rejects_wrong_predictions(answer, words):
    verdict = check.grad_after_three_backwards(answer, 27, load_lesson4_value())
    assert verdict.status == "failed"
    assert words in verdict.message


def test_grad_after_three_backwards_untouched_is_not_attempted():
    mine = load_lesson4_value()
    assert check.grad_after_three_backwards(TODO, TODO, mine).status == "not attempted"
    assert check.grad_after_three_backwards(15, TODO, mine).status == "not attempted"


# Build it yourself: topological order and backward() ------------------------

from build_stubs import AUTOGRAD_ITERATIVE, AUTOGRAD_SOLUTION, AUTOGRAD_STUB, load  # noqa: E402


def functions(source, *swaps):
    return load(source, *swaps, name="my_topological_order"), load(source, *swaps, name="my_backward")


def test_topological_order_accepts_the_recursive_solution_with_a_note():
    verdict = check.my_topological_order(functions(AUTOGRAD_SOLUTION)[0])
    assert verdict.passed and "recursive" in verdict.message


def test_topological_order_accepts_an_iterative_one_without_the_note():
    verdict = check.my_topological_order(functions(AUTOGRAD_ITERATIVE)[0])
    assert verdict.passed and "recursive" not in verdict.message


def test_untouched_stubs_are_not_attempted():
    topo, backward = functions(AUTOGRAD_STUB)
    assert check.my_topological_order(topo).status == "not attempted"
    assert check.my_backward(backward).status == "not attempted"


@pytest.mark.parametrize(
    "swap, words",
    [
        (("        if node not in visited:\n            visited.add(node)\n            for child in node._prev:\n                visit(child)\n            order.append(node)",
          "        for child in node._prev:\n            visit(child)\n        order.append(node)"),
         "on b = a + a, a appears twice"),
        (("            order.append(node)", "            order.insert(0, node)"), "the root L comes first"),
        (("                visit(child)\n            order.append(node)", "                pass\n            order.append(node)"),
         "a is missing"),
        (("    return order", "    return [n.label for n in order]"), "not a node of the graph"),
        (("    return order", "    return set(order)"), "returns set"),
    ],
)
def test_topological_order_names_what_is_wrong(swap, words):
    verdict = check.my_topological_order(functions(AUTOGRAD_SOLUTION, swap)[0])
    assert verdict.status == "failed" and words in verdict.message


def test_topological_order_catches_a_preorder():
    source = AUTOGRAD_SOLUTION.replace(
        "            visited.add(node)\n            for child in node._prev:\n                visit(child)\n            order.append(node)",
        "            visited.add(node)\n            order.append(node)\n            for child in node._prev:\n                visit(child)",
    )
    topo = load(source, name="my_topological_order")
    verdict = check.my_topological_order(topo)
    assert verdict.status == "failed" and "comes first" in verdict.message


def test_topological_order_catches_an_order_that_breaks_only_on_two_paths():
    # Breadth-first from the root, reversed: right on chains and the diamond, wrong where
    # x*y is reached by a short and a long path.
    source = '''
def my_topological_order(root):
    order, seen, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for child in node._prev:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order[::-1]
'''
    verdict = check.my_topological_order(load(source, name="my_topological_order"))
    assert verdict.status == "failed" and "comes before its input" in verdict.message


def test_backward_accepts_both_solutions():
    assert check.my_backward(functions(AUTOGRAD_SOLUTION)[1]).passed
    assert check.my_backward(functions(AUTOGRAD_ITERATIVE)[1]).passed


def test_backward_that_overwrites_is_told_so_by_name():
    _, backward = functions(AUTOGRAD_SOLUTION, ("child.grad += local * node.grad", "child.grad = local * node.grad"))
    verdict = check.my_backward(backward)
    assert verdict.status == "failed"
    assert "on b = a + a: a.grad is 3.0" not in verdict.message  # the numbers are the graph's own
    assert "a.grad is 1.0, expected 2.0" in verdict.message
    assert "sets each input's gradient instead of adding to it" in verdict.message


@pytest.mark.parametrize(
    "swap, words",
    [
        (("for node in reversed(order):", "for node in order:"), "Walk the topological order in reverse"),
        (("    root.grad = 1.0\n", ""), "seed the root first"),
        (("child.grad += local * node.grad", "child.grad += local"), "its local derivative alone"),
    ],
)
def test_backward_names_what_is_wrong(swap, words):
    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, swap)[1])
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_build_checkers_want_functions():
    for verdict in (check.my_topological_order(3), check.my_backward("backward")):
        assert verdict.status == "failed" and "pass the function itself" in verdict.message


def test_backward_with_right_leaves_but_a_wrong_node_names_the_right_number():
    # The slips the checker tries overwrite every .grad: the expected number must be the right one.
    swap = ("            child.grad += local * node.grad\n", "            child.grad += local * node.grad\n    root.grad = 7.0\n")
    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, swap)[1])
    assert verdict.status == "failed"
    assert "leaves are right" in verdict.message and "is 7.0, expected 1.0" in verdict.message, verdict.message


@pytest.mark.parametrize(
    "swap, words",
    [
        (("if node not in visited:\n            visited.add(node)", "if node.label not in visited:\n            visited.add(node.label)"),
         "tells nodes apart by their label"),
        (("if node not in visited:\n            visited.add(node)", "if node.data not in visited:\n            visited.add(node.data)"),
         "tells nodes apart by value"),
        (("    return order", "    return list(visited)"), "a set's order"),
    ],
)
def test_topological_order_tells_nodes_apart_by_themselves(swap, words):
    verdict = check.my_topological_order(functions(AUTOGRAD_SOLUTION, swap)[0])
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_backward_seeded_after_the_walk_is_told_so():
    walk = "    for node in reversed(order):\n        for child, local in zip(node._prev, node._local_grads):\n            child.grad += local * node.grad\n"
    swap = ("    root.grad = 1.0\n" + walk, walk + "    root.grad = 1.0\n")
    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, swap)[1])
    assert verdict.status == "failed" and "seeded after the walk" in verdict.message, verdict.message


def test_backward_wrong_gradients_show_the_graph():
    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, ("child.grad += local * node.grad", "child.grad = local * node.grad"))[1])
    assert "micrograd-verdict-figure" in verdict.figure and "expected 2.0" in verdict.figure


@pytest.mark.parametrize(
    "sin, words",
    [
        (lambda x: Value.from_op(math.sin(x.data), x, math.cos(x.data), "sin"), "as tuples"),
        (lambda x: Value.from_op(math.sin(x.data), (x,), math.cos(x.data), "sin"), "as tuples"),
        (lambda x: Value.from_op(math.sin(x.data), (x,), (math.cos(x.data),)), "takes four arguments"),
        (lambda x: Value.from_op(math.sin(x.data), (x,), (math.cos(x.data), 1.0), "sin"), "give one per input"),
        (lambda x: Value(math.sin(x.data), (x,), "sin"), "no local derivative"),
        (lambda x: Value.from_op(math.sin(x), (x,), (math.cos(x),), "sin"), "math.sin(x.data)"),
    ],
)
def test_sin_op_explains_from_op(sin, words):
    verdict = check.sin_op(sin)
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert "_children=()" not in verdict.message  # not the constructor's signature


def test_the_lectures_build_topo_and_backward_pass():
    from foreign_nodes import lecture_micrograd

    namespace = lecture_micrograd()
    assert check.my_topological_order(namespace["my_topological_order"]).passed
    assert check.my_backward(namespace["my_backward"]).passed


VISITED = "        if node not in visited:\n            visited.add(node)\n            for child in node._prev:\n                visit(child)\n            order.append(node)"
NO_VISITED = "        for child in node._prev:\n            visit(child)\n        order.append(node)"


@pytest.mark.parametrize("source, swap", [
    (AUTOGRAD_SOLUTION, (VISITED, NO_VISITED)),
    (AUTOGRAD_ITERATIVE, ("elif node not in visited:", "else:")),
])
def test_a_right_loop_over_an_order_with_a_node_twice_is_told_the_order_lists_it_twice(source, swap):
    verdict = check.my_backward(functions(source, swap)[1])
    assert verdict.status == "failed"
    assert "the loop is right, but the order it walks lists m twice" in verdict.message, verdict.message
    assert "reversed(my_topological_order(root))" not in verdict.message


RECURSION_THROUGH_BACKWARD = """
def my_backward(root):
    root.grad = 1.0
    root._backward()
    for child in root._prev:
        rest(child)


def rest(node):
    node._backward()
    for child in node._prev:
        rest(child)
"""


def test_a_recursion_through_backward_is_not_blamed_on_an_order_it_does_not_use():
    namespace = {}
    exec(RECURSION_THROUGH_BACKWARD, namespace)
    verdict = check.my_backward(namespace["my_backward"])
    assert verdict.status == "failed" and "goes down recursively" in verdict.message, verdict.message
    assert "my_topological_order must list" not in verdict.message and "the order it walks" not in verdict.message


def test_the_note_on_a_recursive_order_points_at_what_lesson_4_has():
    import json
    from pathlib import Path

    verdict = check.my_topological_order(functions(AUTOGRAD_SOLUTION)[0])
    assert verdict.passed and 'under "The package\'s version"' in verdict.message, verdict.message
    cells = json.loads((Path(__file__).parent.parent / "notebooks" / "04_autograd.ipynb").read_text())["cells"]
    text = "".join("".join(cell["source"]) for cell in cells)
    assert "### The package's version" in text and "its recursion written out" in text


def test_the_node_a_backward_verdict_names_is_the_node_its_drawing_marks():
    import re

    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, (VISITED, NO_VISITED))[1])
    name, got, want = re.search(r": (\w+)\.grad is (\S+), expected (\S+?):", verdict.message).groups()
    assert f"grad {got}, expected {want}" in verdict.figure
    assert name == "y"  # the first wrong gradient from the output down, which the drawing marks


def test_a_failure_drawing_of_a_deep_graph_shows_the_marked_node_near_its_verdict():
    # Drawn whole and upright, this graph was 1035 px tall with the marked y at its foot, below the fold of a
    # 1280×800 page. Around the wrong node only, it fits under the verdict.
    import re

    verdict = check.my_backward(functions(AUTOGRAD_SOLUTION, (VISITED, NO_VISITED))[1])
    width, height = (float(v) for v in re.search(r"width:([\d.]+)px;height:([\d.]+)px", verdict.figure).groups())
    assert height <= 450 and width <= 850, (width, height)
    assert "grad -3.22972, expected -2.08733" in verdict.figure and "around its first wrong gradient" in verdict.figure


def test_the_neighbourhood_of_a_wrong_node_is_its_consumer_and_their_inputs():
    from micrograd import Value
    from micrograd.course.figures import neighbourhood

    x, y, z = Value(1.5, label="x"), Value(-1.0, label="y"), Value(0.5, label="z")
    m = x * y
    m.label = "m"
    s = m + z
    s.label = "s"
    t = s.tanh()
    t.label = "t"
    out = t * m
    out.label = "out"
    top, shown, whole = neighbourhood(out, y)
    assert not whole and top.label == "m" and [n.label for n in top._prev] == ["x", "y"]
    assert neighbourhood(m, y)[2]  # a shallow graph is drawn whole


def test_backward_is_also_run_on_the_learners_own_value_class():
    # Lesson 4 runs my_backward on the MyValue of lesson 3. Written the lecture's way, its nodes have
    # _backward closures and no _local_grads, so a loop reading node._local_grads fails there.
    from foreign_nodes import LECTURE_MY_VALUE

    def backward_beside(source):
        namespace = {}
        exec(LECTURE_MY_VALUE + source, namespace)
        return namespace["my_backward"]

    verdict = check.my_backward(backward_beside(AUTOGRAD_SOLUTION))
    assert verdict.status == "failed" and "call each node's _backward()" in verdict.message, verdict.message
    assert check.my_backward(backward_beside(AUTOGRAD_ITERATIVE)).passed


@pytest.mark.parametrize("answer, calls", [(27, "three calls"), (14.0, "two calls")])
def test_grad_after_three_backwards_names_the_lectures_numbers(answer, calls):
    verdict = check.grad_after_three_backwards(answer, 15, load_lesson4_value(RESETTING))
    assert verdict.status == "failed"
    assert "the lecture's code (and micrograd 0.1.0)" in verdict.message and calls in verdict.message
    assert "from 0 on every call" in verdict.message  # what this engine does instead, as the course site's page on micrograd 0.1.0 explains


def test_backward_seeding_the_root_then_skipping_it_is_told_so():
    skipped = functions(AUTOGRAD_SOLUTION, ("for node in reversed(order):", "for node in reversed(order[:-1]):"))[1]
    verdict = check.my_backward(skipped)
    assert verdict.status == "failed" and "the walk skips it" in verdict.message
    assert "seeded after the walk" not in verdict.message


def test_a_backward_run_without_its_order_in_the_kernel_is_told_what_to_run_first():
    namespace = {}
    exec("def my_backward(root):\n    root.grad = 1.0\n    for node in reversed(my_topological_order(root)):\n"
         "        node._backward()\n", namespace)
    verdict = check.my_backward(namespace["my_backward"])
    assert verdict.status == "failed" and "your code uses my_topological_order, which this kernel does not have yet" \
        in verdict.message


def test_the_checks_nodes_answer_to_other_names_for_their_inputs_and_name_what_they_lack():
    from micrograd.course.lessons.lesson04.order import Node

    a, b = Node(2.0), Node(3.0)
    c = a * b
    assert c._children == c.children == c._prev == (a, b)
    with pytest.raises(AttributeError, match="the check's nodes, made like the lesson's MyValue .* have no attribute 'value'"):
        c.value  # noqa: B018


def test_messages_name_the_worked_answers_myvalue_where_the_lesson_runs_on_it(tmp_path):
    """With no lesson-3 MyValue of the learner's, yours.use gives the worked answer's: a my_backward that reads
    .children fails there, and neither check blames the learner's MyValue for what the worked answer's lacks."""
    from foreign_nodes import LECTURE_AUTOGRAD

    from micrograd.course.carry import yours

    namespace = {"MyValue": yours.use("MyValue", lesson=4, folder=tmp_path)}
    exec(LECTURE_AUTOGRAD.replace("v._prev", "v.children"), namespace)
    verdict = check.my_backward(namespace["my_backward"])
    assert verdict.status == "failed" and "your MyValue" not in verdict.message, verdict.message
    assert "run it on the worked answer's MyValue" in verdict.message and "'children'" in verdict.message, verdict.message
    worked = yours.use("MyValue", lesson=4, folder=tmp_path)
    verdict = check.grad_after_three_backwards(15, 15, worked)  # the worked answer's backward gives 27
    assert verdict.status == "failed" and verdict.message.startswith("on the worked answer's MyValue:"), verdict.message
    assert "your MyValue" not in verdict.message, verdict.message
