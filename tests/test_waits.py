"""Every wait of the browser and server tests is the session's (tests/waits.py), set in one place.

A test that waits Playwright's default 5 s, or a number of its own, passes on a warm checkout and fails on a
fresh clone of a machine that has just booted or is busy.  These checks read the test files and fail on:

- a Playwright default set anywhere but tests/chromium.py (``expect.set_options``, ``set_default_timeout``);
- a browser context or page made anywhere but there (it would start with Playwright's 5 s);
- a wait constant of a file's own (``*TIMEOUT*``, ``*WAIT*``, ``*_MS``), instead of one of tests/waits.py;
- a number written as a ``timeout=`` in a file that drives a browser or a server.

And, with the session's Chromium, that a page and ``expect`` wait ``BROWSER_MS``.
"""

import ast
import re
from pathlib import Path


import waits

TESTS = Path(__file__).resolve().parent
HOME = {"chromium.py"}  # where the session's browser and its waits are set up
SETTERS = {"set_options", "set_default_timeout", "set_default_navigation_timeout"}


def python_files():
    return sorted(path for path in TESTS.rglob("*.py") if path.name not in ("waits.py", "test_waits.py"))


def parsed(path):
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            yield node, node.func.attr, receiver


def drives_a_browser_or_server(tree):
    """Does the file import Playwright, the session's Chromium or the waits?"""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] in ("playwright", "chromium", "waits") for name in names):
            return True
    return False


def where(path, node):
    return f"{path.relative_to(TESTS) if path.is_relative_to(TESTS) else path.name}:{node.lineno}"


def problems(path):
    """What in the file at path waits on its own, one line each."""
    tree, found = parsed(path), []
    for node, method, receiver in ([] if path.name in HOME else calls(tree)):
        if method in SETTERS:
            found.append(f"{where(path, node)}: {method}(...) sets a wait of its own")
        if method == "new_context" and receiver != "chromium":
            found.append(f"{where(path, node)}: a context made here starts with Playwright's 5 s: use chromium.new_context")
        if method == "new_page" and receiver is not None and "browser" in receiver:
            found.append(f"{where(path, node)}: a page made here starts with Playwright's 5 s: use chromium.new_page")
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and re.search(r"TIMEOUT|WAIT|_MS$", target.id):
                found.append(f"{where(path, node)}: {target.id}: use a wait of tests/waits.py")
    if drives_a_browser_or_server(tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "timeout" and isinstance(node.value, ast.Constant):
                found.append(f"{where(path, node.value)}: timeout={node.value.value!r}: use a wait of tests/waits.py")
    return found


def test_no_test_waits_on_its_own():
    found = [problem for path in python_files() for problem in problems(path)]
    assert found == [], "\n".join(found)


def test_each_way_a_wait_went_wrong_is_found(tmp_path):
    # The way the waits went wrong before: each line below is one problem.
    path = tmp_path / "test_example.py"
    path.write_text(
        "from playwright.sync_api import expect\n"
        "PAGE_TIMEOUT_MS = 5_000\n"
        "def f(browser, page):\n"
        "    expect.set_options(timeout=PAGE_TIMEOUT_MS)\n"
        "    context = browser.new_context()\n"
        "    browser.new_page().wait_for_selector('#x', timeout=5000)\n",
        encoding="utf-8",
    )
    found = problems(path)
    assert [line.split(":")[1] for line in found] == ["4", "5", "6", "2", "6"], found


def test_the_waits_are_sized_for_a_cold_busy_machine():
    # A kernel's first start on a loaded fresh clone has taken over 20 s; a lesson's Run All over a minute.
    assert waits.BROWSER_MS >= 60_000
    assert waits.RUN_ALL_MS >= 5 * waits.BROWSER_MS
    assert waits.SERVER_START_SECONDS >= 60


def test_the_sessions_pages_and_assertions_wait_longer_than_playwrights_default(chromium_browser):
    """An element that appears 5.2 s later is waited for, by a page's own wait and by expect(...)."""
    import chromium
    from playwright.sync_api import expect

    page = chromium.new_page(chromium_browser, 320, 200)
    later = "id => setTimeout(() => { const p = document.createElement('p'); p.id = id; p.textContent = id; document.body.append(p); }, 5200)"
    try:
        page.evaluate(later, "first")
        page.locator("#first").wait_for()
        page.evaluate(later, "second")
        expect(page.locator("#second")).to_be_visible()
    finally:
        page.context.close()
