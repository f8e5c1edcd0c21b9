"""The datasets the lessons use, as plain Python lists ready to wrap in ``Value``s.

- ``small``: the lecture's four samples, two moons, scikit-learn's 8x8 digits;
- ``idx``: a reader for MNIST's IDX files (MNIST itself is not shipped or fetched);
- ``text``: the 32,033 names the GPT lesson trains on (shipped, see ``NAMES_SOURCE``)
  and microgpt's character tokenizer.

``four_samples``, ``names`` and the IDX functions need only the standard library;
``moons`` and ``digits`` need scikit-learn.  Nothing is ever downloaded.
"""

from .idx import IMAGES_MAGIC, LABELS_MAGIC, MNIST_FILES, IdxError, load_mnist, read_idx, write_idx
from .text import BOS_SYMBOL, NAMES_SOURCE, CharTokenizer, names
from .small import digits, four_samples, moons
from .split import Split

__all__ = [
    "Split",
    "IdxError",
    "four_samples",
    "moons",
    "digits",
    "read_idx",
    "write_idx",
    "load_mnist",
    "MNIST_FILES",
    "IMAGES_MAGIC",
    "LABELS_MAGIC",
    "names",
    "NAMES_SOURCE",
    "CharTokenizer",
    "BOS_SYMBOL",
]
