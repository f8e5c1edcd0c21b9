"""Lesson 10's checkers: node counts come from real graphs, wrong counts get a useful hint."""

import pytest

from micrograd import MLP, Value, graph_size
from micrograd.data import four_samples
from micrograd.course.lessons import lesson10 as check
from micrograd.course.verdicts import TODO
from micrograd.losses import sum_of_squares


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def unfinished(*args):
    raise NotImplementedError


def c_port_graph(nin, nouts, n_samples):
    """One training step built the C arena port's way: unfused neurons, a − b as a + b·(−1)."""
    model = MLP(nin, nouts, activation="tanh", rng=1)
    loss = Value(0.0)
    for s in range(n_samples):
        x = [Value(0.1 * (s + i)) for i in range(nin)]
        for depth, layer in enumerate(model.layers):
            outputs = []
            for neuron in layer.neurons:
                out = neuron.b
                for w, xi in zip(neuron.w, x):
                    out = out + w * xi
                outputs.append(out.tanh() if depth < len(model.layers) - 1 else out)
            x = outputs
        diff = x[0] + Value(1.0) * Value(-1.0)
        loss = loss + diff * diff
    return loss


# -- exercise 1 --------------------------------------------------------------------


def our_step_nodes(nouts):
    model = MLP(3, nouts, activation="tanh", rng=5)
    xs, ys = four_samples()
    return graph_size(sum_of_squares([model(x) for x in xs], ys))[0]


def test_node_count_accepts_the_count_of_the_real_graph():
    count = our_step_nodes([8, 8, 1])
    assert count == 262  # 113 parameters + 4 × (33 + 3) + 5: the breakdown the hint describes
    assert check.node_count(count).passed
    assert check.node_count(float(count)).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        (262 - 113, "leaves out the 113 parameters"),
        (check._c_port_node_count(3, [8, 8, 1], 4), "unfused"),
        (our_step_nodes([4, 4, 1]), "the count for the lesson's MLP(3, [4, 4, 1])"),  # the lesson's own network
        (262.5, "not a whole number"),
        ("262", "without quotes"),
    ],
)
def test_node_count_rejects_typical_miscounts(answer, words):
    verdict = check.node_count(answer)
    assert verdict.status == "failed" and words in verdict.message


def test_node_count_untouched_is_not_attempted():
    assert check.node_count(TODO).status == "not attempted"


# -- exercise 2 --------------------------------------------------------------------


@pytest.mark.parametrize("nin, nouts, n_samples", [(3, [4, 4, 1], 4), (2, [3, 1], 1), (1, [1], 3), (4, [5, 2, 1], 2), (2, [6, 1], 5)])
def test_the_checkers_formula_counts_real_c_port_graphs(nin, nouts, n_samples):
    assert check._c_port_node_count(nin, nouts, n_samples) == graph_size(c_port_graph(nin, nouts, n_samples))[0]


def test_the_formula_reproduces_the_c_ports_366():
    assert check._c_port_node_count(3, [4, 4, 1], 4) == 366


def test_c_port_formula_accepts_a_formula_and_a_builder():
    def formula(nin, nouts, n):
        sizes = [nin] + nouts
        params = sum(o * (i + 1) for i, o in zip(sizes, nouts))
        forward = sum(o * 2 * i for i, o in zip(sizes, nouts)) + sum(nouts[:-1])
        return params + 1 + n * (nin + forward + 6)

    assert check.c_port_formula(formula).passed
    assert check.c_port_formula(lambda nin, nouts, n: graph_size(c_port_graph(nin, nouts, n))[0]).passed


def test_c_port_formula_rejects_a_constant_and_an_overfitted_formula():
    constant = check.c_port_formula(lambda nin, nouts, n: 366)
    assert constant.status == "failed" and "MLP(2, [3, 1]) on 1 sample" in constant.message
    assert "works for the lesson's network" in constant.message

    def tanh_everywhere(nin, nouts, n):  # forgets that the output layer has no tanh
        sizes = [nin] + nouts
        params = sum(o * (i + 1) for i, o in zip(sizes, nouts))
        return params + 1 + n * (nin + sum(o * (2 * i + 1) for i, o in zip(sizes, nouts)) + 6)

    verdict = check.c_port_formula(tanh_everywhere)
    assert verdict.status == "failed" and "366" in verdict.message and "breakdown" in verdict.message


def test_c_port_formula_untouched_is_not_attempted():
    assert check.c_port_formula(unfinished).status == "not attempted"


# -- exercise 3 --------------------------------------------------------------------


def fused(predictions, targets):
    diffs = [p.data - t for p, t in zip(predictions, targets)]
    return Value.from_op(sum(d * d for d in diffs), predictions, [2 * d for d in diffs], "Σ(p−t)²")


def test_fused_loss_accepts_one_node():
    assert check.fused_loss(fused).passed


@pytest.mark.parametrize(
    "loss_fn, words",
    [
        (sum_of_squares, "one node whose inputs are the 4 predictions"),
        (
            lambda ps, ts: Value.from_op(sum((p.data - t) ** 2 for p, t in zip(ps, ts)), ps, [p.data - t for p, t in zip(ps, ts)], "Σ"),
            "differentiate (p − t)²",
        ),
        (lambda ps, ts: Value.from_op(sum(abs(p.data - t) for p, t in zip(ps, ts)), ps, [1.0] * len(ps), "Σ"), "forward value"),
        (lambda ps, ts: sum((p.data - t) ** 2 for p, t in zip(ps, ts)), "not a Value"),
    ],
)
def test_fused_loss_rejects_unfused_and_wrong_losses(loss_fn, words):
    verdict = check.fused_loss(loss_fn)
    assert verdict.status == "failed" and words in verdict.message


def test_fused_loss_untouched_is_not_attempted():
    assert check.fused_loss(unfinished).status == "not attempted"


def test_node_count_names_answers_off_by_the_leaves():
    from micrograd.engine import graph_size, topological_order

    model, loss = check._step_graph([8, 8, 1])
    total = graph_size(loss)[0]
    leaves = sum(1 for node in topological_order(loss) if not node.inputs)
    constants = leaves - len(model.parameters())
    without_constants = check.node_count(total - constants)
    assert without_constants.status == "failed" and f"leaves out {constants} constant leaves" in without_constants.message
    without_leaves = check.node_count(total - leaves)
    assert without_leaves.status == "failed" and f"add the {leaves} leaves" in without_leaves.message
