"""The 8x8 handwritten digits (scikit-learn's ``load_digits``), shipped with the package, and their split.

    >>> from micrograd.data import digits
    >>> X_train, y_train, X_test, y_test = digits()
    >>> len(X_train), len(X_test), len(X_train[0])
    (1347, 450, 64)
"""

import random
from importlib import resources

from .split import Split, check_int

__all__ = ["digits", "DIGITS_SOURCE"]

DIGITS_SOURCE = (
    "the 1,797 images of scikit-learn's load_digits(), in its order: the test set of the UCI "
    "repository's Optical Recognition of Handwritten Digits (E. Alpaydin and C. Kaynak, 1998, "
    "https://archive.ics.uci.edu/ml/datasets/Optical+Recognition+of+Handwritten+Digits, licensed CC BY 4.0 there), 32x32 bitmaps of 13 writers' digits "
    "with the ink counted in 4x4 blocks.  Shipped inside this package as digits.txt, one image "
    "a line (its label, then its 64 ink levels 0..16 as the characters 0-9, a-g): nothing is downloaded."
)

_LEVELS = {character: level for level, character in enumerate("0123456789abcdefg")}
_INK_LEVELS = 16  # the set's darkest block: all 16 of its pixels inked
_PIXELS = 64
_COUNT = 1797

_images = None  # (images, labels), read once, on the first call


def _read():
    global _images
    if _images is None:
        text = resources.files(__package__).joinpath("digits.txt").read_text(encoding="ascii")
        images, labels = [], []
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            label, ink = line.split(" ")
            images.append(tuple(_LEVELS[character] / _INK_LEVELS for character in ink))
            labels.append(int(label))
        if len(images) != _COUNT or any(len(image) != _PIXELS for image in images):
            raise RuntimeError(f"the package's digits.txt is damaged: expected {_COUNT} images of {_PIXELS} pixels; reinstall micrograd")
        _images = (tuple(images), tuple(labels))
    return _images


def digits(test_fraction=0.25, seed=0):
    """scikit-learn's 8x8 handwritten digits as a stratified train/test ``Split``.

    Each image is a list of 64 floats, row by row, scaled from the stored
    0..16 ink levels to [0, 1]; labels are ints 0..9.  Each digit sends
    ``round(test_fraction * its count)`` images to the test half; both halves
    come in shuffled order.  Shuffling uses ``random.Random(seed)``, not numpy,
    so the split is the same on every platform and library version.  The images
    ship with the package (see ``DIGITS_SOURCE``): no scikit-learn, nothing downloaded.
    """
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or not (
        0 < test_fraction < 1
    ):
        raise ValueError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    check_int("seed", seed, 0)
    images, labels = _read()

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
        [list(images[i]) for i in train],
        [labels[i] for i in train],
        [list(images[i]) for i in test],
        [labels[i] for i in test],
    )
