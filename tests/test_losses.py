import math

import pytest

from micrograd import Value
from micrograd.gradcheck import gradcheck
from micrograd.losses import cross_entropy, fused_cross_entropy, hinge, l2, mse, softmax, sum_of_squares
from micrograd.metrics import accuracy, confusion_matrix, predicted_class


def test_softmax_exercise_from_the_lecture():
    logits = [Value(x) for x in (0.0, 3.0, -2.0, 1.0)]
    loss = cross_entropy(logits, 3)
    loss.backward()
    assert loss.data == pytest.approx(2.1755, abs=1e-4)
    assert [z.grad for z in logits] == pytest.approx([0.04177, 0.83902, 0.00565, -0.88645], abs=1e-5)


def test_cross_entropy_is_stable_for_huge_logits():
    logits = [Value(1000.0), Value(0.0), Value(-1000.0)]
    loss = cross_entropy(logits, 0)
    loss.backward()
    assert loss.data == pytest.approx(0.0, abs=1e-12)
    assert math.isfinite(logits[2].grad)
    far = cross_entropy([Value(1000.0), Value(0.0)], 1)
    assert far.data == pytest.approx(1000.0)


def test_cross_entropy_gradient_matches_finite_differences():
    report = gradcheck(lambda a, b, c: cross_entropy([a, b, c], 1), [0.3, -1.2, 2.0])
    assert report.ok, str(report)


def test_cross_entropy_batch_is_the_mean_of_samples():
    batch = [[0.0, 1.0], [2.0, -1.0]]
    one = cross_entropy(batch[0], 1).data
    two = cross_entropy(batch[1], 0).data
    assert cross_entropy(batch, [1, 0]).data == pytest.approx((one + two) / 2)


@pytest.mark.parametrize("logits, target", [([0.0, 3.0, -2.0, 1.0], 3), ([0.3, -1.2, 2.0], 0), ([5.0], 0)])
def test_fused_cross_entropy_is_cross_entropy_as_one_node(logits, target):
    plain = [Value(z) for z in logits]
    fused = [Value(z) for z in logits]
    expected, loss = cross_entropy(plain, target), fused_cross_entropy(fused, target)
    assert loss.inputs == tuple(fused) and loss.op == "cross_entropy"
    (expected * 2.0).backward()
    (loss * 2.0).backward()
    assert loss.data == pytest.approx(expected.data, abs=1e-15)
    assert [z.grad for z in fused] == pytest.approx([z.grad for z in plain], abs=1e-15)


def test_fused_cross_entropy_is_stable_and_checks_its_target():
    logits = [Value(1000.0), Value(0.0), Value(-1000.0)]
    loss = fused_cross_entropy(logits, 1)
    loss.backward()
    assert loss.data == pytest.approx(1000.0) and [z.grad for z in logits] == pytest.approx([1.0, -1.0, 0.0])
    assert gradcheck(lambda a, b, c: fused_cross_entropy([a, b, c], 2), [0.3, -1.2, 2.0]).ok
    for target in (3, -1, 1.0, True):
        with pytest.raises(ValueError, match="is not a class index for 3 logits"):
            fused_cross_entropy([0.0, 1.0, 2.0], target)


def test_softmax_sums_to_one_and_survives_large_inputs():
    probs = softmax([Value(800.0), Value(799.0), 0.0])
    assert sum(p.data for p in probs) == pytest.approx(1.0)
    assert probs[0].data == pytest.approx(1 / (1 + math.exp(-1)))


def test_squared_error_losses():
    preds = [Value(1.0), Value(3.0)]
    assert sum_of_squares(preds, [0.0, 1.0]).data == 5.0
    assert mse(preds, [0.0, 1.0]).data == 2.5
    assert sum_of_squares(Value(2.0), 4.0).data == 4.0


def test_hinge_matches_its_definition():
    scores = [Value(2.0), Value(0.5), Value(-0.25)]
    loss = hinge(scores, [1, 1, 1])
    assert loss.data == pytest.approx((0 + 0.5 + 1.25) / 3)
    loss.backward()
    assert [s.grad for s in scores] == pytest.approx([0.0, -1 / 3, -1 / 3])


def test_l2_penalty():
    params = [Value(1.0), Value(-2.0)]
    assert l2(params, 0.5).data == 2.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mse([Value(1.0)], [1.0, 2.0]), "1 predictions but 2 targets"),
        (lambda: mse([], []), "at least one"),
        (lambda: hinge([Value(1.0)], [0]), r"\+1 or -1"),
        (lambda: cross_entropy([Value(1.0), Value(2.0)], 2), "not a class index"),
        (lambda: cross_entropy([[1.0, 2.0]], [0, 1]), "1 samples of logits but 2 targets"),
        (lambda: l2([], 1e-4), "at least one parameter"),
    ],
)
def test_bad_loss_inputs_say_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_metrics():
    assert predicted_class(Value(0.3)) == 1 and predicted_class(-2.0) == -1
    assert predicted_class([Value(0.1), Value(2.0), Value(-1.0)]) == 1
    assert accuracy([Value(1.0), Value(-1.0), Value(2.0)], [1, 1, 1]) == pytest.approx(2 / 3)
    assert confusion_matrix([0, 1, 1], [0, 0, 1], 2) == [[1, 1], [0, 1]]
    with pytest.raises(ValueError, match="2 outputs but 1 labels"):
        accuracy([1.0, 2.0], [1])
