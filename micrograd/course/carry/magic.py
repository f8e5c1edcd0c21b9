"""The ``%%my_micrograd`` cell magic, and the setting that has every kernel know it from its start.

``%%my_micrograd lesson 3: MyValue`` runs the cell as usual, then saves its code in
my_micrograd.py (``saved``).  A cell that still shows the lesson's template (``templates``; after a reload,
say) never replaces the learner's own saved code: that code runs instead, and is put back in the cell.
Before it runs, the cell's code is read (``cell_code``): one that takes the
name ``Value`` is not run, and one that uses names this kernel lacks gets a line saying what to run
first; a piece the run did not define is marked as left from before (``stale``).  A lesson's first cell
calls ``enable_magic()``, quiet however often it runs.  ``python -m micrograd.course.carry.magic --autoload`` (run by ``make
setup``) registers the magic in every kernel of the environment, so a build-it cell runs even
after a restart that skipped the lesson's first cell.
"""

from pathlib import Path

from . import stale
from .name_errors import explain_name_errors
from .cell_code import binds_value, missing_names, python_of
from .pieces import BY_KEY
from .saved import FILE_NAME, section_key, sections, store
from .status import Status, show
from .templates import MAGIC, body, is_template

__all__ = ["my_micrograd", "into_view", "enable_magic", "load_ipython_extension", "install_autoload", "main", "NotRun"]


class NotRun(Exception):
    """A build-it cell the magic did not run.  Shown as its message alone, with no traceback; as an error,
    it stops Run All at the cell, before a check can run on a class the cell did not make."""

    def _render_traceback_(self):
        return [f"Not run, not saved: {self}"]


_VALUE_TAKEN = {
    "class": "this cell names its class Value, as the lecture does, but in these lessons Value is the package's, "
             "which the other cells use. Name yours MyValue, the class and every Value inside it (Edit > Find and "
             "Replace, in this cell), then run the cell again.",
    "name": "this cell assigns the name Value, which these lessons keep for the package's Value, the one the "
            "other cells use. Give yours its own name, MyValue, then run the cell again.",
}


def yours_instead(key, cell):
    """The learner's saved code for key, when cell is the lesson's template and my_micrograd.py holds other code
    for it (the cell was reloaded as the lesson ships it, say); else None."""
    if key is None or not is_template(key, cell):
        return None
    saved = sections().get(key)
    if saved is None or saved[1] == body(cell):
        return None
    return saved[1]


def into_view(shell, text, replace):
    """Have the front end show text in this cell (replace) or in a new cell below it, as IPython's set_next_input
    does in ipykernel: JupyterLab and the browser app honour this payload.  Written as the payload itself, since
    the browser app's shell (Pyodide's kernel) keeps set_next_input's text for a terminal's next prompt instead."""
    shell.payload_manager.write_payload({"source": "set_next_input", "text": text, "replace": replace})


def kept_sentence(key):
    """What a template's run says when the learner's saved code ran in its place."""
    return (f'Your own code for "{key}" ran in place of the lesson\'s template this cell showed, and stays saved: '
            f"it is back in the cell (or, if the cell still shows the template, in {FILE_NAME}); to start over from "
            f'the template, run yours.restore("{key}", "template").')


def my_micrograd(line, cell):
    """%%my_micrograd lesson N: piece -- run the cell as usual, and save it in my_micrograd.py if it ran; a cell
    that still shows the lesson's template runs the learner's saved code instead, and shows it again."""
    from IPython import get_ipython

    shell = get_ipython()
    key = section_key(line)
    instead = yours_instead(key, cell)
    if instead is not None:
        cell = instead
        into_view(shell, f"{MAGIC} {key}\n{instead.rstrip()}", replace=True)
    names = BY_KEY[key].defines if key in BY_KEY else ()
    code = python_of(cell)
    taken = binds_value(code) if names else None
    if taken is not None:
        stale.mark(shell, key, {name: shell.user_ns.get(name) for name in names},
                   "it was not run, as it takes the name Value, the package's")
        raise NotRun(_VALUE_TAKEN[taken])
    missing = missing_names(code, shell.user_ns)
    before = {name: shell.user_ns.get(name) for name in names}
    result = shell.run_cell(cell)
    error = result.error_before_exec or result.error_in_exec
    left = {name: shell.user_ns.get(name) for name in names
            if name not in shell.user_ns or shell.user_ns[name] is before[name]}
    if error is not None:
        what = "has a syntax error" if isinstance(error, SyntaxError) else f"raised {type(error).__name__}"
    if left:
        why = f"it {what}" if error is not None else f"it does not define {', '.join(left)}"
        stale.mark(shell, key, left, why)
    elif key is not None:
        stale.clear(shell, key)
    notes = []
    if key is None:
        print("not saved: name the cell's piece after the magic, e.g. %%my_micrograd lesson 3: MyValue")
    elif instead is not None:
        notes.append(kept_sentence(key))
    elif error is not None:
        kept = "the code it saved last time" if key in sections() else "no code for it yet"
        notes.append(f"not saved: this cell {what} (above), so {FILE_NAME} keeps {kept} as \"{key}\". "
                     "Fix the cell and run it again.")
    else:
        store(key, cell)
        print(f"(saved in {FILE_NAME} as \"{key}\")")
        if left:
            notes.append(f"This cell defines no {' or '.join(left)}, the name the check below and later lessons "
                         "look for: give your code that name.")
    if "check" not in shell.user_ns:
        notes.append("This kernel has not run the lesson's first cell (after a restart, say): run it, or "
                     "Run > Run All Above, before the check below.")
    elif missing:
        them = ", ".join(missing)
        notes.append(f"This kernel has no {them} yet, which this cell uses: {'they come' if len(missing) > 1 else 'it comes'} "
                     "from a cell above that this kernel has not run (after a restart, say). Run > Run All Above, "
                     "then this cell again.")
    if notes:
        show(Status([(note, None) for note in notes]))


def load_ipython_extension(ipython):
    """%load_ext micrograd.course.carry.yours (or .magic): adds the %%my_micrograd cell magic, and a sentence under each
    NameError saying what to run first (a kernel's start runs this, after a restart too)."""
    ipython.register_magic_function(my_micrograd, magic_kind="cell", magic_name="my_micrograd")
    explain_name_errors(ipython)


def enable_magic():
    """Give this notebook the %%my_micrograd cell magic, quietly, however often it is called (a lesson's first
    cell: a kernel of `make setup` knows it from its start already).  Outside IPython it does nothing."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return
    if get_ipython() is not None:
        load_ipython_extension(get_ipython())


AUTOLOAD_CONFIG = "ipython_kernel_config.py"
_AUTOLOAD = (
    "\n# micrograd.course.carry.magic: every kernel of this environment knows the %%my_micrograd cell magic from its start,\n"
    "# so a lesson's build-it cell runs even when a restart skipped the lesson's first cell.\n"
    "c.InteractiveShellApp.exec_lines.append(\n"
    "    \"try:\\n    __import__('importlib').import_module('micrograd.course.carry.magic').load_ipython_extension(get_ipython())\\n\"\n"
    "    \"except ImportError:\\n    pass\\n\"\n"
    ")\n"
)
# The line the magic's setting wrote while it lived at micrograd.course.magic: replaced by the one above.
_AUTOLOAD_EARLIER = _AUTOLOAD.replace("micrograd.course.carry.magic", "micrograd.course.magic")


def install_autoload(prefix=None):
    """Have every IPython kernel run by the Python at prefix (this one's) register %%my_micrograd at start.

    IPython reads <prefix>/etc/ipython/ipython_kernel_config.py in each kernel it starts; this is
    `python -m micrograd.course.carry.magic --autoload`.  Running it again changes nothing; a setting written
    when the magic was micrograd.course.magic is replaced by this one.
    """
    import sys

    folder = Path(prefix if prefix is not None else sys.prefix) / "etc" / "ipython"
    path = folder / AUTOLOAD_CONFIG
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    text = before.replace(_AUTOLOAD_EARLIER, "")
    if _AUTOLOAD not in text:
        text += _AUTOLOAD
    if text != before:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return path


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--autoload"]:
        print("usage: python -m micrograd.course.carry.magic --autoload   (kernels of this environment know %%my_micrograd)")
        return 2
    print(f"%%my_micrograd is registered in every kernel of this environment: {install_autoload()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
