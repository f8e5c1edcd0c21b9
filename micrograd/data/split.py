"""What the datasets share: the train/test ``Split`` they return, and the check of a count."""

from typing import NamedTuple

__all__ = ["Split", "check_int"]


class Split(NamedTuple):
    """A train/test split; unpacks as ``X_train, y_train, X_test, y_test``."""

    X_train: list
    y_train: list
    X_test: list
    y_test: list


def check_int(name, value, minimum):
    """Refuse anything but a whole number >= minimum (a bool too), naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
