"""Every number a lesson's prose states is printed by one of its cells, or allowed with a reason.

Strict nbval keeps a notebook's outputs true; this test ties the prose to
those outputs.  For each notebook (lessons and solutions, one test case each)
it collects the numbers in its markdown cells and looks for each one in the
*evidence*: the notebook's code and the outputs nbval compares.  A number
found nowhere fails the case, named by notebook, cell and number.

What counts as a match
    * The same value, with the sign ignored (a hyphen in "2-16-16-1" or a
      minus in "slope of −1" reads alike) and thousands separators dropped
      ("65 800", "65,818", "65_800", ``1\\,810`` in LaTeX).
    * A rounding of an evidence number to the digits the prose writes:
      "0.0164" matches an output 0.016412, "about 8" matches 7.9.  A number in
      powers of ten ("1e-8", ``10^{-8}``) matches within 5 %.
    * A percentage also matches a fraction printed by a cell (84 % and 0.83902).
Each number is checked on its own: "15 of the 50" needs both 15 and 50.

What is evidence
    Code cell sources, and the text of every output nbval compares: streams,
    ``text/plain``, ``text/html`` with its drawings (SVG) taken out, and the
    message of a checker's verdict.  The outputs of cells tagged
    ``nbval-ignore-output`` (timings, files that may be missing) are NOT
    evidence: nbval does not keep them true, so the prose must not quote them.

What is not checked
    * Numbers in fenced code blocks (code shown, not run), in link targets and
      in bare URLs, and subscripts in LaTeX (the 0 and 9 of ``z_0 \\dots z_9``).
    * A lesson or exercise named by its number ("lesson 4", "lessons 5 and 6",
      "Lessons 1 to 6", "Exercise 2", "7 · A real classifier"), and the
      numbers of a numbered list ("1. ", "**2.** "): names, not results.
    * Numbers written as words ("tenfold", "twelve times"): read them by hand.
    Numbers inside LaTeX math are checked like any other: a formula's
    constants are almost always in the code that computes it; the few that are
    not (a float's 16 digits, a textbook identity) are in the allowlist.

The allowlist, ``tests/prose_numbers_allowed.txt``, names each exception per
notebook with its reason: lesson numbers beyond the rule above, constants of a
formula, figures cited from the lecture or from the write-ups of the ports.
``95 @ 08_real_data`` allows a number that is another lesson's result (the
welcome page quoting lesson 8's accuracy) and checks that that lesson prints it.
An entry nothing needs any more fails the hygiene test, so the list stays short.

Each notebook is its own test case, so a failure names the lesson it is in.
The matching is a net, not a proof: a small whole number ("17 of the 50") is
found if it is printed anywhere in the notebook, for whatever reason, so a wrong
small count can slip through where a wrong decimal ("0.8968") cannot.
"""

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ALLOWLIST = Path(__file__).with_name("prose_numbers_allowed.txt")

_SPACES = "[ \u00a0\u202f\u2009]"  # a space, no-break space, narrow no-break space, thin space
_MINUS = "-\u2212"
NUMBER = re.compile(
    r"(?<![\w.])(?:"
    r"(?P<clock>\d{1,2}:\d\d(?::\d\d)?)"  # 1:17:32, a time in a video
    rf"|(?P<grouped>\d{{1,3}}(?:(?:{_SPACES}|,|_|\\,)\d{{3}})+)(?![\d.])"  # 65 800, 65,818, 1\,810
    rf"|(?P<plain>\d+(?:_\d+)*(?:\.\d+)?(?:[eE][{_MINUS}+]?\d+)?)"  # 14.003, 1e-08, 100_000
    r")(?![\w])"
)
POWER_OF_TEN = re.compile(rf"10\^\{{?(?P<exp>[{_MINUS}]?\d+)\}}?")  # 10^{-8}, 10^4 in LaTeX
LESSON_REFERENCE = re.compile(
    rf"(?i)\b(?:lessons?|exercises?)\s+(?P<list>\d+(?:\s*(?:,|and|to|or|[–{_MINUS}])\s*\d+)*)"
    r"|(?<![\w.])\d+ · "  # a lesson's number in its title, "7 · A real classifier"
)
LIST_MARKER = re.compile(r"(?m)^\s*(?:\*\*)?\d+\.(?:\*\*)?\s")  # "1. " or "**2.** ": markdown's numbering
FENCED = re.compile(r"```.*?```", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
URL = re.compile(r"https?://\S+")
HTML_TAG = re.compile(r"<[^>]+>")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
SUBSCRIPT = re.compile(r"_\{?\d+\}?")
SVG = re.compile(r"<svg.*?</svg>", re.S)
VERDICT_MIME = "application/vnd.micrograd.verdict+json"


# -- numbers ---------------------------------------------------------------------------


class Number:
    """A number as written ("0.0164", "65 800", "1e-8") and its magnitude."""

    def __init__(self, text, value, decimals, scientific=False, percent=False):
        self.text, self.value, self.decimals = text, abs(value), decimals
        self.scientific, self.percent = scientific, percent

    def __repr__(self):
        return f"Number({self.text!r})"


def _parse(match, following=""):
    text = match.group(0)
    percent = bool(re.match(r"\s?%", following))
    if match.group("clock"):
        parts = [int(p) for p in text.split(":")]
        seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
        return Number(text, seconds, 0)
    if match.group("grouped"):
        digits = re.sub(rf"{_SPACES}|,|_|\\,", "", text)
        return Number(re.sub(rf"{_SPACES}|\\,", " ", text), int(digits), 0, percent=percent)
    plain = text.replace("_", "").replace("\u2212", "-")
    mantissa = re.split("[eE]", plain)[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return Number(text, float(plain), decimals, scientific="e" in plain.lower(), percent=percent)


def numbers_in(text):
    """Every number written in ``text``, each with its magnitude."""
    found = []
    for match in NUMBER.finditer(text):
        found.append(_parse(match, text[match.end():match.end() + 2]))
    return found


def evidence_values(text):
    """The magnitudes of every number in code or output text (grouped ones also part by part)."""
    values = set()
    for match in NUMBER.finditer(text):
        number = _parse(match)
        values.add(number.value)
        if match.group("grouped"):
            values.update(float(p) for p in re.split(rf"{_SPACES}|,|_|\\,", match.group(0)))
    return values


def matches(number, evidence):
    """Whether ``number`` (from the prose) is one of ``evidence``, or a rounding of one."""
    candidates = list(evidence)
    if number.percent:
        candidates += [100 * v for v in evidence]
    for value in candidates:
        if number.scientific or (number.value and number.value < 1e-3 and number.decimals == 0):
            if number.value == 0 and value == 0 or number.value and abs(value / number.value - 1) < 0.05:
                return True
        elif abs(value - number.value) <= 0.5 * 10.0 ** -number.decimals * (1 + 1e-9) + 1e-12:
            return True
    return False


# -- the prose -------------------------------------------------------------------------


def prose_numbers(markdown):
    """The numbers a markdown cell states, with what is not checked taken out."""
    text = FENCED.sub(" ", markdown)
    text = LINK_TARGET.sub("]", text)
    text = URL.sub(" ", text)
    text = HTML_TAG.sub(" ", text)

    def math(match):
        inner = SUBSCRIPT.sub(" ", match.group(0))
        inner = POWER_OF_TEN.sub(lambda m: f" 1e{m.group('exp').replace(chr(0x2212), '-')} ", inner)
        return inner.replace("$", " ")

    text = MATH.sub(math, text)
    text = LESSON_REFERENCE.sub(" ", text)
    text = LIST_MARKER.sub(" ", text)
    return numbers_in(text)


# -- the evidence ----------------------------------------------------------------------


def _ignored(cell):
    return "nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])


def _output_text(output):
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    if output.get("output_type") == "error":
        return output.get("evalue", "")
    data = output.get("data", {})
    parts = ["".join(data.get("text/plain", ""))]
    if "text/html" in data:
        parts.append(HTML_TAG.sub(" ", SVG.sub(" ", "".join(data["text/html"]))))
    if VERDICT_MIME in data:
        parts.append(str(data[VERDICT_MIME].get("message", "")))
    return "\n".join(parts)


def notebook_evidence(cells):
    """Every number in the code of ``cells`` and in the outputs nbval compares."""
    values = set()
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        values |= evidence_values("".join(cell["source"]))
        if not _ignored(cell):
            for output in cell.get("outputs", []):
                values |= evidence_values(_output_text(output))
    return values


def unprinted_numbers(cells, allowed=frozenset()):
    """(cell index, number) for each prose number neither printed nor allowed."""
    evidence = notebook_evidence(cells)
    missing = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for number in prose_numbers("".join(cell["source"])):
            if number.text in allowed or matches(number, evidence):
                continue
            missing.append((index, number))
    return missing


# -- the allowlist ---------------------------------------------------------------------


def read_allowlist(path=ALLOWLIST):
    """{notebook: {number as written: (reason, notebook that prints it, or None)}}.

    A line reads ``notebook: n1, n2  # reason``; ``n @ other`` says the number is
    a result of the notebook ``other`` and must be printed there.
    """
    allowed = defaultdict(dict)
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry, _, reason = line.partition("#")
        notebook, _, listed = entry.partition(":")
        assert reason.strip(), f"{path.name}:{line_number}: every entry needs a reason after '#'"
        assert listed.strip(), f"{path.name}:{line_number}: no numbers listed for {notebook.strip()}"
        for item in listed.split(","):
            text, _, printed_by = item.partition("@")
            allowed[notebook.strip()][text.strip()] = (reason.strip(), printed_by.strip() or None)
    return allowed


def lesson_paths():
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb"))


def name_of(path):
    return path.relative_to(NOTEBOOKS).with_suffix("").as_posix()


def cells_of(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _context(cells, index, number):
    source = "".join(cells[index]["source"]).replace("\n", " ")
    at = source.find(number.text)
    return source[max(0, at - 50):at + len(number.text) + 30].strip() if at >= 0 else ""


@pytest.mark.parametrize("path", lesson_paths(), ids=name_of)
def test_every_number_in_the_prose_is_printed_by_a_cell(path):
    cells = cells_of(path)
    allowed = read_allowlist().get(name_of(path), {})
    missing = unprinted_numbers(cells, frozenset(allowed))
    for text, (_, printed_by) in allowed.items():
        if printed_by:  # a result of another lesson: it must be printed there
            number = numbers_in(text)[0]
            if not matches(number, notebook_evidence(cells_of(NOTEBOOKS / f"{printed_by}.ipynb"))):
                missing.append((f"(allowed as printed by {printed_by}, which does not print it)", number))
    report = "\n".join(
        f"  {name_of(path)}.ipynb: {number.text} {index}" if isinstance(index, str)
        else f"  {name_of(path)}.ipynb cell {index}: {number.text}   (…{_context(cells, index, number)}…)"
        for index, number in missing
    )
    assert not missing, (
        f"{len(missing)} number(s) in the prose appear in no code and no compared output; print each "
        f"from a cell, correct the prose, or allow it in {ALLOWLIST.name} with a reason:\n{report}"
    )


def test_every_allowlist_entry_is_needed_and_names_a_notebook():
    names = {name_of(path): path for path in lesson_paths()}
    stale = []
    for notebook, entries in read_allowlist().items():
        assert notebook in names, f"{ALLOWLIST.name} names {notebook!r}, which is not a notebook"
        for text, (_, printed_by) in entries.items():
            assert printed_by is None or printed_by in names, f"{notebook}: {text} @ {printed_by}: no such notebook"
        cells = cells_of(names[notebook])
        needed = {number.text for _, number in unprinted_numbers(cells)}
        stale += [f"{notebook}: {text}" for text in entries if text not in needed]
    assert not stale, f"entries nothing needs any more (remove them from {ALLOWLIST.name}): {stale}"


# -- the matching itself ---------------------------------------------------------------


def _markdown(text):
    return {"cell_type": "markdown", "source": text}


def _code(source, printed=""):
    return {"cell_type": "code", "source": source, "metadata": {},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]}


@pytest.mark.parametrize(
    "prose, printed",
    [
        ("the loss falls to 0.0164", "loss 0.016412"),
        ("about 8 times fewer nodes", "7.9 times as many"),
        ("65 800 nodes", "about 65,800 nodes"),
        ("a slope of −1", "slope -1.0"),
        ("the biggest logit gets 84 %", "[0.04177, 0.83902]"),
        ("smallest at $h = 10^{-8}$", "  1e-08   14.0000000926"),
        ("15 of the 50 points", "15 of 50 past the margin"),
    ],
)
def test_a_printed_number_is_found(prose, printed):
    assert unprinted_numbers([_markdown(prose), _code("print(x)", printed)]) == []


@pytest.mark.parametrize(
    "prose, printed",
    [
        ("the loss falls to 0.0165", "loss 0.016412"),  # a planted wrong digit
        ("15 of the 50 points", "15 points past the margin"),  # the 50 is printed nowhere
        ("about 9 times fewer nodes", "7.9 times as many"),
    ],
)
def test_a_number_printed_nowhere_is_reported(prose, printed):
    assert unprinted_numbers([_markdown(prose), _code("print(x)", printed)]) != []


def test_an_ignored_output_is_no_evidence():
    cell = _code("print(rate)", "292 samples per second")
    cell["metadata"]["tags"] = ["nbval-ignore-output"]
    assert [n.text for _, n in unprinted_numbers([_markdown("292 samples a second"), cell])] == ["292"]


def test_lesson_names_links_and_subscripts_are_not_checked():
    prose = ("As lesson 4 showed (and lessons 5 and 6, Exercise 2), see [the video](https://youtu.be/x?t=488); "
             "logits $z_0, \\dots, z_9$.\n```python\nfor step in range(50): pass\n```")
    assert prose_numbers(prose) == []
