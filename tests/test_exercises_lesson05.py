"""Lesson 5's checkers: right answers pass, typical mistakes get a useful hint."""

import math

import pytest

from micrograd.course.lessons import lesson05 as check
from micrograd.course.verdicts import TODO


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
        # 36 on (3, [4, 4, 1]) like the line above, but the last layer left out: told apart on the other shapes
        (lambda nin, nouts: sum((k + 1) * m for k, m in _sizes(nin, nouts)[:-1]), "the last layer is left out"),
        (lambda nin, nouts: sum((k + 1) * m for k, m in _sizes(nin, nouts)[1:]), "the first layer is left out"),
        (lambda nin, nouts: 41, "parameter_count(2, [16, 16, 1]) gives 41"),  # the lesson's number typed in
        (lambda nin, nouts: 41.0, "parameter_count(2, [16, 16, 1]) gives 41"),  # a whole float is read as a count
        (lambda nin, nouts: 40.5, "not a whole number"),
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
    assert check.neuron_nodes(22).passed
    for answer, words in [
        (17, "leaves out the inputs"),
        (23, "one more than the lecture's neuron"),
        (8, "the package's Neuron"),
        (3, "hint"),
        (8.0, "the package's Neuron"),  # a whole float is read as a count, as lesson 10 reads one
        (8.5, "not a whole number"),
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


# Build it yourself: MyNeuron, MyLayer, MyMLP ---------------------------------

from build_stubs import NN_SOLUTION, NN_STUB, load_nn  # noqa: E402


def test_my_mlp_accepts_the_solution():
    verdict = check.my_mlp(*load_nn(NN_SOLUTION))
    assert verdict.passed and "41 parameters" in verdict.message


def test_my_mlp_rejects_a_layer_that_returns_a_list_for_one_neuron():
    # Lesson 5's own later cell calls net(x).backward(), and lesson 6 puts net(x) in a loss: a list breaks both.
    verdict = check.my_mlp(*load_nn(NN_SOLUTION, ("return outs[0] if len(outs) == 1 else outs", "return outs")))
    assert verdict.status == "failed"
    assert "returns a list holding its one output" in verdict.message and "outs[0]" in verdict.message


def test_my_mlp_untouched_is_not_attempted():
    assert check.my_mlp(*load_nn(NN_STUB)).status == "not attempted"


@pytest.mark.parametrize(
    "swap, words",
    [
        (("return act.tanh()", "return act"), "= w·x + b: apply tanh"),
        (("act = self.b\n", "act = Value(0.0)\n"), "= tanh(w·x): add the bias"),
        (("return self.w + [self.b]", "return self.w"), "has 3 entries"),
        (("return self.w + [self.b]", "return [self.b] + self.w"), "Is parameters() the weights in order, then the bias?"),
        (("act = act + wi * xi", "act = act + wi.data * xi"), "backward() does not reach its parameters"),
        (("return [p for neuron in self.neurons for p in neuron.parameters()]",
          "return [n.w[k] for n in self.neurons for k in range(len(n.w))] + [n.b for n in self.neurons]"),
         "neuron by neuron, each neuron's weights then its bias"),
        (("return [p for layer in self.layers for p in layer.parameters()]",
          "return [p for layer in self.layers for p in layer.parameters()] + [self.layers[0].neurons[0].b]"),
         "lists a Value twice"),
        (("return self.w + [self.b]", "return (p for p in self.w + [self.b])"), "returns generator"),
    ],
)
def test_my_mlp_names_what_is_wrong(swap, words):
    verdict = check.my_mlp(*load_nn(NN_SOLUTION, swap))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_my_mlp_with_a_linear_last_layer():
    source = NN_SOLUTION.replace(
        "    def __call__(self, x):\n        for layer in self.layers:\n            x = layer(x)\n        return x",
        "    def __call__(self, x):\n        for layer in self.layers[:-1]:\n            x = layer(x)\n"
        "        last = self.layers[-1].neurons[0]\n"
        "        return sum((wi * xi for wi, xi in zip(last.w, x)), last.b)",
    )
    verdict = check.my_mlp(*load_nn(source))
    assert verdict.status == "failed" and "tanh in every layer" in verdict.message


def test_my_mlp_partly_written_names_the_missing_piece():
    solution_neuron = NN_SOLUTION.split("class MyLayer")[0]
    stub_rest = "class MyLayer" + NN_STUB.split("class MyLayer")[1]
    verdict = check.my_mlp(*load_nn(solution_neuron + stub_rest))
    assert verdict.status == "failed" and "MyLayer.__init__ is not written yet" in verdict.message


def test_my_mlp_wants_classes():
    numbers = check.my_mlp(1, 2, 3)
    assert numbers.status == "failed" and "pass the class itself" in numbers.message


def test_neuron_nodes_accepts_a_neuron_written_with_sum():
    from micrograd import Value
    from micrograd.engine import graph_size

    w, b = [Value(0.1 * k) for k in range(5)], Value(0.3)
    out = (sum(wi * xi for wi, xi in zip(w, [0.5] * 5)) + b).tanh()  # the learner's way: 24 nodes
    nodes, _ = graph_size(out)
    verdict = check.neuron_nodes(nodes)
    assert nodes == 24 and verdict.passed and "sum() starts from 0" in verdict.message and "22" in verdict.message


def test_my_mlp_accepts_classes_built_on_the_learners_own_value():
    from build_stubs import STEP_WITH_NUMBERS, load_nn_on

    verdict = check.my_mlp(*load_nn_on(STEP_WITH_NUMBERS, NN_SOLUTION))
    assert verdict.passed, verdict.message
    verdict = check.my_mlp(*load_nn_on(STEP_WITH_NUMBERS, NN_SOLUTION, ("act = act + wi * xi", "act = act + wi.data * xi")))
    assert verdict.status == "failed" and "does not reach its parameters" in verdict.message


def test_my_mlp_with_every_layer_on_nin_inputs_names_the_slip():
    swap = ("self.layers = [MyLayer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]", "self.layers = [MyLayer(nin, n) for n in nouts]")
    verdict = check.my_mlp(*load_nn(NN_SOLUTION, swap))
    assert verdict.status == "failed" and "every layer is made with 3 inputs" in verdict.message


def test_the_lectures_neuron_layer_and_mlp_on_the_lectures_value_pass():
    from foreign_nodes import lecture_micrograd

    namespace = lecture_micrograd()
    assert check.my_mlp(namespace["MyNeuron"], namespace["MyLayer"], namespace["MyMLP"]).passed


def test_my_mlp_wrapping_every_input_as_its_hint_said_is_told_why_the_second_layer_fails():
    """The repro: MyValue(xi) in the neuron, on a MyValue without number operands, then a layer of MyValues."""
    from build_stubs import NN_SOLUTION, STEP_SOLUTION, load_nn_on

    verdict = check.my_mlp(*load_nn_on(STEP_SOLUTION, NN_SOLUTION))  # no wrapping: the hint to wrap plain numbers
    assert verdict.status == "failed" and "xi if isinstance(xi, MyValue) else MyValue(xi)" in verdict.message
    wrapped = load_nn_on(STEP_SOLUTION, NN_SOLUTION.replace("wi * xi", "wi * MyValue(xi)"))
    verdict = check.my_mlp(*wrapped)
    assert verdict.status == "failed" and "puts one inside another" in verdict.message, verdict.message
    assert "Wrap plain numbers only" in verdict.message and not verdict.message.startswith("your code raised")
    right = load_nn_on(STEP_SOLUTION, NN_SOLUTION.replace(
        "wi * xi", "wi * (xi if isinstance(xi, MyValue) else MyValue(xi))"))
    assert check.my_mlp(*right).passed


def test_classes_run_in_a_kernel_without_my_value_are_told_what_to_run_first():
    # After a restart, the build-it cell ran before the cell that loads MyValue: the check said only "your code
    # raised NameError". Now it says which cell to run.
    from build_stubs import NN_SOLUTION

    namespace = {}
    exec("import random\n" + NN_SOLUTION.replace("Value(random", "MyValue(random"), namespace)
    verdict = check.my_mlp(namespace["MyNeuron"], namespace["MyLayer"], namespace["MyMLP"])
    assert verdict.status == "failed" and "raised NameError" not in verdict.message
    assert verdict.message.startswith("your code uses MyValue, which this kernel does not have yet: it comes from a cell above")
    assert "Run > Run All Above" in verdict.message
    namespace["MyValue"] = __import__("micrograd").Value
    exec("class Typo(MyNeuron):\n    def __call__(self, x):\n        return slef.b\n", namespace)
    typo = check.my_mlp(namespace["Typo"], namespace["MyLayer"], namespace["MyMLP"])  # a name of the learner's own
    assert typo.message == "your code raised NameError: name 'slef' is not defined", typo.message
