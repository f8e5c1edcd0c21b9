"""Checkers for lesson 10, memory and speed: count nodes, predict the C port's count, fuse a loss."""

import math

from micrograd.data import four_samples
from micrograd.engine import Value, graph_size, topological_order
from micrograd.gradcheck import gradcheck
from micrograd.losses import sum_of_squares
from micrograd.nn import MLP
from micrograd.course.verdicts import as_whole_number, checker, class_name, failed, passed, value_wanted, whole_number_problem

__all__ = ["node_count", "c_port_formula", "fused_loss"]


# -- exercise 1: predict a node count ------------------------------------------------


def _step_graph(nouts):
    """Our engine's graph for one training step of MLP(3, nouts) on the four samples."""
    model = MLP(3, nouts, activation="tanh", rng=0)
    xs, ys = four_samples()
    loss = sum_of_squares([model(x) for x in xs], ys)
    return model, loss


@checker("Exercise 1: the nodes of one training step")
def node_count(answer):
    """How many nodes one step of MLP(3, [8, 8, 1]) on four samples builds in our engine."""
    model, loss = _step_graph([8, 8, 1])
    expected, edges = graph_size(loss)
    if isinstance(answer, tuple) and len(answer) == 2 and as_whole_number(answer[0]) == expected:
        return failed(f"{answer} is what graph_size gives, (nodes, edges); the answer is the first of the two")
    problem = whole_number_problem(answer, want="count the nodes and answer with a whole number")
    if problem:
        return failed(problem)
    count = as_whole_number(answer)
    if count == expected:
        return passed(f"{expected} nodes; check it yourself with graph_size(loss)")
    parameters = len(model.parameters())
    leaves = [node for node in topological_order(loss) if not node.inputs]
    constants = len(leaves) - parameters
    if count == expected - parameters:
        return failed(
            f"{count} leaves out the {parameters} parameters; hint: weights and biases are leaves of the graph too"
        )
    if constants and count == expected - constants:
        return failed(
            f"{count} leaves out {constants} constant leaves: a plain number meeting a Value becomes a leaf of its "
            "own, such as each target t in (p − t), and sum() starts from the number 0"
        )
    if count == expected - len(leaves):
        return failed(
            f"{count} counts only the nodes operations made; add the {len(leaves)} leaves: the {parameters} "
            f"parameters and {constants} constants"
        )
    if count == edges:
        return failed(f"{count} is the number of edges (graph_size gives nodes, then edges); count the nodes")
    if count == graph_size(_step_graph([4, 4, 1])[1])[0]:
        return failed(f"{count} is the count for the lesson's MLP(3, [4, 4, 1]); this exercise's network is "
                      "MLP(3, [8, 8, 1])")
    if count == _c_port_node_count(3, [8, 8, 1], 4):
        return failed(f"{count} is the count for the C port's unfused neurons; hint: our neurons are one w·x+b node each")
    return failed(
        f"{count} is not it; hint: count the parameters, then per sample one node per neuron's w·x+b, "
        "one per tanh, the nodes of one squared error, and finally the nodes that add the errors up"
    )


# -- exercise 2: the C port's count as a formula -------------------------------------


def _c_port_node_count(nin, nouts, n_samples):
    """Nodes of one training step as the C arena port builds it, by a closed formula.

    Its neuron makes one * and one + per input and a tanh unless it is in the
    last layer; each sample adds its inputs, its target, a −1 constant with a *
    and a + for the subtraction, a * for the square and a + into the loss,
    which starts from one zero node.
    """
    sizes = [nin, *nouts]
    parameters = sum(nout * (n + 1) for n, nout in zip(sizes, nouts))
    last = len(nouts) - 1
    forward = sum(nout * (2 * n + (i < last)) for i, (n, nout) in enumerate(zip(sizes, nouts)))
    per_sample = nin + forward + 1 + 2 + 1 + 1 + 1
    return parameters + 1 + n_samples * per_sample


_ARCHITECTURES = [(3, [4, 4, 1], 4), (2, [3, 1], 1), (1, [1], 3), (4, [5, 2, 1], 2), (3, [4, 4, 1], 1)]


@checker("Exercise 2: the C port's node count, for any MLP")
def c_port_formula(count_nodes):
    """``count_nodes(nin, nouts, n_samples)`` must match the C port's graph for any MLP."""
    for nin, nouts, n_samples in _ARCHITECTURES:
        expected = _c_port_node_count(nin, nouts, n_samples)
        got = count_nodes(nin, list(nouts), n_samples)
        samples = f"{n_samples} sample{'s' if n_samples > 1 else ''}"
        problem = whole_number_problem(got, f"for MLP({nin}, {nouts}) on {samples} it returns",
                                       "return the count, a whole number")
        if problem:
            return failed(problem)
        if as_whole_number(got) != expected:
            where = f"MLP({nin}, {nouts}) on {samples}"
            if (nin, nouts, n_samples) == (3, [4, 4, 1], 4):
                hint = "start from the lesson's breakdown of the 366 nodes and turn each count into a formula"
            else:
                hint = (
                    "it works for the lesson's network but not for this one: check what depends on the layer "
                    "sizes (the output layer has no tanh) and what depends on the number of samples"
                )
            return failed(f"it gives {got!r} for {where}, but the C port's graph has {expected} nodes; hint: {hint}")
    return passed("your formula matches the C port's graphs for every network tried")


# -- exercise 3: fuse the loss -------------------------------------------------------

_PREDICTIONS = [0.8, -0.35, 1.6, -1.2]
_TARGETS = [1.0, -1.0, -1.0, 1.0]


@checker("Exercise 3: a fused sum of squares")
def fused_loss(loss_fn):
    """``loss_fn(predictions, targets)`` must be Σ (p − t)² as ONE node over the predictions."""
    predictions = [Value(p) for p in _PREDICTIONS]
    out = loss_fn(predictions, list(_TARGETS))
    if not isinstance(out, Value):
        return failed(f"it returned {class_name(out)}, not {value_wanted(out)}; hint: make the node with "
                      "Value.from_op")
    expected = sum((p - t) ** 2 for p, t in zip(_PREDICTIONS, _TARGETS))
    if math.isclose(out.data, expected / len(predictions), rel_tol=1e-9):
        return failed(f"the loss is {out.data:g}, the mean of the squared errors; this exercise fuses their sum, as "
                      f"sum_of_squares computes it: Σ (p − t)² = {expected:g}")
    if not math.isclose(out.data, expected, rel_tol=1e-9):
        return failed(f"the loss is {out.data:g}, but Σ (p − t)² = {expected:g}; hint: get the forward value right first")
    nodes = graph_size(out)[0]
    if nodes != len(predictions) + 1 or set(map(id, out.inputs)) != set(map(id, predictions)):
        unfused = graph_size(sum_of_squares(predictions, _TARGETS))[0]
        return failed(
            f"its graph has {nodes} nodes (sum_of_squares makes {unfused}); the fused loss is one node whose "
            f"inputs are the {len(predictions)} predictions, {len(predictions) + 1} nodes in all; hint: one "
            "Value.from_op call, with one local derivative per prediction"
        )
    report = gradcheck(lambda *ps: loss_fn(list(ps), list(_TARGETS)), _PREDICTIONS)
    if not report.ok:
        row = report.failures[0]
        return failed(
            f"backward() gives {row.analytic:g} for prediction {row.name[1:]}, but the measured slope is "
            f"{row.numeric:g}; hint: differentiate (p − t)² with respect to p"
        )
    return passed(f"{nodes} nodes instead of {graph_size(sum_of_squares(predictions, _TARGETS))[0]}, same loss, same gradients")
