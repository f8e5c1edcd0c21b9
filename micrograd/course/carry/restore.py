"""``yours.restore(...)``: the versions kept of a piece, listed, and one brought back into my_micrograd.py and into view.

``restore("lesson 3: MyValue")`` lists the versions ``history`` kept, newest first, each with when it was saved;
``restore("lesson 3: MyValue", 1)`` makes version 1 the piece's code in my_micrograd.py again (the code it
replaces is kept in turn, so a restore can be undone the same way), and ``"template"`` for the version starts
the piece over from the lesson's template.  The code brought back is put in a new cell below, where the front
end honours IPython's payload for it (JupyterLab and the browser app do).
"""

import difflib
import time

from . import history
from .magic import into_view
from .saved import FILE_NAME, sections, store
from .templates import MAGIC, body, section_key, template

__all__ = ["restore", "versions_text"]


def _when(saved):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(saved)) if saved is not None else "at a time not recorded"


def _lines(code):
    count = len(body(code).splitlines())
    return f"{count} line{'s' if count != 1 else ''}"


def _differ(code, current):
    """The lines code has that current lacks, and the other way round, as a diff counts them: what sets it apart."""
    if current is None:
        return ""
    changed = [line[:1] for line in difflib.ndiff(body(current).splitlines(), body(code).splitlines())]
    return f", +{changed.count('+')} -{changed.count('-')} lines against now"


def _key(key, folder):
    """key as the file writes it ('lesson 03 : MyValue' -> 'lesson 3: MyValue'), checked against what is kept."""
    normal = section_key(key) if isinstance(key, str) else None
    known = sorted(set(sections(folder)) | set(history.read(folder)))
    if normal is None or (normal not in known and template(normal) is None):
        shown = ", ".join(f'"{k}"' for k in known) or f"none yet: {FILE_NAME} has no section"
        raise ValueError(f'no piece {key!r} in {FILE_NAME} or its kept versions; name one as the build-it cell does, '
                         f'e.g. yours.restore("lesson 3: MyValue"). The pieces kept: {shown}')
    return normal


def versions_text(key, folder=None):
    """The listing restore(key) prints: what my_micrograd.py holds now, then each earlier version, newest first."""
    key = _key(key, folder)
    current = sections(folder).get(key, (0, None))[1]
    earlier = history.earlier(folder, key, current)
    if current is None:
        lines = [f'{FILE_NAME} has no section "{key}" yet.']
    else:
        what = ("the lesson's template" if current == template(key) else
                f"{_lines(current)}, saved {_when(history.saved_at(folder, key, current))}")
        lines = [f'"{key}" in {FILE_NAME} now: {what}.']
    if not earlier:
        lines.append("No earlier version is kept: a version is kept when a cell run replaces it with other code.")
    else:
        lines.append("Earlier versions, newest first:")
        lines += [f"  {n}: {_lines(v['code'])}, saved {_when(v['saved'])}{_differ(v['code'], current)}"
                  for n, v in enumerate(earlier, start=1)]
    if template(key) is not None and current != template(key):
        lines.append(f"  template: the lesson's template, {_lines(template(key))}")
    choices = (["1"] if earlier else []) + (['"template"'] if template(key) is not None else [])
    if choices:
        lines.append(f'yours.restore("{key}", {choices[0]}) brings it back into {FILE_NAME} and into view; the code it '
                     "replaces is kept.")
    return "\n".join(lines)


def _chosen(key, version, earlier):
    """(code, how the sentence names it) of version, or an error that says what to give."""
    if isinstance(version, bool) or not (isinstance(version, int) or version == "template"):
        raise TypeError(f'the version is a number yours.restore("{key}") lists, or "template"; got {version!r}')
    numbers = (f"a number from 1 to {len(earlier)}" if len(earlier) > 1 else "1") if earlier else None
    if version == "template":
        if template(key) is None:
            raise ValueError(f'no lesson has a template for "{key}"'
                             + (f": give {numbers}" if numbers else ", and no earlier version of it is kept"))
        return template(key), "the lesson's template"
    if not 1 <= version <= len(earlier):
        kept = f"{len(earlier)} earlier version{'s are' if len(earlier) != 1 else ' is'} kept" if earlier else "no earlier version is kept"
        give = " or ".join([numbers] * bool(numbers) + ['"template"'] * (template(key) is not None))
        raise ValueError(f'"{key}" has no version {version}: {kept}' + (f"; give {give}" if give else "")
                         + f' (yours.restore("{key}") lists them)')
    chosen = earlier[version - 1]
    return chosen["code"], f"version {version} (saved {_when(chosen['saved'])})"


def restore(key, version=None, folder=None):
    """List the versions kept of a piece (version None), or bring one back: a number from the list, or "template".

    The version brought back becomes the piece's section of my_micrograd.py (the code it replaces is kept), and is
    put in a new cell below, to copy into the lesson's build-it cell: running that cell saves the code it shows.
    """
    if version is None:
        print(versions_text(key, folder))
        return None
    key = _key(key, folder)
    current = sections(folder).get(key, (0, None))[1]
    code, named = _chosen(key, version, history.earlier(folder, key, current))
    if current is not None and body(code) == current:
        print(f'"{key}" in {FILE_NAME} holds {named} already: nothing to bring back.')
        return None
    store(key, code, folder)
    _into_view(f"{MAGIC} {key}\n{body(code).rstrip()}")
    kept = ("" if current is None or current == template(key) else
            f', and the code it replaced is now version 1 (yours.restore("{key}") lists the versions)')
    print(f'"{key}" in {FILE_NAME} holds {named} again{kept}; a new cell below shows it (or, where none appears, '
          f"{FILE_NAME} does): put it in the lesson's build-it cell, since running that cell saves the code it shows.")
    return None


def _into_view(text):
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return
    if get_ipython() is not None:
        into_view(get_ipython(), text, replace=False)
