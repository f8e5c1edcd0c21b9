"""How good are the predictions: accuracy and the confusion matrix."""

from .engine import Value

__all__ = ["predicted_class", "accuracy", "confusion_matrix"]


def predicted_class(output):
    """The class a model output stands for.

    One score (a Value or number) is a ±1 classifier: its sign is the class.
    A list of scores is a multi-class classifier: the index of the largest.
    """
    if isinstance(output, (Value, int, float)):
        return 1 if _data(output) > 0 else -1
    scores = [_data(s) for s in output]
    if not scores:
        raise ValueError("predicted_class got an empty list of scores")
    return max(range(len(scores)), key=scores.__getitem__)


def accuracy(outputs, labels):
    """Fraction of samples whose predicted class equals the label."""
    outputs, labels = list(outputs), list(labels)
    if len(outputs) != len(labels):
        raise ValueError(f"accuracy got {len(outputs)} outputs but {len(labels)} labels")
    if not outputs:
        raise ValueError("accuracy needs at least one sample")
    return sum(predicted_class(o) == y for o, y in zip(outputs, labels)) / len(outputs)


def confusion_matrix(predicted, labels, n_classes):
    """counts[true][predicted] as a list of lists."""
    counts = [[0] * n_classes for _ in range(n_classes)]
    for p, y in zip(predicted, labels):
        counts[y][p] += 1
    return counts


def _data(x):
    return x.data if isinstance(x, Value) else x
