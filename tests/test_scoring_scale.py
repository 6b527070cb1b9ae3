"""Scoring production-size logs (issue 22): streamed shards, any number of workers giving the same
bytes, per_question as Parquet read back by the run folder, outputs swapped in together, the
compact columns the run metrics come from, the answer index and the LLM verdict cache."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from factories import write_dataset, write_jsonl
from servers.fixtures import fake_openai  # noqa: F401  (pytest fixture)
from typer.testing import CliRunner

from cli import app
from evals.contract.scores import QuestionScore
from evals.errors import CitevalError, DataError
from evals.run.runner import dataset_ref
from evals.score.columns import MetricColumn
from evals.score.judges.cache import VerdictCache
from evals.score.judges.llm import LlmConfig
from evals.score.metrics import AnswerScore, build_scores
from evals.score.scoring import UNSTABLE_FIELDS, score_run
from evals.score.shard import score_shard
from evals.store.answerindex import AnswerIndex, read_lines
from evals.store.runfolder import RunFolder

runner = CliRunner()
ANSWERED = "Обучение проводится не реже одного раза в 12 месяцев."


def _answer(rng: random.Random, qid: str) -> dict:
    """An answer of one of six shapes: valid, unknown marker, foreign link, uncited, abstained, error."""
    kind = rng.choice(["valid", "valid", "unknown", "link", "uncited", "abstained", "error"])
    if kind == "abstained":
        return {"question_id": qid, "status": "abstained"}
    if kind == "error":
        return {"question_id": qid, "status": "error", "error": {"type": "timeout", "message": "slow"}}
    evidence = [{"evidence_id": "E1", "chunk_id": "a1-1", "text": ANSWERED}]
    marker = {"valid": "[E1]", "link": "[E1]", "unknown": "[E7]", "uncited": ""}[kind]
    answer = {"question_id": qid, "status": "answered", "answer_text": f"{ANSWERED} {marker}".strip(),
              "evidence": evidence}
    if kind == "link":
        answer["links"] = [{"evidence_id": "E1", "url": "https://elsewhere.example/x"}]
    if rng.random() < 0.3:
        answer["usage"] = {"cost_usd": round(rng.random() / 1000, 6)}
    return answer


def big_run(root: Path, n: int, seed: int = 5) -> Path:
    """A run folder of n answers to n questions (tiers, tags and gold should_abstain varied),
    written directly, as a production log would be replayed."""
    rng = random.Random(seed)
    ds = write_dataset(root / "ds")
    questions = [
        {"question_id": f"q{i:05d}", "question": "Как часто проходить обучение?", "asked_at": "2024-05-01",
         "risk_tier": rng.choice(["critical", "policy", "reference"]),
         "tags": rng.sample(["numeric", "version_trap", "single_fact"], rng.randint(0, 2)),
         **({"gold": {"should_abstain": rng.random() < 0.3}} if rng.random() < 0.5 else {})}
        for i in range(n)
    ]
    write_jsonl(ds / "questions.jsonl", questions)
    run = root / "run"
    write_jsonl(run / "answers.jsonl", [_answer(rng, q["question_id"]) for q in reversed(questions)])
    manifest = {"schema_version": 1, "run_id": "big", "started_at": "2024-05-01T00:00:00+00:00",
                "dataset": dataset_ref(ds).model_dump(), "backend": "replay", "citeval_version": "test"}
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def _stable(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in doc.items() if k not in UNSTABLE_FIELDS}


def _copy(run: Path, to: Path) -> Path:
    to.mkdir()
    for name in ("answers.jsonl", "manifest.json"):
        (to / name).write_bytes((run / name).read_bytes())
    return to


def test_two_workers_write_the_same_bytes_as_one(tmp_path: Path) -> None:
    run = big_run(tmp_path, 2000)
    other = _copy(run, tmp_path / "other")
    one = score_run(run, judge="none", workers=1)
    two = score_run(other, judge="none", workers=2, shard_size=250)  # 8 shards over 2 processes
    assert (one.workers, two.workers) == (1, 2)
    for name in ("per_question.jsonl", "findings.jsonl"):
        assert (run / name).read_bytes() == (other / name).read_bytes(), name
    text_one = (run / "scores.json").read_text(encoding="utf-8")
    text_two = (other / "scores.json").read_text(encoding="utf-8")
    # the only line that differs is the one field documented as unstable
    assert [a for a, b in zip(text_one.splitlines(), text_two.splitlines(), strict=True) if a != b] == [
        next(line for line in text_one.splitlines() if '"scored_at"' in line)
    ]
    # an independent count from the rows themselves: the mean of citation_validity over the
    # answers that have markers, and the questions of each tier
    rows = [json.loads(line) for line in (run / "per_question.jsonl").read_text().splitlines()]
    assert len(rows) == one.scores.n_questions == two.scores.n_questions == 2000
    values = [r["citation_validity"] for r in rows if r["citation_validity"] is not None]
    assert one.scores.metrics["citation_validity"].value == round(sum(values) / len(values), 6)
    assert one.scores.metrics["citation_validity"].n == len(values)
    for tier in ("critical", "policy", "reference"):
        assert one.scores.by_tier[tier].n == sum(r["risk_tier"] == tier for r in rows)
    # rows come out in question order, whatever order answers.jsonl holds them in
    assert [r["question_id"] for r in rows] == sorted(r["question_id"] for r in rows)


def test_the_offline_judge_gives_the_same_labels_in_any_number_of_workers(tmp_path: Path) -> None:
    run = big_run(tmp_path, 300, seed=9)
    other = _copy(run, tmp_path / "other")
    score_run(run, judge="offline", workers=1)
    score_run(other, judge="offline", workers=2, shard_size=40)
    assert _stable(run / "scores.json") == _stable(other / "scores.json")

    def labels(folder: Path) -> list[dict]:
        rows = [json.loads(line) for line in (folder / "judgments.jsonl").read_text().splitlines()]
        return [{k: v for k, v in row.items() if k != "at"} for row in rows]

    assert labels(run) == labels(other) and labels(run)
    assert len({json.loads(line)["at"] for line in (other / "judgments.jsonl").read_text().splitlines()}) == 1
    # a rater labels the pairs of the first few judged questions only: most shards hold no human
    # label, yet the prediction-powered estimate and judge agreement come out the same
    rows = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
    first = sorted({r["question_id"] for r in rows})[:12]
    human = [{**r, "source": "human:rater@example.org", "value": "unsupported" if i % 3 else "supported",
              "at": "2026-01-01T00:00:00Z"} for i, r in enumerate(rows) if r["question_id"] in first]
    for folder in (run, other):
        with open(folder / "judgments.jsonl", "a", encoding="utf-8") as out:
            out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in human)
    rated_one = score_run(run, judge="offline", workers=1).scores
    score_run(other, judge="offline", workers=2, shard_size=40)
    assert _stable(run / "scores.json") == _stable(other / "scores.json")
    assert rated_one.ppi is not None and rated_one.ppi["citation_correctness"].n_labelled == 12
    assert rated_one.judge_agreement is not None and rated_one.judge_agreement["auto:offline"].n > 0


def test_per_question_parquet_is_read_back_as_the_jsonl_rows(tmp_path: Path) -> None:
    run = big_run(tmp_path, 400)
    score_run(run, judge="offline", parquet=True, shard_size=150)
    assert (run / "per_question.parquet").exists()
    folder = RunFolder(run)
    from_parquet = list(folder.iter_per_question())
    from_jsonl = [QuestionScore.model_validate(json.loads(line))
                  for line in (run / "per_question.jsonl").read_text().splitlines()]
    assert from_parquet == from_jsonl
    assert [r.to_json() for r in from_parquet] == [r.to_json() for r in from_jsonl]
    # the gate reads the rows through the run folder: the same verdict from either file
    gated = runner.invoke(app, ["gate", str(run), "--format", "json"])
    (run / "per_question.parquet").rename(tmp_path / "aside.parquet")
    gated_jsonl = runner.invoke(app, ["gate", str(run), "--format", "json"])
    assert gated.exit_code == gated_jsonl.exit_code and gated.stdout == gated_jsonl.stdout
    # scoring again without Parquet leaves no stale per_question.parquet behind
    (tmp_path / "aside.parquet").rename(run / "per_question.parquet")
    score_run(run, judge="none", parquet=False)
    assert not (run / "per_question.parquet").exists()


def test_a_failed_scoring_leaves_the_previous_outputs_untouched(tmp_path: Path) -> None:
    run = big_run(tmp_path, 50)
    score_run(run, judge="offline")
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    with open(run / "answers.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"question_id": "q00007", "status": "perhaps"}\n')
    with pytest.raises(DataError) as caught:
        score_run(run, judge="offline", workers=2, shard_size=10)
    assert caught.value.line == 51 and caught.value.path.endswith("answers.jsonl")
    after = {p.name: p.read_bytes() for p in run.iterdir() if p.name != "answers.jsonl"}
    assert after == {k: v for k, v in before.items() if k != "answers.jsonl"}  # no staging folder either


def test_an_answer_to_no_question_is_still_checked(tmp_path: Path) -> None:
    run = big_run(tmp_path, 20)
    with open(run / "answers.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"question_id": "elsewhere", "status": "perhaps"}\n')
    with pytest.raises(DataError) as caught:
        score_run(run, judge="none")
    assert caught.value.line == 21


def test_a_repeated_question_id_names_its_line(tmp_path: Path) -> None:
    run = big_run(tmp_path, 30)
    questions = RunFolder(run).dataset_path / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines(keepends=True)
    questions.write_text("".join(lines[:20] + [lines[3]] + lines[20:]), encoding="utf-8")
    # the run's manifest records the questions' hash: rebuild it so only the duplicate is wrong
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["dataset"] = dataset_ref(questions.parent).model_dump()
    (run / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CitevalError) as caught:  # the dataset check or the streamed one, whichever is first
        score_run(run, judge="none", shard_size=7)
    assert "questions.jsonl:21" in str(caught.value) and "duplicate question_id 'q00003'" in str(caught.value)
    assert not list(run.glob(".citeval-staging-*"))


def test_run_columns_aggregate_as_worked_out_by_hand() -> None:
    def answer(qid: str, tier: str, tags: list[str], validity: float | None, **extra: object) -> AnswerScore:
        s = AnswerScore(question_id=qid, risk_tier=tier, tags=tags, status="answered" if validity is not None
                        else "abstained")
        s.values = {"citation_validity": validity, "error_rate": 0.0, **extra}  # type: ignore[dict-item]
        s.findings = ["QUOTE_NOT_FOUND"] if validity == 0.5 else []
        s.cost_usd = 0.25 if qid == "a" else None
        s.accepted = validity == 1.0
        return s

    scores = build_scores([
        answer("a", "critical", ["numeric", "numeric"], 1.0, claim_recall=0.5),
        answer("b", "policy", ["numeric"], 0.5),
        answer("c", "critical", [], None),
    ])
    assert scores.metrics["citation_validity"].value == 0.75 and scores.metrics["citation_validity"].n == 2
    assert scores.metrics["error_rate"].value == 0.0 and scores.metrics["error_rate"].n == 3
    # a metric only some answers carry flows through after DESIGN 6's, over the answers that have it
    assert list(scores.metrics)[-4] == "claim_recall" and scores.metrics["claim_recall"].n == 1
    assert scores.by_tag["numeric"].n == 2  # a tag listed twice counts its question once
    assert scores.by_tier["critical"].n == 2 and scores.by_tier["critical"]["citation_validity"].value == 1.0
    assert scores.findings == {"QUOTE_NOT_FOUND": 1}
    assert scores.findings_by_tier == {"critical": {}, "policy": {"QUOTE_NOT_FOUND": 1}}
    assert scores.cost.total_usd == 0.25 and scores.cost.accepted_answers == 1
    assert scores.cost.per_accepted_answer_usd == 0.25



def _as_list(column: MetricColumn) -> list[float | None]:
    return [None if math.isnan(v) else float(v) for v in column.array().tolist()]


def test_a_metric_column_gives_back_exactly_the_values_it_was_given() -> None:
    """Codes into a table of distinct values, across shards with tables of their own, and the
    switch to plain float64 when the distinct values outgrow 2-byte codes: the values read back
    are the very floats appended (compared with a plain list kept beside the column)."""
    rng = random.Random(3)
    expected: list[float | None] = []
    whole = MetricColumn()
    for _shard in range(4):
        part = MetricColumn(rows=2)  # two leading rows with no value
        expected += [None, None]
        for _ in range(500):
            value = rng.choice([None, 0.0, 1.0, 1 / 3, 2 / 3, rng.randint(0, 7) / 7])
            part.append(value)
            expected.append(value)
        part.pad(3)
        expected += [None, None, None]
        whole.extend(part)
        assert len(whole) == len(expected)
    assert _as_list(whole) == expected
    assert whole.nbytes < 3 * len(expected)  # 2 bytes a row and a small table

    many = MetricColumn()
    distinct = [k / 70_001 for k in range(70_001)]  # more distinct values than 2-byte codes hold
    for value in distinct[:40_000]:
        many.append(value)
    tail = MetricColumn()
    for value in distinct[40_000:]:
        tail.append(value)
    many.extend(tail)  # the merged table would overflow: the column turns into plain float64
    many.append(None)
    assert _as_list(many) == [*distinct, None]
    assert many.nbytes == 8 * (len(distinct) + 1)

def test_the_shard_function_scores_plain_answers_against_a_dataset_path(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    answers = [
        {"question_id": "q1", "status": "answered", "answer_text": f"{ANSWERED} [E1]",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1", "text": ANSWERED}]},
        json.dumps({"question_id": "q3", "status": "abstained"}),
        {"question_id": "unknown", "status": "abstained"},  # no such question: left out
    ]
    result = score_shard(answers, ds, judge="offline", run_id="r")
    rows = [json.loads(line) for line in result.per_question.splitlines()]
    assert [r["question_id"] for r in rows] == ["q1", "q3"]
    assert rows[0]["citation_validity"] == 1.0 and rows[0]["citation_correctness"] == 1.0
    assert rows[1]["abstained"] is True and result.columns.n == 2
    assert [json.loads(line)["source"] for line in result.judgments.splitlines()] == ["auto:offline"]


class _Colliding(AnswerIndex):
    """Every question_id hashes alike: the index must still find each answer by its id."""

    @staticmethod
    def _key(question_id: str) -> int:
        return 7


def test_answer_index_takes_the_last_line_and_survives_hash_collisions(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"question_id": "a", "status": "error"}\n'
        "\n"
        '{"status": "answered", "question_id": "b"}\n'
        '{"question_id": "a", "status": "abstained"}\n'
        '{"question_id": "c", "status": "ans',  # torn by a kill: left out
        encoding="utf-8",
    )
    for index in (AnswerIndex(path), _Colliding(path)):
        assert len(index) == 2
        found = index.locate(["a", "b", "c"])
        assert found[2] is None
        lines = [line for _, line in read_lines(path, [f for f in found if f is not None])]
        assert [json.loads(line)["status"] for line in lines] == ["abstained", "answered"]
        assert [f[2] for f in found if f is not None] == [4, 3]  # line numbers
        assert [f[2] for f in index.unused()] == [1]  # the replaced line, still to be checked


def test_verdict_cache_reads_single_lines_and_the_later_one_wins(tmp_path: Path) -> None:
    path = tmp_path / "judge_cache.jsonl"
    path.write_text(
        json.dumps({"key": "k1", "value": "supported"}) + "\n"
        + json.dumps({"key": "k2", "value": "partial"}) + "\n"
        + json.dumps({"value": "unsupported", "key": "k1"}) + "\n"  # not in the writer's key order
        + '{"key": "k3", "val',  # a line cut short by a kill
        encoding="utf-8",
    )
    cache = VerdictCache(path)
    assert cache.get("k1") == {"value": "unsupported", "key": "k1"}
    assert cache.get("k2") == {"key": "k2", "value": "partial"} and cache.get("k3") is None
    cache.put("k4", {"value": "supported"})
    assert cache.get("k4") == {"key": "k4", "value": "supported"}
    # the append started on a line of its own, after the torn one
    assert VerdictCache(path).get("k4") == {"key": "k4", "value": "supported"}
    fresh = tmp_path / "fresh.jsonl"
    writer = VerdictCache(fresh)
    writer.put("k5", {"value": "partial"})
    assert VerdictCache(fresh).get("k5") == {"key": "k5", "value": "partial"} and len(VerdictCache(fresh)) == 1


def test_a_judge_that_failed_on_every_unit_is_named_in_the_support_metrics(
    tmp_path: Path, fake_openai  # noqa: F811
) -> None:
    run = big_run(tmp_path, 60)
    fake_openai.fail_next("400", 10_000)
    llm = LlmConfig(model="gpt-4o-mini", base_url=fake_openai.base_url, backoff_s=0.01, max_retries=0)
    scores = score_run(run, judge="llm", llm=llm).scores
    assert scores.judge_summary is not None and scores.judge_summary.failed == scores.judge_summary.units > 0
    reason = scores.metrics["citation_correctness"].reason or ""
    assert reason.startswith("the LLM judge failed on every unit: HTTP 400")
    # an answer's invalid marker still counts 0 without a judge: the value stays, the reason says why
    assert scores.metrics["citation_correctness"].value == 0.0
    assert reason.endswith("(the value counts only invalid markers, and labels given by people)")
    sections = [scores.metrics, *(b.metrics for b in (*scores.by_tier.values(), *scores.by_tag.values()))]
    for section in sections:
        for name in ("citation_correctness", "citation_completeness"):
            assert (section[name].reason or "").startswith("the LLM judge failed on every unit: HTTP 400"), name


def test_score_cli_takes_workers_and_parquet(tmp_path: Path) -> None:
    run = big_run(tmp_path, 30)
    done = runner.invoke(app, ["score", str(run), "--judge", "none", "--workers", "2", "--parquet",
                               "--format", "json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_questions"] == 30 and (run / "per_question.parquet").exists()
    bad = runner.invoke(app, ["score", str(run), "--workers", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
