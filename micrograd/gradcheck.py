"""Check backward() against finite differences, input by input.

A gradient is a slope, so it can be measured without any calculus: nudge
one input by h either way and watch the output.  If backward() disagrees
with that measurement, some operation records a wrong local derivative.
"""

from dataclasses import dataclass

from .engine import Value

__all__ = ["central_difference", "numerical_gradient", "gradcheck", "GradcheckReport", "GradcheckRow"]


def central_difference(f, x, h=1e-6):
    """(f(x + h) − f(x − h)) / 2h: the slope of a one-number function at x."""
    return (f(x + h) - f(x - h)) / (2 * h)


def _evaluate(f, numbers):
    out = f(*[Value(x) for x in numbers])
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck's function must return a Value, got {type(out).__name__}")
    return out


def numerical_gradient(f, inputs, h=1e-6):
    """The slope of ``f`` along each input, by central differences.

    ``f`` takes one Value per input and returns a Value.
    """
    point = [_number(x) for x in inputs]
    slopes = []
    for i in range(len(point)):
        def along_i(xi, i=i):
            moved = point[:i] + [xi] + point[i + 1 :]
            return _evaluate(f, moved).data

        slopes.append(central_difference(along_i, point[i], h))
    return slopes


@dataclass(frozen=True)
class GradcheckRow:
    name: str
    analytic: float
    numeric: float
    ok: bool

    @property
    def error(self):
        return abs(self.analytic - self.numeric)


@dataclass(frozen=True)
class GradcheckReport:
    """One row per input; ``ok`` when every row agrees within tolerance."""

    rows: tuple

    @property
    def ok(self):
        return all(row.ok for row in self.rows)

    @property
    def failures(self):
        return [row for row in self.rows if not row.ok]

    def __bool__(self):
        return self.ok

    def __str__(self):
        width = max(len("input"), *(len(row.name) for row in self.rows))
        lines = [f"{'input':<{width}}  {'backward()':>14}  {'numerical':>14}  {'difference':>11}"]
        for row in self.rows:
            mark = "ok" if row.ok else "MISMATCH"
            lines.append(
                f"{row.name:<{width}}  {row.analytic:>14.6g}  {row.numeric:>14.6g}  {row.error:>11.2e}  {mark}"
            )
        verdict = "all gradients match" if self.ok else f"{len(self.failures)} of {len(self.rows)} gradients are wrong"
        lines.append(verdict)
        return "\n".join(lines)

    def __repr__(self):
        return str(self)


def gradcheck(f, inputs, names=None, h=1e-6, rtol=1e-4, atol=1e-6):
    """Compare backward()'s gradients of ``f`` with central differences.

    ``f`` takes one Value per input and returns a Value; ``inputs`` are the
    numbers (or Values, whose data is used) to check at.  Returns a report
    that prints as a table and is truthy when every gradient matches.
    """
    point = [_number(x) for x in inputs]
    if not point:
        raise ValueError("gradcheck needs at least one input")
    if names is None:
        names = [x.label if isinstance(x, Value) and x.label else f"x{i}" for i, x in enumerate(inputs)]
    names = list(names)
    if len(names) != len(point):
        raise ValueError(f"gradcheck got {len(names)} names for {len(point)} inputs")

    leaves = [Value(x) for x in point]
    out = f(*leaves)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck's function must return a Value, got {type(out).__name__}")
    out.backward()
    numeric = numerical_gradient(f, point, h)
    rows = tuple(
        GradcheckRow(name, leaf.grad, slope, abs(leaf.grad - slope) <= atol + rtol * abs(slope))
        for name, leaf, slope in zip(names, leaves, numeric)
    )
    return GradcheckReport(rows)


def _number(x):
    if isinstance(x, Value):
        return x.data
    if isinstance(x, (int, float)):
        return float(x)
    raise TypeError(f"gradcheck inputs are numbers or Values, got {type(x).__name__}")
