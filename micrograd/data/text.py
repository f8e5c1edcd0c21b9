"""Text for the GPT lesson: the names it trains on (shipped with the package) and microgpt's
character tokenizer.

    >>> from micrograd.data import CharTokenizer, names
    >>> docs = names()
    >>> len(docs), docs[:3]
    (32033, ['emma', 'olivia', 'ava'])
    >>> tokenizer = CharTokenizer(docs)
    >>> tokenizer.vocab_size, tokenizer.document("ava")
    (27, [26, 0, 21, 0, 26])
"""

from importlib import resources

__all__ = ["names", "NAMES_SOURCE", "CharTokenizer", "BOS_SYMBOL"]

NAMES_SOURCE = (
    "names.txt of makemore (https://github.com/karpathy/makemore, commit 988aa59, MIT licence, "
    "Andrej Karpathy): the most common names in the US Social Security Administration's baby-name "
    "data for 2018 (https://www.ssa.gov/oact/babynames/), lower case, one per line; the file "
    "microgpt reads.  Shipped unchanged inside this package: nothing is downloaded."
)

BOS_SYMBOL = "<BOS>"  # how symbol() shows the token that begins and ends every document

_names = None  # read once, on the first call


def names():
    """The 32,033 names of makemore's ``names.txt``, in the file's order, as a fresh list.

    The file ships inside the package (see ``NAMES_SOURCE`` for where it comes from), so
    this works offline.  It is read the way microgpt reads it: one document per line, each
    stripped, empty lines dropped.  Every call returns a new list, so a lesson may shuffle it.
    """
    global _names
    if _names is None:
        text = resources.files(__package__).joinpath("names.txt").read_text(encoding="ascii")
        _names = tuple(line.strip() for line in text.strip().split("\n") if line.strip())
    return list(_names)


class CharTokenizer:
    """microgpt's tokenizer: one token id per character of the documents, and one BOS token.

    Written as microgpt writes it::

        uchars = sorted(set(''.join(docs)))  # the characters become token ids 0..n-1
        BOS = len(uchars)                    # token id n begins and ends every document
        vocab_size = len(uchars) + 1

    here ``chars``, ``bos`` and ``vocab_size``.  For the names: 26 letters, BOS is 26, 27 tokens.
    """

    def __init__(self, docs):
        if isinstance(docs, str):
            raise TypeError(f"CharTokenizer takes a list of documents, got the single string {docs!r}; wrap it: [text]")
        docs = list(docs)
        for doc in docs:
            if not isinstance(doc, str):
                raise TypeError(f"CharTokenizer takes documents as strings, got {type(doc).__name__} {doc!r}")
        self.chars = sorted(set("".join(docs)))
        if not self.chars:
            raise ValueError("CharTokenizer needs documents with at least one character between them")
        self.bos = len(self.chars)
        self.vocab_size = len(self.chars) + 1
        self._ids = {ch: i for i, ch in enumerate(self.chars)}

    def encode(self, text):
        """The token ids of the characters of ``text`` (no BOS)."""
        try:
            return [self._ids[ch] for ch in text]
        except KeyError as error:
            raise ValueError(
                f"{error.args[0]!r} (in {text!r}) is not one of the tokenizer's {len(self.chars)} characters "
                f"{''.join(self.chars)!r}; it knows only the characters of the documents it was made from"
            ) from None

    def document(self, text):
        """``[BOS] + encode(text) + [BOS]``: a document as the model trains on it."""
        return [self.bos, *self.encode(text), self.bos]

    def decode(self, token_ids):
        """The text of ``token_ids``; BOS tokens mark where a document begins and ends, and are left out."""
        return "".join(self.symbol(i) for i in token_ids if i != self.bos)

    def symbol(self, token_id):
        """The character of ``token_id``, or ``BOS_SYMBOL`` for the BOS token (for labels in pictures)."""
        if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < self.vocab_size:
            raise ValueError(f"token id {token_id!r} is not in this vocabulary of {self.vocab_size} (0 to {self.bos})")
        return BOS_SYMBOL if token_id == self.bos else self.chars[token_id]

    def __repr__(self):
        return f"CharTokenizer({''.join(self.chars)!r} + BOS={self.bos}, vocab_size={self.vocab_size})"
