"""Checkers for lesson 6, the training loop: the learner's loop, and one gradient-descent update.

The learner's loop is run side by side with the checker's own on two
identical fresh models, and every loss and parameter is compared.  A loop that
differs is matched against the usual slips, each run here on a third copy, so
the verdict can name the slip: the forgotten zero_grad above all.  What the
loop prints is kept and shown folded under the verdict, so the verdict stays
where the learner looks.  The first update is worked out from the derivative
of (w·x − y)².
"""

import contextlib
import functools
import html
import io
import random

from micrograd import losses as losses_module
from micrograd.data import four_samples
from micrograd.nn import MLP
from micrograd.palette import SUMMARY_STYLE
from micrograd.course.carry import stale
from micrograd.course.verdicts import as_number, checker, close, failed, number_problem, passed

__all__ = ["my_training_loop", "first_update"]

# Build it yourself, part 5: the training loop ------------------------------------

_XS, _YS = four_samples()  # the lecture's data
_STEPS, _LR = 50, 0.05  # and the lesson's run: MLP(3, [4, 4, 1]) with tanh, seed 0, 50 steps at 0.05


def _model():
    """The lesson's MLP(3, [4, 4, 1]), seeded as the lesson seeds it, every gradient 0 as in a new model: a loop
    that zeroes the gradients at the end of each step, after the update (PyTorch's habit), is right on it."""
    return MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=0)


class _ShapedLikeMyMLP:
    """The lesson's MLP seen through what lesson 5's MyMLP template has: calling it, and parameters().

    The lesson ends by training the MyMLP it uses with my_train, so where that class is not at hand
    the check gives my_train nothing more: a loop that calls model.zero_grad() would pass on the
    package's MLP and then fail on a MyMLP without one.
    """

    def __init__(self, model):
        self._model = model

    def __call__(self, x):
        return self._model(x)

    def parameters(self):
        return self._model.parameters()


_NO_ZERO_GRAD = ("your loop calls model.zero_grad(), which the package's MLP has but the MyMLP this lesson trains "
                 "does not (lesson 5's template asks only for parameters() and calling it), and this lesson ends by "
                 "training that MyMLP with my_train. Zero the gradients through parameters(): "
                 "for p in model.parameters(): p.grad = 0.0")


def _calls_missing_zero_grad(error):
    return isinstance(error, AttributeError) and "zero_grad" in str(error)


def _as_lesson_network(cls):
    """cls(3, [4, 4, 1]) holding the lesson's parameters, gradients 0, as _model() does, or None
    when cls cannot stand for the lesson's network (lesson 5's check judges it, not this one)."""
    if not isinstance(cls, type):
        return None
    state = random.getstate()  # building it draws random weights: the lesson's own sequence is kept
    try:
        model = cls(3, [4, 4, 1])
        params = list(model.parameters())
    except Exception:  # noqa: BLE001 - a class that cannot build the network is lesson 5's business
        return None
    finally:
        random.setstate(state)
    reference = _model()
    if len(params) != len(reference.parameters()) or not all(hasattr(p, "data") and hasattr(p, "grad") for p in params):
        return None
    for p, q in zip(params, reference.parameters()):
        p.data, p.grad = q.data, 0.0
    try:
        outputs = [as_number(model(x)) for x in _XS]
    except Exception:  # noqa: BLE001
        return None
    same = all(out is not None and close(out, reference(x).data, 1e-9) for out, x in zip(outputs, _XS))
    return model if same else None


def _class_lesson_6_trains():
    """The MyMLP the end of the lesson trains (yours.use loads it from my_micrograd.py: lesson 5's if it
    passes its check, the worked answer otherwise)."""
    from micrograd.course.carry import yours

    namespace, _ = yours._load(5)
    return namespace.get("MyMLP")


def _network_for(train):
    """The network to run my_train on: the MyMLP the lesson trains at its end, holding the lesson's
    numbers. That is the MyMLP in my_train's own namespace where there is one (the loader's, or the
    notebook's once it has loaded it), else the one yours.use() will load; the lesson's MLP seen as the
    template's MyMLP where neither can stand for the lesson's network."""
    namespace = getattr(train, "__globals__", {})
    cls = namespace["MyMLP"] if "MyMLP" in namespace else _class_lesson_6_trains()
    model = _as_lesson_network(cls)
    return model if model is not None else _ShapedLikeMyMLP(_model())


@functools.lru_cache(maxsize=None)
def _losses(slip=None, lr=_LR):
    """The losses of the loop (or a slip of it) on a fresh copy of the lesson's network: the same every time."""
    return tuple(_loop(_model(), _STEPS, lr, slip))


def _loop(model, steps, lr, slip=None):
    """The training loop, or one of its usual slips; returns the losses."""
    losses = []
    loss_of = losses_module.mse if slip == "mse" else losses_module.sum_of_squares
    once = loss_of([model(x) for x in _XS], _YS) if slip == "forward once" else None
    for _ in range(steps):
        loss = once if once is not None else loss_of([model(x) for x in _XS], _YS)
        early = slip == "update before backward"  # by the gradients of the step before
        for p in model.parameters() if early else ():
            p.data -= lr * p.grad
        if slip != "no zero_grad":
            model.zero_grad()
        loss.backward()
        sign = 1.0 if slip == "uphill" else -1.0
        for p in model.parameters() if not early else ():
            p.data += sign * lr * p.grad
        losses.append(loss.data)
    return losses


_SLIP_MESSAGES = {
    "no zero_grad": ("the gradients are never zeroed. backward() adds to .grad, so every step follows the sum of all "
                     "the gradients so far: before loss.backward(), for p in model.parameters(): p.grad = 0.0"),
    "uphill": "the loss goes up: each parameter must move against its gradient, p.data -= lr * p.grad",
    "mse": ("your loop is right, with the mean of the squared errors (mse) as its loss; the task asks for their sum, "
            "as the lecture's loop has it: loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred)). The mean "
            "makes every gradient and step a quarter as big here, and the end of this lesson holds your losses "
            "against the package's loop, which uses the sum, step for step"),
    "update before backward": ("each step moves the parameters before loss.backward() has computed this step's "
                               "gradients, so it follows the gradients of the step before, and the first step moves by "
                               "whatever .grad held before the loop: forward, loss, zero the gradients, backward, "
                               "and only then the update"),
    "forward once": ("the loss is the same number at every step although the parameters move: the forward pass and "
                     "the loss are computed once, before the loop. Compute them inside the loop, on the updated "
                     "parameters, at the start of every step"),
}


def _numbers(losses):
    numbers_ = [as_number(v) for v in losses]
    return None if any(v is None for v in numbers_) else [float(v) for v in numbers_]


def _first_loss_problem(first, want):
    """Why the first recorded loss is not the untrained model's sum of squared errors."""
    outs = [_model()(x).data for x in _XS]
    errors = [o - y for o, y in zip(outs, _YS)]
    if close(first, sum(errors), 1e-9) or close(first, -sum(errors), 1e-9):
        return (f"the first loss is {first:.6g}, the errors added up without squaring them: a prediction too low and "
                f"one too high cancel out, and a loss can go below 0. Square each error, "
                f"sum((yout - ygt)**2 for ...), {want[0]:.6g} for the untrained model")
    if close(first, sum(abs(e) for e in errors), 1e-9):
        return (f"the first loss is {first:.6g}, the sum of the errors' sizes; the lesson's loss squares each error: "
                f"sum_of_squares([model(x) for x in xs], ys), {want[0]:.6g} for the untrained model")
    if any(close(first, e * e, 1e-9) for e in errors):
        return (f"the first loss is {first:.6g}, the squared error of one sample alone; the loss adds up all "
                f"{len(_XS)}: {want[0]:.6g} for the untrained model")
    if close(first, want[0] / len(_XS), 1e-9):
        return (f"the first loss is {first:.6g}, the mean of the squared errors (mse); the lesson's loop records their "
                f"sum, sum_of_squares([model(x) for x in xs], ys), {want[0]:.6g} for the untrained model")
    if close(first, want[1], 1e-9):
        return (f"the first loss is {first:.6g}, the loss after the first update; the untrained model's is "
                f"{want[0]:.6g}: record each step's loss before its update")
    return (f"the first loss is {first:.6g}; the sum of squared errors of the untrained model is {want[0]:.6g}: "
            "compute it as sum_of_squares([model(x) for x in xs], ys), before any update")


@contextlib.contextmanager
def _kept_aside():
    """What the learner's code prints while the check runs it, kept in a list instead of shown: [text]."""
    kept = []
    try:
        from IPython import get_ipython
        from IPython.utils.capture import capture_output
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        with capture_output(display=False) as captured:
            try:
                yield kept
            finally:
                kept.append(captured.stdout + captured.stderr)
        return
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            yield kept
        finally:
            kept.append(out.getvalue())


def _folded(printed):
    """The learner's prints, folded under the verdict: one line to click, the text in a box of its own."""
    lines = printed.rstrip("\n").count("\n") + 1
    return ('<details style="margin:2px 0 6px 12px;font-family:sans-serif;font-size:13px">'
            f'<summary style="{SUMMARY_STYLE}">what my_train printed while the check ran it ({lines} line'
            f'{"s" * (lines != 1)})</summary>'
            '<pre style="max-height:16em;overflow:auto;font-size:12px;margin:4px 0">'
            f"{html.escape(printed)}</pre></details>")


@checker("Build it: the training loop")
def my_training_loop(train):
    if not callable(train):
        return failed(f"pass the function itself, check.my_training_loop(my_train), not {type(train).__name__}")
    if stale.problem(train):
        return failed(stale.problem(train))
    with _kept_aside() as printed:
        theirs = _network_for(train)  # made with the learner's MyMLP, which may print too
        try:
            got = train(theirs, _XS, _YS, _STEPS, _LR)
        except AttributeError as error:
            if not _calls_missing_zero_grad(error):
                raise
            got = _NO_ZERO_GRAD
    outcome = _NO_ZERO_GRAD_VERDICT if got is _NO_ZERO_GRAD else _judge(theirs, got)
    if printed and printed[0].strip():  # the verdict first, where the learner looks; the prints under it
        outcome = (outcome[0], outcome[1], (outcome[2] if len(outcome) > 2 else "") + _folded(printed[0]))
    return outcome


_NO_ZERO_GRAD_VERDICT = failed(_NO_ZERO_GRAD)


def _judge(theirs, got):
    """The verdict on the losses got that my_train returned for theirs, the network it trained."""
    start = [p.data for p in _model().parameters()]
    mine = _model()
    want = _loop(mine, _STEPS, _LR)  # run here, for the parameters to compare with
    if got is None:
        return failed("it returns None; return the list of losses, one per step")
    got_numbers = _numbers(got) if isinstance(got, (list, tuple)) else None
    if got_numbers is None:
        return failed(f"it returns {type(got).__name__}; return a list with the loss of each step")
    if len(got_numbers) != _STEPS:
        return failed(f"asked for {_STEPS} steps, it returned {len(got_numbers)} losses; one loss per step")
    if any(hasattr(v, "grad") for v in got):
        return failed("it returns the losses as Values (losses.append(loss)); append the number, losses.append(loss.data): "
                      "the lesson prints and plots them as numbers, and a list of Values would keep every step's "
                      "whole graph in memory")
    params_ok = all(close(a.data, b.data, 1e-9) for a, b in zip(theirs.parameters(), mine.parameters()))
    if params_ok and all(close(g, w, 1e-9) for g, w in zip(got_numbers, want)):
        without_zeroing = _losses("no zero_grad")
        at_the_end = ""
        if all(getattr(p, "grad", None) == 0 for p in theirs.parameters()):
            at_the_end = (". Your loop zeroes the gradients at the end of each step, after the update (PyTorch's habit): "
                          "right, as a new model's gradients start at 0. Zeroing them first, before backward(), is "
                          "right whatever they start at")
        return passed(f"loss {want[0]:.4f} → {want[-1]:.4f} in {_STEPS} steps, as in the lesson's run (the same "
                      f"network and seed). The same loop without zero_grad ends at {without_zeroing[-1]:.4f}: every "
                      "step adds its gradient to all the earlier ones in .grad, the weights overshoot, and the output "
                      "neuron saturates at ±1" + at_the_end)
    if all(g == 1.0 for g in got_numbers):
        return failed("every loss it records is 1.0, the loss's own gradient (loss.grad is dL/dL = 1 after "
                      "backward()): append the loss's number, losses.append(loss.data)")
    if all(close(g, got_numbers[0], 1e-12) for g in got_numbers):
        moved = any(not close(p.data, s, 1e-12) for p, s in zip(theirs.parameters(), start))
        if moved:
            return failed(_SLIP_MESSAGES["forward once"])
        return failed("the loss never changes, so no parameter moves: after backward() and before anything zeroes "
                      "the gradients, move every parameter by -lr * p.grad")
    for slip, message in _SLIP_MESSAGES.items():
        slipped = _losses(slip)
        if all(close(g, s, 1e-9) for g, s in zip(got_numbers, slipped)):
            detail = f" (your loss after {_STEPS} steps: {got_numbers[-1]:.4f}; the right loop's: {want[-1]:.4f})"
            if slip == "mse":  # a mean and a sum are not to be held side by side
                detail = ""
            if slip == "no zero_grad":
                detail = f". On the lesson's network such a loop ends stuck at {got_numbers[-1]:.4f}, where the right loop reaches {want[-1]:.4f}"
            return failed(message + detail)
    for lr in (0.1, 0.01, 0.001, 0.5, 1.0):
        if all(close(g, s, 1e-9) for g, s in zip(got_numbers, _losses(lr=lr))):
            if lr == 1.0:
                return failed("each parameter moves by its whole gradient: scale the step by the learning rate, "
                              "p.data -= lr * p.grad")
            return failed(f"your loop steps by {lr:g}, not by the lr it is given ({_LR:g}): use the argument lr")
    if not close(got_numbers[0], want[0], 1e-9):
        return failed(_first_loss_problem(got_numbers[0], want))
    if got_numbers[-1] < got_numbers[0] / 10:
        return failed(f"your loop lowers the loss ({got_numbers[0]:.4f} → {got_numbers[-1]:.4f}), but not as the "
                      f"lesson's loop does (→ {want[-1]:.4f}): the check compares with forward, loss, zero every "
                      "p.grad, backward, then p.data -= lr * p.grad with the lr it is given, the same on every step. "
                      "If you change the step as you go (a learning-rate schedule), keep that for your own runs")
    return failed(f"after {_STEPS} steps the loss is {got_numbers[-1]:.6g}, the loop gives {want[-1]:.6g}: each step "
                  "should be forward, loss, zero every p.grad, backward, then p.data -= lr * p.grad for every parameter")


# double(x): one weight learns to double its input.  The lesson starts it at w = 0.4 and prints that
# first update; the exercise starts it at w = 1, so its answer is nowhere in the lesson.
X, W, Y, LR = 2.0, 1.0, 4.0, 0.1
LESSON_W = 0.4


@checker("Exercise 1: w after the first update")
def first_update(answer):
    problem = number_problem(answer, want="the answer is one number, the new w")
    if problem:
        return failed(problem)
    answer = as_number(answer)
    grad = 2 * (W * X - Y) * X  # d/dw of (w·x − y)²: the chain rule through the square
    expected = W - LR * grad
    if close(answer, expected, 1e-6):
        return passed(f"the gradient is {grad:g}, so w moves by {-LR * grad:g} to {expected:g}")
    if close(answer, grad, 1e-6):
        return failed(f"{answer:g} is the gradient dloss/dw; the update moves w against it, by lr times the gradient")
    if close(answer, W - grad, 1e-6):
        return failed("the step is the gradient times the learning rate (0.1), not the whole gradient")
    if close(answer, W + LR * grad, 1e-6):
        return failed("w moved uphill: subtract lr × gradient, since a negative gradient means a larger w lowers the loss")
    if close(answer, -LR * grad, 1e-6):
        return failed(f"{answer:g} is how far w moves; add it to the old w")
    if close(answer, LESSON_W - LR * 2 * (LESSON_W * X - Y) * X, 1e-6):
        return failed(f"{answer:g} is the first update from the lesson's start, w = {LESSON_W:g}; this exercise "
                      f"starts from w = {W:g}")
    return failed(f"hint: dloss/dw = 2(w·x − y)·x at w = {W:g}, x = {X:g}, y = {Y:g}; then w ← w − lr · dloss/dw")
