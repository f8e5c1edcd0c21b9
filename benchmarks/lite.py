"""The browser app, measured: its size, a lesson's first output cold and warm, lessons 2-4 in the browser and in JupyterLab.

    python benchmarks/lite.py                 # builds the app (make lite's build) into a temporary folder
    python benchmarks/lite.py --app build/site/lite

Serves the app from 127.0.0.1 and opens it in headless Chromium (Debian's, at
/usr/bin/chromium or $MICROGRAD_CHROMIUM) with every other host refused, at
1280x800:

- size: every file of the app, in MB;
- first output: from opening lesson 3 to its first code cell's output, with Run All
  chosen as soon as the notebook shows (the kernel starts meanwhile).  Cold is a new
  browser profile (empty cache); warm is the same lesson opened again in that profile;
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
sys.path[:0] = [str(REPO / "docs"), str(REPO / "scripts")]

CHROMIUM = os.environ.get("MICROGRAD_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LESSONS = ["02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb", "04_autograd.ipynb"]
TIMEOUT_MS = 600_000
FIRST_OUTPUT = "() => { const cell = document.querySelector('.jp-Notebook .jp-CodeCell'); return cell && cell.querySelector('.jp-OutputArea-output') !== null && /\\[\\d+\\]/.test(cell.querySelector('.jp-InputPrompt').textContent); }"
RUN_FINISHED = """() => {
  const prompts = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')).map(p => p.textContent);
  const idle = Array.from(document.querySelectorAll('.jp-StatusBar-Item')).some(i => /\\| Idle$/.test(i.textContent.trim()));
  return idle && prompts.some(p => /\\[\\d+\\]/.test(p)) && !prompts.some(p => p.includes('*'));
}"""


def serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def offline_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    refused = []

    def route(request_route):
        url = urlparse(request_route.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname != "127.0.0.1":
            refused.append(request_route.request.url)
            return request_route.abort()
        return request_route.continue_()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page, refused


def run_all_from_menu(page):
    page.locator(".jp-Notebook .jp-CodeCell").first.wait_for()
    page.keyboard.press("Escape")
    page.get_by_role("menuitem", name="Edit", exact=True).click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells", exact=True).click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def first_output_seconds(page, url):
    started = time.perf_counter()
    page.goto(url)
    run_all_from_menu(page)
    page.wait_for_function(FIRST_OUTPUT, timeout=TIMEOUT_MS)
    seconds = time.perf_counter() - started
    page.wait_for_function(RUN_FINISHED, timeout=TIMEOUT_MS)
    return seconds


def run_all_seconds(page, url):
    started = time.perf_counter()
    page.goto(url)
    run_all_from_menu(page)
    page.wait_for_timeout(200)
    page.wait_for_function(RUN_FINISHED, timeout=TIMEOUT_MS)
    return time.perf_counter() - started


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
        command = lab.command(["--no-browser", "--ServerApp.port=0", f"--IdentityProvider.token={self.token}",
                               f"--ServerApp.root_dir={self.root}"])
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", help="an app make lite built (default: build one into a temporary folder)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="micrograd-bench-lite-") as work:
        work = Path(work)
        if args.app:
            app = Path(args.app).resolve()
        else:
            import build_lite

            app = build_lite.build(work / "lite", quiet=True)
        size = sum(path.stat().st_size for path in app.rglob("*") if path.is_file())
        server, base = serve(app)
        lab = JupyterLab(work)
        rows = []
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page, refused = offline_page(browser)
                lesson3 = f"{base}/lab/index.html?path=03_backprop_by_hand.ipynb"
                cold = first_output_seconds(page, lesson3)
                warm = first_output_seconds(page, lesson3)
                page.context.close()
                for lesson in LESSONS:
                    page, more = offline_page(browser)  # a fresh profile per lesson: each starts a kernel from cold
                    in_browser = run_all_seconds(page, f"{base}/lab/index.html?path={lesson}")
                    refused += more
                    page.context.close()
                    page, _ = offline_page(browser)
                    in_lab = run_all_seconds(page, lab.url(lesson))
                    page.context.close()
                    rows.append((lesson, in_browser, in_lab))
                browser.close()
        finally:
            lab.stop()
            server.shutdown()
    print(f"The browser app: {size / 1e6:.1f} MB ({app})")
    print(f"Lesson 3, from opening it to its first cell's output: cold {cold:.1f} s, warm {warm:.1f} s")
    print("Run All, from opening the lesson to its last cell's end (each from a cold start):")
    print(f"  {'lesson':<28} {'browser (Pyodide)':>18} {'JupyterLab (CPython)':>21} {'ratio':>6}")
    for lesson, in_browser, in_lab in rows:
        print(f"  {lesson:<28} {in_browser:>16.1f} s {in_lab:>19.1f} s {in_browser / in_lab:>5.1f}x")
    total_browser, total_lab = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"  {'lessons 2-4':<28} {total_browser:>16.1f} s {total_lab:>19.1f} s {total_browser / total_lab:>5.1f}x")
    print(f"Requests to hosts other than 127.0.0.1: {len(refused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
