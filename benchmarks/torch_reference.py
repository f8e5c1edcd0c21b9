"""The same two workloads in PyTorch (float64 tensors): what vectorising buys.

* ``--workload demo``: Karpathy's demo loop with the whole batch as tensors,
  the same data, the same initial weights (drawn from ``random`` in the order
  micrograd's MLP draws them) and the same loss and learning-rate schedule.
* ``--workload mnist``: the MLP 784-30-10 of ``mnist_shaped.py``, one sample
  at a time, same data, same initial weights, same loss and update.

PyTorch runs on one thread, like the Python engines.

    python benchmarks/torch_reference.py --workload demo --steps 10
    python benchmarks/torch_reference.py --workload mnist --samples 500
"""

import argparse
import random
import time

import torch

from figures import emit


def mlp_weights(nin, nouts):
    """(W, b) per layer as micrograd's MLP draws them: row by row, biases zero."""
    layers = []
    for fan_in, fan_out in zip([nin] + nouts, nouts):
        rows = [[random.uniform(-1, 1) for _ in range(fan_in)] for _ in range(fan_out)]
        weight = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
        bias = torch.zeros(fan_out, dtype=torch.float64, requires_grad=True)
        layers.append((weight, bias))
    return layers


def forward(layers, x):
    """ReLU hidden layers, a linear output layer."""
    for i, (weight, bias) in enumerate(layers):
        x = x @ weight.T + bias
        if i < len(layers) - 1:
            x = x.relu()
    return x


def sgd(layers, learning_rate):
    with torch.no_grad():
        for weight, bias in layers:
            for p in (weight, bias):
                p -= learning_rate * p.grad
                p.grad = None


def demo(steps):
    import numpy as np
    from sklearn.datasets import make_moons

    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y*2 - 1
    X = torch.tensor(X, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    layers = mlp_weights(2, [16, 16, 1])

    losses, accuracies, seconds = [], [], []
    for k in range(steps):
        start = time.process_time()
        scores = forward(layers, X).squeeze(1)
        data_loss = (1 - y * scores).relu().mean()
        reg_loss = 1e-4 * sum((p * p).sum() for layer in layers for p in layer)
        total_loss = data_loss + reg_loss
        accuracy = ((y > 0) == (scores > 0)).double().mean()
        total_loss.backward()
        sgd(layers, 1.0 - 0.9*k/100)
        seconds.append(time.process_time() - start)
        losses.append(total_loss.item())
        accuracies.append(accuracy.item())
    emit(losses=losses, accuracies=accuracies, seconds=seconds)


def mnist(samples):
    from mnist_shaped import CLASSES, FEATURES, HIDDEN, LEARNING_RATE, synthetic_samples

    data = synthetic_samples(samples)
    random.seed(0)
    layers = mlp_weights(FEATURES, [HIDDEN, CLASSES])
    inputs = [torch.tensor(x, dtype=torch.float64) for x, _ in data]  # a data loader's job
    targets = [torch.nn.functional.one_hot(torch.tensor(label), CLASSES).double() for _, label in data]

    losses, seconds = [], []
    for x, target in zip(inputs, targets):
        start = time.process_time()
        loss = ((forward(layers, x) - target) ** 2).sum()
        loss.backward()
        sgd(layers, LEARNING_RATE)
        losses.append(loss.item())
        seconds.append(time.process_time() - start)
    emit(seconds=seconds, first_loss=losses[0], last_loss=losses[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=["demo", "mnist"], required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--samples", type=int, default=500)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.workload == "demo":
        demo(args.steps)
    else:
        mnist(args.samples)


if __name__ == "__main__":
    main()
