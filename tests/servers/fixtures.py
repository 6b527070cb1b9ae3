"""pytest fixtures for the local fake services. Use them from a test module with

    from servers.fixtures import fake_anthropic, fake_openai  # noqa: F401

and take the fixture as an argument; each test gets a fresh server, stopped afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .llm import FakeLLM, start_fake_llm


@pytest.fixture
def fake_openai() -> Iterator[FakeLLM]:
    """An OpenAI-compatible Chat Completions server; base_url ends in /v1."""
    fake = start_fake_llm("openai")
    yield fake
    fake.stop()


@pytest.fixture
def fake_anthropic() -> Iterator[FakeLLM]:
    """An Anthropic Messages API server; base_url without /v1, as the SDK expects."""
    fake = start_fake_llm("anthropic")
    yield fake
    fake.stop()
