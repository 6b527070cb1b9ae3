"""`citeval label pull`: bring the raters' labels back as judgments (DESIGN 5).

From a Label Studio JSON export (fetched from the server or read from a file):
- only submitted annotations are labels: skipped ones (was_cancelled) and drafts are not;
- when a rater annotated a task twice, the later annotation replaces the earlier one;
- a result whose from_name or choice the label config does not produce is reported and
  not used (the server does not validate results submitted through its API);
- control indices are mapped back to claim_id / evidence_id through the task's own data
  (the claims as the rater saw them), rater ids to e-mails: source `human:<email>`;
- judgments.jsonl only grows, and only by labels it does not hold yet: for each unit and
  rater the latest row there is compared with the label, so pulling twice adds nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..data.jsonl import JsonlAppender, read_json
from ..data.models import Judgment, parse_time
from ..errors import DataError
from ..precedence import winners
from ..runfolder import JUDGMENTS, load_manifest, read_judgments
from .client import LabelStudioClient
from .config import COMMENT_FIELD, ReviewConfig, config_path
from .tasks import layout_of

REQUIRED_RATERS = 2


@dataclass
class RaterStats:
    rater: str
    tasks: int = 0
    labels: int = 0
    skipped: int = 0
    missing_tasks: list[str] = field(default_factory=list)  # this run's questions the rater has not done


@dataclass
class PullReport:
    run_id: str
    tasks: int  # tasks of this run in the export
    judgments: list[Judgment]  # every label found (new or not)
    added: int = 0
    raters: dict[str, RaterStats] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    ignored_tasks: int = 0  # tasks of other runs in the project
    drafts: int = 0
    raters_per_task: dict[str, int] = field(default_factory=dict)  # question_id → raters who submitted

    @property
    def short_of_two(self) -> dict[int, int]:
        """{raters so far (0 or 1): tasks} for tasks that do not have two raters yet."""
        counts: Counter[int] = Counter(min(n, REQUIRED_RATERS) for n in self.raters_per_task.values())
        return {n: counts[n] for n in range(REQUIRED_RATERS) if counts[n]}

    def summary(self) -> str:
        lines = [f"run {self.run_id}: {self.tasks} task(s); {len(self.judgments)} label(s), {self.added} new"]
        for stats in sorted(self.raters.values(), key=lambda s: s.rater):
            line = f"  {stats.rater}: {stats.tasks} task(s) done, {stats.labels} label(s)"
            if stats.skipped:
                line += f", {stats.skipped} skipped"
            line += f"; not yet done: {len(stats.missing_tasks)}"
            if stats.missing_tasks:
                line += f" ({', '.join(stats.missing_tasks[:8])}{', …' if len(stats.missing_tasks) > 8 else ''})"
            lines.append(line)
        short = self.short_of_two
        if short:
            need = ", ".join(f"{count} task(s) with {n} rater(s)" for n, count in sorted(short.items()))
            missing = sum((REQUIRED_RATERS - n) * count for n, count in short.items())
            lines.append(f"still missing for two raters per task: {need} — {missing} annotation(s) to go")
        else:
            lines.append("every task has two raters")
        if self.drafts:
            lines.append(f"{self.drafts} draft(s) ignored (a draft is not a label until it is submitted)")
        if self.ignored_tasks:
            lines.append(f"{self.ignored_tasks} task(s) of other runs in the project ignored")
        if self.problems:
            lines.append(f"{len(self.problems)} result(s) not used:")
            lines.extend(f"  {p}" for p in self.problems[:20])
            if len(self.problems) > 20:
                lines.append(f"  … and {len(self.problems) - 20} more")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "tasks": self.tasks,
            "labels": len(self.judgments),
            "added": self.added,
            "raters": {
                s.rater: {"tasks": s.tasks, "labels": s.labels, "skipped": s.skipped, "missing": s.missing_tasks}
                for s in self.raters.values()
            },
            "tasks_short_of_two_raters": {str(k): v for k, v in self.short_of_two.items()},
            "drafts_ignored": self.drafts,
            "problems": self.problems,
        }


def read_export(path: Path | str) -> list[dict[str, Any]]:
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise DataError(path, None, "expected a Label Studio JSON export: a list of tasks")
    return data


def _rater_of(annotation: dict[str, Any], emails: dict[int, str]) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        if who.get("email"):
            return str(who["email"])
        who = who.get("id")
    if isinstance(who, int) and who in emails:
        return emails[who]
    return f"ls-user-{who}"


def _when(annotation: dict[str, Any]) -> datetime:
    for key in ("updated_at", "created_at"):
        value = annotation.get(key)
        if value:
            try:
                parsed = parse_time(value)
                if isinstance(parsed, datetime):
                    return parsed
            except ValueError:
                pass
    return datetime(1970, 1, 1, tzinfo=timezone.utc)


def export_to_judgments(
    export: Iterable[dict[str, Any]],
    run_id: str,
    config: ReviewConfig,
    emails: dict[int, str] | None = None,
) -> PullReport:
    """Judgments from a Label Studio JSON export (pure: no files, no server)."""
    emails = emails or {}
    report = PullReport(run_id=run_id, tasks=0, judgments=[])
    # (question_id) → rater → (when, annotation id, annotation, task data)
    latest: dict[str, dict[str, tuple[datetime, int, dict[str, Any], dict[str, Any]]]] = defaultdict(dict)
    skipped: dict[str, set[str]] = defaultdict(set)
    questions: set[str] = set()
    for task in export:
        data = task.get("data") or {}
        if str(data.get("run_id")) != run_id or "question_id" not in data:
            report.ignored_tasks += 1
            continue
        question_id = str(data["question_id"])
        if question_id not in questions:
            questions.add(question_id)
            report.tasks += 1
        report.drafts += len(task.get("drafts") or [])
        for annotation in task.get("annotations") or []:
            rater = _rater_of(annotation, emails)
            if annotation.get("was_cancelled"):
                skipped[rater].add(question_id)
                continue
            stamp = (_when(annotation), int(annotation.get("id") or 0))
            current = latest[question_id].get(rater)
            if current is None or stamp >= current[:2]:
                latest[question_id][rater] = (*stamp, annotation, data)
    for question_id in sorted(questions):
        report.raters_per_task[question_id] = len(latest.get(question_id, {}))
        for rater, (when, _, annotation, data) in sorted(latest.get(question_id, {}).items()):
            rows = _annotation_judgments(annotation, data, run_id, question_id, rater, when, config, report.problems)
            report.judgments.extend(rows)
            stats = report.raters.setdefault(rater, RaterStats(rater))
            stats.tasks += 1
            stats.labels += len(rows)
    for rater, qids in skipped.items():
        report.raters.setdefault(rater, RaterStats(rater)).skipped = len(
            qids - {q for q in latest if rater in latest[q]}
        )
    for stats in report.raters.values():
        stats.missing_tasks = sorted(q for q in questions if stats.rater not in latest.get(q, {}))
    return report


def _annotation_judgments(
    annotation: dict[str, Any],
    data: dict[str, Any],
    run_id: str,
    question_id: str,
    rater: str,
    when: datetime,
    config: ReviewConfig,
    problems: list[str],
) -> list[Judgment]:
    layout = layout_of(data)
    where = f"{question_id} (task {annotation.get('task', '?')}, annotation {annotation.get('id', '?')}, {rater})"
    labels: dict[tuple[str, str | None, str | None], str] = {}
    comment: str | None = None
    for result in annotation.get("result") or []:
        if not isinstance(result, dict):
            problems.append(f"{where}: a result that is not an object")
            continue
        from_name = str(result.get("from_name"))
        match = config.match(from_name)
        if match is None:
            problems.append(f"{where}: from_name {from_name!r} is not in the label config")
            continue
        control = match.control
        value = result.get("value") or {}
        if control.field == COMMENT_FIELD:
            texts = value.get("text") if isinstance(value, dict) else None
            if isinstance(texts, str):
                texts = [texts]
            if isinstance(texts, list) and all(isinstance(t, str) for t in texts):
                comment = "\n".join(t for t in texts if t.strip()) or None
            else:
                problems.append(f"{where}: {from_name!r} holds no text")
            continue
        choices = value.get("choices") if isinstance(value, dict) else None
        if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], str):
            problems.append(f"{where}: {from_name!r} must hold exactly one choice, got {choices!r}")
            continue
        choice = choices[0]
        if choice not in control.values:
            problems.append(f"{where}: {choice!r} is not a choice of {from_name!r}")
            continue
        claim_id: str | None = None
        evidence_id: str | None = None
        if control.levels >= 1:
            i = match.indices[0]
            if i >= len(layout):
                problems.append(f"{where}: {from_name!r} points at claim {i}, the task has {len(layout)}")
                continue
            claim_id = layout[i][0]
            if control.levels == 2:
                j = match.indices[1]
                if j >= len(layout[i][1]):
                    problems.append(
                        f"{where}: {from_name!r} points at card {j} of claim {claim_id}, which has {len(layout[i][1])}"
                    )
                    continue
                evidence_id = layout[i][1][j]
        labels[(control.field, claim_id, evidence_id)] = choice
    rows = []
    for (field_name, claim_id, evidence_id), value in labels.items():
        rows.append(
            Judgment.model_validate(
                {
                    "run_id": run_id,
                    "question_id": question_id,
                    "claim_id": claim_id,
                    "evidence_id": evidence_id,
                    "source": f"human:{rater}",
                    "field": field_name,
                    "value": value,
                    "comment": comment,
                    "at": when,
                    "annotation_id": annotation.get("id"),  # kept for audit
                }
            )
        )
    return rows


def _unit(j: Judgment) -> tuple[Any, ...]:
    return (j.run_id, j.question_id, j.claim_id, j.evidence_id, j.source, j.field)


def append_new(path: Path, judgments: list[Judgment]) -> int:
    """Append the judgments judgments.jsonl does not hold yet (its latest row per unit and source differs)."""
    latest = winners(read_judgments(path), _unit) if path.exists() else {}
    new = []
    for j in judgments:
        held = latest.get(_unit(j))
        if held is not None and held.value == j.value and (held.comment or None) == (j.comment or None):
            continue
        new.append(j)
    if new:
        with JsonlAppender(path) as out:
            for j in new:
                out.write(j)
    return len(new)


def pull(
    run_dir: Path | str,
    project_title: str | None = None,
    *,
    from_file: Path | str | None = None,
    client: LabelStudioClient | None = None,
    raters: dict[int, str] | None = None,
    lang: str = "ru",
) -> PullReport:
    """Fetch (or read) the export, turn it into judgments, append the new ones to RUN_DIR/judgments.jsonl."""
    run_dir = Path(run_dir)
    manifest = load_manifest(run_dir)
    emails: dict[int, str] = {}
    if from_file is not None:
        export = read_export(from_file)
        config = ReviewConfig.load(config_path(lang))
    else:
        if not project_title:
            raise DataError("--project", None, "give the project title (or --from-file EXPORT.json)")
        client = client or LabelStudioClient.from_env()
        project = client.find_project(project_title)
        if project is None:
            raise DataError("--project", None, f"no Label Studio project is titled {project_title!r}")
        label_config = project.get("label_config") or client.get_project(int(project["id"])).get("label_config")
        config = (
            ReviewConfig(label_config, f"label config of project {project_title!r}")
            if label_config
            else (ReviewConfig.load(config_path(lang)))
        )
        export = client.export(int(project["id"]))
        emails = client.user_emails()
    emails.update(raters or {})
    report = export_to_judgments(export, manifest.run_id, config, emails)
    report.added = append_new(run_dir / JUDGMENTS, report.judgments)
    return report
