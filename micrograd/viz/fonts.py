"""One font for every drawing: DejaVu Sans, as matplotlib ships it.

Graphviz sizes each box from the widths of its text, measured with whatever
font fontconfig finds for the name the DOT asks for; that is a different
font on every system, so the same graph came out a different size on each.
matplotlib (a pinned dependency of the lessons) ships DejaVu Sans, so every
learner has the same font file.  While a drawing is rendered, fontconfig is
pointed at a configuration that lists only those files, so any font name
resolves to it and a learner's drawing matches the course site's.

Without matplotlib the system's fonts are used, as before, and so they are
with ``MICROGRAD_FONTS=system`` in the environment: for labels in a script
DejaVu Sans lacks (Chinese, say), or to check that stored notebooks validate
with other fonts (the tests do).
"""

import contextlib
import hashlib
import html
import importlib.util
import os
import pathlib
import sys
import tempfile

__all__ = ["CHOICE_VARIABLE", "FAMILY", "font_directory", "fontconfig_file", "pinned_fonts"]

CHOICE_VARIABLE = "MICROGRAD_FONTS"
_CHOICES = ("pinned", "system")

FAMILY = "DejaVu Sans"
# The regular, bold and oblique faces the labels use (<B>, <I>); nothing else in the directory.
FACES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf")


def font_directory():
    """matplotlib's directory of TrueType fonts if it has DejaVu Sans, else None.

    Found where matplotlib is installed, without importing it: a process that only draws
    graphs would otherwise spend a quarter of a second importing matplotlib and numpy."""
    module = sys.modules.get("matplotlib")
    if module is not None:
        origin = getattr(module, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec("matplotlib")
        except ImportError:  # the course in the browser refuses the name
            spec = None
        origin = spec.origin if spec is not None else None
    if origin is None:  # not installed, or a stand-in (the course in the browser) with no fonts
        return None
    directory = pathlib.Path(origin).parent / "mpl-data" / "fonts" / "ttf"
    return directory if (directory / FACES[0]).is_file() else None


def _xml(path):
    return html.escape(str(path), quote=False)


def _configuration(directory, cache):
    accepted = "".join(f"<glob>{_xml(directory / face)}</glob>" for face in FACES)
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f"  <dir>{_xml(directory)}</dir>\n"
        f"  <cachedir>{_xml(cache)}</cachedir>\n"
        # Only the DejaVu Sans faces: every other font in the directory is left out.
        f"  <selectfont><rejectfont><glob>*</glob></rejectfont><acceptfont>{accepted}</acceptfont></selectfont>\n"
        "</fontconfig>\n"
    )


_written = {}


def fontconfig_file():
    """The path of a fontconfig file listing only DejaVu Sans, written once per font directory; None without matplotlib."""
    directory = font_directory()
    if directory is None:
        return None
    if directory not in _written:
        # One folder per font directory and user: the temporary folder may be shared.
        owner = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
        key = hashlib.sha256(f"{directory}\0{owner}".encode("utf-8")).hexdigest()[:12]
        home = pathlib.Path(tempfile.gettempdir()) / f"micrograd-fonts-{key}"
        path = home / "fonts.conf"
        text = _configuration(directory, home / "cache")
        try:
            home.mkdir(exist_ok=True)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                # Written whole, then moved into place: another kernel may be reading it.
                partial = home / f"fonts.conf.{os.getpid()}"
                partial.write_text(text, encoding="utf-8")
                os.replace(partial, path)
        except OSError:  # no writable temporary folder: the system's fonts, as without matplotlib
            _written[directory] = None
        else:
            _written[directory] = str(path)
    return _written[directory]


@contextlib.contextmanager
def pinned_fonts():
    """While inside, fontconfig (in this process and the programs it starts) sees only DejaVu Sans.

    The variable is set only for the rendering, so that nothing else in a
    notebook's kernel (matplotlib lists the system's fonts with ``fc-list``)
    loses the system's fonts.
    """
    choice = os.environ.get(CHOICE_VARIABLE) or "pinned"
    if choice not in _CHOICES:
        raise ValueError(
            f"{CHOICE_VARIABLE} is 'pinned' (DejaVu Sans from matplotlib, the default) or 'system' "
            f"(whatever fonts this machine has), got {choice!r}"
        )
    path = fontconfig_file() if choice == "pinned" else None
    if path is None:
        yield
        return
    before = os.environ.get("FONTCONFIG_FILE")
    os.environ["FONTCONFIG_FILE"] = path
    try:
        yield
    finally:
        if before is None:
            del os.environ["FONTCONFIG_FILE"]
        else:
            os.environ["FONTCONFIG_FILE"] = before
