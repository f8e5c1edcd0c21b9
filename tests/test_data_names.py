"""The names shipped for the GPT lesson, microgpt's tokenizer, and how the package ships its data."""

import hashlib
import string
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import micrograd.data
from micrograd.data import BOS_SYMBOL, NAMES_SOURCE, CharTokenizer, names

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "micrograd"
# The git blob of names.txt in karpathy/makemore at commit 988aa59 (the file microgpt downloads).
MAKEMORE_BLOB = "736d88e18b70b292750a30e5cca6a92b0b333bd2"


def test_the_shipped_file_is_makemores_names_txt_unchanged():
    content = (PACKAGE / "data" / "names.txt").read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # how git names a file's content
    assert blob == MAKEMORE_BLOB


def test_names_are_the_32033_lines_of_the_file_in_order():
    docs = names()
    assert len(docs) == 32033  # microgpt prints "num docs: 32033" (wc -l says 32032: no final newline)
    assert docs[:3] == ["emma", "olivia", "ava"] and docs[-1] == "zzyzx"
    assert all(doc and set(doc) <= set(string.ascii_lowercase) for doc in docs)
    assert max(map(len, docs)) == 15  # a name and two BOS fit microgpt's block of 16 positions


def test_names_are_a_fresh_list_each_call():
    first = names()
    first.clear()
    assert len(names()) == 32033
    assert names() is not names()


def test_names_say_where_they_come_from():
    for fragment in ("makemore", "MIT", "Social Security", "2018", "microgpt", "nothing is downloaded"):
        assert fragment in NAMES_SOURCE
    assert "NAMES_SOURCE" in micrograd.data.names.__doc__


def test_names_need_no_network_and_no_third_party_package():
    code = (
        "import socket, sys\n"
        "def refuse(*args, **kwargs): raise OSError('no network here')\n"
        "socket.socket = refuse; socket.create_connection = refuse\n"
        "from micrograd.data import names\n"
        "print(len(names()), sorted({'numpy', 'sklearn'} & set(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["32033", "[]"]


def test_every_data_file_of_the_package_is_declared_package_data():
    """A wheel (a non-editable install) carries only the files pyproject.toml declares."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    data_files = [path for path in PACKAGE.rglob("*") if path.is_file() and path.suffix not in (".py", ".pyc")]
    assert PACKAGE / "data" / "names.txt" in data_files
    for path in data_files:
        folder = path.parent.relative_to(REPO).as_posix().replace("/", ".")
        assert any(fnmatch(path.name, pattern) for pattern in declared.get(folder, [])), f"{path} is not package data"


# -- the tokenizer --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tokenizer():
    return CharTokenizer(names())


def test_tokenizer_is_microgpts(tokenizer):
    docs = names()
    uchars = sorted(set("".join(docs)))  # microgpt's three lines
    assert (tokenizer.chars, tokenizer.bos, tokenizer.vocab_size) == (uchars, len(uchars), len(uchars) + 1)
    assert (tokenizer.bos, tokenizer.vocab_size) == (26, 27)
    assert tokenizer.encode("emma") == [uchars.index(ch) for ch in "emma"]


def test_document_is_wrapped_in_bos_and_decodes_back(tokenizer):
    assert tokenizer.document("ava") == [26, 0, 21, 0, 26]
    assert tokenizer.decode(tokenizer.document("ava")) == "ava"
    assert tokenizer.decode([]) == ""
    assert [tokenizer.symbol(i) for i in (0, 25, 26)] == ["a", "z", BOS_SYMBOL]


def test_tokenizer_of_any_documents():
    small = CharTokenizer(["ba", "ca"])
    assert (small.chars, small.bos, small.vocab_size) == (["a", "b", "c"], 3, 4)
    assert small.document("cab") == [3, 2, 0, 1, 3]


@pytest.mark.parametrize(
    "make, error, fragment",
    [
        (lambda t: t.encode("Emma"), ValueError, "'E' (in 'Emma') is not one of the tokenizer's 26 characters"),
        (lambda t: t.decode([27]), ValueError, "token id 27 is not in this vocabulary of 27 (0 to 26)"),
        (lambda t: t.symbol(-1), ValueError, "token id -1"),
        (lambda t: t.symbol(True), ValueError, "token id True"),
        (lambda t: CharTokenizer("emma"), TypeError, "wrap it: [text]"),
        (lambda t: CharTokenizer(["emma", 3]), TypeError, "int 3"),
        (lambda t: CharTokenizer(["", ""]), ValueError, "at least one character"),
    ],
)
def test_tokenizer_errors_say_what_is_wrong(tokenizer, make, error, fragment):
    with pytest.raises(error) as raised:
        make(tokenizer)
    assert fragment in str(raised.value)
