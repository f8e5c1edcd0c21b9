"""Every wait of the browser and server tests, in one place, sized for the slowest machine they run on.

That machine is a fresh clone on a 2-core machine that has just booted (nothing in the page cache, every
Python module compiled for the first time) or whose cores are both busy with other work: there a JupyterLab
server, a kernel, the app's Pyodide or a lesson's first drawing can take tens of seconds to be ready.  A wait
that is right on a warm, quiet checkout and wrong there tests the machine, not the project.

tests/chromium.py sets ``BROWSER_MS`` once for the session, on every page (Playwright's own default is 5 s) and
on every ``expect(...)`` assertion; tests/test_waits.py fails when a test file sets a wait of its own.
"""

# A page, a kernel or an element to be ready: JupyterLab's first page, a kernel's start, the app's Pyodide.
BROWSER_MS = 120_000
# A lesson's Run All, in JupyterLab or in the app, to its last cell: the slowest trains a digit classifier.
RUN_ALL_MS = 600_000
# The browser app to save a lesson the learner changed: its autosave interval (browser_app/overrides.json), and then some.
AUTOSAVE_MS = 60_000
# A Tab's completions to show before Tab is pressed again: the app drops a kernel's first answer, which imports jedi,
# when it takes longer than its 5 s, and answers the next Tab.
TAB_AGAIN_MS = 15_000
# A server the tests start (JupyterLab) to answer, and to stop once asked.
SERVER_START_SECONDS = 120
SERVER_STOP_SECONDS = 30
# One request to a server that is up.
REQUEST_SECONDS = 30
# The site's build, run by a test.
BUILD_SECONDS = 600
