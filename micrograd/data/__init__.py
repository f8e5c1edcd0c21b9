"""The datasets the lessons use, as plain Python lists ready to wrap in ``Value``s.

- ``small``: the lecture's four samples, and scikit-learn's two moons made without it;
- ``digit_images``: scikit-learn's 8x8 digits (shipped, see ``DIGITS_SOURCE``) and their train/test split;
- ``idx``: a reader for MNIST's IDX files (MNIST itself is not shipped or fetched);
- ``text``: the 32,033 names the GPT lesson trains on (shipped, see ``NAMES_SOURCE``)
  and microgpt's character tokenizer.

Every one needs only the standard library (so the lessons' data is there in the browser
app too).  Nothing is ever downloaded.
"""

from .digit_images import DIGITS_SOURCE, digits
from .idx import IMAGES_MAGIC, LABELS_MAGIC, MNIST_FILES, IdxError, load_mnist, read_idx, write_idx
from .text import BOS_SYMBOL, NAMES_SOURCE, CharTokenizer, names
from .small import four_samples, moons
from .split import Split

__all__ = [
    "Split",
    "IdxError",
    "four_samples",
    "moons",
    "digits",
    "DIGITS_SOURCE",
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
