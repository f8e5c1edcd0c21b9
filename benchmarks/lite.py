"""The browser app, measured: its size, what a load of lesson 3 downloads, its first output cold and warm, and
lessons 2-4 in the browser and in JupyterLab.

    python benchmarks/lite.py                 # builds the app (make lite's build) into a temporary folder
    python benchmarks/lite.py --app build/site/lite

Serves the app from 127.0.0.1 and opens it in headless Chromium (Debian's, at
/usr/bin/chromium or $MICROGRAD_CHROMIUM) at 1280x800, in a profile on disk as a
learner's browser has, whose HTTP cache keeps what the app loaded; other hosts do not
resolve.  (The tests refuse other hosts by routing every request, which turns the
browser's cache off: a warm load there downloads everything again.  A context without
a profile keeps its cache in memory, and did not keep the largest files in it:
pyodide.asm.wasm, 9.6 MB, came again on every load.)

- size: every file of the app, in MB;
- a load of lesson 3: every request the server answered, and the bytes it sent, from
  the app's address to lesson 3's last cell's end (Run All), cold and warm;
- the app: from its address to its file browser listing the lessons (JupyterLab's own start);
- first cell: from opening lesson 3 (a double click in the file browser) to its first code
  cell's end, with Run All chosen as soon as its kernel is ready.  Cold is a new browser
  profile (empty cache); warm is the same lesson opened again in that profile, the app
  reloaded;
- Run All of lessons 2, 3 and 4, each from its opening to its last cell's end, in the
  app (Pyodide) and in JupyterLab on this CPython (a server started on 127.0.0.1 for the
  purpose, as make lab starts it), one after the other in this run.

Prints the figures; asserts nothing.  Wall-clock times: the machine should be quiet.
"""

import argparse
import functools
import http.server
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "browser_app"), str(REPO / "scripts"), str(REPO / "tests")]
import chromium  # noqa: E402  the tests' Chromium, and how they drive the app (a learner's clicks)
import test_app as app_driver  # noqa: E402

TIMEOUT_MS = 300_000

LESSONS = ["02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb", "04_autograd.ipynb"]
FIRST_LESSON = LESSONS[1]
# The first code cell has run (lesson 3's imports, which print nothing): its prompt shows its number.
FIRST_CELL_RUN = """panel => { const cell = panel.querySelector('.jp-Notebook .jp-CodeCell');
  return cell !== null && /\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent); }"""


def app_start_seconds(page, base, lesson):
    """From the app's address to its file browser listing ``lesson``."""
    started = time.perf_counter()
    page.goto(f"{base}/lab/index.html")
    chromium.open_file_browser(page)
    page.locator(".jp-DirListing-item").filter(has_text=lesson).wait_for()
    return time.perf_counter() - started


def first_output_seconds(page, lesson):
    """From opening the lesson (the app already in the page) to its first cell's end, Run All chosen as soon as
    its kernel is ready; then the rest of the run, and the lesson closed with its kernel."""
    started = time.perf_counter()
    panel = app_driver.open_lesson(page, lesson)
    app_driver.run_all(page, panel, wait=False)
    page.wait_for_function(FIRST_CELL_RUN, arg=panel.element_handle())
    seconds = time.perf_counter() - started
    page.wait_for_function(chromium.RUN_FINISHED, arg=panel.element_handle())
    app_driver.close_and_shut_down(page, autosaved=True)
    return seconds


def run_all_in_app(page, lesson):
    started = time.perf_counter()
    panel = app_driver.open_lesson(page, lesson)
    app_driver.run_all(page, panel)
    seconds = time.perf_counter() - started
    app_driver.close_and_shut_down(page, autosaved=True)
    return seconds


def run_all_in_jupyterlab(browser, lab, lesson):
    page = chromium.new_page(browser, 1280, 800)
    started = time.perf_counter()
    page.goto(lab.url(lesson) + "&reset")  # reset: the lessons opened before are not restored
    panel = page.get_by_role("tabpanel", name=lesson)
    page.locator(".jp-StatusBar-Item").filter(has_text=re.compile(r"\| Idle$")).wait_for()
    app_driver.run_all(page, panel)
    seconds = time.perf_counter() - started
    page.context.close()
    return seconds


class JupyterLab:
    """JupyterLab on a copy of the lessons, started as make lab starts it, on a port the OS picks."""

    def __init__(self, workdir):
        import lab

        self.root = workdir / "lessons"
        shutil.copytree(REPO / "notebooks", self.root, ignore=shutil.ignore_patterns("solutions", ".ipynb_checkpoints"))
        self.token = secrets.token_hex(16)
        self.runtime = workdir / "runtime"
        settings = workdir / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(workdir / "config"), JUPYTER_RUNTIME_DIR=str(self.runtime),
                   JUPYTERLAB_SETTINGS_DIR=str(workdir / "settings"), JUPYTER_PREFER_ENV_PATH="1")
        command = lab.command(["--no-browser", "--ServerApp.port=0", f"--IdentityProvider.token={self.token}"],
                              root=self.root)
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        self.port = self._wait()

    def _wait(self):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for path in self.runtime.glob("jpserver-*.json"):
                try:
                    port = json.loads(path.read_text())["port"]
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={self.token}", timeout=5)
                    return port
                except (ValueError, KeyError, OSError):
                    pass
            time.sleep(0.2)
        raise SystemExit("JupyterLab did not start within 120 s")

    def url(self, lesson):
        return f"http://127.0.0.1:{self.port}/lab/tree/{lesson}?token={self.token}"

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


class CountingHandler(app_driver.QuietHandler):
    """Serves the app, and adds each answer to ``sent``: (path, bytes of the body), 0 for a 304."""

    sent = []

    def send_response(self, code, message=None):
        if code == 304:  # the browser's copy is still good: no body
            self.sent.append((self.path, 0))
        super().send_response(code, message)

    def copyfile(self, source, outputfile):
        body = source.read()
        self.sent.append((self.path, len(body)))
        outputfile.write(body)


def serve(folder):
    handler = functools.partial(CountingHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def downloads(sent):
    """What a load downloaded: requests answered, and MB sent in all, of Python (wheels and standard library), of
    Pyodide's core, and of the rest (JupyterLab, Graphviz, the lesson)."""
    pyodide = [(path.split("?")[0], size) for path, size in sent if path.startswith("/static/pyodide/")]
    python = sum(size for path, size in pyodide if path.endswith((".whl", ".zip")))
    core = sum(size for _, size in pyodide) - python
    total = sum(size for _, size in sent)
    return (f"{len(sent)} requests, {total / 1e6:.1f} MB: Python {python / 1e6:.1f} MB, "
            f"Pyodide's core {core / 1e6:.1f} MB, the rest {(total - python - core) / 1e6:.1f} MB")


def learner_context(playwright, profile, refused):
    """Chromium with a profile on disk, as a learner's browser: its HTTP cache keeps the app.  No other host resolves,
    and a request to one is kept in ``refused``."""
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=chromium.chromium_or_fail(), headless=True, viewport={"width": 1280, "height": 800},
        args=[*chromium.CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
        ignore_default_args=["--hide-scrollbars"],
    )
    context.on("request", lambda request: urlparse(request.url).hostname in (None, "127.0.0.1")
               or refused.append(request.url))
    context.set_default_timeout(TIMEOUT_MS)
    return context


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", help="an app make lite built (default: build one into a temporary folder)")
    args = parser.parse_args(argv)
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)  # the waits of the tests' helpers too: a cold start on a loaded machine
    with tempfile.TemporaryDirectory(prefix="micrograd-bench-lite-") as work:
        work = Path(work)
        if args.app:
            app = Path(args.app).resolve()
        else:
            import build_app

            app = build_app.build(work / "lite", quiet=True)
        size = sum(path.stat().st_size for path in app.rglob("*") if path.is_file())
        server, base = serve(app)
        load = os.getloadavg()[0]
        playwright, browser = chromium.launch()
        lab, rows, refused = None, [], []
        try:
            context = learner_context(playwright, work / "profile", refused)  # a new profile: an empty cache
            page = context.pages[0] if context.pages else context.new_page()
            starts, firsts, loads = [], [], []
            for _ in ("cold", "warm"):  # the app opened again: what the cache holds is not downloaded again
                CountingHandler.sent.clear()
                starts.append(app_start_seconds(page, base, FIRST_LESSON))
                firsts.append(first_output_seconds(page, FIRST_LESSON))
                loads.append(downloads(CountingHandler.sent))
            lab = JupyterLab(work)  # started now: its own start takes no time from the app's
            for lesson in LESSONS:
                rows.append((lesson, run_all_in_app(page, lesson), run_all_in_jupyterlab(browser, lab, lesson)))
            context.close()
        finally:
            browser.close()
            playwright.stop()
            if lab is not None:
                lab.stop()
            server.shutdown()
    print(f"The browser app: {size / 1e6:.1f} MB ({app}); the machine's load average as it started: {load:.1f}")
    print(f"A load of lesson 3, from the app's address to its Run All's end: cold {loads[0]}")
    print(f"  warm {loads[1]}")
    print(f"The app, from its address to its file browser: cold {starts[0]:.1f} s (an empty cache), warm {starts[1]:.1f} s")
    print(f"Lesson 3, from its double click to its first cell's end: cold {firsts[0]:.1f} s, warm {firsts[1]:.1f} s")
    print("Run All, from opening the lesson to its last cell's end (the app's kernel starts each time; JupyterLab's too):")
    print(f"  {'lesson':<28} {'browser (Pyodide)':>18} {'JupyterLab (CPython)':>21} {'ratio':>6}")
    for lesson, in_browser, in_lab in rows:
        print(f"  {lesson:<28} {in_browser:>16.1f} s {in_lab:>19.1f} s {in_browser / in_lab:>5.1f}x")
    total_browser, total_lab = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"  {'lessons 2-4':<28} {total_browser:>16.1f} s {total_lab:>19.1f} s {total_browser / total_lab:>5.1f}x")
    print(f"Requests to hosts other than 127.0.0.1: {len(refused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
