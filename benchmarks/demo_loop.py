"""Karpathy's demo.ipynb training loop, exactly as its user wrote it, timed.

This file runs under either engine: whichever package called ``micrograd``
the interpreter finds.  ``run_all.py`` runs it once with this project and once
in the environment that holds micrograd 0.1.0 from PyPI, each in a fresh
process, and compares the two.  It prints one JSON object: the loss and
accuracy of every step, the CPU seconds every step took, and which micrograd
ran.

    python benchmarks/demo_loop.py --steps 10
    python benchmarks/demo_loop.py --steps 10 --freeze-gc   # explanatory variant
"""

import argparse
import gc
import time

from figures import emit


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="optimisation steps to run (the demo runs 100)")
    parser.add_argument(
        "--freeze-gc",
        action="store_true",
        help="call gc.freeze() after the imports, so the cyclic collector stops "
        "re-examining the objects numpy and scikit-learn created (not the demo as written)",
    )
    return parser.parse_args()


def main():
    args = parse_args()

    # demo.ipynb, first cells
    import random
    import numpy as np
    from micrograd.engine import Value
    from micrograd.nn import Neuron, Layer, MLP  # noqa: F401  (the demo's import line)
    from sklearn.datasets import make_moons, make_blobs  # noqa: F401

    if args.freeze_gc:
        gc.freeze()

    np.random.seed(1337)
    random.seed(1337)

    X, y = make_moons(n_samples=100, noise=0.1)
    y = y*2 - 1 # make y be -1 or 1

    model = MLP(2, [16, 16, 1]) # 2-layer neural network

    # loss function
    def loss(batch_size=None):

        # inline DataLoader :)
        if batch_size is None:
            Xb, yb = X, y
        else:
            ri = np.random.permutation(X.shape[0])[:batch_size]
            Xb, yb = X[ri], y[ri]
        inputs = [list(map(Value, xrow)) for xrow in Xb]

        # forward the model to get scores
        scores = list(map(model, inputs))

        # svm "max-margin" loss
        losses = [(1 + -yi*scorei).relu() for yi, scorei in zip(yb, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        # L2 regularization
        alpha = 1e-4
        reg_loss = alpha * sum((p*p for p in model.parameters()))
        total_loss = data_loss + reg_loss

        # also get accuracy
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    losses, accuracies, seconds = [], [], []
    # optimization
    for k in range(args.steps):
        start = time.process_time()

        # forward
        total_loss, acc = loss()

        # backward
        model.zero_grad()
        total_loss.backward()

        # update (sgd)
        learning_rate = 1.0 - 0.9*k/100
        for p in model.parameters():
            p.data -= learning_rate * p.grad

        seconds.append(time.process_time() - start)
        losses.append(float(total_loss.data))
        accuracies.append(float(acc))

    emit(losses=losses, accuracies=accuracies, seconds=seconds)


if __name__ == "__main__":
    main()
