"""Lesson 2's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import re

import pytest
from claims import claim, labelled, lecture_graph
from micrograd import Value, graph_size


def test_lesson02_grad_stays_0_and_leaves_have_no_op_and_no_inputs():
    claim(2, "It also has a `.grad`, which stays 0 until lesson 3")
    claim(2, "they are **leaves**, with no op and no inputs")
    a, b = Value(2.0), Value(-3.0)
    e = a * b + 1
    assert (a.grad, b.grad, e.grad) == (0, 0, 0)
    assert (a.op, a.inputs) == ("", ()) and e.inputs


def test_lesson02_the_lessons_drawing_runs_top_to_bottom():
    claim(2, "This drawing runs top to bottom")
    from micrograd.viz import draw_dot

    assert "rankdir=TB" in draw_dot(lecture_graph()).source


def test_lesson02_python_asks_the_int_first_then_the_reflected_method():
    claim(2, "For `2 * x` it first asks the integer 2, which knows nothing about Values and declines")
    x = Value(4.0)
    assert (2).__mul__(x) is NotImplemented
    asked = []

    class Noting(Value):
        __slots__ = ()

        def __rmul__(self, other):
            asked.append(other)
            return Value.__rmul__(self, other)

    assert (2 * Noting(4.0)).data == 8.0 and asked == [2]


def test_lesson02_a_plain_number_becomes_an_unlabelled_leaf_named_by_its_place():
    claim(2, "The plain number becomes a leaf Value of its own, without a label")
    claim(2, "`#0` is the 2 and `#2` the result")
    from micrograd.viz import text_graph

    x = Value(4.0, label="x")
    y = 2 - x
    number = [node for node in y.inputs if node is not x]
    assert len(number) == 1 and number[0].data == 2 and not number[0].label and not number[0].inputs
    lines = text_graph(y, show_grad=False).splitlines()
    assert lines[0].startswith("#2") and "= #0 - x" in lines[0]
    assert any(line.startswith("#0") and "2.0000" in line for line in lines)


def test_lesson02_local_grads_of_a_product_and_a_sum():
    claim(2, "its local derivatives are $(-3, 2)$, which is $(b, a)$")
    claim(2, "so `+` records $(1, 1)$")
    L = lecture_graph()
    nodes = labelled(L)
    assert tuple(nodes["e"].local_grads) == (-3.0, 2.0)
    assert tuple(nodes["d"].local_grads) == (1.0, 1.0)


def test_lesson02_the_lecture_uses_a_set_which_loses_the_second_input_of_a_times_a(micrograd_0_1_0_value):
    claim(2, "The lecture uses a set, which the check accepts too; a tuple tells `a - b` from `b - a` and keeps both inputs of `a * a`")
    a = micrograd_0_1_0_value(3.0)
    assert isinstance((a * a)._prev, set) and len((a * a)._prev) == 1
    ours = Value(3.0)
    assert (ours * ours).inputs == (ours, ours)
    p, q = Value(1.0), Value(2.0)
    assert (p - q).data != (q - p).data and (p - q).inputs[0] is p


def test_lesson02_running_a_my_micrograd_cell_again_replaces_its_section_and_keeps_the_code_it_replaced(tmp_path):
    claim(2, "Running the cell again with other code replaces that section and keeps the code it replaced: "
             '`yours.restore("lesson 2: MyValue")` lists the last 5 versions kept, with when each was saved, and brings one back.')
    from micrograd.course.carry import history, yours

    for n in range(7):
        yours.store("lesson 2: MyValue", f"class MyValue:\n    version = {n}\n", folder=tmp_path)
    found = yours.sections(tmp_path)
    assert list(found) == ["lesson 2: MyValue"]
    assert "version = 6" in found["lesson 2: MyValue"][1] and "version = 5" not in found["lesson 2: MyValue"][1]
    earlier = history.earlier(tmp_path, "lesson 2: MyValue", found["lesson 2: MyValue"][1])
    assert [v["code"].split("= ")[1] for v in earlier] == ["5\n", "4\n", "3\n", "2\n", "1\n"]
    assert all(v["saved"] is not None for v in earlier)
    yours.restore("lesson 2: MyValue", 5, folder=tmp_path)
    assert "version = 1" in yours.sections(tmp_path)["lesson 2: MyValue"][1]


def test_lesson02_a_cell_that_shows_the_unfilled_code_again_runs_the_saved_code_and_puts_it_back(tmp_path, monkeypatch, shell):
    claim(2, "If the cell shows the lesson's unfilled code again (a reload before the notebook was saved, say), running it "
             "runs your saved code instead and puts it back in the cell.")
    from micrograd.course.carry import templates, yours

    monkeypatch.chdir(tmp_path)
    shell.run_cell("from micrograd.course import yours\nyours.enable_magic()")
    mine = "class MyValue:\n    mine = True\n"
    shell.run_cell(f"%%my_micrograd lesson 2: MyValue\n{mine}")
    shell.run_cell(f"%%my_micrograd lesson 2: MyValue\n{templates.template('lesson 2: MyValue')}")
    assert shell.user_ns["MyValue"].mine is True
    assert yours.sections(tmp_path)["lesson 2: MyValue"][1] == mine
    (payload,) = shell.payload_manager.read_payload()
    assert payload["replace"] is True and payload["text"] == f"%%my_micrograd lesson 2: MyValue\n{mine.strip()}"


def test_lesson02_drawings_read_any_class_with_data_prev_and_op():
    claim(2, "the drawings read any class with `data`, `_prev` and `_op`")
    from micrograd.viz import draw_dot

    class Bare:
        def __init__(self, data, _prev=(), _op=""):
            self.data, self._prev, self._op, self.grad = data, _prev, _op, 0.0

    a, b = Bare(2.0), Bare(3.0)
    drawing = draw_dot(Bare(6.0, (a, b), "*")).source
    assert drawing.count("->") == 3 and "data 6.0000" in drawing


def test_lesson02_a_string_gets_a_clear_error():
    claim(2, "bad input such as a string, `Value(\"2\")`, gets a clear error from `errors`, the engine's guard rails")
    with pytest.raises(TypeError, match="str"):
        Value(1.0) + "2"
    with pytest.raises(TypeError, match="takes a real number") as raised:
        Value("2")
    assert raised.traceback[-1].path.name == "errors.py"  # raised by the guard rails, not by Python


def test_lesson02_the_drawing_shows_more_shapes_and_arrows_than_graph_size():
    claim(2, "the drawing, `draw_dot(y)`, shows more shapes and arrows than that")
    from micrograd.viz import draw_dot

    a = Value(2.0, label="a")
    y = a * a + a
    source = draw_dot(y).source
    shapes = len(re.findall(r"^\s*[vo]\d+ \[", source, re.MULTILINE))
    assert (shapes, source.count("->")) > graph_size(y) and shapes > 3 and source.count("->") > 4


def test_lesson02_the_drawings_leaves_are_blue_and_its_output_green():
    import re as re_

    from micrograd.palette import ROLE_COLOURS
    from micrograd.viz import draw_dot

    claim(2, "The leaves are blue and the output green.")
    fills = dict(re_.findall(r'(v\d+) \[.*?fillcolor="(#\w+)"', draw_dot(lecture_graph()).source))
    leaves, output = [fills[f"v{k}"] for k in (0, 1, 3, 5)], fills["v6"]  # a, b, c, f; L (the order of the drawing)
    assert set(leaves) == {ROLE_COLOURS["input"]} and output == ROLE_COLOURS["output"]

    def rgb(colour):
        return tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))

    r, g, b = rgb(ROLE_COLOURS["input"])
    assert b > r and b > g  # blue the strongest
    r, g, b = rgb(ROLE_COLOURS["output"])
    assert g > r and g > b  # green the strongest
