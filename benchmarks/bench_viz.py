"""How long drawing takes: DOT text for graphs of growing size, then SVG from dot.

Graphs of about 100, 1 000, 10 000 and 65 000 values, built like the lessons'
(MLPs on batches of samples, inputs as Values, squared-error loss).  Drawing
collapses what repeats down to the node budget, so Graphviz never sees more
than a few hundred nodes; rendering is the real ``dot`` program.  Prints a
table; asserts nothing.

    python benchmarks/bench_viz.py
"""

import random
import time

from micrograd import MLP, Value
from micrograd.engine import graph_size
from micrograd.viz import draw_dot

# (layer sizes, samples): chosen so the loss graphs hold about 100, 1k, 10k and 65k values.
SIZES = [([3, 4, 1], 2), ([2, 8, 8, 1], 4), ([2, 16, 16, 1], 15), ([2, 16, 16, 1], 100)]


def loss_graph(sizes, samples, rng):
    model = MLP(sizes[0], sizes[1:], rng=rng)
    batch = [[Value(rng.uniform(-1, 1)) for _ in range(sizes[0])] for _ in range(samples)]
    # Each multiplication in a neuron as its own node, as micrograd 0.1.0 builds it.
    loss = sum((_scalar_forward(model, x) - 1.0) ** 2 for x in batch)
    loss.backward()
    return loss, model


def _scalar_forward(model, x):
    for layer in model.layers:
        x = [_neuron(n, x) for n in layer.neurons]
    return x[0]


def _neuron(neuron, x):
    act = sum((w * xi for w, xi in zip(neuron.w, x)), neuron.b)
    return act.relu() if neuron.activation else act


def main():
    rng = random.Random(0)
    print(f"{'values':>8} {'drawn nodes':>12} {'DOT text (s)':>13} {'SVG via dot (s)':>16}")
    for sizes, samples in SIZES:
        loss, model = loss_graph(sizes, samples, rng)
        values, _ = graph_size(loss)
        start = time.perf_counter()
        drawing = draw_dot(loss, model=model)
        drawing.source  # the DOT text is built here
        drawn = time.perf_counter() - start
        start = time.perf_counter()
        drawing.pipe(format="svg")
        rendered = time.perf_counter() - start
        print(f"{values:>8,} {drawing.node_count:>12,} {drawn:>13.3f} {rendered:>16.3f}")


if __name__ == "__main__":
    main()
