"""What backward()'s finite-gradient check costs, on the demo's loss graph.

After its loop, backward() adds up what each node passed down (its gradient
times the sum of its local derivatives, in one pass at C speed) and, only when
that total is not finite, looks for the edge whose gradient overflowed.  This
script times backward() against the same loop without the total, on fresh
copies of the same graph, alternating the two so that a busy machine slows
both alike, and prints the CPU time of each (best of the repeats).

    python benchmarks/gradient_check.py --repeats 30
"""

import argparse
import random
import time

from figures import emit
from micrograd.engine import Value, topological_order
from micrograd.nn import MLP


def demo_loss(model, X, y):
    inputs = [list(map(Value, xrow)) for xrow in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
    return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())


def backward_without_check(root):
    """Value.backward() as it would be without the finite-gradient check."""
    order = topological_order(root, leaves=False)
    for node in order:
        node.grad = 0.0
    root.grad += 1.0
    for node in reversed(order):
        upstream = node.grad
        if upstream == 0.0:
            continue
        for child, local in zip(node._inputs, node._local_grads):
            child.grad += local * upstream


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="graphs to time each way")
    args = parser.parse_args()

    rng = random.Random(1337)
    X = [[rng.uniform(-1.5, 2.5), rng.uniform(-1.0, 1.5)] for _ in range(100)]
    y = [1 if rng.random() < 0.5 else -1 for _ in X]
    model = MLP(2, [16, 16, 1], rng=1337)
    seconds = {"checked": [], "unchecked": []}
    for _ in range(args.repeats):
        for name, backward in (("checked", Value.backward), ("unchecked", backward_without_check)):
            loss = demo_loss(model, X, y)
            model.zero_grad()
            start = time.process_time()
            backward(loss)
            seconds[name].append(time.process_time() - start)
    checked, unchecked = min(seconds["checked"]), min(seconds["unchecked"])
    emit(backward_ms=1000 * checked, backward_without_check_ms=1000 * unchecked, check_cost=checked / unchecked - 1)


if __name__ == "__main__":
    main()
