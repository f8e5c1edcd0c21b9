"""Lesson 8's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math
import random
import re
import subprocess
import sys

import pytest
from claims import REPO, claim, lesson_code, run_lesson_code
from micrograd import MLP, Value, graph_size
from micrograd.data import digits
from micrograd.losses import cross_entropy, softmax


@pytest.fixture(scope="module")
def digit_sets():
    return digits()


def test_lesson08_a_quarter_of_each_digit_is_held_back_and_pixels_run_from_0_to_1(digit_sets):
    claim(8, "a quarter of each digit held back as a **test set**")
    claim(8, "a plain list of 64 numbers between 0 (paper) and 1 (ink)")
    X_train, y_train, X_test, y_test = digit_sets
    for d in range(10):
        share = y_test.count(d) / (y_test.count(d) + y_train.count(d))
        assert share == pytest.approx(0.25, abs=0.01)
    pixels = [p for image in X_train + X_test for p in image]
    assert all(len(image) == 64 for image in X_train) and (min(pixels), max(pixels)) == (0.0, 1.0)


def test_lesson08_softmax_sums_to_one_keeps_order_and_turns_a_gap_of_2_into_e_squared():
    claim(8, "Exponentials are positive, and dividing by their sum makes them add up to one")
    claim(8, "softmax keeps the order of the logits")
    claim(8, "a gap of 2 between two logits becomes a factor $e^2 \\approx 7.4$")
    logits = [Value(z) for z in [0.0, 3.0, -2.0, 1.0]]
    probs = [p.data for p in softmax(logits)]
    assert sum(probs) == pytest.approx(1) and all(p > 0 for p in probs)
    assert sorted(range(4), key=probs.__getitem__) == sorted(range(4), key=lambda i: logits[i].data)
    assert probs[1] / probs[3] == pytest.approx(math.exp(2))


def test_lesson08_the_gradient_is_probabilities_minus_one_hot_and_class_1_gets_the_biggest_push_down():
    claim(8, "it is the probabilities, minus one at the right class")
    claim(8, "so class 1 gets the biggest push down")
    logits = [Value(z) for z in [0.0, 3.0, -2.0, 1.0]]
    probs = [p.data for p in softmax(logits)]
    cross_entropy(logits, 3).backward()
    assert [z.grad for z in logits] == pytest.approx([p - (i == 3) for i, p in enumerate(probs)])
    assert max(range(4), key=lambda i: logits[i].grad) == 1


def test_lesson08_cross_entropy_takes_out_the_largest_logit_and_averages_a_batch():
    claim(8, "also subtracts the largest logit before exponentiating (it changes no probability, but keeps `exp` from overflowing), and averages over a batch")
    big = [Value(1000.0), Value(998.0)]
    loss = cross_entropy(big, 1)
    loss.backward()
    assert loss.data == pytest.approx(math.log(1 + math.exp(2)))
    assert cross_entropy([Value(2.0), Value(0.0)], 1).data == pytest.approx(loss.data)
    one, two = cross_entropy([0.0, 1.0], 0).data, cross_entropy([2.0, 0.0], 1).data
    assert cross_entropy([[0.0, 1.0], [2.0, 0.0]], [0, 1]).data == pytest.approx((one + two) / 2)


def test_lesson08_uniform_weights_scaled_by_root_3_over_n_have_variance_1_over_n():
    claim(8, "micrograd draws each one from $\\text{uniform}(-1, 1)$")
    claim(8, "which gives each weight a variance of $1/n$")
    claim(8, "Scaling the existing weights does exactly that")
    model = MLP(64, [24, 10], rng=0)
    weights = [w.data for n in model.layers[0].neurons for w in n.w]
    assert all(-1 <= w <= 1 for w in weights)
    mean_square = sum(w * w for w in weights) / len(weights)
    assert mean_square * 3 / 64 == pytest.approx(1 / 64, rel=0.1)  # uniform(-1, 1)·√(3/64): variance 1/64


LESSON8_SETUP = ("from micrograd.course.lessons import lesson08 as check", "X_train, y_train, X_test, y_test = data.digits()",
                 "model = MLP(64, [24, 10], rng=0)\nprint", "def mean_loss(model, X, y):")


def test_lesson08_scaling_cell_run_twice_starts_the_network_near_ln_10_both_times():
    """The fresh network does much worse than ln 10; scaled, it starts near ln 10, however often the
    cell runs (re-running it must not shrink the weights again)."""
    claim(8, "Our fresh network does much worse")
    claim(8, "Now the network starts honestly unsure, close to $\\ln 10 \\approx 2.30$")
    fewer = (("X_train[:200], y_train[:200]", "X_train[:40], y_train[:40]"),)  # the cells' printouts, on fewer images
    namespace = run_lesson_code(8, *LESSON8_SETUP, replace=fewer)
    mean_loss, X, y = namespace["mean_loss"], namespace["X_train"][:40], namespace["y_train"][:40]
    assert mean_loss(namespace["model"], X, y) > 2 * math.log(10)
    claim(8, "The scores are large, so softmax is confidently wrong")
    confidence = [max(p.data for p in softmax(namespace["model"](x))) for x in X]
    assert sum(confidence) / len(confidence) > 0.6
    losses, weights = [], []
    for _ in range(2):
        run_lesson_code(8, "def scale_initial_weights(model):", namespace=namespace, replace=fewer)
        losses.append(mean_loss(namespace["model"], X, y))
        weights.append([p.data for p in namespace["model"].parameters()])
    assert weights[0] == weights[1]
    assert losses[0] == losses[1] == pytest.approx(math.log(10), abs=0.15)


def test_lesson08_the_learning_rate_decays_to_a_twentieth_and_an_epoch_is_85_steps(digit_sets):
    claim(8, "Its learning rate decays linearly to a twentieth over the run")
    claim(8, "one epoch makes $\\lceil 1347 / 16 \\rceil = 85$ small steps")
    code = lesson_code(8, "EPOCHS, BATCH_SIZE")
    start, end = map(float, re.search(r"linear_decay\(([\d.]+), ([\d.]+), steps\)", code).groups())
    assert end / start == pytest.approx(1 / 20)
    assert math.ceil(len(digit_sets[0]) / 16) == 85 and len(digit_sets[0]) == 1347


def test_lesson08_minibatch_gradients_average_to_the_full_gradient():
    claim(8, "Each batch's gradient is a noisy estimate of the full one (taken at the same weights, the gradients of an epoch's batches, weighted by their sizes, average to it exactly)")
    X, y = [[random.Random(k).random() for _ in range(4)] for k in range(35)], [k % 3 for k in range(35)]
    model = MLP(4, [5, 3], rng=2)

    def gradient(indices):
        model.zero_grad()
        cross_entropy([model(X[i]) for i in indices], [y[i] for i in indices]).backward()
        return [p.grad for p in model.parameters()]

    full = gradient(range(35))
    sizes = [8, 8, 8, 8, 3]  # batches of 8, the last one short, as 1347 images in batches of 16 end
    batches = [gradient(range(s, s + n)) for s, n in zip(range(0, 35, 8), sizes)]
    assert [sum(n * g for n, g in zip(sizes, grads)) / 35 for grads in zip(*batches)] == pytest.approx(full)
    assert all(b != pytest.approx(full, rel=0.05) for b in batches)


def test_lesson08_pixels_read_back_from_idx_files_round_to_bytes(tmp_path, digit_sets):
    claim(8, "Pixels become bytes 0–255 on the way, so a few may round differently")
    claim(8, "Nothing here downloads them")
    from micrograd import data

    X_train, y_train, X_test, y_test = (part[:20] for part in digit_sets)
    for role, X, y in (("train", X_train, y_train), ("test", X_test, y_test)):
        data.write_idx(tmp_path / data.MNIST_FILES[f"{role} images"], ([round(255 * p) for p in x] for x in X), image_shape=(8, 8))
        data.write_idx(tmp_path / data.MNIST_FILES[f"{role} labels"], y)
    X_back, y_back, _, _ = data.load_mnist(tmp_path)
    assert y_back == y_train
    assert max(abs(a - b) for x, z in zip(X_back, X_train) for a, b in zip(x, z)) <= 0.5 / 255 + 1e-12
    with pytest.raises(FileNotFoundError):
        data.load_mnist(tmp_path / "nothing here")


def test_lesson08_idx_files_start_with_their_magic_numbers(tmp_path):
    claim(8, "a *magic number* (2051 for images, 2049 for labels)")
    from micrograd import data

    data.write_idx(tmp_path / "images", [[0, 255, 7, 9]], image_shape=(2, 2))
    data.write_idx(tmp_path / "labels", [3])
    magic = lambda name: int.from_bytes((tmp_path / name).read_bytes()[:4], "big")  # noqa: E731
    assert (magic("images"), magic("labels")) == (data.IMAGES_MAGIC, data.LABELS_MAGIC) == (2051, 2049)


def test_lesson08_a_first_layer_neuron_is_one_node_and_pixels_make_no_nodes():
    claim(8, "its $w \\cdot x + b$ is still **one** node, and the 784 pixels, plain numbers, make none")
    claim(10, "784 pixels are plain numbers, so they make no nodes at all")
    neuron = MLP(784, [1], rng=0).layers[0].neurons[0]
    out = neuron([0.5] * 784)
    assert graph_size(out)[0] == 784 + 1 + 1  # the weights, the bias, the one node


def test_lesson08_the_engine_runs_without_numpy():
    claim(8, "with no numpy inside")
    claim("README.md", "The engine needs nothing beyond Python's")
    code = ("import sys; sys.modules['numpy'] = None\n"
            "from micrograd import MLP, Value\nfrom micrograd import losses, optim\n"
            "m = MLP(3, [4, 2]); loss = losses.cross_entropy(m([1.0, 2.0, 3.0]), 1)\n"
            "optim.Adam(m.parameters(), lr=0.01); loss.backward(); print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.stdout.strip() == "ok", done.stderr
