"""Datasets: the lecture's samples, moons, digits, and the MNIST IDX reader."""

import gzip
import random
import struct
import subprocess
import sys

import numpy as np
import pytest

from micrograd import data
from micrograd.data import DIGITS_SOURCE, IdxError, Split, four_samples, load_mnist, moons, read_idx, write_idx
from micrograd.data.numpy_random import NumpyRandomState



def test_importing_needs_only_the_standard_library():
    code = "import sys, micrograd.data; print(sorted({'numpy', 'sklearn'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --------------------------------------------------------------------------
# four_samples

def test_four_samples_are_the_lecture_dataset():
    xs, ys = four_samples()
    assert xs == [[2, 3, -1], [3, -1, 0.5], [0.5, 1, 1], [1, 1, -1]]
    assert ys == [1, -1, -1, 1]
    assert all(type(v) is float for row in xs for v in row)
    assert all(type(v) is float for v in ys)


def test_four_samples_returns_fresh_lists():
    xs, ys = four_samples()
    xs[0][0] = 99.0
    ys.append(5.0)
    assert four_samples() == ([[2, 3, -1], [3, -1, 0.5], [0.5, 1, 1], [1, 1, -1]], [1, -1, -1, 1])


@pytest.fixture(scope="module")
def sklearn_datasets():
    """scikit-learn's datasets, what the shipped data is checked against; imported by the tests that compare, not
    when the test files are collected (it takes seconds, on every worker)."""
    import sklearn.datasets

    return sklearn.datasets


# --------------------------------------------------------------------------
# moons

@pytest.fixture
def global_random_state_restored():
    numpy_state, python_state = np.random.get_state(), random.getstate()
    yield
    np.random.set_state(numpy_state)
    random.setstate(python_state)


def test_moons_are_exactly_the_demo_points(global_random_state_restored, sklearn_datasets):
    # The demo's own route: seed the globals, let make_moons use numpy's global generator.
    np.random.seed(1337)
    random.seed(1337)
    X_demo, y_demo = sklearn_datasets.make_moons(n_samples=100, noise=0.1)
    y_demo = y_demo * 2 - 1

    np.random.seed(4)  # scramble the globals: moons() must not depend on them
    random.seed(4)
    X, y = moons()
    assert X == X_demo.tolist()  # exact float equality, point by point
    assert y == y_demo.tolist()
    assert len(X) == 100 and all(len(p) == 2 for p in X)
    assert all(type(v) is float for p in X for v in p)


def test_moons_labels_are_plus_minus_one_and_balanced():
    X, y = moons(n_samples=60, noise=0.2, seed=7)
    assert len(X) == len(y) == 60
    assert set(y) == {-1, 1}
    assert y.count(1) == y.count(-1) == 30
    assert all(type(v) is int for v in y)


def test_moons_leave_global_random_state_alone():
    numpy_before, python_before = np.random.get_state()[1].copy(), random.getstate()
    moons()
    assert (np.random.get_state()[1] == numpy_before).all()
    assert random.getstate() == python_before


def test_moons_seed_matters_and_repeats():
    assert moons(seed=1) == moons(seed=1)
    assert moons(seed=1) != moons(seed=2)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"n_samples": 1}, "n_samples"),
        ({"n_samples": 10.0}, "n_samples"),
        ({"noise": -0.1}, "noise"),
        ({"noise": float("nan")}, "noise"),
        ({"noise": float("inf")}, "noise"),
        ({"seed": -1}, "seed"),
        ({"seed": "1337"}, "seed"),
    ],
)
def test_moons_reject_bad_arguments(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        moons(**kwargs)


# The arguments the lessons and their checkers call moons() with, then a spread of others.
LESSON_MOONS = [(100, 0.1, 1337), (50, 0.1, 1337), (100, 0.3, 7), (8, 0.1, 3), (60, 0.2, 7)]
_spread = random.Random(2024)
OTHER_MOONS = [(2, 0.1, 0), (3, 0.0, 5), (1001, 0.05, 2**32 - 1)] + [
    (_spread.randint(2, 600), _spread.choice([0.0, 0.01, 0.3, 1.0, 4.0, _spread.random()]), _spread.randint(0, 2**32 - 1))
    for _ in range(40)
]


@pytest.mark.parametrize("n_samples, noise, seed", LESSON_MOONS + OTHER_MOONS)
def test_moons_are_scikit_learns_points_bit_for_bit(n_samples, noise, seed, sklearn_datasets):
    X_sklearn, y_sklearn = sklearn_datasets.make_moons(
        n_samples=n_samples, noise=noise, random_state=np.random.RandomState(seed)
    )
    X, y = moons(n_samples=n_samples, noise=noise, seed=seed)
    assert X == X_sklearn.tolist()  # exact float equality, point by point
    assert y == (y_sklearn * 2 - 1).tolist()


@pytest.mark.parametrize("seed", [0, 1, 1337, 2**31, 2**32 - 1])
def test_the_pure_python_generator_draws_numpys_stream(seed):
    ours, numpys = NumpyRandomState(seed), np.random.RandomState(seed)
    assert [ours.gauss() for _ in range(501)] == numpys.standard_normal(501).tolist()  # odd: one kept for later
    assert [ours.normal(0.25) for _ in range(10)] == numpys.normal(scale=0.25, size=10).tolist()
    for n in (1, 2, 3, 17, 256, 1000):  # 256: a mask of all ones, no draw refused
        items, array = list(range(n)), np.arange(n)
        ours.shuffle(items)
        numpys.shuffle(array)
        assert items == array.tolist(), n


@pytest.mark.parametrize("seed, fragment", [(2**32, "at most 2\\*\\*32 - 1"), (-1, "seed"), (1.0, "seed"), (True, "seed")])
def test_the_generator_takes_numpys_seeds_only(seed, fragment):
    with pytest.raises(ValueError, match=fragment):
        NumpyRandomState(seed)
    with pytest.raises(ValueError, match=fragment):
        moons(seed=seed)


WITHOUT_NUMPY = """
import importlib.machinery, sys
found = importlib.machinery.PathFinder.find_spec
def find_spec(name, path=None, target=None):
    return None if name.split(".")[0] in ("numpy", "sklearn", "scipy") else found(name, path, target)
importlib.machinery.PathFinder.find_spec = staticmethod(find_spec)  # as if they were not installed
from micrograd.course.browser import imports as browser_imports
browser_imports.install()  # as in the browser app: importing numpy, scikit-learn or scipy fails in one line
try:
    import numpy
except ImportError as error:
    print(type(error).__name__)
from micrograd.data import digits, moons
X, y = moons()
split = digits()
print(len(X), X[0], y[:5])
print(len(split.X_train), len(split.X_test), split.y_train[:12])
print(sorted(name for name in sys.modules if name.split(".")[0] in ("numpy", "sklearn", "scipy")))
"""


def test_moons_and_digits_need_neither_numpy_nor_scikit_learn():
    done = subprocess.run([sys.executable, "-c", WITHOUT_NUMPY], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    refused, points, digit_split, imported = done.stdout.splitlines()
    assert refused == "NotInThisBrowser"
    X, y = moons()
    split = data.digits()
    assert points == f"100 {X[0]} {y[:5]}"
    assert digit_split == f"1347 450 {split.y_train[:12]}"
    assert imported == "[]"


# --------------------------------------------------------------------------
# digits

@pytest.fixture(scope="module")
def digit_split():
    return data.digits()


def test_digits_shapes_and_ranges(digit_split):
    X_train, y_train, X_test, y_test = digit_split  # unpacks like a tuple
    assert isinstance(digit_split, Split)
    assert len(X_train) == len(y_train) == 1347
    assert len(X_test) == len(y_test) == 450
    for X in (X_train, X_test):
        assert all(len(image) == 64 for image in X)
        assert all(type(v) is float and 0.0 <= v <= 1.0 for image in X for v in image)
    assert min(v for image in X_train for v in image) == 0.0
    assert max(v for image in X_train for v in image) == 1.0
    assert set(y_train) == set(y_test) == set(range(10))
    assert all(type(label) is int for label in y_train + y_test)


def test_the_shipped_digits_are_scikit_learns_images_and_labels_in_its_order(sklearn_datasets):
    from micrograd.data import digit_images

    bunch = sklearn_datasets.load_digits()
    images, labels = digit_images._read()
    assert [list(image) for image in images] == (bunch.data / 16.0).tolist()  # exact floats, as digits() used to scale them
    assert list(labels) == bunch.target.tolist()
    for fragment in ("load_digits", "UCI", "Alpaydin", "CC BY 4.0", "nothing is downloaded"):
        assert fragment in DIGITS_SOURCE


def test_digits_split_is_a_stratified_partition_of_the_whole_set(digit_split, sklearn_datasets):
    bunch = sklearn_datasets.load_digits()
    everything = sorted(zip((bunch.data / 16).tolist(), bunch.target.tolist()))
    halves = list(zip(digit_split.X_train, digit_split.y_train)) + list(
        zip(digit_split.X_test, digit_split.y_test)
    )
    assert sorted(halves) == everything  # every image exactly once, label kept
    for digit in range(10):
        count = bunch.target.tolist().count(digit)
        assert digit_split.y_test.count(digit) == round(count * 0.25)


def test_digits_split_is_deterministic_and_seeded(digit_split):
    assert data.digits() == digit_split
    other = data.digits(seed=1)
    assert other != digit_split
    assert sorted(other.y_test) == sorted(digit_split.y_test)  # same shares, other images


def test_digits_halves_are_shuffled(digit_split):
    # A training pass in order must meet the digits mixed, not one class at a time.
    assert len(set(digit_split.y_train[:30])) >= 8
    assert len(set(digit_split.y_test[:30])) >= 8


def test_digits_test_fraction():
    split = data.digits(test_fraction=0.5)
    assert abs(len(split.X_test) - 1797 / 2) <= 5


@pytest.mark.parametrize("fraction", [0, 1, -0.2, 1.5, True, "0.25"])
def test_digits_reject_a_bad_test_fraction(fraction):
    with pytest.raises(ValueError, match="test_fraction"):
        data.digits(test_fraction=fraction)


@pytest.mark.parametrize("fraction, empty", [(0.001, "test"), (0.999, "training")])
def test_digits_reject_a_fraction_that_empties_a_half(fraction, empty):
    with pytest.raises(ValueError, match=f"leaves the {empty} half empty"):
        data.digits(test_fraction=fraction)


# --------------------------------------------------------------------------
# IDX files

IMAGES = [[0, 255, 128, 1, 2, 3], [10, 20, 30, 40, 50, 60], [255] * 6]  # three 2x3 images
LABELS = [7, 0, 9]


@pytest.mark.parametrize("name", ["images-idx3-ubyte", "images-idx3-ubyte.gz"])
def test_images_round_trip(tmp_path, name):
    path = tmp_path / name
    write_idx(path, IMAGES, image_shape=(2, 3))
    assert path.read_bytes()[:2] == (b"\x1f\x8b" if name.endswith(".gz") else b"\x00\x00")
    images = read_idx(path)
    assert images == [[b / 255 for b in image] for image in IMAGES]
    assert images[0][1] == 1.0 and images[0][0] == 0.0
    assert read_idx(path, kind="images", limit=2) == images[:2]
    assert read_idx(path, limit=10) == images


@pytest.mark.parametrize("name", ["labels-idx1-ubyte", "labels-idx1-ubyte.gz"])
def test_labels_round_trip(tmp_path, name):
    path = tmp_path / name
    write_idx(path, LABELS)
    assert read_idx(path) == LABELS
    assert read_idx(str(path), kind="labels", limit=1) == [7]


def test_raw_file_layout_is_big_endian(tmp_path):
    path = tmp_path / "images"
    write_idx(path, IMAGES, image_shape=(2, 3))
    raw = path.read_bytes()
    assert struct.unpack(">IIII", raw[:16]) == (2051, 3, 2, 3)
    assert raw[16:] == bytes(sum(IMAGES, []))
    write_idx(path, LABELS)
    assert path.read_bytes() == b"\x00\x00\x08\x01\x00\x00\x00\x03" + bytes(LABELS)


def test_compression_is_detected_by_content_not_name(tmp_path):
    gz_without_suffix = tmp_path / "labels"
    write_idx(gz_without_suffix, LABELS, compress=True)
    assert gz_without_suffix.read_bytes()[:2] == b"\x1f\x8b"
    assert read_idx(gz_without_suffix) == LABELS

    raw_with_suffix = tmp_path / "labels.gz"
    write_idx(raw_with_suffix, LABELS, compress=False)
    assert raw_with_suffix.read_bytes()[:4] == b"\x00\x00\x08\x01"
    assert read_idx(raw_with_suffix) == LABELS


def test_compressed_files_are_byte_identical_across_runs(tmp_path):
    write_idx(tmp_path / "a.gz", LABELS)
    write_idx(tmp_path / "b.gz", LABELS)
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()


def test_wrong_kind_names_what_was_found_and_expected(tmp_path):
    path = tmp_path / "labels"
    write_idx(path, LABELS)
    with pytest.raises(IdxError) as caught:
        read_idx(path, kind="images")
    message = str(caught.value)
    assert "2049" in message and "(labels)" in message
    assert "expected 2051" in message and "(images)" in message
    assert str(path) in message


def test_unknown_magic_number(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(b"<!DOCTYPE html><html>not found</html>")
    with pytest.raises(IdxError) as caught:
        read_idx(path)
    message = str(caught.value)
    assert "magic number is 1008813135 (0x3c21444f)" in message  # b"<!DO", big-endian
    assert "b'<!DO'" in message
    assert "expected 2051 (0x00000803) (images) or 2049 (0x00000801) (labels)" in message
    assert isinstance(caught.value, ValueError)  # IdxError is a ValueError


def test_truncated_images(tmp_path):
    path = tmp_path / "images"
    write_idx(path, IMAGES, image_shape=(2, 3))
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(IdxError) as caught:
        read_idx(path)
    message = str(caught.value)
    assert "truncated" in message
    assert "3 items of 6 bytes" in message
    assert "34 bytes in all" in message and "file has 30" in message


def test_truncated_compressed_labels(tmp_path):
    # A complete gzip stream whose content is short: the IDX check catches it.
    path = tmp_path / "labels.gz"
    path.write_bytes(gzip.compress(struct.pack(">II", 2049, 5) + bytes([1, 2])))
    with pytest.raises(IdxError, match=r"truncated.*13 bytes in all, but the file has 10 once decompressed"):
        read_idx(path)


def test_cut_off_gzip_stream(tmp_path):
    path = tmp_path / "labels.gz"
    write_idx(path, LABELS * 100)
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(IdxError, match="does not decompress.*fetch the file again"):
        read_idx(path)


def test_extra_bytes(tmp_path):
    path = tmp_path / "labels"
    write_idx(path, LABELS)
    path.write_bytes(path.read_bytes() + b"\x00")
    with pytest.raises(IdxError, match=r"has extra bytes.*11 bytes in all, but the file has 12"):
        read_idx(path)


def test_truncated_header(tmp_path):
    path = tmp_path / "images"
    path.write_bytes(struct.pack(">III", 2051, 3, 2))
    with pytest.raises(IdxError, match="truncated header: expected 16 bytes, file has 12"):
        read_idx(path)


@pytest.mark.parametrize("content", [b"", b"\x00\x00\x08"])
def test_too_short_to_hold_a_magic_number(tmp_path, content):
    path = tmp_path / "empty"
    path.write_bytes(content)
    with pytest.raises(IdxError, match=f"only {len(content)} bytes"):
        read_idx(path)


def test_read_idx_rejects_bad_arguments(tmp_path):
    path = tmp_path / "labels"
    write_idx(path, LABELS)
    with pytest.raises(ValueError, match="kind must be 'images', 'labels' or None"):
        read_idx(path, kind="image")
    with pytest.raises(ValueError, match="limit"):
        read_idx(path, limit=0)
    with pytest.raises(FileNotFoundError):
        read_idx(tmp_path / "absent")


@pytest.mark.parametrize(
    "items, shape, fragment",
    [
        ([256], None, "each label must be a whole number 0..255"),
        ([-1], None, "each label"),
        ([1.0], None, "each label"),
        ([[0] * 5], (2, 3), "image 0 has 5 values; a 2x3 image needs 6"),
        ([[0.5] * 6], (2, 3), "each pixel must be a whole number 0..255"),
        ([[0] * 6], (6,), "image_shape must be"),
        ([[0] * 6], (0, 6), "rows"),
    ],
)
def test_write_idx_rejects_bad_input(tmp_path, items, shape, fragment):
    with pytest.raises(ValueError, match=fragment):
        write_idx(tmp_path / "out", items, image_shape=shape)


# --------------------------------------------------------------------------
# load_mnist

def write_mnist(directory, train=(IMAGES, LABELS), test=(IMAGES[:2], LABELS[:2]), gz=("train-images",)):
    """Four tiny MNIST-named files; the stems listed in ``gz`` are compressed."""
    for half, (images, labels) in (("train", train), ("t10k", test)):
        for stem, items, shape in (
            (f"{half}-images", images, (2, 3)),
            (f"{half}-labels", labels, None),
        ):
            name = f"{stem}-idx{3 if shape else 1}-ubyte" + (".gz" if stem in gz else "")
            write_idx(directory / name, items, image_shape=shape)


def test_load_mnist_reads_raw_and_compressed_files(tmp_path):
    write_mnist(tmp_path)
    split = load_mnist(tmp_path)
    assert isinstance(split, Split)
    assert split.X_train == [[b / 255 for b in image] for image in IMAGES]
    assert split.y_train == LABELS
    assert split.X_test == split.X_train[:2]
    assert split.y_test == LABELS[:2]


def test_load_mnist_limits(tmp_path):
    write_mnist(tmp_path)
    X_train, y_train, X_test, y_test = load_mnist(str(tmp_path), train_limit=1, test_limit=1)
    assert (len(X_train), len(y_train), len(X_test), len(y_test)) == (1, 1, 1, 1)
    assert y_train == [7]


def test_load_mnist_lists_missing_files_and_where_to_get_them(tmp_path):
    write_idx(tmp_path / "train-images-idx3-ubyte", IMAGES, image_shape=(2, 3))
    with pytest.raises(FileNotFoundError) as caught:
        load_mnist(tmp_path)
    message = str(caught.value)
    for name in ("train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        assert name in message
    assert "train-images-idx3-ubyte" not in message  # that one is present
    assert "does not download" in message
    assert "https://" in message


def test_load_mnist_missing_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist.*train-images-idx3-ubyte"):
        load_mnist(tmp_path / "nowhere")


@pytest.mark.parametrize("limit", [None, 1])
def test_load_mnist_mismatched_counts(tmp_path, limit):
    write_mnist(tmp_path, train=(IMAGES, LABELS[:2]))
    # The headers disagree, so even a limit that reads one of each must not hide it.
    with pytest.raises(IdxError, match="MNIST train set: 3 images in .* but 2 labels in"):
        load_mnist(tmp_path, train_limit=limit)


def test_load_mnist_labels_must_be_digits(tmp_path):
    write_mnist(tmp_path, test=(IMAGES[:2], [3, 12]))
    with pytest.raises(IdxError, match="MNIST test labels must be digits 0..9, found 12"):
        load_mnist(tmp_path)


def test_load_mnist_swapped_files(tmp_path):
    write_mnist(tmp_path)
    images, labels = tmp_path / "t10k-images-idx3-ubyte", tmp_path / "t10k-labels-idx1-ubyte"
    swap = images.read_bytes()
    images.write_bytes(labels.read_bytes())
    labels.write_bytes(swap)
    with pytest.raises(IdxError, match=r"magic number is 2049 .*expected 2051"):
        load_mnist(tmp_path)


def test_load_mnist_image_sizes_must_agree(tmp_path):
    write_mnist(tmp_path)
    write_idx(tmp_path / "t10k-images-idx3-ubyte", [[0] * 4, [0] * 4], image_shape=(2, 2))
    with pytest.raises(IdxError, match="train images have 6 pixels each but test images have 4"):
        load_mnist(tmp_path)
