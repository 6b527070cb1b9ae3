"""Headless Debian chromium for the browser tests, driven by playwright (no browser download)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CITEVAL_CHROMIUM", "/usr/bin/chromium"))
# Offline and quiet: without the background-networking flags chromium keeps dialling out.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REQUIRE_ENV = "CITEVAL_REQUIRE_BROWSER"


def need_chromium(required: bool = False) -> None:
    """Skip without playwright or chromium, or fail when required (CI sets CITEVAL_REQUIRE_BROWSER)."""
    required = required or bool(os.environ.get(REQUIRE_ENV))
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("playwright is not installed (pip install playwright; chromium comes from apt)")
        pytest.skip(f"playwright is not installed; set {REQUIRE_ENV}=1 to make this a failure")
    if not CHROMIUM.exists():
        if required:
            pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium); set {REQUIRE_ENV}=1 to fail")
