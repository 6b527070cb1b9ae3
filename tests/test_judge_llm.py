"""The LLM judge against local OpenAI-compatible and Anthropic Messages servers (tests/servers)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from servers.fixtures import fake_anthropic, fake_openai  # noqa: F401  (pytest fixtures)
from servers.llm import FakeLLM, start_fake_llm
from typer.testing import CliRunner

from evals.errors import UsageError
from evals.score.judges import make_judge
from evals.score.judges.base import JudgeInput
from evals.score.judges.llm import LlmConfig, LlmJudge, price_for
from evals.score.judges.prompt import SUPPORT_PROMPT, parse_verdict

EVIDENCE = "Медицинские сёстры проходят обучение по охране труда не реже одного раза в 12 месяцев."
SUPPORTED = JudgeInput("Медицинские сёстры проходят обучение по охране труда", [EVIDENCE], "Как часто?")
UNSUPPORTED = JudgeInput("Обучение проводится раз в 6 месяцев.", [EVIDENCE])


def config(fake: FakeLLM, **options) -> LlmConfig:
    model = "gpt-4o-mini" if fake.provider == "openai" else "claude-sonnet-4-5"
    return LlmConfig(model=model, provider=fake.provider, base_url=fake.base_url,
                     **{"backoff_s": 0.01, "timeout_s": 5.0, **options})


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_labels_usage_and_cost(provider: str, request: pytest.FixtureRequest) -> None:
    fake: FakeLLM = request.getfixturevalue(f"fake_{provider}")
    judge = LlmJudge(config(fake), prices={"gpt-4o-mini": (1.0, 2.0), "claude-sonnet-4-5": (3.0, 15.0)})
    results = judge.judge([SUPPORTED, UNSUPPORTED])
    assert [r.value for r in results] == ["supported", "unsupported"]
    assert results[0].score == 0.9 and results[0].reason == "claim found in the evidence"
    usage = judge.usage.to_json()
    assert (usage["requests"], usage["input_tokens"], usage["output_tokens"]) == (2, 200, 40)
    price = (1.0, 2.0) if provider == "openai" else (3.0, 15.0)
    assert usage["cost_usd"] == pytest.approx((200 * price[0] + 40 * price[1]) / 1e6)
    body = fake.requests[0]["json"]
    if provider == "openai":
        assert fake.requests[0]["path"] == "/v1/chat/completions"
        assert body["response_format"] == {"type": "json_object"} and body["messages"][0]["role"] == "system"
    else:
        assert fake.requests[0]["path"] == "/v1/messages" and "top_p" not in body and body["system"]
        assert fake.requests[0]["headers"]["anthropic-version"] == "2023-06-01"
    # the typed prompt: version, few-shot examples, the unit as JSON
    prompts = [r["json"]["messages"][-1]["content"] for r in fake.requests]
    assert all("### Example 4" in p for p in prompts)
    assert any('"claim": "Медицинские сёстры проходят' in p for p in prompts)


def test_cache_makes_rescoring_free_and_keeps_no_key(
    tmp_path: Path, fake_openai: FakeLLM, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-secret-123")
    fake_openai.api_key = "sk-secret-123"
    cache = tmp_path / "run" / "judge_cache.jsonl"
    first = LlmJudge(config(fake_openai, api_key_env="JUDGE_TEST_KEY"), cache_path=cache)
    results = first.judge([SUPPORTED, UNSUPPORTED])
    assert fake_openai.requests[0]["headers"]["authorization"] == "Bearer sk-secret-123"
    assert len(fake_openai.requests) == 2
    second = LlmJudge(config(fake_openai, api_key_env="JUDGE_TEST_KEY"), cache_path=cache)
    assert second.judge([SUPPORTED, UNSUPPORTED]) == results
    assert len(fake_openai.requests) == 2  # nothing sent again
    assert second.usage.to_json() == {"requests": 0, "cache_hits": 2, "input_tokens": 0, "output_tokens": 0,
                                      "cost_usd": 0.0, "failures": 0}
    text = cache.read_text(encoding="utf-8")
    assert "sk-secret" not in text and "JUDGE_TEST_KEY" not in text
    entry = json.loads(text.splitlines()[0])
    assert entry["model"] == "gpt-4o-mini" and entry["prompt_version"] == SUPPORT_PROMPT.version
    # another prompt version is another key
    other = LlmJudge(config(fake_openai, api_key_env="JUDGE_TEST_KEY"), cache_path=cache,
                     prompt=SUPPORT_PROMPT.model_copy(update={"version": "support-test"}))
    other.judge([SUPPORTED])
    assert len(fake_openai.requests) == 3


def test_wrong_key_is_not_echoed(fake_anthropic: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-wrong-456")
    fake_anthropic.api_key = "sk-right"
    [result] = LlmJudge(config(fake_anthropic, api_key_env="JUDGE_TEST_KEY")).judge([SUPPORTED])
    assert result.value == "cannot_judge" and result.error is not None
    assert result.reason.startswith("llm judge failed after 1 attempt: HTTP 401")  # 4xx: no retry
    assert "sk-wrong" not in result.reason


def test_missing_named_key_env_refuses_to_start(fake_openai: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(UsageError, match="NO_SUCH_KEY_VAR"):
        LlmJudge(config(fake_openai, api_key_env="NO_SUCH_KEY_VAR"))
    with pytest.raises(UsageError):
        make_judge("llm")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_retries_then_success(provider: str, request: pytest.FixtureRequest) -> None:
    fake: FakeLLM = request.getfixturevalue(f"fake_{provider}")
    fake.fail_next("500", 2)
    judge = LlmJudge(config(fake, max_retries=3))
    [result] = judge.judge([SUPPORTED])
    assert result.value == "supported" and judge.usage.requests == 3


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_each_fault_ends_as_cannot_judge_with_reason(provider: str, request: pytest.FixtureRequest) -> None:
    fake: FakeLLM = request.getfixturevalue(f"fake_{provider}")
    # the timeout leaves the other faults' replies (a local round trip, the SDK's first request in
    # the process) a wide margin on a loaded machine; the slow reply outlasts it twice over
    fake.slow_seconds = 3.0
    judge = LlmJudge(config(fake, max_retries=1, timeout_s=1.2))
    items = [JudgeInput(f"FAULT:{kind} claim", [EVIDENCE]) for kind in ("500", "malformed", "slow", "400")]
    results = judge.judge(items)
    assert [r.value for r in results] == ["cannot_judge"] * 4
    assert all(r.score is None and r.error == r.reason for r in results)
    assert results[0].reason == "llm judge failed after 2 attempts: HTTP 500: " + (
        '{"error": {"message": "injected fault", "type": "server_error", "code": null}}' if provider == "openai"
        else '{"type": "error", "error": {"type": "api_error", "message": "injected fault"}}')
    assert results[1].reason.startswith("llm judge failed after 2 attempts: malformed reply:")
    assert results[2].reason == "llm judge failed after 2 attempts: timed out after 1.2 s"
    assert results[3].reason.startswith("llm judge failed after 1 attempt: HTTP 400")
    assert judge.usage.failures == 4


def test_concurrency_is_bounded() -> None:
    fake = start_fake_llm("openai", slow_seconds=0.15)
    try:
        fake.fail_next("slow", 6)
        judge = LlmJudge(config(fake, max_concurrency=2))
        results = judge.judge([JudgeInput(f"Claim {i}", [EVIDENCE]) for i in range(6)])
        assert [r.value for r in results] == ["unsupported"] * 6
        assert fake.max_in_flight == 2
    finally:
        fake.stop()


def test_async_api_inside_a_loop(fake_openai: FakeLLM) -> None:  # noqa: F811
    judge = LlmJudge(config(fake_openai))

    async def main() -> list[str]:
        with pytest.raises(RuntimeError, match="ajudge"):
            judge.judge([SUPPORTED])
        return [r.value for r in await judge.ajudge([SUPPORTED])]

    assert asyncio.run(main()) == ["supported"]


def test_prices_and_parsing() -> None:
    assert price_for("gpt-4o-mini-2024-07-18", {"gpt-4o": (1, 1), "gpt-4o-mini": (2, 2)}) == (2, 2)
    assert price_for("local-model", {"gpt-4o": (1, 1)}) is None
    assert parse_verdict('```json\n{"label": "partial", "score": 0.5, "reason": "ok"}\n```').label == "partial"
    with pytest.raises(ValueError, match="schema"):
        parse_verdict('{"label": "maybe", "score": 0.5, "reason": "?"}')


def test_unpriced_model_has_null_cost(fake_openai: FakeLLM) -> None:  # noqa: F811
    judge = LlmJudge(LlmConfig(model="local-llama", base_url=fake_openai.base_url))
    judge.judge([SUPPORTED])
    assert judge.usage.cost_usd is None and judge.usage.input_tokens == 100


def test_cli_judge_llm_and_offline(tmp_path: Path, fake_openai: FakeLLM) -> None:  # noqa: F811
    from cli import app

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in [
        {"pair_id": "a", "claim": SUPPORTED.claim, "evidence": [EVIDENCE], "label": "supported"},
        {"pair_id": "b", "claim": UNSUPPORTED.claim, "evidence": [EVIDENCE], "label": "unsupported"},
        {"pair_id": "c", "claim": "Курение запрещается.", "evidence": [EVIDENCE], "label": True},
    ]) + "\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["judge", str(pairs), "--judge", "llm", "--llm-base-url", fake_openai.base_url,
                               "--llm-model", "gpt-4o-mini", "--cache", str(tmp_path / "cache.jsonl"),
                               "--format", "json"])
    assert done.exit_code == 0, done.output
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(x["pair_id"], x["value"]) for x in lines] == [("a", "supported"), ("b", "unsupported"),
                                                           ("c", "unsupported")]
    assert set(lines[0]) == {"pair_id", "value", "score", "reason"}
    summary = json.loads(done.stderr.strip().splitlines()[-1])
    assert summary["agreement"]["labels"]["accuracy"]["value"] == pytest.approx(2 / 3)
    assert summary["usage"]["requests"] == 3

    offline = runner.invoke(app, ["judge", str(pairs), "--format", "json"])
    assert offline.exit_code == 0
    assert [json.loads(x)["value"] for x in offline.stdout.splitlines()] == ["supported", "unsupported", "unsupported"]

    fake_openai.fail_next("400", 10)
    failed = runner.invoke(app, ["judge", str(pairs), "--judge", "llm", "--llm-base-url", fake_openai.base_url,
                                 "--llm-model", "gpt-4o-mini", "--format", "json"])
    assert failed.exit_code == 3  # the service failed on every pair

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pair_id": "x", "claim": "a", "evidence": ["b"], "label": "maybe"}\n', encoding="utf-8")
    refused = runner.invoke(app, ["judge", str(bad)])
    assert refused.exit_code == 2 and "bad.jsonl:1" in refused.stderr
