"""pytest fixtures for tests that need a real Label Studio server or headless Chromium.

Import them into a test module (`from labelstudio.fixtures import ...  # noqa: F401`) or
list this module in `pytest_plugins`. The server tests are skipped, with the reason, only
when the server's venv is missing AND CITEVAL_REQUIRE_LABEL_STUDIO is unset; with it set
(as in CI) a missing venv is installed by scripts/labelstudio.sh, and a missing Chromium
or playwright is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import browser
import pytest
from browser import CHROMIUM, CHROMIUM_ARGS  # noqa: F401 - re-exported for the UI test

from . import server as S


def required() -> bool:
    return bool(os.environ.get(S.REQUIRE_ENV))


def need_label_studio() -> None:
    if S.venv_ready():
        return
    if required():
        S.install_venv()
        return
    pytest.skip(
        f"Label Studio is not installed in {S.VENV} (run `scripts/labelstudio.sh install`); "
        f"set {S.REQUIRE_ENV}=1 to make this a failure instead of a skip"
    )


@dataclass
class Rater:
    email: str
    password: str
    api_key: str
    kind: str


@pytest.fixture(scope="module")
def ls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S.LabelStudioServer]:
    """A Label Studio server on 127.0.0.1 with a fresh copy of the migrated template data."""
    need_label_studio()
    root = tmp_path_factory.mktemp("labelstudio")
    server = S.LabelStudioServer(S.fresh_data_dir(root))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def raters(ls_server: S.LabelStudioServer) -> tuple[Rater, Rater]:
    """Two raters who joined by the invite link; one uses a personal access token, one a legacy token."""
    a = Rater("ivanova@bank.test", "rater-pass-ivanova-1", "", "pat")
    b = Rater("petrov@bank.test", "rater-pass-petrov-2", "", "legacy")
    for rater in (a, b):
        rater.api_key = S.create_rater(ls_server.url, rater.email, rater.password, rater.kind)
    return a, b


@pytest.fixture()
def ls_env(ls_server: S.LabelStudioServer, monkeypatch: pytest.MonkeyPatch) -> S.LabelStudioServer:
    """LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY of the admin, for the CLI."""
    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", S.ADMIN_TOKEN)
    return ls_server


def need_chromium() -> None:
    browser.need_chromium(required=required())


keep_screenshot = browser.keep_screenshot  # the UI tests call it as F.keep_screenshot


@contextmanager
def rater_task_page(
    server: S.LabelStudioServer, rater: Rater, project_id: int, task_id: int
) -> Iterator[tuple[Any, list[str]]]:
    """(page, problems): `rater` logged in through the login form, their browser on the task's labelling page.

    `problems` collects console errors, page errors, dialogs (dismissed) and any request that leaves the
    server; the caller asserts it is empty once the browser is closed."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = chromium.new_context(viewport={"width": 1400, "height": 1800}, locale="ru-RU")
            # Label Studio's tips widget asks the server to fetch tips from GitHub; pre-seed its
            # cache so the (offline) server is never asked to go out
            context.add_init_script(
                "localStorage.setItem('heidi_live_tips_collection', '{}');"
                "localStorage.setItem('heidi_live_tips_collection_fetched_at', String(Date.now()));"
            )
            page = context.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
            page.on(
                "request",
                lambda r: (
                    None if r.url.startswith((server.url, "data:", "blob:")) else problems.append(f"request {r.url}")
                ),
            )
            page.goto(server.url + "/user/login/")
            page.fill("input[name=email]", rater.email)
            page.fill("input[name=password]", rater.password)
            page.click("button[type=submit], input[type=submit]")
            page.wait_for_load_state("networkidle")
            page.goto(f"{server.url}/projects/{project_id}/data?task={task_id}")
            yield page, problems
        finally:
            chromium.close()
