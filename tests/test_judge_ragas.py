"""Ragas faithfulness through the real ragas code path against local fake providers: OpenAI
(instructor JSON mode: the reply is JSON in message.content) and Anthropic (tool mode: a
tool_use block). The fake answers ragas' statement and verdict prompts deterministically."""

from __future__ import annotations

import asyncio
import os

import pytest
from servers.fixtures import fake_anthropic, fake_openai  # noqa: F401  (pytest fixtures)
from servers.llm import FakeLLM

from evals.score.judges.faithfulness import FaithfulnessResult, FaithfulnessSample, ragas_faithfulness

if not os.environ.get("CI"):  # CI installs the test extra: there a missing ragas must fail, not skip
    pytest.importorskip("ragas")

CONTEXTS = ["Обучение по охране труда проводится раз в год. Экзамен сдают письменно. Справку выдают в день обращения."]
SAMPLES = [
    # 2 statements, both in the context → 1.0
    FaithfulnessSample("Как проходит обучение?", "Обучение по охране труда проводится раз в год. Экзамен сдают письменно.",
                       CONTEXTS),
    # 2 statements, one in the context → 0.5
    FaithfulnessSample("Как проходит обучение?", "Обучение по охране труда проводится раз в год. Экзамен сдают устно.",
                       CONTEXTS),
    # 1 statement, not in the context → 0.0
    FaithfulnessSample("Как часто?", "Обучение проводится раз в пять лет.", CONTEXTS),
]
FAULTS = [
    FaithfulnessSample("Как?", "FAULT:500 Обучение проводится раз в год.", CONTEXTS),
    FaithfulnessSample("Как?", "FAULT:malformed Обучение проводится раз в год.", CONTEXTS),
    FaithfulnessSample("Как?", "FAULT:slow Обучение проводится раз в год.", CONTEXTS),
    FaithfulnessSample("Как?", "   ", CONTEXTS),
    FaithfulnessSample("Как?", "Обучение проводится раз в год.", []),
]


def run(fake: FakeLLM, samples: list[FaithfulnessSample], **options) -> list[FaithfulnessResult]:
    model = "gpt-4o-mini" if fake.provider == "openai" else "claude-sonnet-4-5"
    return asyncio.run(ragas_faithfulness(samples, provider=fake.provider, base_url=fake.base_url, model=model,
                                          **{"timeout_s": 5.0, "max_retries": 1, **options}))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_exact_faithfulness(provider: str, request: pytest.FixtureRequest) -> None:
    fake: FakeLLM = request.getfixturevalue(f"fake_{provider}")
    assert run(fake, SAMPLES) == [FaithfulnessResult(1.0), FaithfulnessResult(0.5), FaithfulnessResult(0.0)]
    assert os.environ["RAGAS_DO_NOT_TRACK"] == "true"
    bodies = [r["json"] for r in fake.requests]
    assert len(bodies) == 6  # statements + verdicts per sample
    if provider == "openai":
        assert all(b["response_format"] == {"type": "json_object"} and "tools" not in b for b in bodies)
    else:
        # instructor's tool mode, and no top_p next to temperature (the fake rejects both, as Claude does)
        assert all(b["tools"] and b["tool_choice"]["type"] == "tool" and "top_p" not in b for b in bodies)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_each_fault_is_null_with_a_reason(provider: str, request: pytest.FixtureRequest) -> None:
    fake: FakeLLM = request.getfixturevalue(f"fake_{provider}")
    fake.slow_seconds = 5.0
    results = run(fake, FAULTS, timeout_s=0.3, max_retries=0)
    assert [r.value for r in results] == [None] * 5
    assert [r.reason for r in results] == [
        "ragas faithfulness failed: HTTP 500 from the LLM endpoint",
        "ragas faithfulness failed: malformed reply: it did not parse as the structured output ragas asked for",
        "ragas faithfulness failed: timed out",
        "empty answer",
        "no retrieved contexts",
    ]


def test_retry_recovers_from_one_500(fake_openai: FakeLLM) -> None:  # noqa: F811
    fake_openai.fail_next("500", 1)
    assert run(fake_openai, SAMPLES[:1], max_retries=1) == [FaithfulnessResult(1.0)]


def test_no_samples_no_import_needed() -> None:
    assert asyncio.run(ragas_faithfulness([], model="m")) == []
