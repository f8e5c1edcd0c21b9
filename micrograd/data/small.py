"""The small datasets the lessons use: the lecture's four samples, two moons, the 8x8 digits.

``four_samples`` needs only the standard library; ``moons`` and ``digits`` need
scikit-learn (``pip install scikit-learn``, or the ``micrograd-lessons[data]``
extra), which ships the digits, so nothing is ever downloaded.
"""

import math
import random

from ..optional import require
from .split import Split
from .split import check_int as _check_int

__all__ = ["four_samples", "moons", "digits"]


def four_samples():
    """The lecture's dataset: four inputs of three features, targets ±1.

    Returns fresh lists on every call, so a lesson may change them freely.
    """
    xs = [
        [2.0, 3.0, -1.0],
        [3.0, -1.0, 0.5],
        [0.5, 1.0, 1.0],
        [1.0, 1.0, -1.0],
    ]
    ys = [1.0, -1.0, -1.0, 1.0]
    return xs, ys


def moons(n_samples=100, noise=0.1, seed=1337):
    """Two interleaved half-moons: ``X`` (lists of two floats) and ``y`` (ints ±1).

    With the defaults these are exactly the points of Karpathy's ``demo.ipynb``,
    which calls ``np.random.seed(1337)`` and then ``make_moons(100, noise=0.1)``:
    scikit-learn then draws from numpy's global generator, and a fresh
    ``RandomState(1337)`` yields the same stream.  This function uses its own
    generator, so it neither needs nor changes any global random state, numpy's
    or Python's.  The demo also calls ``random.seed(1337)``, but only for the
    MLP's weights: a lesson that wants that network seeds ``random`` itself.
    """
    _check_int("n_samples", n_samples, 2)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not (
        math.isfinite(noise) and noise >= 0
    ):
        raise ValueError(f"noise must be a number >= 0 (a standard deviation), got {noise!r}")
    _check_int("seed", seed, 0)
    datasets = require("sklearn.datasets", "this dataset", "data")
    numpy = require("numpy", "this dataset", "data")
    X, y = datasets.make_moons(
        n_samples=n_samples, noise=noise, random_state=numpy.random.RandomState(seed)
    )
    return X.tolist(), (y * 2 - 1).tolist()


def digits(test_fraction=0.25, seed=0):
    """scikit-learn's 8x8 handwritten digits as a stratified train/test ``Split``.

    Each image is a list of 64 floats, row by row, scaled from the stored
    0..16 ink levels to [0, 1]; labels are ints 0..9.  Each digit sends
    ``round(test_fraction * its count)`` images to the test half; both halves
    come in shuffled order.  Shuffling uses ``random.Random(seed)``, not numpy,
    so the split is the same on every platform and library version.
    """
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or not (
        0 < test_fraction < 1
    ):
        raise ValueError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    _check_int("seed", seed, 0)
    bunch = require("sklearn.datasets", "this dataset", "data").load_digits()
    images = (bunch.data / 16.0).tolist()  # the set's ink levels run 0..16
    labels = bunch.target.tolist()

    rng = random.Random(seed)
    by_label = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    train, test = [], []
    for label in sorted(by_label):  # each digit gives the test half its share
        indices = by_label[label]
        rng.shuffle(indices)
        n_test = round(len(indices) * test_fraction)
        test += indices[:n_test]
        train += indices[n_test:]
    if not train or not test:
        raise ValueError(
            f"test_fraction={test_fraction!r} leaves the {'training' if not train else 'test'} "
            "half empty; choose a fraction nearer 0.25"
        )
    # Shuffle again so that a pass over either half meets the digits mixed.
    rng.shuffle(train)
    rng.shuffle(test)
    return Split(
        [images[i] for i in train],
        [labels[i] for i in train],
        [images[i] for i in test],
        [labels[i] for i in test],
    )
