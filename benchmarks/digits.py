"""Handwritten digits (scikit-learn's 8x8 set): test accuracy and training time.

An MLP 64-32-10 with tanh, trained one sample at a time with softmax
cross-entropy and SGD (learning rate falling linearly from 0.04 to 0.004)
for ten passes over the 1 347 training images, then scored on the 450 test
images.  Everything it uses comes from this package; it is seeded, so the
accuracy is the same on every run.

    python benchmarks/digits.py
"""

import random
import time

from figures import emit
from micrograd.data import digits
from micrograd.losses import cross_entropy
from micrograd.metrics import accuracy
from micrograd.nn import MLP
from micrograd.optim import SGD, linear_decay

EPOCHS = 10


def main():
    X_train, y_train, X_test, y_test = digits()
    model = MLP(64, [32, 10], activation="tanh", rng=0)
    optimizer = SGD(model.parameters(), lr=linear_decay(0.04, 0.004, EPOCHS * len(X_train)))
    shuffle = random.Random(0).shuffle
    order = list(range(len(X_train)))

    start = time.process_time()
    for _ in range(EPOCHS):
        shuffle(order)
        for i in order:
            loss = cross_entropy(model(X_train[i]), y_train[i])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    seconds = time.process_time() - start

    test_accuracy = accuracy([model(x) for x in X_test], y_test)
    emit(epochs=EPOCHS, train_samples=len(X_train), test_samples=len(X_test),
         training_seconds=seconds, test_accuracy=test_accuracy)


if __name__ == "__main__":
    main()
