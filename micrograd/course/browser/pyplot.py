"""A stand-in for ``matplotlib.pyplot`` (and ``matplotlib.colors``) in the course's browser app, which has no matplotlib.

The lessons' figure cells (``fig, ax = plt.subplots(figsize=...)``, ``ax.plot(...)``,
``plt.show()``) run to their end against it: every figure, axes and artist is a
:class:`StandIn`, whose every method exists and draws nothing.  A cell that made a figure
prints one line, once, saying what the figure needs and where to see it (the course site
shows every stored figure): at ``plt.show()``, or when the cell ends (``end_of_cell``, which
the browser extension runs after each cell).
"""

import types

__all__ = ["StandIn", "Figures", "make_modules"]


class StandIn:
    """A matplotlib object that is not there: any attribute, call or index gives another one.

    Iterating gives one, so that ``line, = ax.plot(...)`` unpacks.  Names starting with ``_``
    are refused, so that IPython finds no display methods (``_repr_html_``, ...) on it.
    """

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, key):
        return self

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        yield self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<not drawn: no matplotlib here>"


class Grid(list):
    """A grid of stand-in axes, as ``plt.subplots(rows, columns)`` returns: unpacks, indexes, ``.flat``."""

    @property
    def flat(self):
        return [axes for item in self for axes in (item if isinstance(item, Grid) else [item])]

    def ravel(self):
        return self.flat

    flatten = ravel

    def __getitem__(self, key):
        if isinstance(key, tuple):  # axes[row, column]
            item = self
            for part in key:
                item = list.__getitem__(item, part)
            return item
        return list.__getitem__(self, key)


def _count(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"plt.subplots takes the number of {what} as a whole number ≥ 1, got {value!r}")
    return value


class Figures:
    """Which figures a cell made, and the one line said about them."""

    def __init__(self, note, say=print):
        self.note = note
        self.say = say
        self.made = False  # a figure made since the line was last said
        self.said = False  # the line said in this cell

    def figure(self):
        self.made = True
        return StandIn()

    def show(self, *args, **kwargs):
        if self.made and not self.said:
            self.say(self.note)
            self.said = True
        self.made = False

    def end_of_cell(self):
        self.show()
        self.said = False

    def subplots(self, nrows=1, ncols=1, *, squeeze=True, **kwargs):
        rows, columns = _count(nrows, "rows"), _count(ncols, "columns")
        figure = self.figure()
        grid = Grid(Grid(StandIn() for _ in range(columns)) for _ in range(rows))
        if squeeze and rows == 1 and columns == 1:
            return figure, grid[0][0]
        if squeeze and (rows == 1 or columns == 1):
            return figure, Grid(grid.flat)
        return figure, grid


def make_modules(figures):
    """``{"matplotlib": ..., "matplotlib.pyplot": ..., "matplotlib.colors": ...}``: the stand-in modules, drawing
    through ``figures``.  ``matplotlib.colors`` too, as a figure cell takes a colormap from it (the course's
    ``palette.class_colormap`` does) only to hand it to pyplot: every colormap and colour it makes is a StandIn."""
    matplotlib = types.ModuleType("matplotlib", "A stand-in: this browser app has no matplotlib.")
    pyplot = types.ModuleType("matplotlib.pyplot", "A stand-in: this browser app has no matplotlib.")
    colors = types.ModuleType("matplotlib.colors", "A stand-in: this browser app has no matplotlib.")
    matplotlib.pyplot = pyplot
    matplotlib.colors = colors
    matplotlib.__version__ = "0 (a stand-in)"
    quiet = ("close", "ion", "ioff", "isinteractive", "rc", "rcdefaults", "style", "switch_backend")

    def anything(name):
        if name.startswith("_"):
            raise AttributeError(f"module 'matplotlib.pyplot' has no attribute {name!r}")
        if name in quiet:
            return StandIn()
        return lambda *args, **kwargs: figures.figure()  # plt.plot, plt.figure, plt.title, ...: a figure

    pyplot.__getattr__ = anything
    pyplot.subplots = figures.subplots
    pyplot.show = figures.show
    pyplot.rcParams = {}

    def colour_maker(name):
        if name.startswith("_"):
            raise AttributeError(f"module 'matplotlib.colors' has no attribute {name!r}")
        return StandIn()  # ListedColormap(...), to_rgba(...), Normalize(...): drawn by no one

    colors.__getattr__ = colour_maker
    return {"matplotlib": matplotlib, "matplotlib.pyplot": pyplot, "matplotlib.colors": colors}
