"""Checkers for lesson 5, neurons, layers and MLPs.

Parameter and node counts are taken from real models built here (their
``parameters()`` and ``graph_size``), and a neuron's output from ``math``,
so the expected answers never come from the learner's own formula.
"""

import math

from micrograd.data import four_samples
from micrograd.engine import Value, graph_size
from micrograd.nn import MLP, Layer, Neuron
from .build import attempt, check_classes, is_value_like, nodes_below, inputs_of, still_stub
from micrograd.course.verdicts import fmt, as_number, as_whole_number, checker, close, failed, number_problem, passed, whole_number_problem

__all__ = ["my_mlp", "parameter_count", "neuron_nodes", "neuron_output"]


def _whole_number_problem(what, answer):
    return whole_number_problem(answer, what, "a count is a whole number, e.g. 41")


# Build it yourself, part 4: Neuron, Layer, MLP ----------------------------------

_X = [2.0, 3.0, -1.0]


def _fill(parameters, offset=0):
    """Give parameters fixed, distinct values in (-1, 1), in order."""
    for k, p in enumerate(parameters):
        p.data = 0.9 * math.sin(1.7 * (k + offset) + 0.3)


def _value_problem(out, what):
    if is_value_like(out):
        return None
    if out is None:
        return f"{what} returns None; return the output Value"
    return f"{what} returns {type(out).__name__}; return a Value (built from the parameters) so backward() can reach them"


def _nn_untouched(neuron, layer, mlp):
    return all(still_stub(make) for make in (lambda: neuron(3)(_X), lambda: layer(3, 4), lambda: mlp(3, [4, 4, 1])))


@checker("Build it: Neuron, Layer and MLP")
def my_mlp(neuron_cls, layer_cls, mlp_cls):
    return check_classes((neuron_cls, layer_cls, mlp_cls), "check.my_mlp(MyNeuron, MyLayer, MyMLP)",
                         _nn_untouched, _check_nn, "MyNeuron, MyLayer and MyMLP")


def _parameters(obj, name):
    params = attempt(f"{name}.parameters", obj.parameters)
    if not isinstance(params, (list, tuple)):
        return None, f"{name}.parameters() returns {type(params).__name__}; return a list of Values"
    params = list(params)
    strangers = [p for p in params if not is_value_like(p)]
    if strangers:
        return None, (f"{name}.parameters() holds a {type(strangers[0]).__name__}, which is not a Value; list the "
                      "Values themselves (self.w and self.b), not their numbers")
    if len({id(p) for p in params}) != len(params):
        repeated = [p for k, p in enumerate(params) if any(p is q for q in params[:k])]
        parts = [getattr(obj, attr) for attr in ("neurons", "layers") if isinstance(getattr(obj, attr, None), list)]
        shared = any(len({id(x) for x in part}) != len(part) for part in parts)
        if shared or len(repeated) > 1:
            return None, (f"{name}.parameters() lists a Value twice: the same neuron (or layer) is in it more than "
                          "once, so its parameters are shared. Make each with a call of its own, "
                          "[MyNeuron(nin) for _ in range(nout)], not [MyNeuron(nin)] * nout")
        return None, f"{name}.parameters() lists a Value twice; each parameter once"
    return params, None


def _fails_on_its_own_values(neuron_cls, kind):
    """Why a neuron right on plain numbers fails in a second layer, whose inputs are values of its own class,
    or None if it takes those too."""
    try:
        neuron_cls(3)([kind(v) for v in _X])
        return None
    except Exception:
        pass
    name = kind.__name__
    said = (f"MyNeuron takes plain numbers, but not {name}s, and the next layer's inputs are the first layer's "
            f"outputs, {name}s")
    try:
        wrapped = kind(kind(0.5)).data
    except Exception:
        wrapped = None
    if is_value_like(wrapped):  # kind(xi) on a value: a value inside a value
        return (f"{said}: {name}(xi) puts one inside another, whose .data is then not a number. Wrap plain numbers "
                f"only, xi if isinstance(xi, {name}) else {name}(xi), or let __mul__ and __add__ take numbers")
    return f"{said}: multiply each weight by its input as it comes, wrapping only plain numbers"


def _plain_number_error(error):
    """Did a learner's value class fail on a plain number operand (x holds floats)?"""
    text = str(error)
    return ("'float' object has no attribute" in text or "'int' object has no attribute" in text
            or "unsupported operand type" in text)


# What MyMLP(nin, nouts) has when a layer is built wrong, by the sizes: each slip's count and what it is.
_MLP_COUNT_SLIPS = (
    (lambda nin, nouts: sum((nin + 1) * n for n in nouts),
     "every layer is made with {nin} inputs. Each layer takes the previous layer's outputs: "
     "sizes = [nin] + nouts, then MyLayer(sizes[i], sizes[i + 1])"),
    (lambda nin, nouts: sum(k * n for k, n in zip([nin] + nouts, nouts)), "that is the weights alone; each neuron has a bias too"),
    (lambda nin, nouts: sum((k + 1) * n for k, n in zip([nin] + nouts, nouts[:-1])),
     "the last layer is missing: one MyLayer per entry of nouts, the last one too"),
    (lambda nin, nouts: sum(k * n + 1 for k, n in zip([nin] + nouts, nouts)),
     "one bias per layer; each neuron has its own"),
)


def _mlp_count_problem(count, mlp_cls):
    """Why MyMLP(3, [4, 4, 1]) has count parameters instead of 41, as a message."""
    say = f"MyMLP(3, [4, 4, 1]) has {count} parameters, expected (3+1)·4 + (4+1)·4 + (4+1)·1 = 41"
    try:  # a second shape tells apart slips that give the same count on the first
        other = len(list(mlp_cls(2, [3, 5, 1]).parameters()))
    except Exception:
        other = None
    for slip, why in _MLP_COUNT_SLIPS:
        if slip(3, [4, 4, 1]) == count and other in (None, slip(2, [3, 5, 1])):
            return f"{say}: {why.format(nin=3)}"
    return f"{say}; is there one MyLayer per entry of nouts, each fed by the one before?"


def _check_nn(neuron_cls, layer_cls, mlp_cls):
    # One neuron, with parameters the checker sets.
    n = neuron_cls(3)
    params, problem = _parameters(n, "MyNeuron")
    if problem:
        return failed(problem)
    if len(params) != 4:
        return failed(f"MyNeuron(3).parameters() has {len(params)} entries; a neuron with 3 inputs has 3 weights and a bias")
    for p, v in zip(params, (0.5, -0.25, 1.0, 0.1)):
        p.data = v
    try:
        out = attempt("MyNeuron.__call__", lambda: n(_X))
    except (AttributeError, TypeError) as error:
        if not _plain_number_error(error):
            raise
        kind = type(params[0]).__name__
        return failed(f"MyNeuron(3)(x) on x = [2.0, 3.0, -1.0] raised {type(error).__name__}: {error}. The inputs are "
                      f"plain numbers, and your {kind} can't be multiplied by one: wrap each plain number, "
                      f"xi if isinstance(xi, {kind}) else {kind}(xi) (the next layer's inputs are {kind}s already), "
                      f"or let __mul__ and __add__ take numbers (other = other if isinstance(other, {kind}) else "
                      f"{kind}(other))")
    problem = _value_problem(out, "MyNeuron(3)(x)")
    if problem:
        return failed(problem)
    w, b = [Value(v) for v in (0.5, -0.25, 1.0)], Value(0.1)
    act = b
    for wi, xi in zip(w, _X):
        act = act + wi * xi
    want = act.tanh().data
    if not close(out.data, want, 1e-9):
        setting = "with w = [0.5, -0.25, 1.0], b = 0.1 (the order of parameters()) on x = [2, 3, -1]"
        if close(out.data, act.data, 1e-9):
            return failed(f"MyNeuron {setting} gives {fmt(out.data)} = w·x + b: apply tanh to it")
        if close(out.data, math.tanh(act.data - 0.1), 1e-9):
            return failed(f"MyNeuron {setting} gives {fmt(out.data)} = tanh(w·x): add the bias before the tanh")
        return failed(f"MyNeuron {setting} gives {fmt(out.data)}; tanh(w·x + b) is {fmt(want)}. "
                      "Is parameters() the weights in order, then the bias?")
    below = {id(node) for node in nodes_below(out, inputs_of)}
    if not all(id(p) in below for p in params):
        return failed("the neuron's output is right but backward() does not reach its parameters: build it from "
                      "the Values self.w and self.b, not from their .data")
    if isinstance(out, Value):  # the package's own backward() too: every parameter gets its gradient
        out.backward()
        if not all(close(p.grad, g, 1e-9) for p, g in zip(params, [x * (1 - want**2) for x in _X] + [1 - want**2])):
            return failed("the neuron's output is right but backward() does not give its parameters their gradients: "
                          "build it from the Values self.w and self.b, with * and +")

    # A layer, compared with the package's Layer holding the same parameters.
    layer = attempt("MyLayer.__init__", lambda: layer_cls(3, 4))
    params, problem = _parameters(layer, "MyLayer")
    if problem:
        return failed(problem)
    if len(params) != 16:
        return failed(f"MyLayer(3, 4).parameters() has {len(params)} entries; 4 neurons with 3 weights and a bias each make 16")
    starts = [tuple(as_number(p) for p in params[k:k + 4]) for k in range(0, 16, 4)]
    if len(set(starts)) == 1:
        # Checked before the checker sets the numbers: neurons that start alike get alike gradients and stay alike.
        shown = ", ".join(f"{v:.3g}" for v in starts[0])
        return failed(f"the 4 neurons of a new MyLayer(3, 4) all start with the same parameters ({shown}): each then "
                      "gets the same gradient and stays the same, so the layer learns no more than one neuron. Does "
                      "each MyNeuron reset the random numbers (random.seed) or start from fixed numbers? Each weight "
                      "needs its own draw, Value(random.uniform(-1, 1)), as the template gives")
    _fill(params)
    ref = Layer(3, 4, activation="tanh", rng=0)
    _fill(ref.parameters())
    outs = attempt("MyLayer.__call__", lambda: layer(_X))
    if not isinstance(outs, (list, tuple)) or len(outs) != 4:
        return failed(f"MyLayer(3, 4)(x) returns {outs!r:.60}; return a list with one output per neuron (4)")
    want = [v.data for v in ref.outputs(_X)]
    for k, (o, w_) in enumerate(zip(outs, want)):
        if not is_value_like(o) or not close(o.data, w_, 1e-9):
            return failed(f"MyLayer(3, 4)(x): neuron {k} gives {fmt(o)}, the package's Layer with the same parameters "
                          f"gives {fmt(w_)}. Is parameters() neuron by neuron, each neuron's weights then its bias?")

    # The lecture's MLP(3, [4, 4, 1]), compared on the four samples.
    model = attempt("MyMLP.__init__", lambda: mlp_cls(3, [4, 4, 1]))
    params, problem = _parameters(model, "MyMLP")
    if problem:
        return failed(problem)
    if len(params) != 41:
        return failed(_mlp_count_problem(len(params), mlp_cls))
    _fill(params, offset=5)
    ref = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=0)
    _fill(ref.parameters(), offset=5)
    linear_out = MLP(3, [4, 4, 1], activation="tanh", output_activation=None, rng=0)
    _fill(linear_out.parameters(), offset=5)
    xs, _ = four_samples()
    kind = type(params[0])
    for x in xs:
        try:
            got = attempt("MyMLP.__call__", lambda: model(x))
        except (AttributeError, TypeError) as error:
            problem = _fails_on_its_own_values(neuron_cls, kind)
            if problem is None:
                raise
            return failed(f"MyMLP(3, [4, 4, 1])({x}) raised {type(error).__name__}: {error}. {problem}")
        if isinstance(got, (list, tuple)) and len(got) == 1 and is_value_like(got[0]):
            return failed(f"MyMLP(3, [4, 4, 1])({x}) returns a list holding its one output; return the output itself "
                          "when a layer has one neuron (in MyLayer: outs[0] if len(outs) == 1 else outs): the lessons "
                          "call net(x).backward() and put net(x) in a loss, which a list can't do")
        problem = _value_problem(got, f"MyMLP(3, [4, 4, 1])({x})")
        if problem:
            return failed(problem)
        want = ref(x).data
        if not close(got.data, want, 1e-9):
            if close(got.data, linear_out(x).data, 1e-9):
                return failed(f"on x = {x} your MLP gives {fmt(got)} = the package's with a linear last layer; the "
                              "lecture's MLP applies tanh in every layer, the last one too")
            return failed(f"on x = {x} your MLP gives {fmt(got)}; the package's MLP(3, [4, 4, 1]) with tanh and the "
                          f"same 41 parameters gives {fmt(want)}. Does each layer take the previous layer's outputs?")
    return passed("41 parameters, and with the same weights your MLP gives the package's outputs on all four samples")


# Ways to count an MLP's parameters wrong, by the sizes, and what each one misses.  A slip is named only
# when it gives the learner's numbers on every shape tried: on (3, [4, 4, 1]) "no last layer" and "one
# weight per model input" both give 36.
_COUNT_SLIPS = (
    (lambda sizes: sum(a * b for a, b in zip(sizes, sizes[1:])), "the weights only: every neuron also has a bias"),
    (lambda sizes: sum(a * b for a, b in zip(sizes, sizes[1:])) + len(sizes) - 1,
     "one bias per layer, but each neuron has its own"),
    (lambda sizes: sum((sizes[0] + 1) * n for n in sizes[1:]),
     "a layer's neurons have one weight per output of the layer before, not per model input"),
    (lambda sizes: sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:-1])),
     "the last layer is left out: count every entry of nouts, the last one too"),
    (lambda sizes: sum((a + 1) * b for a, b in zip(sizes[1:], sizes[2:])),
     "the first layer is left out: it takes the nin inputs"),
)


@checker("Exercise 1: parameter_count(nin, nouts)")
def parameter_count(count):
    if not callable(count):
        return failed(f"pass the function itself (check.parameter_count(parameter_count)), not {type(count).__name__}")
    shapes = [(3, [4, 4, 1]), (2, [16, 16, 1]), (5, [1]), (1, [3, 2])]
    results = []
    for nin, nouts in shapes:
        result = count(nin, list(nouts))
        problem = _whole_number_problem(f"parameter_count({nin}, {nouts}) returns", result)
        if problem:
            return failed(problem)
        results.append(as_whole_number(result))
    for (nin, nouts), result in zip(shapes, results):
        expected = len(MLP(nin, nouts, rng=0).parameters())
        if result == expected:
            continue
        call = f"parameter_count({nin}, {nouts})"
        for slip, why in _COUNT_SLIPS:
            if all(slip([n] + list(o)) == r for (n, o), r in zip(shapes, results)):
                return failed(f"{call} gives {result}: {why}")
        return failed(f"{call} gives {result}, not the number of parameters; hint: a neuron with k inputs has k weights and a bias")
    return passed("a layer of nout neurons with nin inputs each has (nin + 1) · nout parameters; add them up")


@checker("Exercise 2: the nodes of one neuron's forward pass")
def neuron_nodes(answer):
    problem = _whole_number_problem("your answer is", answer)
    if problem:
        return failed(problem)
    answer = as_whole_number(answer)
    nin = 5
    weights = [Value(0.1 * k - 0.2) for k in range(nin)]
    bias = Value(0.3)
    inputs = [0.5] * nin
    act = bias  # the lecture's neuron: the bias, then one product and one sum per input
    for w, x in zip(weights, inputs):
        act = act + w * x
    expected, _ = graph_size(act.tanh())
    # The same neuron written sum(w*x for ...) + b: sum() starts from the number 0 (one more constant
    # leaf), and the bias comes in through one more sum.
    zero_start = expected + 2
    if answer == expected:
        return passed(f"{expected} nodes: {nin} weights, the bias, {nin} constants for the plain inputs, "
                      f"{nin} products, {nin} sums and the tanh")
    if answer == zero_start:
        return passed(f"{answer} nodes, for a neuron written sum(w*x for ...) + b: sum() starts from 0, a constant "
                      f"leaf of its own, and the bias is added by one more sum. The lecture's neuron starts the sum "
                      f"from the bias and makes {expected}: {nin} weights, the bias, {nin} constants, {nin} products, "
                      f"{nin} sums and the tanh")
    if answer in (expected - nin, zero_start - nin):
        return failed(f"{answer} leaves out the inputs: a plain number multiplied by a Value becomes a constant leaf of its own")
    if answer == expected + 1:
        return failed(f"{answer} is one more than the lecture's neuron ({expected}: the sum starts from the bias, so one "
                      f"sum per input) and one less than a neuron written sum(w*x for ...) + b ({zero_start}: sum() "
                      "starts from a constant 0, then one more sum adds the bias)")
    if answer == expected - 1:
        return failed(f"{answer} is one short: count the bias leaf and the tanh node as well")
    fused, _ = graph_size(Neuron(nin, activation="tanh", rng=0)(inputs))
    if answer == fused:
        return failed(f"{answer} is the package's Neuron, which makes w·x+b one node (lesson 10); count the neuron built from * and +")
    return failed(f"{answer} is not it; hint: list the Values one call makes: parameters, constants, products, sums, the tanh")


@checker("Exercise 3: neuron_output(w, x, b)")
def neuron_output(output):
    if not callable(output):
        return failed(f"pass the function itself (check.neuron_output(neuron_output)), not {type(output).__name__}")
    cases = [
        ([0.5, -0.25, 1.0], [2.0, 3.0, -1.0], 0.1),
        ([1.0], [0.3], -0.2),
        ([-0.7, 0.2], [1.5, -2.0], 0.4),
    ]
    for w, x, b in cases:
        total = math.fsum([b] + [wi * xi for wi, xi in zip(w, x)])
        expected = math.tanh(total)
        result = output(list(w), list(x), b)
        call = f"neuron_output({w}, {x}, {b})"
        problem = number_problem(result, f"{call} returns", "return one number, tanh(w·x + b)")
        if problem:
            return failed(problem)
        result = as_number(result)
        if close(result, expected, 1e-6):  # not tighter: np.float32 keeps about 7 digits
            continue
        if close(result, total, 1e-9):
            return failed(f"{call} returns w·x + b = {total:.4f}; the neuron squashes it with tanh")
        if close(result, math.tanh(total - b), 1e-9):
            return failed(f"{call} leaves out the bias b")
        if close(result, math.tanh(sum(w) * sum(x) + b), 1e-9):
            return failed(f"{call}: multiply each weight by its own input, then add those products")
        return failed(f"{call} returns {result:.6g}, not tanh(w·x + b); hint: w·x is Σ w_i x_i")
    return passed("tanh(w·x + b): what every neuron of an MLP computes")
