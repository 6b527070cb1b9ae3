"""`citeval label push`: put a run's answers in front of the raters in Label Studio.

Idempotent and resumable: tasks are keyed by (run_id, question_id); a push lists what the
project already holds, imports only the missing tasks (in bulk, a request per batch) and
updates changed ones in place, so their annotations stay. A push that dies half-way (the
server stopped) is simply run again: batches the server committed are recognised and not
imported twice. No import request is ever retried blindly. Each push (and `--to-file`) records
in the run folder which tasks it put in front of the raters (label_tasks.json), so `label pull`
counts a task the export leaves out as missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evals.errors import BackendError
from evals.label.client import LabelStudioClient
from evals.label.config import ReviewConfig, config_path
from evals.label.export import record_pushed
from evals.label.tasks import TaskBuilder, layout_of, task_key
from evals.store.jsonl import write_json_atomic
from evals.store.runfolder import ANSWERS, RunFolder

DEFAULT_BATCH = 250


@dataclass
class PushResult:
    project_id: int
    project_title: str
    project_created: bool
    tasks: int  # tasks this run has
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    kept: list[str] = field(default_factory=list)  # changed, annotated, claim layout differs: left as they were
    duplicates: list[str] = field(default_factory=list)  # keys the project holds more than once
    predictions_added: int = 0
    predictions_replaced: int = 0
    requests: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        head = f"project {self.project_title!r} (id {self.project_id}{', created' if self.project_created else ''}): "
        text = (
            f"{head}{self.tasks} task(s) in this run; imported {self.imported}, updated {self.updated}, "
            f"unchanged {self.unchanged}"
        )
        if self.predictions_added or self.predictions_replaced:
            text += f"; predictions added {self.predictions_added}, replaced {self.predictions_replaced}"
        text += f" ({self.requests} import request(s), {self.seconds:.1f} s)"
        if self.kept:
            text += (
                f"\n{len(self.kept)} task(s) changed their claims but already have annotations, so they were left as "
                f"they are (push the run to a new project to re-label them): {', '.join(self.kept[:10])}"
            )
        if self.duplicates:
            text += f"\nthe project holds these tasks more than once: {', '.join(self.duplicates[:10])}"
        return text


def write_tasks_file(run_dir: Path | str, out: Path | str, *, predictions: bool = False, lang: str = "ru") -> int:
    """Label Studio import JSON for the run (for a server citeval cannot reach)."""
    run = RunFolder(run_dir).require(ANSWERS)
    tasks = TaskBuilder(run, lang).tasks(predictions=predictions, config=ReviewConfig.load(config_path(lang)))
    write_json_atomic(Path(out), tasks)
    record_pushed(run_dir, tasks, f"file {out}")
    return len(tasks)


def push(
    run_dir: Path | str,
    project_title: str,
    *,
    predictions: bool = False,
    lang: str = "ru",
    client: LabelStudioClient | None = None,
    batch_size: int = DEFAULT_BATCH,
    on_batch: Callable[[int, int], None] | None = None,
) -> PushResult:
    """Create or find the project and bring its tasks up to date with the run.

    `on_batch(done, total)` is called after each committed import request.
    """
    started = time.monotonic()
    run = RunFolder(run_dir).require(ANSWERS)
    path = config_path(lang)
    config = ReviewConfig.load(path)
    tasks = TaskBuilder(run, lang).tasks(predictions=predictions, config=config)
    client = client or LabelStudioClient.from_env()

    description = f"citeval review of run {run.run_id}: claim-by-claim support, anchors, abstention, edition."
    project_id, created = open_project(client, project_title, config.xml, predictions, description)
    result = PushResult(project_id, project_title, created, len(tasks))

    existing: dict[str, dict[str, Any]] = {}
    if not created:
        for task in client.list_tasks(project_id):
            data = task.get("data") or {}
            if "run_id" not in data or "question_id" not in data:
                continue
            key = task_key(str(data["run_id"]), str(data["question_id"]))
            if key in existing:
                result.duplicates.append(f"{data['question_id']}")
                continue
            existing[key] = task

    missing: list[dict[str, Any]] = []
    for task in tasks:
        key = task["meta"]["citeval_key"]
        current = existing.get(key)
        if current is None:
            missing.append(task)
            continue
        _bring_up_to_date(client, current, task, predictions, result)

    import_missing(client, project_id, missing, batch_size, result, " by (run_id, question_id)", on_batch)
    record_pushed(run_dir, tasks, f"project {project_title!r} (id {project_id})")
    result.seconds = time.monotonic() - started
    return result


def open_project(
    client: LabelStudioClient, title: str, xml: str, predictions: bool, description: str
) -> tuple[int, bool]:
    """(project id, created) of the project titled `title`, created with `xml` when there is none;
    an existing one is made to show predictions when they are pushed."""
    project = client.find_project(title)
    created = project is None
    if project is None:
        project = client.create_project(title, xml, predictions=predictions, description=description)
    elif predictions and not project.get("show_collab_predictions"):
        client.show_predictions(project["id"])
    return int(project["id"]), created


def import_missing(
    client: LabelStudioClient,
    project_id: int,
    missing: list[dict[str, Any]],
    batch_size: int,
    result: PushResult,
    recognised_by: str = "",
    on_batch: Callable[[int, int], None] | None = None,
) -> None:
    """Import the tasks the project lacks, a request per batch; a failed request names how far the push
    got, since running it again imports only what is still missing (`recognised_by` says how)."""
    for start in range(0, len(missing), max(1, batch_size)):
        batch = missing[start : start + batch_size]
        try:
            client.import_tasks(project_id, batch)
        except BackendError as exc:
            raise BackendError(
                f"{exc} — {result.imported} of {len(missing)} new task(s) were imported before this; run the same "
                f"push again: tasks already in the project are recognised{recognised_by} and not duplicated"
            ) from None
        result.imported += len(batch)
        result.predictions_added += sum(len(t.get("predictions") or []) for t in batch)
        result.requests += 1
        if on_batch is not None:
            on_batch(result.imported, len(missing))


def _annotated(task: dict[str, Any]) -> bool:
    return bool(task.get("total_annotations") or task.get("cancelled_annotations") or task.get("annotations"))


def _bring_up_to_date(
    client: LabelStudioClient, current: dict[str, Any], task: dict[str, Any], predictions: bool, result: PushResult
) -> None:
    meta = current.get("meta") or {}
    data = current.get("data") or {}
    if meta.get("citeval_hash") == task["meta"]["citeval_hash"]:
        result.unchanged += 1
    elif _annotated(current) and layout_of(data) != layout_of(task["data"]):
        # the annotations' control indices point at the old claims: changing the data would misfile them
        result.kept.append(str(task["data"]["question_id"]))
        return  # its predictions would be indexed by the new claims too
    else:
        client.update_task(int(current["id"]), task["data"], {**meta, **task["meta"]})
        result.updated += 1
    if not predictions:
        return
    have = {p.get("model_version"): p for p in current.get("predictions") or [] if isinstance(p, dict)}
    for prediction in task.get("predictions") or []:
        old = have.get(prediction["model_version"])
        if old is not None and _same_result(old.get("result"), prediction["result"]):
            continue
        if old is not None and old.get("id") is not None:
            client.delete_prediction(int(old["id"]))
            result.predictions_replaced += 1
        else:
            result.predictions_added += 1
        client.create_prediction(int(current["id"]), prediction)


def _same_result(a: Any, b: Any) -> bool:
    def norm(items: Any) -> list[tuple[str, str]]:
        return sorted((str(r.get("from_name")), str((r.get("value") or {}).get("choices"))) for r in items or [])

    return norm(a) == norm(b)
