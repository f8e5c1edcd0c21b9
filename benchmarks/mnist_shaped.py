"""Training throughput on MNIST-shaped data: an MLP 784-30-10, one sample at a time.

Runs under either engine, with code both understand: each step is a forward
pass, a squared-error loss against the one-hot target, backward() and a plain
SGD update.  The inputs are synthetic (784 numbers in [0, 1], plain floats as
a data loader gives them), which is all a throughput figure needs.
``--package-tools`` uses this project's ``cross_entropy`` and ``optim.SGD``
instead (this project only).  Prints the CPU seconds of every sample.

    python benchmarks/mnist_shaped.py --samples 500
"""

import argparse
import random
import time

from figures import emit
from micrograd.nn import MLP

FEATURES, HIDDEN, CLASSES = 784, 30, 10
LEARNING_RATE = 1e-4  # small: with uniform(-1, 1) weights the 784-input sums are large


def synthetic_samples(n, seed=0):
    rng = random.Random(seed)
    return [([rng.random() for _ in range(FEATURES)], rng.randrange(CLASSES)) for _ in range(n)]


def squared_error_step(model, parameters, x, label):
    scores = model(x)
    loss = sum((s - (1.0 if k == label else 0.0)) ** 2 for k, s in enumerate(scores))
    model.zero_grad()
    loss.backward()
    for p in parameters:
        p.data -= LEARNING_RATE * p.grad
    return loss.data


def package_tools_step(model, optimizer, x, label):
    from micrograd.losses import cross_entropy

    loss = cross_entropy(model(x), label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--package-tools", action="store_true", help="cross_entropy and optim.SGD (this project only)")
    args = parser.parse_args()

    data = synthetic_samples(args.samples)
    random.seed(0)
    model = MLP(FEATURES, [HIDDEN, CLASSES])
    parameters = model.parameters()
    if args.package_tools:
        from micrograd.optim import SGD

        optimizer = SGD(parameters, lr=LEARNING_RATE)

    losses, seconds = [], []
    for x, label in data:
        start = time.process_time()
        if args.package_tools:
            losses.append(package_tools_step(model, optimizer, x, label))
        else:
            losses.append(squared_error_step(model, parameters, x, label))
        seconds.append(time.process_time() - start)
    emit(seconds=seconds, first_loss=losses[0], last_loss=losses[-1])


if __name__ == "__main__":
    main()
