"""The widgets in a real JupyterLab, driven by headless Chromium.

Starts JupyterLab on 127.0.0.1 (a port the OS picks, a random token, an
empty Jupyter configuration) serving a copy of tests/browser/widgets.ipynb,
opens it in Debian's Chromium through Playwright, runs all cells from the
Run menu, clicks the training and backprop steppers and reads what the page
shows.  Every wait is on something appearing in the page, never a sleep.

Needs Chromium at /usr/bin/chromium (or $MICROGRAD_CHROMIUM): CI installs
it, and without it this test fails rather than skips.  Playwright's own
browser downloads are never used.
"""

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

NOTEBOOK = Path(__file__).resolve().parent / "browser" / "widgets.ipynb"
CHROMIUM = os.environ.get("MICROGRAD_CHROMIUM") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium") or "/usr/bin/chromium"
)
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
START_TIMEOUT_SECONDS = 120
STOP_TIMEOUT_SECONDS = 30
PAGE_TIMEOUT_MS = 120_000  # a loaded CI machine can take a while to start a kernel
HIGHLIGHT = "#dc2626"  # micrograd.viz's highlight colour
KERNEL_READY = re.compile(r"^Python 3 \(ipykernel\) \| Idle$")

# JupyterLab settings for the test's own settings directory: no pop-up
# asking about news (it would cover the widgets in the screenshot), and no
# request to the internet.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def chromium_or_fail():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"Chromium is needed for the browser test but {CHROMIUM} is not an executable. "
            "Install Debian's chromium package (apt-get install chromium), or point "
            "MICROGRAD_CHROMIUM at a Chromium executable. Do not use `playwright install`."
        )
    return CHROMIUM


class Lab:
    """A JupyterLab server process in its own session, with its log and address."""

    def __init__(self, workdir):
        self.token = secrets.token_hex(24)
        self.root = workdir / "notebooks"
        self.root.mkdir()
        shutil.copy(NOTEBOOK, self.root / NOTEBOOK.name)
        settings = workdir / "settings"
        for name, values in LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        self.runtime_dir = workdir / "runtime"
        env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(workdir / "config"),
            JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
            JUPYTER_PREFER_ENV_PATH="1",  # the kernel of this environment, where micrograd is installed
        )
        command = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=0",  # the OS picks a free port; the runtime file says which
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")  # containers and CI run as root
        self.log_path = workdir / "lab.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.port = None

    @property
    def log(self):
        return self.log_path.read_text(errors="replace")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def wait_until_serving(self):
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {self.process.returncode}:\n{self.log}")
            if self.port is None:
                self.port = self._port_from_runtime_file()
            if self.port is not None and self._status_ok():
                return
            time.sleep(0.2)
        pytest.fail(f"JupyterLab did not start within {START_TIMEOUT_SECONDS} s:\n{self.log}")

    def _port_from_runtime_file(self):
        for path in self.runtime_dir.glob("jpserver-*.json"):
            try:
                return json.loads(path.read_text())["port"]
            except (json.JSONDecodeError, KeyError):
                return None  # read while being written: try again
        return None

    def _status_ok(self):
        try:
            with urllib.request.urlopen(self.url("api/status"), timeout=10) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError):
            return False

    def stop(self):
        """SIGTERM: the server shuts its kernels down and exits; then make sure of it."""
        try:
            server = psutil.Process(self.process.pid)
            processes = [server, *server.children(recursive=True)]
        except psutil.NoSuchProcess:
            processes = []
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(STOP_TIMEOUT_SECONDS)
        _, alive = psutil.wait_procs(processes, timeout=STOP_TIMEOUT_SECONDS)
        for process in alive:  # a kernel that outlived its server
            process.kill()


@pytest.fixture
def lab(tmp_path):
    server = Lab(tmp_path)
    try:
        server.wait_until_serving()
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(tmp_path):
    executable = chromium_or_fail()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1100})
            page = context.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            yield page
        finally:
            browser.close()


def button(widget, name):
    # ipywidgets buttons carry a Font Awesome icon, which becomes part of
    # their accessible name; match the visible text instead.
    return widget.locator("button.widget-button").filter(has_text=re.compile(f"^{re.escape(name)}$"))


# The text of each value box (v<n>; o<n> are operation circles) drawn in the
# highlight colour: its label comes first.
HIGHLIGHTED_BOXES = """
graph => Array.from(graph.querySelectorAll('g.node'))
    .filter(g => g.querySelector('title').textContent.startsWith('v'))
    .filter(g => g.querySelector('[stroke="%s"]'))
    .map(g => Array.from(g.querySelectorAll('text')).map(t => t.textContent).join(' '))
""" % HIGHLIGHT


def wait_for_highlight(page, stepper, label):
    """Wait until exactly one value box is highlighted and its label is ``label``.

    The drawing is looked up afresh on every try: each redraw replaces it.
    """
    page.wait_for_function(
        f"([stepper, label]) => {{ const graph = stepper.querySelector('.micrograd-graph'); "
        f"const boxes = graph ? ({HIGHLIGHTED_BOXES})(graph) : []; "
        "return boxes.length === 1 && boxes[0].split(' ')[0] === label; }",
        arg=[stepper.element_handle(), label],
    )


def test_widgets_step_in_jupyterlab(page, lab, tmp_path):
    from playwright.sync_api import expect

    expect.set_options(timeout=PAGE_TIMEOUT_MS)

    page.goto(lab.url(f"lab/tree/{NOTEBOOK.name}"))
    # The status bar names the kernel and says Idle once the kernel is connected;
    # running cells before that would ask which kernel to start.
    expect(page.locator(".jp-StatusBar-Item").filter(has_text=KERNEL_READY)).to_be_visible()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

    training = page.locator(".micrograd-training-stepper")
    backprop = page.locator(".micrograd-backprop-stepper")
    explorer = page.locator(".micrograd-expression-explorer")
    expect(training.locator(".micrograd-step")).to_have_text("0")
    expect(explorer.locator("svg")).to_be_visible()
    expect(backprop.locator("svg")).to_be_visible()

    # Training: each click on Step shows the next step number and a new loss.
    losses = []
    image = training.locator("img.widget-image")
    for k in range(1, 4):
        before = image.get_attribute("src")
        button(training, "Step").click()
        expect(training.locator(".micrograd-step")).to_have_text(str(k))
        expect(image).not_to_have_attribute("src", before)  # the figure was redrawn
        losses.append(float(training.locator(".micrograd-loss").inner_text()))
    assert len(set(losses)) == 3, f"the shown loss did not change between steps: {losses}"

    # Backprop: each click moves the highlight to the next node, L then d then e.
    assert backprop.locator(".micrograd-graph").evaluate(HIGHLIGHTED_BOXES) == []
    for k, label in enumerate(["L", "d", "e"], start=1):
        button(backprop, "Step").click()
        expect(backprop.locator(".micrograd-position")).to_have_text(str(k))
        expect(backprop.locator(".micrograd-current")).to_have_text(label)
        wait_for_highlight(page, backprop, label)
    expect(backprop.locator(".micrograd-panel")).to_contain_text("a.grad += -3.0000 × -2.0000")

    # Back moves the highlight back to d.
    button(backprop, "Back").click()
    expect(backprop.locator(".micrograd-current")).to_have_text("d")
    wait_for_highlight(page, backprop, "d")

    # Explorer: moving the x slider (with the keyboard) changes the output.
    output = explorer.locator(".micrograd-output")
    start = output.inner_text()
    handle = explorer.locator(".noUi-handle").first
    handle.focus()
    for _ in range(20):  # steps of 0.01: x goes from 0.5 to 0.7
        handle.press("ArrowRight")
    expect(explorer.locator(".widget-readout").first).to_have_text("0.700")
    expect(output).not_to_have_text(start)
    assert float(output.inner_text()) != float(start)

    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    training.scroll_into_view_if_needed()
    screenshot = tmp_path / "widgets.png"
    page.screenshot(path=screenshot)
    backprop.screenshot(path=tmp_path / "backprop-stepper.png")
    training.screenshot(path=tmp_path / "training-stepper.png")
    assert screenshot.stat().st_size > 10_000
