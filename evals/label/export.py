"""Label Studio exports as they really come (issue 19): which export a file is, who each
annotation is, which annotations only accept a pre-annotation, and which tasks were pushed.

- **Export type.** Only the full JSON export ("JSON" in the export dialog) keeps what a pull
  needs: each annotation with its results' control names, its author, skips, drafts and the
  predictions it started from. JSON_MIN (the second "JSON" choice: one flat record per
  annotation, results keyed by control name, `annotator`, `annotation_id`) and CSV / TSV
  (the same records as columns) are refused with a message naming the export to take.
- **Raters.** `completed_by` comes as an integer user id, as an object (`{id, email, …}`) or,
  in an anonymised export, as null. A rater is the e-mail when the export or the server gives
  one, else the name a rater map gives the user id (`--rater 7=ivanova@bank.example`), else
  `ls-user-<id>`. Whatever a user id became is kept in the run folder (`label_raters.json`)
  and holds for every later pull: a map or an export that would make the same user someone
  else is refused, so one person never becomes two raters. An annotation without an author is
  refused unless the map names it (`--rater annotation:105=…`) or `--anonymous-raters` is
  given, which makes each such annotation a rater of its own (`anonymous-<annotation id>`).
- **Pre-annotations.** An annotation whose every result came from a prediction unchanged
  (`origin: "prediction"`, and the same results as the prediction it started from) records no
  judgment of the rater's own: it is reported and, unless asked for, not counted as a label.
- **Pushed tasks.** `label push` (to a server or `--to-file`) records the tasks it put in front
  of the raters (`label_tasks.json`), so a pull can count the tasks an export leaves out —
  Label Studio's default JSON export omits tasks nobody annotated — as missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.errors import DataError, UsageError
from evals.store.jsonl import read_json, write_json_atomic
from evals.store.reading import read_file_head, try_read_json
from evals.store.runfolder import JUDGMENTS

PUSHED_TASKS = "label_tasks.json"
RATERS_FILE = "label_raters.json"
ANONYMOUS_PREFIX = "anonymous-"
_MIN_KEYS = ("annotator", "annotation_id", "lead_time")

JSON_MIN_MESSAGE = (
    "this is a JSON_MIN export (the second 'JSON' choice of Label Studio's export dialog: one flat record per "
    "annotation, without skips, drafts or the predictions an annotation started from); export the project as "
    "'JSON' (the first choice, the full format) and pull that file"
)
CSV_MESSAGE = (
    "this is a Label Studio CSV/TSV export (annotations flattened into columns); export the project as 'JSON' "
    "(the first choice of the export dialog, the full format) and pull that file"
)


# --- which export ----------------------------------------------------------------------


def read_full_export(path: Path | str) -> list[dict[str, Any]]:
    """The tasks of a full JSON export; JSON_MIN, CSV and TSV exports are refused by name."""
    path = Path(path)
    if path.exists():
        head = read_file_head(path, 4096).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        if head and head[0] not in "[{":
            first = head.splitlines()[0] if head.splitlines() else ""
            if any(sep in first for sep in (",", "\t")):
                raise DataError(path, 1, CSV_MESSAGE)
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise DataError(path, None, "expected a Label Studio JSON export: a list of tasks")
    for n, task in enumerate(data):
        if "data" not in task and "annotations" not in task and any(k in task for k in _MIN_KEYS):
            keys = ", ".join(k for k in _MIN_KEYS if k in task)
            raise DataError(path, None, f"{JSON_MIN_MESSAGE} (record {n} has {keys})")
    if data and not any("data" in t or "annotations" in t for t in data):
        # JSON_MIN of tasks nobody annotated: flat records with neither a task's `data` nor `annotations`
        raise DataError(path, None, f"{JSON_MIN_MESSAGE} (no record has the full export's 'data' or 'annotations')")
    return data


# --- pushed tasks ----------------------------------------------------------------------


def record_pushed(run_dir: Path | str, tasks: Iterable[dict[str, Any]], target: str) -> None:
    """Remember which tasks a push put in front of the raters (the latest push's set)."""
    path = Path(run_dir) / PUSHED_TASKS
    pushes: list[dict[str, Any]] = []
    old = try_read_json(path)  # an unreadable earlier record only loses the push history
    if isinstance(old, dict) and isinstance(old.get("pushes"), list):
        pushes = list(old["pushes"])
    items = [
        {"question_id": str(t["data"]["question_id"]), "citeval_hash": (t.get("meta") or {}).get("citeval_hash")}
        for t in tasks
    ]
    pushes.append({"at": datetime.now(timezone.utc).isoformat(), "to": target, "tasks": len(items)})
    write_json_atomic(path, {"tasks": items, "pushes": pushes[-20:]})


def pushed_question_ids(run_dir: Path | str) -> list[str] | None:
    """The question ids of the tasks the latest push recorded; None before any recorded push."""
    path = Path(run_dir) / PUSHED_TASKS
    if not path.exists():
        return None
    doc = read_json(path)
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, list):
        raise DataError(path, None, "expected {tasks: [{question_id, …}], pushes: […]}")
    return [str(t["question_id"]) for t in tasks if isinstance(t, dict) and "question_id" in t]


# --- raters ----------------------------------------------------------------------------


@dataclass
class RaterMap:
    """Who the raters are: Label Studio user id → rater, annotation id → rater (for annotations
    without an author), and what each came from, so a contradiction can be explained."""

    users: dict[int, str] = field(default_factory=dict)
    annotations: dict[int, str] = field(default_factory=dict)
    anonymous: bool = False
    origin: dict[str, str] = field(default_factory=dict)  # "user 7" → where that name was set
    known: dict[int, str] = field(default_factory=dict)  # the server's user list: id → e-mail (a fallback)
    changed: bool = False

    @classmethod
    def load(cls, run_dir: Path | str) -> RaterMap:
        path = Path(run_dir) / RATERS_FILE
        found = cls()
        if not path.exists():
            return found
        doc = read_json(path)
        if not isinstance(doc, dict):
            raise DataError(path, None, "expected {users: {id: rater}, annotations: {id: rater}}")
        for key, target in (("users", found.users), ("annotations", found.annotations)):
            for raw_id, rater in (doc.get(key) or {}).items():
                if not str(raw_id).isdigit() or not isinstance(rater, str) or not rater:
                    raise DataError(path, None, f"{key}: {raw_id!r} → {rater!r} is not id → rater", key)
                target[int(raw_id)] = rater
                found.origin[f"{key[:-1]} {raw_id}"] = f"an earlier pull ({path})"
        return found

    def save(self, run_dir: Path | str) -> None:
        if not self.changed:
            return
        write_json_atomic(
            Path(run_dir) / RATERS_FILE,
            {
                "users": {str(k): v for k, v in sorted(self.users.items())},
                "annotations": {str(k): v for k, v in sorted(self.annotations.items())},
            },
        )
        self.changed = False

    def assign(self, kind: str, ident: int, rater: str, source: str) -> None:
        """Set user/annotation IDENT to RATER; refuse a different name for an id already named."""
        table = self.users if kind == "user" else self.annotations
        held = table.get(ident)
        label = f"{kind} {ident}"
        if held is not None and held != rater:
            where = self.origin.get(label, "an earlier pull")
            raise UsageError(
                f"Label Studio {label} is already the rater {held!r} (from {where}); {source} would make it "
                f"{rater!r}, so one person would become two raters. Keep the first name (--rater {_flag(kind, ident)}="
                f"{held}), or, to rename, delete {label} from {RATERS_FILE} and that rater's human:{held} rows from "
                f"{JUDGMENTS} first"
            )
        if held is None:
            table[ident] = rater
            self.origin[label] = source
            self.changed = True

    def merge_flags(self, flags: Mapping[str, str]) -> None:
        """--rater ID=EMAIL (a user id) and --rater annotation:ID=EMAIL."""
        for key, rater in flags.items():
            kind, ident = parse_rater_key(key)
            self.assign(kind, ident, rater, f"--rater {key}={rater}")

    def rater_of(self, annotation: dict[str, Any]) -> str | None:
        """The annotation's rater; None when it has no author and nothing names it."""
        who = annotation.get("completed_by")
        annotation_id = _int(annotation.get("id"))
        if isinstance(who, dict):
            user_id = _int(who.get("id"))
            email = who.get("email")
            if isinstance(email, str) and email.strip():
                if user_id is not None:
                    self.assign("user", user_id, email.strip(), "the export's completed_by e-mail")
                return self.users.get(user_id, email.strip()) if user_id is not None else email.strip()
            who = user_id
        if isinstance(who, bool):
            who = None
        if isinstance(who, int):
            if who not in self.users and who in self.known:
                self.assign("user", who, self.known[who], "the Label Studio server's user list")
            if who not in self.users:
                self.assign("user", who, f"ls-user-{who}", "a pull without an e-mail for that user id")
            return self.users[who]
        if annotation_id is not None and annotation_id in self.annotations:
            return self.annotations[annotation_id]
        if self.anonymous and annotation_id is not None:
            return f"{ANONYMOUS_PREFIX}{annotation_id}"
        return None


def _flag(kind: str, ident: int) -> str:
    return str(ident) if kind == "user" else f"annotation:{ident}"


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def parse_rater_key(key: str) -> tuple[str, int]:
    """'7' → ("user", 7); 'annotation:105' → ("annotation", 105)."""
    kind, _, ident = key.strip().rpartition(":")
    kind = kind.strip() or "user"
    if kind not in ("user", "annotation") or not ident.strip().isdigit():
        raise UsageError(f"--rater must be ID=EMAIL or annotation:ID=EMAIL, got {key!r}")
    return kind, int(ident)


def parse_rater_flags(items: Iterable[str]) -> dict[str, str]:
    """--rater values → {key: rater}, checked."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, rater = item.partition("=")
        if not sep or not rater.strip():
            raise UsageError(f"--rater must be ID=EMAIL or annotation:ID=EMAIL, got {item!r}")
        parse_rater_key(key)
        out[key.strip()] = rater.strip()
    return out


# --- pre-annotations -------------------------------------------------------------------


def _result_key(results: Any) -> list[tuple[str, str]]:
    return sorted(
        (str(r.get("from_name")), json.dumps(r.get("value"), sort_keys=True, ensure_ascii=False))
        for r in results or []
        if isinstance(r, dict)
    )


def accepted_prediction(annotation: dict[str, Any], task: dict[str, Any]) -> bool:
    """Every result of the annotation came from a prediction unchanged (origin "prediction"),
    and its results are those of the prediction it started from (when the export holds it)."""
    results = annotation.get("result") or []
    if not results or not all(isinstance(r, dict) and r.get("origin") == "prediction" for r in results):
        return False
    parent = _int(annotation.get("parent_prediction"))
    candidates = [p for p in task.get("predictions") or [] if isinstance(p, dict)]
    prediction = next((p for p in candidates if parent is not None and _int(p.get("id")) == parent), None)
    if prediction is None and isinstance(annotation.get("prediction"), dict) and annotation["prediction"].get("result"):
        prediction = annotation["prediction"]
    if prediction is None:
        return True  # Label Studio marked every result as the prediction's, unchanged
    return _result_key(results) == _result_key(prediction.get("result"))
