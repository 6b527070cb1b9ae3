"""`--judge cascade`: the offline judge decides, the least confident units go to the LLM (a local
OpenAI-compatible server, tests/servers/llm.py, answering with each claim's label: a correct LLM).

The pairs are written here (paraphrases of a made-up workplace-safety rule), labels fixed by
construction; expected choices are worked out from the offline judge's own scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers.fixtures import fake_openai  # noqa: F401  (pytest fixture)
from servers.llm import FakeLLM, start_fake_llm
from sklearn.metrics import f1_score
from typer.testing import CliRunner

from cli import app
from evals.errors import BackendError
from evals.score.judges.base import JudgeInput
from evals.score.judges.cascade import CascadeJudge, confidence
from evals.score.judges.llm import LlmConfig, LlmJudge
from evals.score.judges.offline import OfflineJudge
from evals.score.judges.plan import plan_share

RULE = ("Работники, занятые на работах с вредными условиями труда, проходят обязательный медицинский осмотр "
        "не реже одного раза в 12 месяцев за счёт работодателя. Работник вправе отказаться от работы при "
        "угрозе его жизни, за исключением случаев ликвидации аварий.")
PAIRS = [
    ("p01", "Работники с вредными условиями труда проходят медосмотр не реже раза в 12 месяцев.", "supported"),
    ("p02", "Медицинский осмотр таких работников оплачивает работодатель.", "supported"),
    ("p03", "Работник вправе отказаться от работы, если она угрожает его жизни, кроме ликвидации аварий.",
     "supported"),
    ("p04", "Осмотр проходят не реже одного раза в 6 месяцев.", "unsupported"),
    ("p05", "Медицинский осмотр работник оплачивает сам.", "unsupported"),
    ("p06", "Работник обязан отказаться от работы при угрозе жизни.", "unsupported"),
    ("p07", "Работник вправе отказаться от любой работы при угрозе его жизни.", "partial"),
    ("p08", "Работники с вредными условиями труда не проходят медицинский осмотр.", "unsupported"),
    ("p09", "Осмотр проводится в поликлинике по месту жительства работника.", "unsupported"),
    ("p10", "Работники с вредными условиями проходят осмотр ежегодно за счёт работодателя.", "supported"),
    ("p11", "Работник может отказаться от работы при угрозе жизни, даже при ликвидации аварий.", "unsupported"),
    ("p12", "Работодатель проходит медицинский осмотр раз в 12 месяцев.", "unsupported"),
]
LABELS = {claim: label for _, claim, label in PAIRS}
runner = CliRunner()


def items() -> list[JudgeInput]:
    return [JudgeInput(claim, (RULE,)) for _, claim, _ in PAIRS]


def write_pairs(path: Path) -> Path:
    path.write_text("".join(json.dumps({"pair_id": i, "claim": c, "evidence": [RULE], "label": lab},
                                       ensure_ascii=False) + "\n" for i, c, lab in PAIRS), encoding="utf-8")
    return path


@pytest.fixture
def oracle() -> FakeLLM:
    fake = start_fake_llm("openai", labels=LABELS)
    yield fake
    fake.stop()


def llm(fake: FakeLLM, cache: Path | None = None) -> LlmJudge:
    return LlmJudge(LlmConfig(model="gpt-4o-mini", base_url=fake.base_url, backoff_s=0.01, timeout_s=5.0,
                              max_retries=0, breaker_threshold=2), cache_path=cache)


def test_the_least_confident_share_goes_to_the_llm(oracle: FakeLLM) -> None:
    offline = OfflineJudge().judge(items())
    conf = [confidence(r) for r in offline]
    expected = sorted(range(len(PAIRS)), key=lambda i: (conf[i], i))[:round(0.25 * len(PAIRS))]  # 3 of 12
    judge = CascadeJudge(llm(oracle), share=0.25)
    results = judge.judge(items())
    sent = [i for i, r in enumerate(results) if r.judge == "llm:gpt-4o-mini"]
    assert sorted(sent) == sorted(expected)
    assert all(r.judge == "offline" for i, r in enumerate(results) if i not in sent)
    assert all(results[i].value == PAIRS[i][2] for i in sent)  # the LLM's verdict replaced the offline one
    assert len(oracle.requests) == 3
    usage = judge.usage.to_json()
    assert (usage["units"], usage["sent_to_llm"], usage["share_sent"], usage["llm_share"]) == (12, 3, 0.25, 0.25)
    assert usage["input_tokens"] == 300 and usage["output_tokens"] == 60  # the fake's 100 + 20 a call


def test_below_sends_every_unit_under_the_confidence(oracle: FakeLLM) -> None:
    offline = OfflineJudge().judge(items())
    cut = sorted(c for r in offline if (c := confidence(r)) is not None)[5]  # strictly below: the 5 lowest
    results = CascadeJudge(llm(oracle), below=cut).judge(items())
    assert sum(r.judge != "offline" for r in results) == sum(confidence(r) < cut for r in offline) == 5


def test_share_is_carried_across_small_batches(oracle: FakeLLM) -> None:
    judge = CascadeJudge(llm(oracle), share=0.25)
    for i in range(0, 12, 2):  # six batches of two: 0.5 owed each time, one sent every second batch
        judge.judge(items()[i:i + 2])
    assert judge.usage.sent_to_llm == 3 and judge.usage.units == 12


def test_a_dead_endpoint_is_a_service_failure() -> None:
    dead = start_fake_llm("openai")
    dead.stop()  # nothing listens on that port any more
    with pytest.raises(BackendError, match="failed on all 2 units sent"):
        CascadeJudge(llm(dead), share=0.2).judge(items())


def test_cli_cascade_against_a_correct_llm_with_cache(tmp_path: Path, oracle: FakeLLM) -> None:
    pairs = write_pairs(tmp_path / "pairs.jsonl")
    cache = tmp_path / "cache.jsonl"
    args = ["judge", str(pairs), "--judge", "cascade", "--llm-share", "0.5", "--llm-base-url", oracle.base_url,
            "--llm-model", "gpt-4o-mini", "--cache", str(cache), "--format", "json"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert all(x["judge"] in ("offline", "llm:gpt-4o-mini") for x in lines)
    assert sum(x["judge"] != "offline" for x in lines) == 6
    truth = [lab == "supported" for _, _, lab in PAIRS]
    pred = [x["value"] == "supported" for x in lines]
    offline_pred = [r.value == "supported" for r in OfflineJudge().judge(items())]
    assert f1_score(truth, pred, average="macro") >= f1_score(truth, offline_pred, average="macro")
    summary = json.loads(done.stderr.strip().splitlines()[-1])
    assert summary["decided_by"] == {"offline": 6, "llm:gpt-4o-mini": 6}
    assert summary["usage"]["requests"] == 6 and summary["calibration"]["n"] == 12
    again = runner.invoke(app, args)  # every LLM verdict from the cache: nothing sent
    assert again.exit_code == 0 and again.stdout == done.stdout
    assert len(oracle.requests) == 6
    assert json.loads(again.stderr.strip().splitlines()[-1])["usage"]["cache_hits"] == 6
    text = runner.invoke(app, args[:-2])
    assert text.exit_code == 0 and "\tllm:gpt-4o-mini\t" in text.stdout and "ECE" in text.stderr


def test_cli_cascade_dead_endpoint_exits_3_with_nothing_written(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path / "pairs.jsonl")
    dead = start_fake_llm("openai")
    dead.stop()
    done = runner.invoke(app, ["judge", str(pairs), "--judge", "cascade", "--llm-base-url", dead.base_url,
                               "--llm-model", "gpt-4o-mini", "--cache", str(tmp_path / "cache.jsonl")])
    assert done.exit_code == 3 and done.stdout == "" and "failed on all" in done.stderr
    assert not (tmp_path / "cache.jsonl").exists() or not (tmp_path / "cache.jsonl").read_text().strip()


def test_cli_share_and_below_together_is_usage_error(tmp_path: Path, fake_openai: FakeLLM) -> None:  # noqa: F811
    pairs = write_pairs(tmp_path / "pairs.jsonl")
    done = runner.invoke(app, ["judge", str(pairs), "--judge", "cascade", "--llm-base-url", fake_openai.base_url,
                               "--llm-model", "m", "--llm-share", "0.3", "--llm-below", "0.6"])
    assert done.exit_code == 2 and "not both" in done.stderr
    done = runner.invoke(app, ["judge", str(pairs), "--judge", "cascade", "--llm-base-url", fake_openai.base_url,
                               "--llm-model", "m", "--llm-share", "1.5"])
    assert done.exit_code == 2 and "--llm-share" in done.stderr


def brute_force_share(target: float) -> int | None:
    """The fewest least-confident pairs replaced by their labels that reach target, by sklearn."""
    offline = OfflineJudge().judge(items())
    truth = [lab == "supported" for _, _, lab in PAIRS]
    order = sorted(range(len(PAIRS)), key=lambda i: confidence(offline[i]))
    for k in range(len(PAIRS) + 1):
        sent = set(order[:k])
        pred = [truth[i] if i in sent else offline[i].value == "supported" for i in range(len(PAIRS))]
        if f1_score(truth, pred, average="macro") >= target - 1e-12:
            return k
    return None


@pytest.mark.parametrize("target", [0.5, 0.9, 1.0])
def test_plan_matches_a_brute_force_search(target: float) -> None:
    plan = plan_share(items(), OfflineJudge().judge(items()), [lab for _, _, lab in PAIRS], target, (1.0, 2.0))
    assert plan.sent == brute_force_share(target)
    per_call = (plan.input_tokens_per_call * 1.0 + plan.output_tokens_per_call * 2.0) / 1e6
    assert plan.cost_per_1000() == pytest.approx(plan.sent / 12 * 1000 * per_call)


def test_cli_plan(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path / "pairs.jsonl")
    done = runner.invoke(app, ["judge", str(pairs), "--plan", "--target", "1.0", "--price", "1,2",
                               "--format", "json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["pairs_to_send"] == brute_force_share(1.0) and doc["price_per_million"] == [1.0, 2.0]
    text = runner.invoke(app, ["judge", str(pairs), "--plan", "--target", "1.0", "--price", "1,2"])
    assert text.exit_code == 0 and text.stdout.startswith("plan: for macro-F1 ≥ 1.00")
    bad = runner.invoke(app, ["judge", str(pairs), "--plan", "--price", "cheap"])
    assert bad.exit_code == 2 and "--price" in bad.stderr


def recorded_run(tmp_path: Path) -> Path:
    """A recorded run over tests/factories' dataset: two answered questions, one refused."""
    from factories import TEXT_A1, TEXT_A2, write_dataset

    from evals.run.runner import start_run

    ds = write_dataset(tmp_path / "ds")
    rows = [
        {"question_id": "q1", "status": "answered",
         "answer_text": "Обучение проходят не реже раза в 12 месяцев. [E1]",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1", "text": TEXT_A1[:53]}]},
        {"question_id": "q2", "status": "answered", "answer_text": "Порог сдачи теста 70 %. [E1]",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a2-2", "text": TEXT_A2[54:]}]},
        {"question_id": "q3", "status": "abstained"},
    ]
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return start_run(ds, f"replay:{replay}", out=tmp_path / "runs", run_id="r").run_dir


def test_score_cascade_names_the_judge_records_usage_and_caches(tmp_path: Path, fake_openai: FakeLLM) -> None:  # noqa: F811
    run = recorded_run(tmp_path)
    args = ["score", str(run), "--judge", "cascade", "--llm-share", "0.5", "--llm-base-url", fake_openai.base_url,
            "--llm-model", "gpt-4o-mini", "--format", "json", "--workers", "1"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    scores = json.loads(done.stdout)
    rows = [json.loads(x) for x in (run / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    support = [r for r in rows if r["source"] == "auto:cascade"]
    assert support and all(r["judge"] in ("offline", "llm:gpt-4o-mini") for r in support)
    usage = scores["judge_usage"]
    assert scores["judge"] == "cascade" and usage["llm_share"] == 0.5
    # a unit judged twice (its citation, then context support) is sent once, then read from the cache
    assert usage["requests"] == len(fake_openai.requests) >= 1
    assert usage["requests"] + usage["cache_hits"] == usage["sent_to_llm"]
    assert usage["share_sent"] == pytest.approx(usage["sent_to_llm"] / usage["units"])
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert json.loads(again.stdout)["judge_usage"]["cache_hits"] == usage["sent_to_llm"]
    assert len(fake_openai.requests) == usage["requests"]  # nothing sent again


def test_score_cascade_dead_endpoint_exits_3_and_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    assert runner.invoke(app, ["score", str(run)]).exit_code == 0
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    dead = start_fake_llm("openai")
    dead.stop()
    done = runner.invoke(app, ["score", str(run), "--judge", "cascade", "--llm-share", "1", "--llm-base-url",
                               dead.base_url, "--llm-model", "gpt-4o-mini", "--workers", "1"])
    assert done.exit_code == 3 and "failed on all" in done.stderr
    after = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert after == before


def test_report_method_says_how_much_rests_on_llm_verdicts(tmp_path: Path, fake_openai: FakeLLM) -> None:  # noqa: F811
    run = recorded_run(tmp_path)
    done = runner.invoke(app, ["score", str(run), "--judge", "cascade", "--llm-share", "0.5", "--llm-base-url",
                               fake_openai.base_url, "--llm-model", "gpt-4o-mini", "--format", "json"])
    assert done.exit_code == 0, done.output
    usage = json.loads(done.stdout)["judge_usage"]
    out = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(run), "--out", str(out)]).exit_code == 0
    html = out.read_text(encoding="utf-8")
    method = html[html.index('id="method"'):]
    share = round(100 * usage["share_sent"])
    assert f"sent {usage['sent_to_llm']} of {usage['units']} judged units ({share} %) to llm:gpt-4o-mini" in method
    assert "Reliability, ru" in method and "ECE" in method
