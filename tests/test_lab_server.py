"""JupyterLab as `make lab` starts it: loopback only, token required, lessons listed.

The server is started by running scripts/lab.py, the very script `make lab`
runs, with an empty Jupyter config and no JUPYTER_TOKEN, so that nothing on
the developer's machine changes what is tested: the token is the one Jupyter
generates and prints, as for a learner.
"""

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from waits import REQUEST_SECONDS, SERVER_START_SECONDS, SERVER_STOP_SECONDS

ROOT = Path(__file__).resolve().parent.parent
LAB_SCRIPT = ROOT / "scripts" / "lab.py"
NOTEBOOKS = ROOT / "notebooks"


class LabServer:
    """A JupyterLab process started by scripts/lab.py, in its own process group."""

    def __init__(self, workdir):
        self.runtime_dir = workdir / "runtime"
        self.log_path = workdir / "lab.log"
        env = {key: value for key, value in os.environ.items() if not key.startswith("JUPYTER")}
        env.update(
            JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
            JUPYTER_CONFIG_DIR=str(workdir / "config"),
        )
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(LAB_SCRIPT), "--no-browser", "--ServerApp.port=0"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group, so nothing it starts can outlive the test
            )
        self.info = None
        self.token = None

    @property
    def log(self):
        return self.log_path.read_text(errors="replace")

    @property
    def info_file(self):
        # lab.py execs JupyterLab, so the server keeps the pid Popen saw.
        return self.runtime_dir / f"jpserver-{self.process.pid}.json"

    def wait_until_serving(self):
        """Wait for the server to announce itself in its runtime file, read it, then wait for its port.

        Jupyter writes the file before its event loop starts, and binds the port only once it
        has: under load the file can be there a moment before anything listens."""
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited with {self.process.returncode}:\n{self.log}")
            if self.info is None and self.info_file.exists():
                try:
                    self.info = json.loads(self.info_file.read_text())
                except json.JSONDecodeError:
                    pass  # caught while being written; read it again
                else:
                    self.token = self.info["token"]
            if self.info is not None and self.accepts_connections():
                return self.info
            time.sleep(0.2)
        pytest.fail(f"JupyterLab did not start in {SERVER_START_SECONDS} s:\n{self.log}")

    def accepts_connections(self):
        try:
            socket.create_connection(("127.0.0.1", self.info["port"]), timeout=REQUEST_SECONDS).close()
        except OSError:
            return False
        return True

    def get(self, path, headers=None):
        return self.request("GET", path, headers)

    def request(self, method, path, headers=None, body=None):
        """Send one request; returns (status, headers, body), never following redirects."""
        connection = http.client.HTTPConnection("127.0.0.1", self.info["port"], timeout=REQUEST_SECONDS)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def stop(self):
        """Ask the server to shut down as a user's Ctrl-C or a service manager would."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=SERVER_STOP_SECONDS)

    def group_alive(self):
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill_leftovers(self):
        """Whatever happened in the test, leave no process of the group behind."""
        if self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.stop()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=SERVER_STOP_SECONDS)


@contextlib.contextmanager
def running_lab(workdir):
    server = LabServer(workdir)
    try:
        server.wait_until_serving()
        yield server
    finally:
        server.kill_leftovers()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with running_lab(tmp_path_factory.mktemp("lab")) as server:
        yield server


def lesson_names():
    names = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    assert names, f"no lesson notebooks in {NOTEBOOKS}"
    return names


def test_serves_the_notebooks_folder_on_loopback_with_a_token(lab):
    assert lab.info["hostname"] == "127.0.0.1"
    assert Path(lab.info["root_dir"]) == NOTEBOOKS
    # Jupyter's own token: 48 random hex digits, nothing a config could have chosen.
    assert len(lab.token) == 48 and int(lab.token, 16) >= 0
    assert lab.info["password"] is False
    listening = [
        c.laddr
        for c in psutil.Process(lab.process.pid).net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]
    assert listening, "JupyterLab is not listening on any socket"
    assert all(address.ip == "127.0.0.1" for address in listening), listening


def test_prints_the_url_to_open(lab):
    assert f"http://127.0.0.1:{lab.info['port']}/lab?token={lab.token}" in lab.log


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "token wrong-token"}],
    ids=["no token", "wrong token"],
)
def test_refuses_api_requests_without_the_token(lab, headers):
    status, response_headers, _ = lab.get("/api/contents/", headers)
    if status in (301, 302, 303, 307):
        assert "/login" in response_headers["Location"]
    else:
        assert status in (401, 403), status


def test_refuses_the_lab_page_without_the_token(lab):
    status, response_headers, _ = lab.get("/lab")
    assert status == 302
    assert "/login" in response_headers["Location"]


def test_token_lists_the_lessons(lab):
    status, _, body = lab.get("/api/contents/", {"Authorization": f"token {lab.token}"})
    assert status == 200
    listed = {item["name"] for item in json.loads(body)["content"]}
    assert set(lesson_names()) <= listed


def test_token_in_the_printed_url_opens_jupyterlab(lab):
    status, _, body = lab.get(f"/lab?token={lab.token}")
    assert status == 200
    assert b"JupyterLab" in body


def test_lessons_run_on_the_python_that_started_the_lab(lab):
    auth = {"Authorization": f"token {lab.token}"}
    status, _, body = lab.request("POST", "/api/kernels", auth, json.dumps({"name": "python3"}))
    assert status == 201, body
    kernel_id = json.loads(body)["id"]
    try:
        kernels = [
            child
            for child in psutil.Process(lab.process.pid).children(recursive=True)
            if kernel_id in " ".join(command_line(child))
        ]
        assert len(kernels) == 1, kernels
        assert Path(kernels[0].cmdline()[0]).resolve() == Path(sys.executable).resolve()
    finally:
        status, _, body = lab.request("DELETE", f"/api/kernels/{kernel_id}", auth)
        assert status == 204, body


def command_line(process):
    """A process's command line, or none for one that ended as it was read (a zombie until the server reaps it)."""
    try:
        return process.cmdline()
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return []


def test_stops_on_sigterm_without_leaving_processes(tmp_path):
    with running_lab(tmp_path) as server:
        assert server.stop() == 0, server.log
        assert not server.info_file.exists(), "the server left its runtime file behind"
        deadline = time.monotonic() + SERVER_STOP_SECONDS
        while server.group_alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not server.group_alive(), "processes started by JupyterLab outlived it"
