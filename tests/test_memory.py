"""Graphs hold no reference cycles, and a node costs a bounded number of bytes."""

import gc
import math
import tracemalloc
from contextlib import contextmanager

from micrograd import MLP, Value
from micrograd.engine import dot, graph_size, topological_order

# A Value with __slots__, its inputs tuple and its local-derivative tuple cost
# about 130-240 bytes a node.  A regression to closures or per-node dicts
# costs several times that; this bound catches it without being a benchmark.
BYTES_PER_NODE_BOUND = 500


@contextmanager
def gc_disabled():
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _every_op_graph():
    a, b = Value(1.5, "a"), Value(-0.5, "b")
    s = a + a  # a reused node
    t = s + s
    u = (a * b - b / a + 2 ** b + a**b + b**2 - (-a)).tanh()
    v = u.exp().log() + b.relu() + a.sigmoid() + (1 - a) * 3 / (a + 4)
    w = dot([a, b, a], [u, v, 2.0], t)
    custom = Value.from_op(math.sin(w.data), (w, a), (math.cos(w.data), 0.0), "sin")
    return custom * w + t


def values_alive():
    """How many Values exist: the collector lists every Value even while it is disabled."""
    return sum(type(o) is Value for o in gc.get_objects())


def test_dropping_the_root_frees_every_node_with_gc_disabled():
    with gc_disabled():
        before = values_alive()
        root = _every_op_graph()
        root.backward()
        assert values_alive() - before == len(topological_order(root)) > 30
        del root
        assert values_alive() == before


def test_a_training_step_leaves_only_the_parameters():
    with gc_disabled():
        model = MLP(3, [4, 4, 1], rng=0)
        xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
        ys = [1.0, -1.0, -1.0, 1.0]
        loss = sum((model([Value(x) for x in row]) - y) ** 2 for row, y in zip(xs, ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
        before = values_alive() - len(topological_order(loss))
        del loss
        assert values_alive() == before + 41  # the parameters, nothing else
        del model, p
        assert values_alive() == before


def _bytes_per_node(build):
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        root = build()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    nodes, _ = graph_size(root)
    return nodes, (after - before) / nodes


def _mixed_graph(n_steps):
    """About 100 000 nodes of every kind: leaves, binary ops, unary ops, dot."""
    x = Value(0.1)
    for i in range(n_steps):
        w = Value(0.5 + (i % 7) / 10)
        y = (x * w + 0.25).tanh()
        x = dot([w, y], [x, 0.5], y.sigmoid()) - y.relu()
    return x


def test_a_hundred_thousand_node_graph_stays_small():
    nodes, per_node = _bytes_per_node(lambda: _mixed_graph(10_000))
    assert 90_000 <= nodes <= 110_000
    assert per_node < BYTES_PER_NODE_BOUND, f"{per_node:.0f} bytes per node"
