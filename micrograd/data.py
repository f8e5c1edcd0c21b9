"""The small datasets the lessons use, and a reader for MNIST's IDX files.

Everything comes back as plain Python lists, ready to wrap in ``Value``s.
``four_samples`` and the IDX functions need only the standard library;
``moons`` and ``digits`` need scikit-learn (``pip install scikit-learn``, or
the ``micrograd-lessons[data]`` extra), which ships the digits, so nothing is
ever downloaded.  MNIST itself is not shipped or fetched: ``load_mnist`` reads
the four standard files from a directory you supply.
"""

import gzip
import math
import os
import random
import struct
import zlib
from typing import NamedTuple

from .optional import require

__all__ = [
    "Split",
    "IdxError",
    "four_samples",
    "moons",
    "digits",
    "read_idx",
    "write_idx",
    "load_mnist",
    "MNIST_FILES",
    "IMAGES_MAGIC",
    "LABELS_MAGIC",
]


class Split(NamedTuple):
    """A train/test split; unpacks as ``X_train, y_train, X_test, y_test``."""

    X_train: list
    y_train: list
    X_test: list
    y_test: list


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")


# --------------------------------------------------------------------------
# The lecture's four samples, two moons, the 8x8 digits

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


# --------------------------------------------------------------------------
# MNIST's IDX files

IMAGES_MAGIC = 2051  # 0x00000803: unsigned bytes, 3 dimensions (count, rows, cols)
LABELS_MAGIC = 2049  # 0x00000801: unsigned bytes, 1 dimension (count)
_KINDS = {"images": IMAGES_MAGIC, "labels": LABELS_MAGIC}
_GZIP_MAGIC = b"\x1f\x8b"

# One float object per byte value, shared by every pixel: a list of 784
# pointers costs far less than 784 separate floats.
_PIXEL = [level / 255.0 for level in range(256)]

MNIST_FILES = {
    "train images": "train-images-idx3-ubyte",
    "train labels": "train-labels-idx1-ubyte",
    "test images": "t10k-images-idx3-ubyte",
    "test labels": "t10k-labels-idx1-ubyte",
}
_MNIST_SOURCES = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/ (the mirror torchvision uses) or "
    "http://yann.lecun.com/exdb/mnist/; torchvision's MNIST(root, download=True) also "
    "leaves them in root/MNIST/raw/"
)


class IdxError(ValueError):
    """A file is not a well-formed MNIST IDX file."""


def _read_bytes(path):
    """``(content, compressed)``: decompressed if it starts with gzip's magic bytes."""
    with open(path, "rb") as f:
        content = f.read()
    if content[:2] != _GZIP_MAGIC:
        return content, False
    try:
        return gzip.decompress(content), True
    except (EOFError, OSError, zlib.error) as error:
        raise IdxError(
            f"{path}: starts like a gzip file but does not decompress ({error}); "
            "the download was probably cut short, fetch the file again"
        ) from error


def _describe_magic(magic):
    known = {IMAGES_MAGIC: " (images)", LABELS_MAGIC: " (labels)"}
    return f"{magic} (0x{magic:08x}){known.get(magic, '')}"


def read_idx(path, kind=None, limit=None):
    """Read an MNIST IDX file, raw or gzip-compressed (told apart by content).

    An images file (magic 2051) gives a list of images, each a flat list of
    ``rows * cols`` floats in [0, 1] (byte / 255), row by row.  A labels file
    (magic 2049) gives a list of ints.  ``kind`` (``'images'`` or ``'labels'``)
    makes any other magic number an error; ``limit`` keeps only the first
    ``limit`` items (the whole file is still checked).  Raises ``IdxError``
    for a wrong magic number or a size that disagrees with the header.
    """
    return _parse_idx(path, kind, limit)[1]


def _parse_idx(path, kind, limit):
    """``(count in the header, items read)`` for ``read_idx``."""
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"kind must be 'images', 'labels' or None, got {kind!r}")
    if limit is not None:
        _check_int("limit", limit, 1)
    content, compressed = _read_bytes(path)
    size = f"{len(content)}" + (" once decompressed" if compressed else "")
    if len(content) < 4:
        raise IdxError(f"{path}: only {size} bytes, too short to be an IDX file")

    (magic,) = struct.unpack(">I", content[:4])
    expected = [_KINDS[kind]] if kind else [IMAGES_MAGIC, LABELS_MAGIC]
    if magic not in expected:
        wanted = " or ".join(_describe_magic(m) for m in expected)
        raise IdxError(
            f"{path}: magic number is {_describe_magic(magic)} (first bytes {content[:4]!r}), "
            f"expected {wanted}; is this the right MNIST file?"
        )

    dims = 3 if magic == IMAGES_MAGIC else 1
    header_size = 4 + 4 * dims
    if len(content) < header_size:
        raise IdxError(
            f"{path}: truncated header: expected {header_size} bytes, file has {size}"
        )
    count, *shape = struct.unpack(f">{dims}I", content[4:header_size])
    item_size = shape[0] * shape[1] if shape else 1
    expected_size = header_size + count * item_size
    if len(content) != expected_size:
        problem = "truncated" if len(content) < expected_size else "has extra bytes"
        raise IdxError(
            f"{path}: {problem}: the header promises {count} items of {item_size} bytes, "
            f"{expected_size} bytes in all, but the file has {size}"
        )

    n = count if limit is None else min(limit, count)
    if magic == LABELS_MAGIC:
        return count, list(content[header_size : header_size + n])
    pixel = _PIXEL.__getitem__
    return count, [
        list(map(pixel, content[start : start + item_size]))
        for start in range(header_size, header_size + n * item_size, item_size)
    ]


def write_idx(path, items, image_shape=None, compress=None):
    """Write an MNIST IDX file in the format ``read_idx`` reads, for tests and examples.

    Without ``image_shape`` ``items`` are labels (ints 0..255, magic 2049).
    With ``image_shape=(rows, cols)`` each item is an image as a flat sequence
    of ``rows * cols`` byte values 0..255 (magic 2051).  ``compress`` gzips the
    file; by default it does when ``path`` ends in ``.gz``.
    """
    items = list(items)
    if image_shape is None:
        header = struct.pack(">II", LABELS_MAGIC, len(items))
        body = _as_bytes(items, "label")
    else:
        if len(image_shape) != 2:
            raise ValueError(f"image_shape must be (rows, cols), got {image_shape!r}")
        rows, cols = image_shape
        _check_int("rows", rows, 1)
        _check_int("cols", cols, 1)
        for i, image in enumerate(items):
            if len(image) != rows * cols:
                raise ValueError(
                    f"image {i} has {len(image)} values; a {rows}x{cols} image needs {rows * cols}"
                )
        header = struct.pack(">IIII", IMAGES_MAGIC, len(items), rows, cols)
        body = b"".join(_as_bytes(image, "pixel") for image in items)
    content = header + body
    if compress is None:
        compress = os.fspath(path).endswith(".gz")
    if compress:
        content = gzip.compress(content, mtime=0)  # mtime=0: same bytes on every run
    with open(path, "wb") as f:
        f.write(content)


def _as_bytes(values, what):
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 255:
            raise ValueError(f"each {what} must be a whole number 0..255 (one byte), got {v!r}")
    return bytes(values)


def _find_mnist_file(directory, name):
    for candidate in (name, name + ".gz"):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path):
            return path
    return None


def load_mnist(directory, train_limit=None, test_limit=None):
    """MNIST from the four standard IDX files in ``directory`` (each raw or ``.gz``).

    Returns a ``Split``: images as flat lists of 784 floats in [0, 1], labels
    as ints 0..9.  ``train_limit`` / ``test_limit`` keep only the first so many
    examples (a scalar engine trains on a few thousand, and all 60 000 take
    about 400 MB as lists).  Nothing
    is downloaded: missing files raise ``FileNotFoundError`` saying where to
    get them.
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(
            f"MNIST directory {directory!r} does not exist; create it and put the four MNIST "
            f"files in it ({', '.join(MNIST_FILES.values())}, raw or .gz), from {_MNIST_SOURCES}"
        )
    paths = {role: _find_mnist_file(directory, name) for role, name in MNIST_FILES.items()}
    missing = [MNIST_FILES[role] for role, path in paths.items() if path is None]
    if missing:
        raise FileNotFoundError(
            f"MNIST files missing from {directory!r}: {', '.join(missing)} (each may also end "
            f"in .gz). This package does not download MNIST; get the files from {_MNIST_SOURCES}"
        )

    halves = []
    for half, limit in (("train", train_limit), ("test", test_limit)):
        n_images, images = _parse_idx(paths[f"{half} images"], "images", limit)
        n_labels, labels = _parse_idx(paths[f"{half} labels"], "labels", limit)
        if n_images != n_labels:  # compare headers, so a limit cannot hide it
            raise IdxError(
                f"MNIST {half} set: {n_images} images in {paths[f'{half} images']} but "
                f"{n_labels} labels in {paths[f'{half} labels']}; the files do not belong together"
            )
        bad = [label for label in labels if label > 9]
        if bad:
            raise IdxError(
                f"MNIST {half} labels must be digits 0..9, found {bad[0]} in {paths[f'{half} labels']}"
            )
        halves.append((images, labels))
    (X_train, y_train), (X_test, y_test) = halves
    if X_train and X_test and len(X_train[0]) != len(X_test[0]):
        raise IdxError(
            f"MNIST train images have {len(X_train[0])} pixels each but test images "
            f"have {len(X_test[0])}; the files do not belong together"
        )
    return Split(X_train, y_train, X_test, y_test)
