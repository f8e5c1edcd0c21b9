"""Shared test settings.

Hypothesis runs derandomized (the same examples on every machine and every
run) and without its example database, so a CI failure reproduces locally and
no run depends on what an earlier one found.  Set HYPOTHESIS_PROFILE=explore
to search with fresh random examples instead.
"""

import atexit
import gc
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# make test hands whole files to its workers in the order collected (--no-loadscope-reorder):
# these take a core for ten seconds or more each (the notebooks: their lessons and solutions), so they start first
# and the many short files and notebooks fill the other core, instead of one long file starting last on its own
# (test_waits.py waits more than it works: beside another file, not at the end, where a core would idle).
STARTS_FIRST = ("test_jupyterlab.py", "test_app.py", "test_grading.py", "test_autograder.py", "test_carried_forward.py",
                "test_site.py", "test_cells_run_twice_long.py", "test_cells_run_twice.py", "test_lessons_in_pyodide_long.py",
                "test_lessons_in_pyodide.py", "08_real_data.ipynb", "11_gpt.ipynb", "07_classifier.ipynb",
                "test_lesson11_reruns.py", "test_widgets.py", "test_waits.py")


def pytest_configure(config):
    # As it exits, Python collects its garbage once more: a test worker that ran half the suite holds millions of
    # objects, and spent seconds on them while the whole run waited for it.  By then every fixture has stopped what
    # it started, and an ending process's memory goes back whole: its objects are left out of that collection.
    atexit.register(gc.freeze)


def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(STARTS_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(STARTS_FIRST)))  # stable: the rest keep their order


@pytest.fixture(scope="session")
def micrograd_0_1_0_folder(tmp_path_factory):
    """micrograd 0.1.0 from the package index, installed into a folder of its own (not importable
    as ``micrograd``, which is this package)."""
    folder = tmp_path_factory.mktemp("micrograd-0.1.0")
    subprocess.run(
        [Path(sys.executable).with_name("uv"), "pip", "install", "--quiet", "--python", sys.executable, "--no-deps",
         "--target", folder, "micrograd==0.1.0"],
        check=True,
    )
    return folder


@pytest.fixture(scope="session")
def micrograd_0_1_0_value(micrograd_0_1_0_folder):
    """micrograd 0.1.0's Value class, loaded from its own engine.py under another module name."""
    spec = importlib.util.spec_from_file_location("micrograd_0_1_0_engine", micrograd_0_1_0_folder / "micrograd" / "engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Value


@pytest.fixture(scope="session")
def chromium_browser():
    """The session's one Chromium (tests/chromium.py), started when a test first needs it."""
    import chromium

    playwright, browser = chromium.launch()
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()


@pytest.fixture
def shell():
    """An IPython shell for this test only (the magic's tests): cleared afterwards, so no other test finds get_ipython() set."""
    import builtins
    import sys

    from IPython.core.interactiveshell import InteractiveShell

    saved = sys.displayhook, sys.excepthook, getattr(builtins, "get_ipython", None)
    shell = InteractiveShell.instance()
    try:
        yield shell
    finally:
        from lesson_runner import close_shell

        close_shell(shell)
        InteractiveShell.clear_instance()
        sys.displayhook, sys.excepthook = saved[0], saved[1]
        if saved[2] is None:
            builtins.__dict__.pop("get_ipython", None)


@pytest.fixture(scope="module")
def pyodide_lessons(tmp_path_factory):
    """A Pyodide in Node that runs lessons as the browser app's kernel does (tests/pyodide_lessons.py), one per test
    file: the two files of lessons run side by side, each on a worker of its own."""
    from in_pyodide import remove_copied_packages
    from pyodide_lessons import PyodideLessons

    lessons = PyodideLessons(tmp_path_factory.mktemp("pyodide-lessons"))
    yield lessons
    lessons.close()
    remove_copied_packages(lessons.packages)
