"""Lesson 3's checkers: right answers pass, typical mistakes get a useful hint."""

import pytest

from micrograd import Value
from micrograd.course.lessons import lesson03 as check
from micrograd.course.verdicts import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def test_sum_times_gradients_accepts_numbers_and_values():
    assert check.sum_times_gradients(-4.0, -4.0, 3.0).passed
    assert check.sum_times_gradients(-4, -4, 3).passed
    assert check.sum_times_gradients(Value(-4.0), Value(-4.0), Value(3.0)).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        ((1.0, 1.0, 3.0), "local derivative of the sum"),  # forgot to chain
        ((-4.0, -4.0, -2.0), "value of that sum"),  # dz = x
        ((-4.0, -4.0, 7.0), "which number is z multiplied by"),
        ((4.0, 4.0, 3.0), "wrong sign"),
        ((-4.0, 5.0, 3.0), "dy"),
        (("-4", -4.0, 3.0), "(str)"),
        ((float("nan"), -4.0, 3.0), "finite"),
    ],
)
def test_sum_times_gradients_explains_wrong_answers(answer, words):
    verdict = check.sum_times_gradients(*answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_sum_times_gradients_untouched_is_not_attempted():
    assert check.sum_times_gradients(TODO, TODO, TODO).status == "not attempted"
    assert check.sum_times_gradients(-4.0, TODO, 3.0).status == "not attempted"


def _L_after(sign):
    a, b, c, f = 2.0 + sign * 0.06, -3.0 - sign * 0.04, 10.0 - sign * 0.02, -2.0 + sign * 0.04
    return (a * b + c) * f


def test_step_downhill_accepts_the_lowered_loss():
    verdict = check.step_downhill(_L_after(-1))
    assert verdict.passed and "-8.7263" in verdict.message
    assert check.step_downhill(Value(_L_after(-1))).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        (_L_after(+1), "raises L"),  # the lesson's uphill step
        (-8.0, "has not changed"),
        (-9.5, "not what one step of 0.01 gives"),
        (-7.0, "not lower than -8"),
        (None, "(NoneType)"),
    ],
)
def test_step_downhill_rejects_typical_mistakes(answer, words):
    verdict = check.step_downhill(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_step_downhill_untouched_is_not_attempted():
    assert check.step_downhill(TODO).status == "not attempted"


def test_sigmoid_local_grad_accepts_s_times_one_minus_s():
    assert check.sigmoid_local_grad(lambda s: s * (1 - s)).passed
    assert check.sigmoid_local_grad(lambda s: s - s**2).passed


@pytest.mark.parametrize(
    "local_grad, words",
    [
        (lambda s: 1 - s**2, "tanh's slope"),  # the tanh's, which the lesson gives
        (lambda s: s, "returns s itself"),
        (lambda s: 1 - s, "one factor of the answer"),
        (lambda s: s**2 - s, "sign is flipped"),
        (lambda s: 0.25, "not the slope of the sigmoid"),  # its slope at 0 typed in
        (lambda s: None, "(NoneType)"),
        (lambda s: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_sigmoid_local_grad_rejects_typical_mistakes(local_grad, words):
    verdict = check.sigmoid_local_grad(local_grad)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_sigmoid_local_grad_needs_the_function_itself():
    verdict = check.sigmoid_local_grad(0.25)
    assert verdict.status == "failed" and "pass the function itself" in verdict.message


def test_sigmoid_local_grad_untouched_is_not_attempted():
    def local_grad(s):
        raise NotImplementedError

    assert check.sigmoid_local_grad(local_grad).status == "not attempted"


def test_the_sigmoid_exercise_asks_what_lesson_3_does_not_print_before_it():
    """Exercise 3's answer, s(1 - s), is not in the lesson above the exercise (tanh's 1 - o² is, twice)."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).parent.parent / "notebooks" / "03_backprop_by_hand.ipynb").read_text())["cells"]
    texts = ["".join(cell["source"]) for cell in cells]
    exercise = next(i for i, text in enumerate(texts) if "check.sigmoid_local_grad" in text)
    before = " ".join(texts[:exercise - 1]).replace(" ", "")
    assert "sigmoid" not in before and "s(1-s)" not in before and "s*(1-s)" not in before
    assert "1-o^2" in before  # the tanh's, which the exercise builds on



# Build it yourself: local derivatives, _backward, and the walk by hand --------

from build_stubs import STEP_SOLUTION, STEP_STUB, load  # noqa: E402


def test_my_backward_step_accepts_the_solution():
    assert check.my_backward_step(load(STEP_SOLUTION)).passed


def test_my_backward_step_untouched_stub_is_not_attempted():
    assert check.my_backward_step(load(STEP_STUB)).status == "not attempted"


@pytest.mark.parametrize(
    "swap, words",
    [
        (("local_grads = (other.data, self.data)", "local_grads = (self.data, other.data)"),
         "* (at a = 2, b = -3) records (2.0, -3.0), expected (-3.0, 2.0): the two are swapped"),
        (("local_grads = (1.0, 1.0)", "local_grads = (self.data, other.data)"), "+ (at a = 2, b = -3) records"),
        (("local_grads = (1.0, 1.0)", "local_grads = ..."), "+ (at a = 2, b = -3): its local_grads are still ..."),
        (("local_grads = (1 - t**2,)", "local_grads = (1 - t,)"), "tanh (at n = 0.8814, t = 0.7071) records"),
        (("local_grads = (1 - t**2,)", "local_grads = 1 - t**2"), "give a tuple with one number per input"),
        (("child.grad += local * self.grad", "child.grad += local"),
         "the local derivative alone; multiply it by the node's own grad"),
        (("child.grad += local * self.grad", "child.grad += local * self.data"), "expected"),
        (("child.grad += local * self.grad", "pass"), "still 0"),
        (("child.grad += local * self.grad", "child.grad += local * self.grad\n        self.grad = 0.0"),
         "changed the node's own grad"),
    ],
)
def test_my_backward_step_names_what_is_wrong(swap, words):
    verdict = check.my_backward_step(load(STEP_SOLUTION, swap))
    assert verdict.status == "failed"
    assert words in verdict.message


def test_my_backward_step_with_backward_unwritten():
    cls = load(
        STEP_STUB,
        ("local_grads = ...  # your code here: (d out/d self, d out/d other) for out = self + other", "local_grads = (1.0, 1.0)"),
        ("local_grads = ...  # your code here: the same for out = self * other", "local_grads = (other.data, self.data)"),
        ("local_grads = ...  # your code here: (d t/d self,), a tuple of one, written with t", "local_grads = (1 - t**2,)"),
    )
    verdict = check.my_backward_step(cls)
    assert verdict.status == "failed" and "_backward is not written yet" in verdict.message


def lecture_graph(cls):
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    c, f = cls(10.0, label="c"), cls(-2.0, label="f")
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    L = d * f; L.label = "L"
    return L, d, e, a


def test_walk_by_hand_accepts_the_reverse_order():
    L, d, e, a = lecture_graph(load(STEP_SOLUTION))
    verdict = check.walk_by_hand(L, [L, d, e])
    assert verdict.passed and a.grad == 6.0 and "a 6.0" in verdict.message


def test_walk_by_hand_untouched_is_not_attempted():
    L, *_ = lecture_graph(load(STEP_STUB))
    assert check.walk_by_hand(L, TODO).status == "not attempted"


@pytest.mark.parametrize(
    "pick, words",
    [
        (lambda L, d, e: [e, d, L], "d comes before L, which uses it"),
        (lambda L, d, e: [L, d], "e is missing from the walk"),
        (lambda L, d, e: [L, d, d, e], "d is called twice"),
        (lambda L, d, e: "L, d, e", "give a list of nodes"),
    ],
)
def test_walk_by_hand_names_what_is_wrong(pick, words):
    L, d, e, _ = lecture_graph(load(STEP_SOLUTION))
    verdict = check.walk_by_hand(L, pick(L, d, e))
    assert verdict.status == "failed" and words in verdict.message


def test_walk_by_hand_with_a_wrong_class_points_at_the_class():
    L, d, e, _ = lecture_graph(load(STEP_SOLUTION, ("local_grads = (other.data, self.data)", "local_grads = (self.data, other.data)")))
    verdict = check.walk_by_hand(L, [L, d, e])
    assert verdict.status == "failed" and "check your class" in verdict.message


def test_walk_by_hand_with_backward_unwritten():
    cls = load(STEP_STUB, ("local_grads = ...  # your code here: the same for out = self * other", "local_grads = (other.data, self.data)"))
    L, d, e, _ = lecture_graph(cls)
    verdict = check.walk_by_hand(L, [L, d, e])
    assert verdict.status == "failed" and "write _backward" in verdict.message


def test_my_backward_step_catches_equals_for_plus_equals_on_a_value_used_twice():
    verdict = check.my_backward_step(load(STEP_SOLUTION, ("child.grad += local * self.grad", "child.grad = local * self.grad")))
    assert verdict.status == "failed"
    assert "x.grad = 1.0, expected 2.0" in verdict.message and "two uses must add up" in verdict.message


@pytest.mark.parametrize(
    "swap, words",
    [
        (("        for child, local in zip(self._prev, self._local_grads):",
          "        self.grad = 1.0\n        for child, local in zip(self._prev, self._local_grads):"),
         "set d.grad to 1.0"),
        (("child.grad += local * self.grad", "child.grad += local * self.grad\n            child._backward()"),
         "Don't call the inputs' _backward"),
    ],
)
def test_my_backward_step_names_its_own_grad_set_to_1_and_recursion(swap, words):
    verdict = check.my_backward_step(load(STEP_SOLUTION, swap))
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert "the local derivative alone" not in verdict.message


def test_a_wrong_gradient_shows_the_learners_graph_with_the_wrong_node():
    verdict = check.my_backward_step(load(STEP_SOLUTION, ("child.grad += local * self.grad", "child.grad = local * self.grad")))
    assert "micrograd-verdict-figure" in verdict.figure and "expected 2.0" in verdict.figure
    assert verdict.figure not in verdict.message and verdict.to_dict()["message"] == verdict.message
    L, d, e, _ = lecture_graph(load(STEP_SOLUTION, ("local_grads = (other.data, self.data)", "local_grads = (self.data, other.data)")))
    verdict = check.walk_by_hand(L, [L, d, e])
    assert verdict.status == "failed" and "micrograd-verdict-figure" in verdict.figure
    assert check.my_backward_step(load(STEP_SOLUTION)).figure == ""


# The lecture's way: _backward closures with +=, inputs in a set, no local derivatives recorded.

from foreign_nodes import LECTURE_MY_VALUE, lecture_micrograd  # noqa: E402


def test_the_lectures_value_passes_the_backward_step_and_is_told_why_the_lesson_records_numbers():
    verdict = check.my_backward_step(lecture_micrograd()["MyValue"])
    assert verdict.passed, verdict.message
    assert "the lecture's way" in verdict.message and "_local_grads" in verdict.message


def test_the_lectures_value_passes_the_walk_by_hand():
    MyValue = lecture_micrograd()["MyValue"]
    a, b, c, f = MyValue(2.0, label="a"), MyValue(-3.0, label="b"), MyValue(10.0, label="c"), MyValue(-2.0, label="f")
    e = a * b
    d = e + c
    L = d * f
    assert check.walk_by_hand(L, [L, d, e]).passed


def test_the_template_with_closures_in_place_of_its_local_grads_passes():
    # A learner who keeps the template's class but writes the lecture's closures, leaving local_grads = ... as given.
    namespace = {}
    exec(LECTURE_MY_VALUE.replace('self._op = _op\n', 'self._op = _op\n        self._local_grads = ...\n'), namespace)
    assert check.my_backward_step(namespace["MyValue"]).passed


def test_the_lectures_value_with_equals_for_plus_equals_is_told_so():
    wrong = LECTURE_MY_VALUE.replace("self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad").replace(
        "other.grad += 1.0 * out.grad", "other.grad = 1.0 * out.grad")
    namespace = {}
    exec(wrong, namespace)
    verdict = check.my_backward_step(namespace["MyValue"])
    assert verdict.status == "failed" and "the gradients from the two uses must add up" in verdict.message, verdict.message
    assert "write self.grad += ... * out.grad" in verdict.message  # in the closure's own words


@pytest.mark.parametrize("swap", [
    ("child.grad += local * self.grad", "child.grad += local"),
    ("child.grad += local * self.grad", "child.grad += self.grad"),
])
def test_the_gradient_a_step_verdict_names_is_the_one_its_drawing_marks(swap):
    import html
    import re

    verdict = check.my_backward_step(load(STEP_SOLUTION, swap))
    name, got = re.search(r": (\w)\.grad is (\S+), ", verdict.message).groups()
    dot = html.unescape(re.search(r'data-dot="([^"]*)"', verdict.figure).group(1))
    marked = [line for line in dot.splitlines() if "expected" in line]
    assert len(marked) == 1 and f"<B>{name}</B>" in marked[0] and f"grad {got}, expected" in marked[0], verdict.message


# Inputs in a set: safe with the lecture's closures, which name self and other themselves; wrong with local
# derivatives zipped against them (a + a holds its input once; the pairing follows memory addresses).

def test_a_set_of_inputs_gives_a_plus_a_its_whole_gradient_with_the_lectures_closures():
    MyValue = lecture_micrograd()["MyValue"]
    a = MyValue(3.0)
    total = a + a
    assert len(total._prev) == 1
    total.backward()
    assert a.grad == 2.0


def test_local_derivatives_zipped_with_a_set_of_inputs_are_named_whatever_the_sets_order():
    cls = load(STEP_SOLUTION, ("self._prev = tuple(_children)", "self._prev = set(_children)"))
    a = cls(3.0)
    total = a + a
    total.grad = 1.0
    total._backward()
    assert a.grad == 1.0  # one share of two: the slip is real
    verdicts = []
    for garbage in range(0, 60, 3):  # other objects first: the set's order moves with memory addresses
        kept = [cls(0.0) for _ in range(garbage)]
        verdicts.append(check.my_backward_step(cls))
        del kept
    assert all(v.status == "failed" and "_prev a set" in v.message for v in verdicts), [v.message for v in verdicts]


# -- the lecture's bug, = for +=, in the stepper; the operations later lessons need ---------------------------------

def _lecture_class(*swaps):
    from foreign_nodes import LECTURE_MY_VALUE

    source = LECTURE_MY_VALUE
    for old, new in swaps:
        assert old in source
        source = source.replace(old, new)
    namespace = {}
    exec(source, namespace)
    return namespace["MyValue"]


SETS_IN_ADD = (("self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad"),
               ("other.grad += 1.0 * out.grad", "other.grad = 1.0 * out.grad"))
SETS_IN_MUL = (("self.grad += other.data * out.grad", "self.grad = other.data * out.grad"),
               ("other.grad += self.data * out.grad", "other.grad = self.data * out.grad"))


@pytest.mark.parametrize("op, swaps", [("+", SETS_IN_ADD), ("*", SETS_IN_MUL)])
def test_the_stepper_says_when_a_node_that_uses_a_value_twice_sets_its_gradient(op, swaps):
    # The lecture's bug: b = a + a with self.grad = ...; other.grad = ... leaves a.grad at one use's share. Its set of
    # inputs holds a once, so the stepper calls _backward() again from a grad of 1 to see that it sets, not adds.
    import re

    from micrograd.widgets import BackpropStepper

    cls = _lecture_class(*swaps)
    a = cls(3.0, label="a")
    b = a + a if op == "+" else a * a
    b.label = "b"
    stepper = BackpropStepper(b)
    stepper.step()
    panel = re.sub(r"<[^>]+>", " ", stepper.panel.value).replace("&#x27;", "'")
    assert "this node's _backward() sets a.grad (=) where it must add to it (+=)" in panel, panel
    assert "a.grad +=" not in panel  # no row claims it added
    assert a.grad == (1.0 if op == "+" else 3.0)  # the learner's own numbers stay on their nodes


def test_the_stepper_says_what_adding_gives_where_the_local_derivatives_are_recorded():
    import re

    from micrograd.course.carry.yours import ANSWERS
    from micrograd.widgets import BackpropStepper

    namespace = {}
    exec(ANSWERS["lesson 3: MyValue"].replace("child.grad += local * self.grad", "child.grad = local * self.grad"), namespace)
    a = namespace["MyValue"](3.0, label="a")
    b = a + a
    b.label = "b"
    stepper = BackpropStepper(b)
    stepper.step()
    panel = re.sub(r"<[^>]+>", " ", stepper.panel.value).replace("&#x27;", "'")
    assert "a is used twice by this node, and holds one use's share, where adding gives 2.0000" in panel, panel


def test_the_stepper_warns_of_nothing_on_a_right_class():
    from micrograd.widgets import BackpropStepper, backprop_words

    cls = _lecture_class()
    x, w = cls(3.0, label="x"), cls(-2.0, label="w")
    out = (x * w + x * x).tanh()
    stepper = BackpropStepper(out)
    for _ in stepper.schedule:
        stepper.step()
        assert "where it must add" not in stepper.panel.value
    assert stepper.done and not backprop_words.warnings(stepper, stepper._steps[-1])


def test_a_passing_class_is_told_which_operations_lessons_4_to_6_need_that_it_lacks():
    from build_stubs import STEP_SOLUTION, load

    template = check.my_backward_step(load(STEP_SOLUTION))
    assert template.passed
    assert "Lessons 4 to 6 also need x * 2, x + 1, 2 * x, 1 + x, sum([x, x]), -x, x - y, x ** 2, x / y, " \
           "x.exp(), x.backward(), which your class does not do yet: lesson 4 gives them to it" in template.message
    lecture = check.my_backward_step(_lecture_class())  # the lecture's class has them all
    assert lecture.passed and "also need" not in lecture.message
    no_rmul = check.my_backward_step(_lecture_class(("    def __rmul__(self, other):  # other * self\n        return self * other\n", "")))
    assert no_rmul.passed and "also need 2 * x, which your class does not do yet" in no_rmul.message


def test_lesson_3_says_which_operations_later_lessons_need_and_that_the_lecture_s_class_passes():
    import json
    from pathlib import Path

    notebook = next((Path(__file__).parent.parent / "notebooks").glob("03_*.ipynb"))
    text = next(t for t in ("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"])
                if "## Build it yourself: local derivatives and `_backward`" in t)
    assert "The lecture's own class, typed in instead, passes too when it is named `MyValue`" in text
    assert "the check below names the ones your class\ndoes not do yet" in text
    assert check.my_backward_step(_lecture_class()).passed  # what the lesson says of the lecture's class
