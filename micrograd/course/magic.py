"""The ``%%my_micrograd`` cell magic, and the setting that has every kernel know it from its start.

``%%my_micrograd lesson 3: MyValue`` runs the cell as usual, then saves its code in
my_micrograd.py (``saved``).  ``python -m micrograd.course.magic --autoload`` (run by ``make
setup``) registers the magic in every kernel of the environment, so a build-it cell runs even
after a restart that skipped the lesson's first cell.
"""

from pathlib import Path

from .saved import FILE_NAME, section_key, sections, store
from .status import Status, show

__all__ = ["my_micrograd", "load_ipython_extension", "install_autoload", "main"]


def my_micrograd(line, cell):
    """%%my_micrograd lesson N: piece -- run the cell as usual, and save it in my_micrograd.py if it ran."""
    from IPython import get_ipython

    key = section_key(line)
    result = get_ipython().run_cell(cell)
    if key is None:
        print("not saved: name the cell's piece after the magic, e.g. %%my_micrograd lesson 3: MyValue")
        return
    error = result.error_before_exec or result.error_in_exec
    if error is not None:
        kept = "the code it saved last time" if key in sections() else "no code for it yet"
        what = "has a syntax error" if isinstance(error, SyntaxError) else f"raised {type(error).__name__}"
        show(Status([(f"not saved: this cell {what} (above), so {FILE_NAME} keeps {kept} as \"{key}\". "
                       "Fix the cell and run it again.", None)]))
        return
    store(key, cell)
    print(f"(saved in {FILE_NAME} as \"{key}\")")
    if "check" not in get_ipython().user_ns:
        show(Status([("This kernel has not run the lesson's first cell (after a restart, say): run it, or "
                       "Run > Run All Above, before the check below.", None)]))


def load_ipython_extension(ipython):
    """%load_ext micrograd.course.yours (or .magic): adds the %%my_micrograd cell magic."""
    ipython.register_magic_function(my_micrograd, magic_kind="cell", magic_name="my_micrograd")


AUTOLOAD_CONFIG = "ipython_kernel_config.py"
_AUTOLOAD = (
    "\n# micrograd.course.magic: every kernel of this environment knows the %%my_micrograd cell magic from its start,\n"
    "# so a lesson's build-it cell runs even when a restart skipped the lesson's first cell.\n"
    "c.InteractiveShellApp.exec_lines.append(\n"
    "    \"try:\\n    __import__('importlib').import_module('micrograd.course.magic').load_ipython_extension(get_ipython())\\n\"\n"
    "    \"except ImportError:\\n    pass\\n\"\n"
    ")\n"
)


def install_autoload(prefix=None):
    """Have every IPython kernel run by the Python at prefix (this one's) register %%my_micrograd at start.

    IPython reads <prefix>/etc/ipython/ipython_kernel_config.py in each kernel it starts; this is
    `python -m micrograd.course.magic --autoload`.  Running it again changes nothing.
    """
    import sys

    folder = Path(prefix if prefix is not None else sys.prefix) / "etc" / "ipython"
    path = folder / AUTOLOAD_CONFIG
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if _AUTOLOAD not in text:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text + _AUTOLOAD, encoding="utf-8")
    return path


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--autoload"]:
        print("usage: python -m micrograd.course.magic --autoload   (kernels of this environment know %%my_micrograd)")
        return 2
    print(f"%%my_micrograd is registered in every kernel of this environment: {install_autoload()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
