"""How long micrograd.viz takes to draw and render graphs of growing size.

For each graph (the moons demo's loss at four sizes, the largest being the
whole demo loss with micrograd 0.1.0's neurons, about 65 800 nodes) it prints:

- draw: building the DOT text with the default node budget (collapsing);
- render: turning that text into SVG with Graphviz's ``dot``;
- full DOT: building the DOT text of every node (``max_nodes=None``);
- full render: rendering that, for the graphs small enough to be worth it.

Then the backprop stepper's time per step, one Step click (each step redraws the graph), on
lesson 3's two graphs and on a graph with a hub (a 60-term polynomial by Horner's rule: 182
Values, ``x`` feeding every step), with each renderer this machine has: pygraphviz's bundled
Graphviz in the process, and the system's ``dot`` program.  Each is timed twice, side by side:
as the stepper draws (its graph laid out once, each step rendered at the kept positions:
``viz.KeptLayout``), and with the graph laid out afresh at every step, as before that.  The
hub's fresh layouts take seconds each, so that column times its first few steps only.

Times are the best of ``--repeat`` runs (the stepper's: the median step),
measured side by side in one process; no figure here is checked by a test.

    python benchmarks/bench_viz.py [--repeat 3] [--stepper-only]
"""

import argparse
import os
import pathlib
import shutil
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

from micrograd import Value, graph_size  # noqa: E402
from micrograd.viz import DEFAULT_MAX_NODES, draw_dot  # noqa: E402
from micrograd.viz.render import CHOICE_VARIABLE, renderer_name  # noqa: E402
from micrograd.widgets import BackpropStepper  # noqa: E402
from viz_graphs import moons_loss  # noqa: E402

GRAPHS = [
    ("~100 nodes: 2 samples, MLP(2, [4, 1])", dict(n_samples=2, sizes=(4, 1))),
    ("~1 000 nodes: 16 samples, MLP(2, [8, 8, 1])", dict(n_samples=16, sizes=(8, 8, 1))),
    ("~10 000 nodes: 14 samples, 0.1.0 neurons", dict(n_samples=14, scalar_neurons=True)),
    ("~65 000 nodes: the whole demo loss, 0.1.0 neurons", dict(n_samples=100, scalar_neurons=True)),
]
FULL_RENDER_LIMIT = 2000  # dot needs minutes on the bigger graphs drawn in full


def best_of(repeat, action):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return min(times), result


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is shown")
    parser.add_argument("--stepper-only", action="store_true", help="only the backprop stepper's time per step")
    return parser.parse_args()


def main(repeat):
    print(f"default budget: max_nodes={DEFAULT_MAX_NODES}; times in seconds, best of {repeat}")
    header = f"{'graph':52} {'values':>7} {'drawn':>6} {'draw':>7} {'render':>7} {'full DOT':>9} {'full render':>12}"
    print(header)
    print("-" * len(header))
    for title, options in GRAPHS:
        loss, model = moons_loss(**options)
        values = graph_size(loss)[0]
        draw_time, drawing = best_of(repeat, lambda: draw_dot(loss, model=model))
        render_time, _ = best_of(repeat, drawing.svg)
        full_time, full = best_of(repeat, lambda: draw_dot(loss, model=model, max_nodes=None))
        if values <= FULL_RENDER_LIMIT:
            full_render = f"{best_of(1, full.svg)[0]:12.3f}"
        else:
            full_render = f"{'(skipped)':>12}"
        print(
            f"{title:52} {values:7d} {drawing.node_count:6d} {draw_time:7.3f} {render_time:7.3f} "
            f"{full_time:9.3f} {full_render}"
        )


def lesson3_expression():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c, f = Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return L


def lesson3_neuron():
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    n = x1 * w1 + x2 * w2 + Value(6.8813735870195432, label="b")
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def horner_hub(terms=60):
    """A polynomial by Horner's rule, y = (…((1·x + c1)·x + c2)…)·x + c60: 182 Values, and x a hub
    feeding every multiplication, so its edges cross the whole drawing."""
    x = Value(0.5, label="x")
    y = Value(1.0)
    for i in range(terms):
        y = y * x + Value(0.1 * (i % 7) - 0.3)
    y.label = "y"
    return y


def stepper_step_ms(make, repeat, steps=None, kept=True):
    """Median milliseconds of one BackpropStepper step (its redraw included: one Step click), over
    ``repeat`` walks of the first ``steps`` steps (None: to the end).  ``kept=False``: the graph
    laid out afresh at every step."""
    times = []
    for _ in range(repeat):
        stepper = BackpropStepper(make())
        if not kept:
            stepper.layout = None  # graph_html then renders the drawing with its own layout
        while not stepper.done and (steps is None or stepper.position < steps):
            start = time.perf_counter()
            stepper.step()
            times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


STEPPED = [
    # title, graph, steps timed with the layout kept, steps timed laid out afresh (None: all)
    ("lesson 3 L", lesson3_expression, None, None),
    ("lesson 3 neuron", lesson3_neuron, None, None),
    ("hub (Horner, 182 values)", horner_hub, None, 4),
]


def stepper_section(repeat):
    renderers = [""] + (["dot"] if shutil.which("dot") else [])
    print()
    print(f"BackpropStepper, milliseconds per Step click (median step over {repeat} walks):")
    header = f"  {'renderer':44} {'graph':26} {'layout kept':>12} {'laid out each step':>19}"
    print(header)
    for choice in renderers:
        os.environ[CHOICE_VARIABLE] = choice
        name = renderer_name()
        for title, make, kept_steps, fresh_steps in STEPPED:
            if name == "dot":  # the system's dot lays out every step either way (see viz/layout.py)
                kept_steps = fresh_steps
            kept = stepper_step_ms(make, 1 if kept_steps else repeat, kept_steps)
            fresh = stepper_step_ms(make, 1 if fresh_steps else repeat, fresh_steps, kept=False)
            note = f" (first {fresh_steps})" if fresh_steps else ""
            print(f"  {name:44} {title:26} {kept:12.1f} {fresh:10.1f}{note:>9}", flush=True)
    os.environ.pop(CHOICE_VARIABLE, None)


if __name__ == "__main__":
    arguments = parse_arguments()
    if not arguments.stepper_only:
        main(arguments.repeat)
    stepper_section(max(3, arguments.repeat))
