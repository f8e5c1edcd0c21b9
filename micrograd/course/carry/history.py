"""The versions of each piece a learner saved, kept beside my_micrograd.py so that no code they ran is lost.

``saved.store`` hands each version of a piece it saves to ``record`` before my_micrograd.py changes: the version
with when it was saved, and the version it replaces when that was not recorded yet (edited in the file by hand,
say).  The lesson's template is not kept (it is always at hand, ``templates``).  Besides the version
my_micrograd.py holds, the last ``KEEP`` of a piece are kept, in ``.my_micrograd_history.json`` (a dot-file: the
file browser leaves it out of sight), written atomically, as my_micrograd.py is.
"""

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path

from .templates import body, is_template

__all__ = ["HISTORY_NAME", "KEEP", "history_path", "read", "record", "earlier", "saved_at", "write_atomically"]

HISTORY_NAME = ".my_micrograd_history.json"
KEEP = 5
_FORMAT = 1


def _now():
    return time.time()


def history_path(folder=None):
    """The history beside my_micrograd.py in folder (the working folder)."""
    return Path(folder if folder is not None else os.getcwd()) / HISTORY_NAME


def write_atomically(path, text):
    """Write text to path so that a reader sees the old file or the new one, never a part (a temporary file beside
    it, then renamed over it)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem.lstrip('.')}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read(folder):
    """{key: [{"code": ..., "saved": seconds since the epoch, or None}, ...]}, each piece's versions oldest first;
    {} when there is no history yet.  A file that cannot be read raises ValueError, saying which."""
    path = history_path(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        document = json.loads(text)
        pieces = document["pieces"]
        return {key: [{"code": v["code"], "saved": v["saved"]} for v in versions] for key, versions in pieces.items()}
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a history this course wrote ({error}); rename or delete it to start a new one") from error


def _readable(folder):
    """read(folder), or {} after an unreadable file has been set aside (renamed, never deleted) to start anew."""
    try:
        return read(folder)
    except ValueError:
        path = history_path(folder)
        os.replace(path, path.with_name(f"{HISTORY_NAME}.unreadable-{int(_now())}"))
        return {}


def record(folder, key, replaced, code):
    """Keep code, saved now as the piece key, and replaced (the code it replaces, or None) if it was not kept yet;
    then the last KEEP versions besides code.  The caller holds the folder's lock."""
    pieces = _readable(folder)
    before = [dict(version) for version in pieces.get(key, [])]
    versions = [dict(version) for version in before]
    if replaced is not None and not is_template(key, replaced):
        replaced = body(replaced)
        if not versions or versions[-1]["code"] != replaced:
            versions.append({"code": replaced, "saved": None})  # saved where no history saw it
    code = body(code)
    if not is_template(key, code):
        versions.append({"code": code, "saved": _now()})
    unique, seen = [], set()
    for version in reversed(versions):  # one entry per code: the newest
        if version["code"] not in seen:
            seen.add(version["code"])
            unique.insert(0, version)
    versions = [v for v in unique if v["code"] != code][-KEEP:] + [v for v in unique if v["code"] == code]
    if versions == before:
        return
    if versions:
        pieces[key] = versions
    else:
        pieces.pop(key, None)
    document = {"format": _FORMAT, "pieces": pieces}
    write_atomically(history_path(folder), json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def earlier(folder, key, current):
    """[{"code", "saved"}] of the kept versions of key other than current (the code my_micrograd.py holds, or None),
    newest first: version 1 is the one saved last."""
    current = body(current) if current is not None else None
    return [v for v in reversed(read(folder).get(key, [])) if v["code"] != current]


def saved_at(folder, key, current):
    """When current was saved as key, if the history saw it; else None."""
    current = body(current)
    return next((v["saved"] for v in reversed(read(folder).get(key, [])) if v["code"] == current), None)
