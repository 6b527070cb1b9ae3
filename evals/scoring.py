"""`citeval score`: checks, judges and metrics over a saved run; never re-runs the backend.

Writes findings.jsonl, judgments.jsonl (auto rows of the chosen judge replaced, human and
adjudicated rows kept), per_question.jsonl and scores.json into the run folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from pathlib import Path

from ._version import __version__
from .bootstrap import SEED
from .checks import AnswerCheck, check_answer, strip_markers
from .context_support import add_context_support
from .data.jsonl import write_json_atomic, write_jsonl_atomic
from .data.models import Answer, Question
from .data.registry import Registry
from .data.validate import require_valid
from .errors import UsageError
from .joint import joint_units, judge_joint
from .judges import (
    FaithfulnessResult,
    FaithfulnessSample,
    JudgeUnit,
    LlmConfig,
    SupportJudge,
    judge_agreement,
    make_judge,
    ragas_faithfulness_sync,
    support_judgments,
)
from .metrics import AnswerScore, build_scores, pick_labels, score_answer
from .provenance import provenance
from .runfolder import FINDINGS, JUDGE_CACHE, JUDGMENTS, PER_QUESTION, SCORES, RunFolder
from .scores import SCORES_SCHEMA_VERSION, JudgeAgreement, JudgeSummary, JudgeUsage, Scores


@dataclass
class ScoreResult:
    run_dir: Path
    scores: Scores
    checks: list[AnswerCheck]
    per_question: list[AnswerScore]

    def to_text(self) -> str:
        """The metrics table of the run (overall and per risk tier), titled with the run folder."""
        return self.scores.to_text(str(self.run_dir))


def check_run(
    registry: Registry, questions: list[Question], answers: dict[str, Answer], default_asked_at: datetime
) -> list[AnswerCheck]:
    return [
        check_answer(q, answers[q.question_id], registry, q.asked_at or default_asked_at)
        for q in questions
        if q.question_id in answers
    ]


def judge_units(checks: list[AnswerCheck]) -> list[JudgeUnit]:
    """One unit per valid (claim, cited evidence) pair, and one for the union of a claim's valid
    cited evidence when it has two or more (evals.joint; the leave-one-out round needs verdicts:
    judge_joint); invalid markers already count 0 and are not judged."""
    return joint_units(checks)


def faithfulness_samples(checks: list[AnswerCheck]) -> list[tuple[str, FaithfulnessSample]]:
    """Ragas faithfulness of each answered question: its answer against the evidence it was given."""
    samples = []
    for check in checks:
        answer = check.answer
        contexts = [e.text for e in answer.evidence if e.text]
        if answer.status == "answered" and contexts:
            text = strip_markers(answer.answer_text) or " ".join(c.claim.text for c in check.claims)
            samples.append(
                (
                    check.question.question_id,
                    FaithfulnessSample(question=check.question.question, answer=text, contexts=contexts),
                )
            )
    return samples


def score_run(
    run_dir: Path | str,
    *,
    judge: SupportJudge | str | None = "offline",
    llm: LlmConfig | None = None,
    ragas: bool = False,
    faithfulness: Callable[[list[FaithfulnessSample]], list[FaithfulnessResult]] | None = None,
    seed: int = SEED,
) -> ScoreResult:
    """Score a run folder.

    judge: "offline" (default), "llm" (with `llm`), "none"/None, or a SupportJudge; its labels
    replace that judge's earlier auto rows, human and adjudicated rows are kept. LLM verdicts
    are cached in the run (judge_cache.jsonl), so re-scoring costs nothing. ragas: Ragas
    faithfulness through the same LLM endpoint (or pass a `faithfulness` callable).
    """
    run_dir = Path(run_dir)
    run = RunFolder(run_dir)
    require_valid(run.require_dataset())  # the dataset may have changed since the run; nothing written if broken
    if isinstance(judge, str):
        judge = None if judge == "none" else make_judge(judge, llm=llm, cache_path=run_dir / JUDGE_CACHE)
    if ragas and faithfulness is None:
        if llm is None:
            raise UsageError("--ragas needs an LLM endpoint: --llm-model with --llm-base-url or --llm-provider")
        faithfulness = partial(
            ragas_faithfulness_sync, provider=llm.provider, base_url=llm.base_url, model=llm.model,
            api_key_env=llm.api_key_env,
        )
    manifest, registry, questions, answers = run.manifest, run.registry, run.question_list, run.repair_answers()
    checks = check_run(registry, questions, answers, manifest.started_at)
    judgments = run.judgments
    source = f"auto:{judge.name}" if judge is not None else None
    scores = Scores(metrics={})
    if judge is not None:
        # pairs, claims' unions and the leave-one-out sets they call for (DESIGN 6 "Details")
        units, results = judge_joint(judge, checks, prior=pick_labels(judgments, None))
        fresh = support_judgments(manifest.run_id, judge.name, units, results)
        judgments = [j for j in judgments if j.source != source] + fresh
        write_jsonl_atomic(run.file(JUDGMENTS), judgments)
        scores.judge_summary = JudgeSummary(units=len(units), failed=sum(r.error is not None for r in results))
        usage = getattr(judge, "usage", None)
        if usage is not None and hasattr(usage, "to_json"):
            scores.judge_usage = JudgeUsage.model_validate(usage.to_json())
    labels = pick_labels(judgments, source)
    faith: dict[str, float | None] = {}
    if faithfulness is not None:
        samples = faithfulness_samples(checks)
        found = faithfulness([sample for _, sample in samples]) if samples else []
        faith = {qid: r.value for (qid, _), r in zip(samples, found, strict=True)}
        scores.faithfulness_failures = sorted({r.reason for r in found if r.value is None and r.reason})[:20]
    per_question = [score_answer(c, labels, registry, faith.get(c.question.question_id)) for c in checks]
    add_context_support(per_question, checks, registry, judge)  # claims vs all retrieved evidence (issue 19)
    body = build_scores(per_question, seed)
    if any(j.source.startswith(("human:", "adjudicated")) and j.field == "support" for j in judgments):
        scores.judge_agreement = {
            name: JudgeAgreement.model_validate(entry) for name, entry in judge_agreement(judgments).items()
        }
    header = {
        "schema_version": SCORES_SCHEMA_VERSION,
        "run_id": manifest.run_id,
        "label": manifest.label,
        "scored_at": datetime.now(timezone.utc),
        "citeval_version": __version__,
        "judge": judge.name if judge is not None else None,
        "seed": seed,
        "n_unanswered": sum(q.question_id not in answers for q in questions),
    }
    extra = {name: getattr(scores, name) for name in _SECTIONS if getattr(scores, name) is not None}
    scores = body.model_copy(update={**header, **extra, "provenance": provenance(judge=judge, seed=seed)})
    write_jsonl_atomic(run.file(FINDINGS), (f for c in checks for f in c.findings))
    write_jsonl_atomic(run.file(PER_QUESTION), (s.to_json() for s in per_question))
    write_json_atomic(run.file(SCORES), scores.to_json())
    return ScoreResult(run_dir, scores, checks, per_question)


_SECTIONS = ("judge_summary", "judge_usage", "faithfulness_failures", "judge_agreement")


def record_gates_file(run_dir: Path | str, gates_file: Path | str) -> Scores:
    """Add the gates file (path and sha256) that gated this run to its scores.json provenance."""
    run = RunFolder(run_dir)
    scores = run.scores
    record = scores.provenance or provenance()
    gated = provenance(gates_file=gates_file)
    record.gates_file, record.gates_sha256 = gated.gates_file, gated.gates_sha256
    scores.provenance = record
    write_json_atomic(run.file(SCORES), scores.to_json())
    return scores
