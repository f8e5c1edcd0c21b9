"""A network drawn as layers of neurons rather than as a graph of Values.

One box per layer, one row per neuron: its bias, the range of its weights,
the largest |grad| among its parameters (from the last ``backward()``), and,
given an input sample, its output for that sample.  The drawing only reads
the model: it runs a forward pass when given a sample, never ``backward``.

Besides the package's ``MLP``, ``Layer`` and ``Neuron``, it draws a network
of your own made the lecture's way: an MLP with ``.layers``, a layer with
``.neurons``, a neuron with weights ``.w`` and a bias ``.b`` whose numbers
are in ``.data`` and ``.grad``.  A neuron without an ``activation`` attribute
is named by the operation its output was made by (``tanh``, ``ReLU``).
"""

from . import style
from .describe import Words
from .drawing import GraphDrawing, narrower
from .dotsource import GRAPH_NAME
from .options import PAGE_WIDTH_PX, RANKDIRS, check_page_width
from .labels import check_precision, format_number, html_text
from ..graphs import has_data
from ..nn import MLP, Layer, Neuron

INACTIVE_TEXT = style.INACTIVE_TEXT
ACTIVATION_NAMES = {"relu": "ReLU", "tanh": "tanh", "sigmoid": "sigmoid", None: "linear"}


def draw_model(model, x=None, *, precision=4, show_grad=True, rankdir="auto", max_rows=20, page_width=PAGE_WIDTH_PX):
    """Draw an MLP, Layer or Neuron as boxes of neurons (see the module docstring).

    ``x``: one input sample (a list of numbers or Values); each neuron then
    shows its output for it.  ``max_rows``: neurons listed per layer before
    the rest are summarised in one row.  ``rankdir``: ``'auto'`` (layers
    left to right, or top to bottom when that fits ``page_width`` CSS pixels
    better), ``'LR'``, ``'TB'``, ``'RL'`` or ``'BT'``.
    """
    layers = _layers(model)
    check_precision(precision)
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise ValueError(f"max_rows is how many neurons to list per layer, a whole number of at least 1, got {max_rows!r}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir is one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    check_page_width(page_width)
    nin = len(layers[0][0].w)
    outputs = _outputs(layers, x, nin)

    def fmt(value):
        return format_number(value, precision)

    def make(rankdir):
        body = [
            f'\tgraph [rankdir={rankdir} fontname="{style.FONT}" bgcolor="white" nodesep=0.3 ranksep=0.5]\n',
            f'\tnode [fontname="{style.FONT}" fontsize=11 shape=plain]\n',
            f'\tedge [color="{style.EDGE}" arrowsize=0.7]\n',
        ]
        if x is None:
            inputs = f"<B>{nin} inputs</B>"
        else:
            inputs = "<B>input</B><BR/>" + "<BR/>".join(fmt(_data(v)) for v in x[:max_rows])
            if len(x) > max_rows:
                inputs += f"<BR/>… {len(x) - max_rows} more"
        body.append(
            f'\tx [label=<{inputs}> shape=box style="rounded,filled" fillcolor="{style.ROLE_FILLS["input"]}" '
            f'color="{style.BORDER}" margin="0.15,0.08"]\n'
        )
        previous = "x"
        for i, neurons in enumerate(layers):
            last = i == len(layers) - 1
            table = _layer_table(i, neurons, outputs[i] if outputs else None, last, fmt, show_grad, max_rows)
            body.append(f"\tL{i} [label=<{table}>]\n")
            body.append(f"\t{previous} -> L{i}\n")
            previous = f"L{i}"
        drawing = GraphDrawing(name=GRAPH_NAME, body=body)
        drawing.value_count = sum(len(n.w) + 1 for neurons in layers for n in neurons)
        drawing.node_count = len(layers) + 1
        drawing.page_width = page_width
        drawing.rankdir = rankdir
        return drawing

    drawing = make(rankdir) if rankdir != "auto" else narrower(make("LR"), lambda: make("TB"))
    drawing.words = _words(layers, nin, outputs, fmt)
    return drawing


def _words(layers, nin, outputs, fmt):
    """The network in words: its layers in the name, each neuron's numbers in the description."""
    sizes = " → ".join(f"{len(neurons)} {_activation(neurons[0])}" for neurons in layers)
    count = sum(len(n.w) + 1 for neurons in layers for n in neurons)
    name = f"A network drawn as layers: {nin} inputs → {sizes} ({count} parameters)"
    lines = []
    for i, neurons in enumerate(layers):
        lines.append(f"layer {i}: {len(neurons)} {_activation(neurons[0])} neurons of {len(neurons[0].w)} inputs")
        for k, neuron in enumerate(neurons):
            weights = [_data(w) for w in neuron.w]
            line = f"  neuron {k}: bias {fmt(_data(neuron.b))}, weights {fmt(min(weights))} to {fmt(max(weights))}"
            if outputs is not None:
                line += f", output {fmt(outputs[i][k])}"
            lines.append(line)
    return Words(name, "\n".join(lines))


def _layers(model):
    """The model's neurons, layer by layer: the package's classes, or any made the same way."""
    if isinstance(model, MLP):
        return [layer.neurons for layer in model.layers]
    if isinstance(model, Layer):
        return [model.neurons]
    if isinstance(model, Neuron):
        return [[model]]
    try:
        if _is_neuron(model):
            return [[model]]
        if _is_layer(model):
            return [list(model.neurons)]
        layers = getattr(model, "layers", None)
        if isinstance(layers, (list, tuple)) and layers and all(map(_is_layer, layers)):
            return [list(layer.neurons) for layer in layers]
    except (AttributeError, TypeError):
        pass
    raise TypeError(
        f"draw_model draws an MLP, a Layer or a Neuron: the package's, or yours made the lecture's way "
        f"(an MLP's .layers, a layer's .neurons, a neuron's weights .w and bias .b, each with a number in .data); "
        f"got {type(model).__name__}, {_missing(model)}; for any graph of Values use draw_dot"
    )


def _missing(model):
    """What draw_model looked for in ``model`` and did not find, as the end of a sentence."""
    if hasattr(model, "layers"):
        layers = model.layers
        if not isinstance(layers, (list, tuple)) or not layers:
            return f"whose .layers is {'an empty list' if isinstance(layers, (list, tuple)) else type(layers).__name__}, not a list of layers"
        found = next(filter(None, (_missing_in_layer(layer, f".layers[{i}]") for i, layer in enumerate(layers))), None)
    elif hasattr(model, "neurons"):
        found = _missing_in_layer(model, "")
    elif hasattr(model, "w") or hasattr(model, "b"):
        found = _missing_in_neuron(model, "")
    else:
        return "which has none of .layers, .neurons, .w"
    if found is None:
        return "which it could not read as layers of neurons"
    path, problem = found
    return f"its {path} {problem}" if path else f"which {problem}"


def _missing_in_layer(layer, path):
    """(where, what is missing) in a layer at ``path`` (``.layers[0]``, or '' for the model), or None."""
    neurons = getattr(layer, "neurons", None)
    if not isinstance(neurons, (list, tuple)) or not neurons:
        return path, "has no .neurons" if neurons is None else "has .neurons that are not a non-empty list"
    return next(filter(None, (_missing_in_neuron(n, f"{path}.neurons[{j}]") for j, n in enumerate(neurons))), None)


def _missing_in_neuron(neuron, path):
    """(where, what is missing) in a neuron at ``path``, or None."""
    w, b = getattr(neuron, "w", None), getattr(neuron, "b", None)
    if not isinstance(w, (list, tuple)) or not w:
        return path, "has no .w" if w is None else "has a .w that is not a non-empty list of weights"
    for k, weight in enumerate(w):
        if not has_data(weight):
            return f"{path}.w[{k}]", f"has no number in .data (it is {type(weight).__name__})"
    if not has_data(b):
        return path, "has no .b" if b is None else f"has a .b with no number in .data (it is {type(b).__name__})"
    return None


def _is_neuron(obj):
    w, b = getattr(obj, "w", None), getattr(obj, "b", None)
    return isinstance(w, (list, tuple)) and len(w) > 0 and all(map(has_data, w)) and has_data(b)


def _is_layer(obj):
    neurons = getattr(obj, "neurons", None)
    return isinstance(neurons, (list, tuple)) and len(neurons) > 0 and all(map(_is_neuron, neurons))


def _activation(neuron):
    """The package's neuron says its activation; another is named by the op of its output."""
    if isinstance(neuron, Neuron) or hasattr(neuron, "activation"):
        return ACTIVATION_NAMES.get(neuron.activation, str(neuron.activation))
    try:
        out = neuron([0.0] * len(neuron.w))
    except Exception:  # noqa: BLE001 - the learner's code: the name is only a caption
        return "activation not known"
    op = str(getattr(out, "_op", None) or getattr(out, "op", None) or "")
    if op.lower() in ("+", ""):
        return "linear"
    return ACTIVATION_NAMES.get(op.lower(), op)


def _parameters(neuron):
    return list(neuron.w) + [neuron.b]


def _data(v):
    return v.data if hasattr(v, "data") else float(v)


def _outputs(layers, x, nin):
    """Each layer's outputs (as numbers) for sample x, or None without one."""
    if x is None:
        return None
    x = list(x)
    if len(x) != nin:
        raise ValueError(f"draw_model: the model takes {nin} inputs per sample, got a sample of {len(x)}")
    outputs = []
    for neurons in layers:
        x = [neuron(x) for neuron in neurons]
        outputs.append([v.data for v in x])
    return outputs


def _layer_table(i, neurons, outputs, last, fmt, show_grad, max_rows):
    kind = _activation(neurons[0])
    header_fill = style.ROLE_FILLS["output" if last else "parameter"]
    columns = ["neuron", "bias", "weights"]
    if show_grad:
        columns.append("largest |grad|")
    if outputs is not None:
        columns.append("output")
    rows = [
        f'<TR><TD COLSPAN="{len(columns)}" BGCOLOR="{header_fill}"><B>L{i}</B> · {len(neurons)} '
        f'{"neuron" if len(neurons) == 1 else "neurons"} · {html_text(kind)} · {len(neurons[0].w)} inputs each</TD></TR>',
        "<TR>" + "".join(f'<TD><FONT POINT-SIZE="9" COLOR="{style.NOTE_TEXT}">{c}</FONT></TD>' for c in columns) + "</TR>",
    ]
    for j, neuron in enumerate(neurons[:max_rows]):
        weights = [w.data for w in neuron.w]
        cells = [f"N{j}", fmt(neuron.b.data), f"{fmt(min(weights))} … {fmt(max(weights))}"]
        if show_grad:
            cells.append(fmt(max(abs(p.grad or 0.0) for p in _parameters(neuron))))
        if outputs is not None:
            # A ReLU at 0 passes no gradient back for this sample: grey it out.
            inactive = getattr(neuron, "activation", None) == "relu" and outputs[j] <= 0.0
            out = fmt(outputs[j])
            cells.append(f'<FONT COLOR="{INACTIVE_TEXT}">{out}</FONT>' if inactive else out)
        rows.append("<TR>" + "".join(f'<TD ALIGN="RIGHT">{c}</TD>' for c in cells) + "</TR>")
    if len(neurons) > max_rows:
        rows.append(f'<TR><TD COLSPAN="{len(columns)}">… {len(neurons) - max_rows} more neurons</TD></TR>')
    return (
        f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLOR="{style.BORDER}" '
        f'BGCOLOR="{style.ROLE_FILLS["intermediate"]}">{"".join(rows)}</TABLE>'
    )
