"""numpy's ``RandomState`` in pure Python: the draws scikit-learn's ``make_moons`` takes from it.

``np.random.RandomState(seed)`` is the Mersenne Twister (MT19937), seeded by the generator's
own rule for a 32-bit seed (``init_genrand``).  Python's ``random.Random`` is the same
Mersenne Twister, seeded by another rule; given numpy's seeded state through ``setstate``,
it yields numpy's stream draw for draw: ``getrandbits(32)`` is numpy's next 32-bit number
and ``random()`` its next double (both build a double from two 32-bit draws the same way).
On top of that stream this module does what numpy's legacy methods do, step for step:

- ``shuffle``: Fisher-Yates from the end, each index drawn by masking 32-bit draws to the
  smallest all-ones mask that covers it and drawing again while it is too large;
- ``gauss``: the polar Box-Muller method, which makes two normal numbers from one accepted
  pair of uniforms and keeps the second for the next call.

So a dataset made from ``RandomState(seed)`` is made here without numpy, bit for bit
(``tests/test_data.py`` compares with numpy and scikit-learn).
"""

import math
import random

from .split import check_int

__all__ = ["NumpyRandomState", "MAX_SEED"]

MAX_SEED = 2**32 - 1  # numpy's RandomState takes a seed of 32 bits
_STATE_WORDS = 624  # MT19937's state, in 32-bit words


class NumpyRandomState:
    """The stream of ``numpy.random.RandomState(seed)``, for the methods scikit-learn's moons use."""

    def __init__(self, seed):
        check_int("seed", seed, 0)
        if seed > MAX_SEED:
            raise ValueError(f"seed must be at most 2**32 - 1 (numpy's RandomState takes 32 bits), got {seed!r}")
        words, word = [], seed
        for position in range(_STATE_WORDS):  # MT19937's init_genrand, as numpy seeds it
            words.append(word)
            word = (1812433253 * (word ^ (word >> 30)) + position + 1) & 0xFFFFFFFF
        self._twister = random.Random()
        # The last number is the position in the state: at its end, so the first draw regenerates it.
        self._twister.setstate((3, (*words, _STATE_WORDS), None))
        self._kept_gauss = None

    def _bounded(self, largest):
        """A whole number from 0 to ``largest``, drawn as numpy's legacy ``random_interval`` draws it."""
        if largest == 0:
            return 0
        mask = (1 << largest.bit_length()) - 1
        while True:
            value = self._twister.getrandbits(32) & mask
            if value <= largest:
                return value

    def shuffle(self, items):
        """Shuffle the list ``items`` in place, as ``RandomState.shuffle`` shuffles a 1-D array."""
        for i in range(len(items) - 1, 0, -1):
            j = self._bounded(i)
            items[i], items[j] = items[j], items[i]

    def gauss(self):
        """One standard normal number, as ``RandomState.standard_normal`` draws it."""
        if self._kept_gauss is not None:
            kept, self._kept_gauss = self._kept_gauss, None
            return kept
        while True:
            x1 = 2.0 * self._twister.random() - 1.0
            x2 = 2.0 * self._twister.random() - 1.0
            r2 = x1 * x1 + x2 * x2
            if 0.0 < r2 < 1.0:
                break
        f = math.sqrt(-2.0 * math.log(r2) / r2)
        self._kept_gauss = f * x1
        return f * x2

    def normal(self, scale):
        """One number of ``RandomState.normal(0.0, scale)``: computed as numpy does, ``0.0 + scale * gauss``."""
        return 0.0 + scale * self.gauss()
