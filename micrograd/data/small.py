"""The small datasets the lessons use: the lecture's four samples, and two moons.

Both need only the standard library: ``moons`` makes scikit-learn's moons without
scikit-learn or numpy (``numpy_random`` draws numpy's random numbers).
"""

import math

from .numpy_random import NumpyRandomState
from .split import check_int as _check_int

__all__ = ["four_samples", "moons"]


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

    The points of scikit-learn's ``make_moons(n_samples, noise=noise,
    random_state=numpy.random.RandomState(seed))``, bit for bit, made without
    either library: the same half-circles, shuffled and given Gaussian noise by the
    same draws of numpy's generator (``numpy_random``).  With the defaults these are
    exactly the points of Karpathy's ``demo.ipynb``, which calls
    ``np.random.seed(1337)`` and then ``make_moons(100, noise=0.1)``: scikit-learn
    then draws from numpy's global generator, and a fresh ``RandomState(1337)``
    yields the same stream.  This function uses its own generator, so it neither
    needs nor changes any global random state, numpy's or Python's.  The demo also
    calls ``random.seed(1337)``, but only for the MLP's weights: a lesson that wants
    that network seeds ``random`` itself.

    Labels are -1 for the upper moon and +1 for the lower (scikit-learn's 0 and 1).
    """
    _check_int("n_samples", n_samples, 2)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not (
        math.isfinite(noise) and noise >= 0
    ):
        raise ValueError(f"noise must be a number >= 0 (a standard deviation), got {noise!r}")
    generator = NumpyRandomState(seed)  # checks the seed
    n_upper = n_samples // 2
    n_lower = n_samples - n_upper
    upper = _angles(n_upper)
    lower = _angles(n_lower)
    xs = [math.cos(t) for t in upper] + [1 - math.cos(t) for t in lower]
    ys = [math.sin(t) for t in upper] + [1 - math.sin(t) - 0.5 for t in lower]
    labels = [-1] * n_upper + [1] * n_lower
    order = list(range(n_samples))
    generator.shuffle(order)
    X = []
    for i in order:  # the noise is drawn point by point, x then y, as numpy fills an (n, 2) array
        x = xs[i] + generator.normal(noise)
        X.append([x, ys[i] + generator.normal(noise)])
    return X, [labels[i] for i in order]


def _angles(count):
    """``numpy.linspace(0, pi, count)``, computed as numpy computes it: ``i * (pi / (count - 1))``, the last pi itself."""
    if count == 1:
        return [0.0]
    step = math.pi / (count - 1)
    return [i * step for i in range(count - 1)] + [math.pi]
