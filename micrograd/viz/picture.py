"""A matplotlib figure on a notebook page: at the size it is shown, at twice the pixels.

A :class:`Picture` holds a figure made for a size in CSS pixels.  In a
notebook it shows as a PNG with twice those pixels (sharp on a 2× screen),
told to display at that size, so the browser never stretches it; its
plain-text part is a short description with the numbers drawn, which is
what strict nbval compares (it never compares PNGs).  ``svg()`` gives the
same picture as SVG text that is the same in every run.

Needs matplotlib (``pip install matplotlib``), imported when a picture is made.  Where it
is missing and a note was set with ``note_when_missing`` (the course's browser app sets one),
a function marked ``@drawn_or_noted`` returns a :class:`NotDrawn` that shows that one line
instead of raising.
"""

import base64
import functools
import html
import io

from ..optional import require
from .describe import Words
from .page import in_words

__all__ = [
    "Picture",
    "NotDrawn",
    "new_figure",
    "note_when_missing",
    "note_in_place_of",
    "drawn_or_noted",
    "DENSITY",
    "CSS_DPI",
    "MIN_FONT_PT",
]

DENSITY = 2  # pixels per CSS pixel in the PNG
CSS_DPI = 96  # CSS pixels per inch, fixed by the CSS standard
# The smallest text a picture uses: 8.5 pt is 11.3 CSS px at its own size.
MIN_FONT_PT = 8.5
# The text of every picture, in points (at 96 CSS px per inch, 1 pt = 4/3 px).
_STYLE = {
    "font.size": 9.5,
    "axes.titlesize": 10,
    "axes.labelsize": 9.5,
    "xtick.labelsize": MIN_FONT_PT + 0.5,
    "ytick.labelsize": MIN_FONT_PT + 0.5,
    "legend.fontsize": MIN_FONT_PT + 0.5,
    "font.family": "DejaVu Sans",  # bundled with matplotlib: the same glyphs on every machine
    "svg.hashsalt": "micrograd",  # repeatable ids of clip paths in SVG
    "svg.fonttype": "none",  # SVG text stays text, independent of the fonts installed
}


def _matplotlib():
    # matplotlib.figure is what pictures draw with: a matplotlib without it (a stand-in) is none.
    require("matplotlib.figure", "micrograd.viz's pictures", "notebooks")
    return require("matplotlib", "micrograd.viz's pictures", "notebooks")


_note = None  # what a picture shows where matplotlib is missing, if anything (see note_when_missing)


def note_when_missing(note):
    """Where matplotlib is missing, pictures show ``note`` (one line) instead of raising; None: they raise."""
    global _note
    if note is not None and (not isinstance(note, str) or "\n" in note or not note.strip()):
        raise ValueError(f"the note a picture shows without matplotlib is one line of text, got {note!r}")
    _note = note


class NotDrawn:
    """A picture that could not be drawn here: shows its one line (see ``note_when_missing``)."""

    def __init__(self, note):
        self.note = note

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return {"text/plain": self.note}

    def __repr__(self):
        return self.note


def drawn_or_noted(make):
    """``make`` (a function that returns a Picture), returning a NotDrawn where matplotlib is missing and a note is set."""

    @functools.wraps(make)
    def drawn(*args, **kwargs):
        try:
            return make(*args, **kwargs)
        except ImportError:
            if _note is None or _has_matplotlib():
                raise
            return NotDrawn(_note)

    return drawn


def note_in_place_of(error):
    """The one line a figure that ``error`` (an ImportError) kept from being drawn shows in its place.

    Where matplotlib is missing and a note was set (``note_when_missing``), that note, as the
    figure cells say it; else the error's own advice (what to install).
    """
    if _note is None or _has_matplotlib():
        return str(error)
    return _note


def _has_matplotlib():
    try:
        _matplotlib()
    except ImportError:
        return False
    return True


def new_figure(width_px, height_px):
    """A matplotlib Figure of ``width_px`` × ``height_px`` CSS pixels, with the course's text sizes.

    Not registered with pyplot: it is shown once, by the Picture that holds it, and garbage
    collected with it.
    """
    if not (isinstance(width_px, (int, float)) and isinstance(height_px, (int, float))) or width_px <= 0 or height_px <= 0:
        raise ValueError(f"a picture's size is a width and height in CSS pixels, both > 0, got {width_px!r} × {height_px!r}")
    _matplotlib()
    figure_module = require("matplotlib.figure", "micrograd.viz's pictures", "notebooks")
    backend = require("matplotlib.backends.backend_agg", "micrograd.viz's pictures", "notebooks")
    with style():
        figure = figure_module.Figure(figsize=(width_px / CSS_DPI, height_px / CSS_DPI), dpi=CSS_DPI)
    backend.FigureCanvasAgg(figure)
    return figure


def style():
    """A context in which matplotlib uses the pictures' text sizes and repeatable SVG ids."""
    return _matplotlib().rc_context(_STYLE)


class Picture:
    """A matplotlib figure with a description; shows itself in a notebook at its own size.

    ``figure``: the matplotlib Figure (made by ``new_figure``, so its size in inches at 96 per
    inch is its size on the page).  ``description``: the plain-text part of its output, which
    should state what is drawn, numbers included: it is what a stored notebook is compared by.
    """

    def __init__(self, figure, description):
        self.figure = figure
        self.description = description

    @property
    def size(self):
        """(width, height) on the page, in CSS pixels."""
        width, height = self.figure.get_size_inches()
        return round(width * CSS_DPI), round(height * CSS_DPI)

    def png(self):
        """PNG bytes with ``DENSITY`` pixels per CSS pixel."""
        out = io.BytesIO()
        with style():
            # No bbox_inches="tight": the PNG keeps the figure's own size, so its shown size is exact.
            self.figure.savefig(out, format="png", dpi=CSS_DPI * DENSITY, metadata={"Software": None})
        return out.getvalue()

    def svg(self):
        """The picture as SVG text, the same in every run (no date, fixed ids, text as text)."""
        out = io.StringIO()
        with style():
            self.figure.savefig(out, format="svg", dpi=CSS_DPI, metadata={"Date": None, "Creator": None})
        text = out.getvalue()
        return text[text.index("<svg") :]

    @property
    def words(self):
        """What the picture says to a learner who cannot see it: its first line, then all of it."""
        return Words(self.description.split("\n", 1)[0], self.description)

    def html(self, png=None):
        """The PNG as an ``<img>`` with its alt text, at its own size, and the description under it.

        JupyterLab's image renderer, and so a bare ``image/png`` output, has no place for alt text;
        this form, which a notebook and the course site prefer, has."""
        width, height = self.size
        png = base64.b64encode(self.png()).decode("ascii") if png is None else png
        return (
            f'<img class="micrograd-picture" alt="{html.escape(self.words.name, quote=True)}" width="{width}" height="{height}" '
            f'src="data:image/png;base64,{png}">{in_words(self.words)}'
        )

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        width, height = self.size
        png = base64.b64encode(self.png()).decode("ascii")
        data = {"image/png": png, "text/html": self.html(png), "text/plain": self.description}
        return data, {"image/png": {"width": width, "height": height}}

    def __repr__(self):
        return self.description
