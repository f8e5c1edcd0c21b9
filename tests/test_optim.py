import pytest

from micrograd import MLP, Value
from micrograd.optim import SGD, Adam, linear_decay


def _quadratic_step(optimizer, w):
    optimizer.zero_grad()
    loss = (w - 3.0) ** 2
    loss.backward()
    optimizer.step()
    return loss.data


def test_sgd_follows_the_gradient():
    w = Value(0.0)
    opt = SGD([w], lr=0.1)
    _quadratic_step(opt, w)
    assert w.data == pytest.approx(0.6)  # 0 - 0.1 * 2 * (0 - 3)
    assert opt.steps == 1


def test_sgd_with_momentum_and_adam_converge():
    for make in (lambda p: SGD(p, lr=0.05, momentum=0.9), lambda p: Adam(p, lr=0.1)):
        w = Value(0.0)
        opt = make([w])
        for _ in range(300):
            _quadratic_step(opt, w)
        assert w.data == pytest.approx(3.0, abs=1e-3)


def test_adam_first_step_has_size_lr():
    # With bias correction, Adam's first step is lr * sign(grad).
    w = Value(1.0)
    opt = Adam([w], lr=0.01)
    _quadratic_step(opt, w)
    assert w.data == pytest.approx(1.01, abs=1e-9)


def test_schedule_is_karpathys_demo_schedule():
    schedule = linear_decay(1.0, 0.1, 100)
    for k in (0, 1, 50, 99):
        assert schedule(k) == pytest.approx(1.0 - 0.9 * k / 100)
    w = Value(0.0)
    opt = SGD([w], lr=schedule)
    _quadratic_step(opt, w)
    _quadratic_step(opt, w)
    assert opt.learning_rate() == pytest.approx(0.982)


def test_zero_learning_rate_changes_nothing():
    model = MLP(2, [3, 1], rng=0)
    before = [p.data for p in model.parameters()]
    opt = SGD(model.parameters(), lr=0.0)
    loss = model([1.0, -1.0]) ** 2
    loss.backward()
    opt.step()
    assert [p.data for p in model.parameters()] == before


def test_divergence_is_reported_not_hidden():
    w = Value(1.0)
    w.grad = 1e308
    opt = SGD([w], lr=1e10)
    with pytest.raises(OverflowError, match="diverged"):
        opt.step()


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: SGD([], lr=0.1), ValueError, "no parameters"),
        (lambda: SGD([1.0], lr=0.1), TypeError, r"optimises parameters with a number in \.data and a gradient in \.grad .*got float$"),
        (lambda: SGD([Value(1.0)], lr=-1), ValueError, "non-negative"),
        (lambda: SGD([Value(1.0)], momentum=1.5), ValueError, "momentum"),
        (lambda: Adam([Value(1.0)], betas=(1.0, 0.9)), ValueError, "betas"),
        (lambda: linear_decay(1.0, 0.1, 0), ValueError, "positive number of steps"),
    ],
)
def test_bad_optimiser_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1, momentum=0.9), lambda ps: Adam(ps, lr=0.05)])
def test_state_dict_round_trip_restarts_training_exactly(make):
    def run(optimizer, params, steps):
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = sum((p - 3.0) ** 2 for p in params)
            loss.backward()
            optimizer.step()
            losses.append(loss.data)
        return losses

    params = [Value(0.5), Value(-1.0)]
    optimizer = make(params)
    run(optimizer, params, 3)
    saved_state, saved_data = optimizer.state_dict(), [p.data for p in params]
    later = run(optimizer, params, 4)
    run(optimizer, params, 2)  # wander off, then come back
    for p, x in zip(params, saved_data):
        p.data = x
    optimizer.load_state_dict(saved_state)
    assert run(optimizer, params, 4) == later


def test_state_dict_is_a_copy():
    params = [Value(1.0)]
    optimizer = Adam(params)
    state = optimizer.state_dict()
    state["m"][0] = 99.0
    assert optimizer.m[0] == 0.0


def test_load_state_dict_refuses_a_state_of_another_kind_or_size():
    sgd = SGD([Value(1.0)], lr=0.1, momentum=0.5)
    with pytest.raises(ValueError, match="keys"):
        sgd.load_state_dict(Adam([Value(1.0)]).state_dict())
    with pytest.raises(ValueError, match="same model"):
        sgd.load_state_dict(SGD([Value(1.0), Value(2.0)], momentum=0.5).state_dict())
