"""A real Label Studio server for the tests, started the same way as `scripts/labelstudio.sh start`.

- The server lives in its own venv (.venv-labelstudio/, made by `scripts/labelstudio.sh install`).
- Migrating a fresh sqlite database takes ~40 s, so a migrated data folder (with the preset
  admin and its legacy token) is cached once in .cache/labelstudio-template/ and copied
  for each test session.
- Everything listens on 127.0.0.1 only; raters join as a team would: the admin's invite
  link, sign-up, then each rater's own token (a personal access token or a legacy one).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "labelstudio.sh"
VENV = Path(os.environ.get("LABEL_STUDIO_VENV", REPO / ".venv-labelstudio"))
TEMPLATE = REPO / ".cache" / "labelstudio-template"
TEMPLATE_VERSION = "ls-1.23.2-admin-v1"  # bump when the admin settings below change

# test-only credentials of a throwaway server on the loopback address
ADMIN_EMAIL = "admin@citeval.test"
ADMIN_PASSWORD = "citeval-admin-pass-1"
ADMIN_TOKEN = "c1tev41adm1nt0ken0000000000000000000001"

REQUIRE_ENV = "CITEVAL_REQUIRE_LABEL_STUDIO"


def venv_ready() -> bool:
    return (VENV / "bin" / "label-studio").exists()


def install_venv() -> None:
    """Create or reuse the server's venv (network to PyPI only)."""
    subprocess.run(["bash", str(SCRIPT), "install"], check=True, timeout=1800)


def port_is_free(port: int) -> bool:
    """Nothing listens on 127.0.0.1:port (TIME_WAIT leftovers of a killed server do not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port_is_free(port) and port_is_free(port + 1):
            return port
    raise RuntimeError("no free port on 127.0.0.1")


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT", "USERNAME", "DEBUG")}
    env.pop("LABEL_STUDIO_URL", None)
    env.pop("LABEL_STUDIO_API_KEY", None)
    env.update(
        LABEL_STUDIO_USERNAME=ADMIN_EMAIL,
        LABEL_STUDIO_PASSWORD=ADMIN_PASSWORD,
        LABEL_STUDIO_USER_TOKEN=ADMIN_TOKEN,
        LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true",
        LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK="true",
        COLLECT_ANALYTICS="false",
        LATEST_VERSION_CHECK="false",
        SENTRY_DSN="",
        FRONTEND_SENTRY_DSN="",
        LABEL_STUDIO_VENV=str(VENV),
    )
    return env


class LabelStudioServer:
    """One server process on 127.0.0.1:port with its data in data_dir."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.log_path = self.data_dir.parent / f"labelstudio-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> LabelStudioServer:
        if not port_is_free(self.port):
            raise RuntimeError(f"port {self.port} is busy; Label Studio would silently move to another one")
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            ["bash", str(SCRIPT), "start", str(self.data_dir), str(self.port)],
            env=server_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, so stop() ends exactly it
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Label Studio exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"Label Studio did not answer on {self.url} within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """Stop it the hard way, as a crash or a pulled plug would."""
        self._signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        self._signal(signal.SIGTERM)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=3)  # open keep-alive connections can hold the dev server
            except subprocess.TimeoutExpired:
                self.kill()
        deadline = time.monotonic() + 10
        while not port_is_free(self.port) and time.monotonic() < deadline:
            time.sleep(0.2)


def ensure_template() -> Path:
    """A migrated data folder with the preset admin, made once and reused."""
    marker = TEMPLATE / "citeval-template.txt"
    if marker.exists() and marker.read_text().strip() == TEMPLATE_VERSION:
        return TEMPLATE
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ls-template-", dir=TEMPLATE.parent))
    data = work / "data"
    server = LabelStudioServer(data)
    try:
        server.start(timeout=600)
        response = httpx.get(server.url + "/api/current-user/whoami", headers={"Authorization": f"Token {ADMIN_TOKEN}"})
        response.raise_for_status()
    finally:
        server.stop()
    for stale in ("export", "media/upload"):
        shutil.rmtree(data / stale, ignore_errors=True)
    (data / "citeval-template.txt").write_text(TEMPLATE_VERSION + "\n")
    if TEMPLATE.exists():
        shutil.rmtree(TEMPLATE)
    os.replace(data, TEMPLATE)
    shutil.rmtree(work, ignore_errors=True)
    return TEMPLATE


def fresh_data_dir(parent: Path) -> Path:
    data = Path(parent) / "ls-data"
    shutil.copytree(ensure_template(), data)
    return data


# --- raters ----------------------------------------------------------------------------


def invite_link(url: str, admin_token: str = ADMIN_TOKEN) -> str:
    response = httpx.get(url + "/api/invite", headers={"Authorization": f"Token {admin_token}"}, timeout=30)
    response.raise_for_status()
    return url + response.json()["invite_url"]


def _csrf(client: httpx.Client) -> str:
    return client.cookies.get("csrftoken") or ""


def sign_up(link: str, email: str, password: str) -> httpx.Client:
    """Sign up through the invite link as a person would; returns the logged-in browser session."""
    client = httpx.Client(follow_redirects=True, timeout=30)
    page = client.get(link)
    page.raise_for_status()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    token = match.group(1) if match else _csrf(client)
    response = client.post(
        link,
        data={"csrfmiddlewaretoken": token, "email": email, "password": password, "how_find_us": "Fr"},
        headers={"Referer": link},
    )
    response.raise_for_status()
    who = client.get(link.split("/user/")[0] + "/api/current-user/whoami")
    if who.status_code != 200 or who.json().get("email") != email:
        raise RuntimeError(f"sign-up of {email} did not log in (HTTP {who.status_code})")
    return client


def personal_access_token(session: httpx.Client, url: str) -> str:
    """The rater creates a personal access token (a JWT refresh token) in their own session."""
    session.get(url + "/user/account/")
    response = session.post(url + "/api/token/", headers={"X-CSRFToken": _csrf(session), "Referer": url + "/"})
    response.raise_for_status()
    return response.json()["token"]


def legacy_token(session: httpx.Client, url: str) -> str:
    response = session.get(url + "/api/current-user/token")
    response.raise_for_status()
    return response.json()["token"]


def create_rater(url: str, email: str, password: str, kind: str = "pat") -> str:
    """Invite, sign up, and return the rater's own API key (kind: 'pat' or 'legacy')."""
    session = sign_up(invite_link(url), email, password)
    try:
        return personal_access_token(session, url) if kind == "pat" else legacy_token(session, url)
    finally:
        session.close()
