"""A reader (and writer) for MNIST's IDX files.

MNIST itself is not shipped or fetched: ``load_mnist`` reads the four standard
files from a directory you supply.  Needs only the standard library.
"""

import gzip
import os
import struct
import zlib

from .split import Split
from .split import check_int as _check_int

__all__ = ["IdxError", "read_idx", "write_idx", "load_mnist", "MNIST_FILES", "IMAGES_MAGIC", "LABELS_MAGIC"]

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
