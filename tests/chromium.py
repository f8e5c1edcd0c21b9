"""The test session's browser: Debian's Chromium, driven through Playwright.

One Chromium per test session (per pytest-xdist worker), shared by every file that needs a
browser through the ``chromium_browser`` fixture (tests/conftest.py).  Its pages come from
``new_context`` and ``new_page`` here, and wait ``waits.BROWSER_MS`` for anything, as every
``expect(...)`` of the session does: no test relies on Playwright's 5 s default.  Playwright's own browser
downloads are never used: without Chromium at /usr/bin/chromium (or $MICROGRAD_CHROMIUM) a
browser test fails, saying what to install, rather than skips.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

from waits import AUTOSAVE_MS, BROWSER_MS

# $MICROGRAD_BROWSER_SHOTS: a folder where the browser tests keep screenshots of what they opened, to look at
# (docs/teaching/accessibility.md).  Nothing checks them, so by default none is taken.  Playwright makes the folder.
SHOTS = Path(os.environ["MICROGRAD_BROWSER_SHOTS"]) if os.environ.get("MICROGRAD_BROWSER_SHOTS") else None

CHROMIUM = os.environ.get("MICROGRAD_CHROMIUM") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium") or "/usr/bin/chromium"
)
# Without the background-networking flags Chromium asks hosts of its own at start.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# A notebook's Run All has finished: every cell that ran has its number, none is waiting, the kernel is idle.
RUN_FINISHED = """
panel => {
  const prompts = Array.from(panel.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')).map(p => p.textContent);
  const idle = Array.from(document.querySelectorAll('.jp-StatusBar-Item')).some(i => /\\| Idle$/.test(i.textContent.trim()));
  return idle && prompts.some(p => /\\[\\d+\\]/.test(p)) && !prompts.some(p => p.includes('*'));
}
"""

# One cell has run again: its prompt shows a number other than before, and the kernel is idle.
CELL_RAN = """
([cell, before]) => {
  const prompt = cell.querySelector('.jp-InputPrompt').textContent;
  const idle = Array.from(document.querySelectorAll('.jp-StatusBar-Item')).some(i => /\\| Idle$/.test(i.textContent.trim()));
  return idle && prompt !== before && /\\[\\d+\\]/.test(prompt);
}
"""


def run_cell(page, cell):
    """Run one code cell where it is (Ctrl+Enter in its editor), as a learner does, until it has finished; its prompt."""
    before = cell.locator(".jp-InputPrompt").inner_text()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function(CELL_RAN, arg=[cell.element_handle(), before])
    return cell.locator(".jp-InputPrompt").inner_text()


def open_file_browser(page):
    """The learner's default in JupyterLab and in the app: the file browser open in the left sidebar."""
    from playwright.sync_api import expect

    tab = page.get_by_role("tab", name=re.compile(r"^File Browser"))
    expect(tab).to_be_visible()
    # Wait for the restored layout (a click while restoring would be undone by it).
    page.wait_for_function("() => { const f = document.querySelector('#filebrowser'); return f && !f.classList.contains('jp-mod-restoring'); }")
    if not page.locator("#filebrowser").is_visible():
        tab.click()
    expect(page.locator("#filebrowser")).to_be_visible()


def close_and_shut_down(page, autosaved=False):
    """Save the lesson, close it and stop its kernel, as a learner moving on would (one kernel at a time).

    With autosaved (the browser app saves an open lesson every few seconds), the app's own save is waited for
    instead of a save by hand: JupyterLab's autosave does not wait for a save by hand, and one that starts
    while the other is being written asks whether the file "has changed on disk"."""
    from playwright.sync_api import expect

    if autosaved:
        expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0, timeout=AUTOSAVE_MS)
    else:
        page.get_by_role("menuitem", name="File", exact=True).click()
        page.locator("li[data-command='docmanager:save']").click()
    page.get_by_role("menuitem", name="File", exact=True).click()
    page.get_by_role("menuitem", name="Close and Shut Down Notebook").click()
    # JupyterLab asks before it shuts a kernel down; the question comes a moment after the click.
    page.locator(".jp-Dialog").get_by_role("button", name=re.compile(r"^(Ok|Shut Down)$", re.I)).first.click()
    expect(page.locator(".jp-NotebookPanel")).to_have_count(0)


def chromium_or_fail():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"Chromium is needed for the browser tests but {CHROMIUM} is not an executable. "
            "Install Debian's chromium package (apt-get install chromium), or point "
            "MICROGRAD_CHROMIUM at a Chromium executable. Do not use `playwright install`."
        )
    return CHROMIUM


def launch():
    """Playwright and a Chromium it drives; stop both with ``close(...)``."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=BROWSER_MS)
    playwright = sync_playwright().start()
    try:
        # Scrollbars drawn (Playwright hides them by default): a page whose box scrolls must show it, as
        # tests/test_site.py checks; a context with is_mobile draws them as overlays, as macOS and phones do.
        return playwright, playwright.chromium.launch(
            executable_path=chromium_or_fail(), args=CHROMIUM_ARGS, headless=True, ignore_default_args=["--hide-scrollbars"]
        )
    except BaseException:
        playwright.stop()
        raise


def new_context(browser, **options):
    """A browser context (its own storage) whose pages wait ``BROWSER_MS`` for anything."""
    context = browser.new_context(**options)
    context.set_default_timeout(BROWSER_MS)
    return context


def new_page(browser, width, height):
    """A page in a context of its own, at a learner's window size, that overwrites when JupyterLab asks."""
    page = new_context(browser, viewport={"width": width, "height": height}).new_page()
    # JupyterLab's autosave starts its next save before the last one is written (and does not wait for a
    # save by hand): on a loaded machine a save that takes longer than the interval races another, and
    # JupyterLab asks whether the file "has changed on disk".  It has not (no test writes an open lesson
    # from outside), so the open version, the learner's latest, is kept, as a learner would keep it.
    dialog = page.locator(".jp-Dialog").filter(has_text="has changed on disk")
    page.add_locator_handler(dialog, lambda found: found.get_by_role("button", name="Overwrite").click())
    return page
