"""`citeval label pull`: bring the raters' labels back as judgments (DESIGN 5).

From a Label Studio JSON export (fetched from the server or read from a file):
- only submitted annotations are labels: skipped ones (was_cancelled) and drafts are not;
- an annotation marked `ground_truth: true` (Label Studio's star, set by whoever settles a
  task) is not a rater's label but the settled one: its results become source `adjudicated`
  (the latest such annotation of a task wins), its author kept as `adjudicated_by`;
- each label keeps its annotation's `lead_time` (seconds the rater spent on the task), the
  raters' cost that `citeval agree` reports per rater;
- when a rater annotated a task twice, the later annotation replaces the earlier one;
- a result whose from_name or choice the label config does not produce is reported and
  not used (the server does not validate results submitted through its API);
- control indices are mapped back to claim_id / evidence_id through the task's own data
  (the claims as the rater saw them), rater ids to e-mails: source `human:<email>`;
- judgments.jsonl only grows, and only by labels it does not hold yet: for each unit and
  rater the latest row there is compared with the label, so pulling twice adds nothing;
- exports as they really come (evals.label.export): JSON_MIN and CSV exports are refused by
  name; tasks the push recorded but the export leaves out count as missing; a rater keeps one
  name across pulls (`label_raters.json`, and each row's annotation_id), so a pull that would
  file an annotation under a second name is refused; an annotation without an author is refused
  unless named or `--anonymous-raters`; an annotation that only accepts a pre-annotation
  unchanged is reported and, unless `count_predictions`, not a label.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.contract.models import Judgment, parse_time
from evals.contract.precedence import ADJUDICATED, winners
from evals.errors import DataError, UsageError
from evals.label.client import LabelStudioClient
from evals.label.config import COMMENT_FIELD, ReviewConfig, config_path
from evals.label.export import ANONYMOUS_PREFIX, RaterMap, accepted_prediction, pushed_question_ids, read_full_export
from evals.label.tasks import layout_of
from evals.store.jsonl import JsonlAppender
from evals.store.runfolder import JUDGMENTS, load_manifest, read_judgments

REQUIRED_RATERS = 2


@dataclass
class RaterStats:
    rater: str
    tasks: int = 0
    labels: int = 0
    skipped: int = 0
    seconds: float = 0.0  # lead_time of the latest submitted annotations
    skipped_seconds: float = 0.0  # lead_time spent on the tasks this rater skipped
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
    not_in_export: list[str] = field(default_factory=list)  # pushed tasks the export leaves out
    predictions_accepted: list[str] = field(default_factory=list)  # annotations that only accept a prediction
    predictions_counted: bool = False
    anonymous_annotations: int = 0  # annotations without an author (completed_by null)
    anonymous_kept_apart: bool = False
    adjudicated: dict[str, str] = field(default_factory=dict)  # question_id → who marked its ground truth

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
            if stats.seconds or stats.skipped_seconds:
                line += f", {stats.seconds + stats.skipped_seconds:.0f} s spent"
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
        if self.adjudicated:
            shown = ", ".join(f"{q} ({who})" for q, who in sorted(self.adjudicated.items())[:8])
            lines.append(
                f"{len(self.adjudicated)} task(s) with a ground-truth annotation, pulled as adjudicated: {shown}"
            )
        if self.not_in_export:
            shown = ", ".join(self.not_in_export[:8]) + (", …" if len(self.not_in_export) > 8 else "")
            lines.append(
                f"{len(self.not_in_export)} task(s) pushed but not in the export (nobody annotated them; counted as "
                f"missing): {shown}"
            )
        if self.predictions_accepted:
            shown = "; ".join(self.predictions_accepted[:5]) + ("; …" if len(self.predictions_accepted) > 5 else "")
            how = (
                "counted as labels (--count-predictions)"
                if self.predictions_counted
                else "not counted as labels (--count-predictions to count them)"
            )
            lines.append(
                f"{len(self.predictions_accepted)} annotation(s) accepted a pre-annotation unchanged, {how}: {shown}"
            )
        if self.anonymous_annotations:
            if self.anonymous_kept_apart:
                lines.append(
                    f"{self.anonymous_annotations} annotation(s) without an author (completed_by null): raters kept "
                    f"apart by annotation id ({ANONYMOUS_PREFIX}<id>), so a rater's re-annotation counts as another "
                    "rater and Cohen's kappa needs named raters (--rater annotation:ID=EMAIL)"
                )
            else:
                lines.append(
                    f"{self.anonymous_annotations} annotation(s) without an author, named by --rater annotation:ID"
                )
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
                s.rater: {
                    "tasks": s.tasks, "labels": s.labels, "skipped": s.skipped, "missing": s.missing_tasks,
                    "seconds": s.seconds, "skipped_seconds": s.skipped_seconds,
                }
                for s in self.raters.values()
            },
            "tasks_short_of_two_raters": {str(k): v for k, v in self.short_of_two.items()},
            "drafts_ignored": self.drafts,
            "problems": self.problems,
            "not_in_export": self.not_in_export,
            "predictions_accepted": self.predictions_accepted,
            "predictions_counted": self.predictions_counted,
            "anonymous_annotations": self.anonymous_annotations,
            "adjudicated": self.adjudicated,
        }


def read_export(path: Path | str) -> list[dict[str, Any]]:
    """A full Label Studio JSON export; JSON_MIN and CSV exports are refused, naming the right one."""
    path = Path(path)
    data = read_full_export(path)
    for index, task in enumerate(data):
        _check_task_shape(path, index, task)
    return data


def _check_task_shape(path: Path, index: int, task: dict[str, Any]) -> None:
    """The parts of an exported task that pulling reads must have their export types."""
    where = f"task[{index}]"

    def refuse(field: str, expected: str) -> None:
        raise DataError(path, None, f"must be {expected} (task id {task.get('id')!r})", field=f"{where}.{field}")

    if task.get("data") is not None and not isinstance(task["data"], dict):
        refuse("data", "an object")
    for key in ("annotations", "drafts"):
        items = task.get(key)
        if items is None:
            continue
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            refuse(key, "a list of objects")
        for a_index, annotation in enumerate(items):
            results = annotation.get("result")
            if results is not None and (not isinstance(results, list)
                                        or not all(isinstance(r, dict) for r in results)):
                refuse(f"{key}[{a_index}].result", "a list of objects")


def _has_author(annotation: dict[str, Any]) -> bool:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        return bool(who.get("email") or who.get("id") is not None)
    return who is not None and not isinstance(who, bool)


def annotation_time(annotation: dict[str, Any]) -> datetime:
    """When an annotation was last saved (updated_at, else created_at); the epoch when neither parses,
    so an undated annotation never wins over a dated one."""
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
    *,
    raters: RaterMap | None = None,
    pushed: Sequence[str] | None = None,
    count_predictions: bool = False,
) -> PullReport:
    """Judgments from a Label Studio JSON export (pure: no files, no server).

    emails / raters: who the Label Studio users are (evals.label.export.RaterMap); pushed: the
    question ids the push recorded, so tasks the export leaves out count as missing;
    count_predictions: count annotations that only accept a pre-annotation as labels."""
    raters = raters or RaterMap()
    for user_id, email in (emails or {}).items():
        raters.assign("user", user_id, email, f"the rater map ({user_id}={email})")
    report = PullReport(run_id=run_id, tasks=0, judgments=[], predictions_counted=count_predictions)
    report.anonymous_kept_apart = raters.anonymous
    found = _Annotations()
    for task in export:
        data = task.get("data") or {}
        if str(data.get("run_id")) != run_id or "question_id" not in data:
            report.ignored_tasks += 1
            continue
        question_id = str(data["question_id"])
        if question_id not in found.questions:
            found.questions.add(question_id)
            report.tasks += 1
        report.drafts += len(task.get("drafts") or [])
        for annotation in task.get("annotations") or []:
            if isinstance(annotation, dict):
                found.take(annotation, task, question_id, raters, count_predictions, report)
    found.refuse_unnamed()
    for question_id in pushed or []:
        if question_id not in found.questions:
            found.questions.add(question_id)
            report.tasks += 1
            report.not_in_export.append(question_id)
    _add_judgments(found, run_id, config, report)
    return report


@dataclass
class _Annotations:
    """What a pass over the export keeps: the questions of the run's tasks, per question each
    rater's latest submitted annotation, the questions each rater skipped, and the annotations
    no rater could be named for."""

    questions: set[str] = field(default_factory=set)
    # question_id → rater → (when, annotation id, annotation, task data)
    latest: dict[str, dict[str, tuple[datetime, int, dict[str, Any], dict[str, Any]]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    skipped: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    skipped_seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # question_id → (when, annotation id, annotation, task data, who marked it) of its latest ground truth
    truth: dict[str, tuple[datetime, int, dict[str, Any], dict[str, Any], str]] = field(default_factory=dict)
    unnamed: list[str] = field(default_factory=list)

    def take(self, annotation: dict[str, Any], task: dict[str, Any], question_id: str, raters: RaterMap,
             count_predictions: bool, report: PullReport) -> None:
        """One annotation of a task: kept when it is its rater's latest submitted label of the question."""
        anonymous = not _has_author(annotation)
        report.anonymous_annotations += anonymous
        rater = raters.rater_of(annotation)
        if rater is None:
            self.unnamed.append(f"{question_id} (annotation {annotation.get('id', '?')})")
            return
        if annotation.get("was_cancelled"):
            self.skipped[rater].add(question_id)
            self.skipped_seconds[rater] += lead_time(annotation) or 0.0
            return
        if annotation.get("ground_truth") is True:
            when = (annotation_time(annotation), int(annotation.get("id") or 0))
            held = self.truth.get(question_id)
            if held is None or when >= held[:2]:
                self.truth[question_id] = (*when, annotation, task.get("data") or {}, rater)
            return
        if accepted_prediction(annotation, task):
            report.predictions_accepted.append(f"{question_id} (annotation {annotation.get('id', '?')}, {rater})")
            if not count_predictions:
                return
        stamp = (annotation_time(annotation), int(annotation.get("id") or 0))
        current = self.latest[question_id].get(rater)
        if current is None or stamp >= current[:2]:
            self.latest[question_id][rater] = (*stamp, annotation, task.get("data") or {})

    def refuse_unnamed(self) -> None:
        unnamed = self.unnamed
        if unnamed:
            raise UsageError(
                f"{len(unnamed)} annotation(s) of the export have no author (completed_by is null: an anonymised "
                f"export), e.g. {', '.join(unnamed[:3])}; merging them would make all raters one. Name them with "
                "--rater annotation:ID=EMAIL, or pass --anonymous-raters to keep each annotation a rater of its own"
            )


def _add_judgments(found: _Annotations, run_id: str, config: ReviewConfig, report: PullReport) -> None:
    """The judgments of every latest annotation, in question and rater order, and each rater's counts."""
    latest, questions = found.latest, found.questions
    for question_id in sorted(questions):
        report.raters_per_task[question_id] = len(latest.get(question_id, {}))
        for rater, (when, _, annotation, data) in sorted(latest.get(question_id, {}).items()):
            rows = _annotation_judgments(annotation, data, run_id, question_id, rater, when, config, report.problems)
            report.judgments.extend(rows)
            stats = report.raters.setdefault(rater, RaterStats(rater))
            stats.tasks += 1
            stats.labels += len(rows)
            stats.seconds = round(stats.seconds + (lead_time(annotation) or 0.0), 3)
    for question_id, (when, _, annotation, data, rater) in sorted(found.truth.items()):
        rows = _annotation_judgments(
            annotation, data, run_id, question_id, rater, when, config, report.problems, adjudicated=True
        )
        report.judgments.extend(rows)
        report.adjudicated[question_id] = rater
    for rater, qids in found.skipped.items():
        stats = report.raters.setdefault(rater, RaterStats(rater))
        stats.skipped = len(qids - {q for q in latest if rater in latest[q]})
        stats.skipped_seconds = round(found.skipped_seconds[rater], 3)
    for stats in report.raters.values():
        stats.missing_tasks = sorted(q for q in questions if stats.rater not in latest.get(q, {}))


def _annotation_judgments(
    annotation: dict[str, Any],
    data: dict[str, Any],
    run_id: str,
    question_id: str,
    rater: str,
    when: datetime,
    config: ReviewConfig,
    problems: list[str],
    *,
    adjudicated: bool = False,
) -> list[Judgment]:
    """The labels of one annotation: `human:<rater>`, or `adjudicated` for a ground-truth annotation."""
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
    return _rows(labels, comment, annotation, run_id, question_id, rater, when, adjudicated)


def _rows(
    labels: dict[tuple[str, str | None, str | None], str],
    comment: str | None,
    annotation: dict[str, Any],
    run_id: str,
    question_id: str,
    rater: str,
    when: datetime,
    adjudicated: bool,
) -> list[Judgment]:
    rows = []
    extra: dict[str, Any] = {"annotation_id": annotation.get("id")}  # kept for audit
    seconds = lead_time(annotation)
    if seconds is not None:
        extra["lead_time"] = seconds  # the rater's time on the whole task, on each of its labels
    if adjudicated:
        extra["adjudicated_by"] = rater
    for (field_name, claim_id, evidence_id), value in labels.items():
        rows.append(
            Judgment.model_validate(
                {
                    "run_id": run_id,
                    "question_id": question_id,
                    "claim_id": claim_id,
                    "evidence_id": evidence_id,
                    "source": ADJUDICATED if adjudicated else f"human:{rater}",
                    "field": field_name,
                    "value": value,
                    "comment": comment,
                    "at": when,
                    **extra,
                }
            )
        )
    return rows


def lead_time(annotation: dict[str, Any]) -> float | None:
    """Seconds the rater spent on the task (Label Studio's `lead_time`), None when absent or not a
    finite non-negative number."""
    value = annotation.get("lead_time")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    seconds = float(value)
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return None
    return round(seconds, 3)


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


def refuse_second_names(path: Path, judgments: Iterable[Judgment]) -> None:
    """A label from an annotation judgments.jsonl already files under another rater is refused:
    the same person would become two raters (their rows carry the Label Studio annotation id)."""
    if not path.exists():
        return
    held: dict[Any, str] = {}
    for row in read_judgments(path):
        annotation_id = (row.model_extra or {}).get("annotation_id")
        if annotation_id is not None and row.source.startswith("human:"):
            held.setdefault(annotation_id, row.source)
    clashes = []
    for j in judgments:
        annotation_id = (j.model_extra or {}).get("annotation_id")
        before = held.get(annotation_id)
        if annotation_id is not None and before is not None and before != j.source:
            clashes.append((annotation_id, j.question_id, before, j.source))
    if clashes:
        annotation_id, question_id, before, now = clashes[0]
        count = len({c[0] for c in clashes})
        raise UsageError(
            f"annotation {annotation_id} ({question_id}) was pulled before as {before!r} and would now be {now!r}: one "
            f"person cannot become two raters ({count} annotation(s) affected). Pull with the names used before "
            f"(--rater ID={before.split(':', 1)[1]}), or delete the {before} rows from {path} first to rename"
        )


def pull(
    run_dir: Path | str,
    project_title: str | None = None,
    *,
    from_file: Path | str | None = None,
    client: LabelStudioClient | None = None,
    raters: dict[int, str] | None = None,
    lang: str = "ru",
    rater_flags: Mapping[str, str] | None = None,
    anonymous_raters: bool = False,
    count_predictions: bool = False,
) -> PullReport:
    """Fetch (or read) the export, turn it into judgments, append the new ones to RUN_DIR/judgments.jsonl.

    raters / rater_flags: who the Label Studio users are ({7: email}, or {"7": email,
    "annotation:105": email}); what a user id became is kept in RUN_DIR/label_raters.json and holds
    for later pulls. anonymous_raters: an annotation without an author is a rater of its own."""
    run_dir = Path(run_dir)
    manifest = load_manifest(run_dir)
    rater_map = RaterMap.load(run_dir)
    rater_map.anonymous = anonymous_raters
    rater_map.merge_flags(rater_flags or {})
    for user_id, email in (raters or {}).items():
        rater_map.assign("user", user_id, email, f"--rater {user_id}={email}")
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
        rater_map.known = client.user_emails()
    report = export_to_judgments(
        export,
        manifest.run_id,
        config,
        raters=rater_map,
        pushed=pushed_question_ids(run_dir),
        count_predictions=count_predictions,
    )
    refuse_second_names(run_dir / JUDGMENTS, report.judgments)
    rater_map.save(run_dir)  # first: names recorded without their labels are harmless, labels without names are not
    report.added = append_new(run_dir / JUDGMENTS, report.judgments)
    return report
