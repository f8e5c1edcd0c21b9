"""What every model builds on: ``Module`` (parameters, and zeroing their gradients), and the
random generator its starting weights are drawn from.

``Neuron``, ``Layer`` and ``MLP`` in ``nn`` and ``GPT`` in ``gpt`` all build on these; they
live apart from both so that each can import them.
"""

import random as _random

__all__ = ["Module", "random_generator"]


def random_generator(rng):
    """A random.Random from a seed, a Random, or None (the global generator)."""
    if rng is None or rng is _random:
        return _random  # the module-level generator that random.seed() seeds
    if isinstance(rng, _random.Random):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return _random.Random(rng)
    raise TypeError(f"rng takes a seed (int), a random.Random or None, got {type(rng).__name__}")


class Module:
    """Anything with parameters: they can be listed and their grads zeroed."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Neuron, Layer and MLP zero their gradients without building the list
        # that parameters() returns (a 784-input layer has tens of thousands of
        # parameters).  A subclass that changes parameters() but not
        # zero_grad() must not inherit that shortcut: it gets the version
        # that asks parameters().
        if "parameters" in vars(cls) and "zero_grad" not in vars(cls):
            cls.zero_grad = Module.zero_grad

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []

    def named_parameters(self, prefix=""):
        """(name, Value) for each parameter, in the order of parameters().

        Names follow the indexing in code: ``L0.N3.w1`` is
        ``model.layers[0].neurons[3].w[1]``.  A Module subclass that only
        defines parameters() gets ``p0``, ``p1``, ...
        """
        for k, p in enumerate(self.parameters()):
            yield f"{prefix}p{k}", p
