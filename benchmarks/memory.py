"""Bytes per graph node, measured with tracemalloc, under either engine.

Two graphs built by the same code in both engines:

* a tree: 2**14 inputs ``x``, each turned into ``x * 1.0001 + 0.5``, then
  summed in pairs down to one root.  Both engines make the same nodes for it
  (inputs, number constants, products, sums), so bytes per node compare like
  for like; measured as built and again after backward() has given every
  node a gradient.  (A tree rather than a long chain because micrograd
  0.1.0's backward() cannot go deeper than about 1 000 nodes.)
* the loss graph of one step of Karpathy's demo (the same user code; this
  project builds fewer, wider nodes for it, so the totals differ more than
  the per-node figures).

    python benchmarks/memory.py
"""

import gc
import random
import tracemalloc

from figures import emit
from micrograd.engine import Value
from micrograd.nn import MLP

INPUTS = 2**14
TREE_NODES = 6 * INPUTS - 1  # each input: itself, two constants, * and +; then INPUTS - 1 sums


def tree(n):
    level = [Value(float(i)) * 1.0001 + 0.5 for i in range(n)]
    while len(level) > 1:
        level = [a + b for a, b in zip(level[::2], level[1::2])]
    return level[0]


def count_nodes(root):
    """Nodes below root, walking ``_prev`` (a set of inputs in both engines)."""
    seen = {root}
    todo = [root]
    while todo:
        for child in todo.pop()._prev:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return len(seen)


def demo_data():
    """demo.ipynb's data and model, made before memory is counted."""
    import numpy as np
    from sklearn.datasets import make_moons

    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y*2 - 1
    return X, y, MLP(2, [16, 16, 1])


def demo_loss(X, y, model):
    """The loss of the first step of demo.ipynb."""
    inputs = [list(map(Value, xrow)) for xrow in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi*scorei).relu() for yi, scorei in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum((p*p for p in model.parameters()))
    return data_loss + reg_loss


def measured(build):
    """(result, bytes still allocated after build(), counted by tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    result = build()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return result, after - before


def main():
    root, built = measured(lambda: tree(INPUTS))
    nodes = count_nodes(root)
    if nodes != TREE_NODES:
        raise SystemExit(f"the tree has {nodes} nodes, expected {TREE_NODES}")

    # Gradients are part of a trained graph's memory too: measure after backward.
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    root.backward()
    gc.collect()
    grads = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del root
    gc.collect()

    X, y, model = demo_data()
    loss, demo_bytes = measured(lambda: demo_loss(X, y, model))
    emit(
        tree_nodes=nodes,
        tree_bytes_per_node=built / nodes,
        tree_bytes_per_node_after_backward=(built + grads) / nodes,
        demo_nodes=count_nodes(loss),
        demo_bytes=demo_bytes,
    )


if __name__ == "__main__":
    main()
