"""Text as the drawings show it: numbers, and user text made safe for Graphviz.

A label may hold any character.  Four things stand between it and the
picture: Graphviz reads HTML-like labels as XML (so ``& < > "`` need entities
and characters XML forbids must not appear), it expands escapes such as
``\\N`` (the node's name) even there (so a backslash is doubled), it rejects
some texts made of ``]`` alone (so ``]`` is written as an entity), and control
characters other than a newline would vanish or break the SVG (so they are
shown as visible symbols instead).
"""

import math

_HTML_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
    "\\": "\\\\",
    "]": "&#93;",  # dot's label parser rejects a text that is only "]"s
}


def format_number(x, precision):
    """``x`` with ``precision`` decimals, in scientific form when too big or small.

    Tiny values switch to scientific notation rather than printing as
    0.0000, so a vanishing gradient is not mistaken for an exact zero.
    """
    if x == 0:
        return f"{0.0:.{precision}f}"  # never "-0.0000"
    if not math.isfinite(x):
        return repr(x)
    magnitude = abs(x)
    if 10.0**-precision <= magnitude < 1e6:
        return f"{x:.{precision}f}"
    return f"{x:.{precision}e}"


def check_precision(precision):
    if isinstance(precision, bool) or not isinstance(precision, int) or not 0 <= precision <= 17:
        raise ValueError(f"precision is the number of decimals to show, a whole number from 0 to 17, got {precision!r}")


def _visible_char(ch):
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # U+2400.. "control pictures": ␀ ␉ ␍ ...
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0x80 <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in (0xFFFE, 0xFFFF):
        return f"\\u{code:04x}"  # C1 controls, lone surrogates, XML non-characters
    return ch


def visible_lines(text):
    """Split ``text`` into lines with every character visible and XML-safe.

    Newlines (``\\n``, ``\\r\\n``, ``\\r``) start a new line; other control
    characters become their Unicode control pictures (a tab shows as ␉).
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return ["".join(map(_visible_char, line)) for line in text.split("\n")]


def html_text(text):
    """``text`` escaped for a Graphviz HTML-like label, newlines as line breaks."""
    return "<BR/>".join(
        "".join(_HTML_ENTITIES.get(ch, ch) for ch in line) for line in visible_lines(text)
    )


def plain_text(text):
    """``text`` on one line for the text view: newlines shown as ``\\n``."""
    return "\\n".join(visible_lines(text))
