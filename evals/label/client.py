"""A small, typed layer over label-studio-sdk 2.x: exactly the calls push and pull make.

The URL and the API key come from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (a legacy
token or a personal access token; the SDK tells them apart) and are never written
anywhere. Every failure of the server or the network becomes a BackendError (exit 3)
whose message never contains the key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from evals.errors import BackendError, UsageError
from evals.store.secrets import scrub

URL_ENV = "LABEL_STUDIO_URL"
KEY_ENV = "LABEL_STUDIO_API_KEY"
NO_RETRY: Any = {"max_retries": 0}  # a POST whose answer was lost must not be sent twice

T = TypeVar("T")


def _plain(obj: Any) -> Any:
    """SDK models → plain JSON-like dicts (extra fields the server sent are kept)."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


class LabelStudioClient:
    def __init__(self, url: str, api_key: str, timeout: float = 120.0) -> None:
        try:
            from label_studio_sdk import LabelStudio
        except ImportError:  # pragma: no cover - a dependency of citeval
            raise UsageError("label-studio-sdk is not installed (pip install 'label-studio-sdk>=2')") from None
        self.url = url.rstrip("/")
        self._key = api_key
        with self._errors("connect"):
            self.sdk = LabelStudio(base_url=self.url, api_key=api_key, timeout=timeout)

    @classmethod
    def from_env(cls) -> LabelStudioClient:
        url = os.environ.get(URL_ENV, "").strip()
        key = os.environ.get(KEY_ENV, "").strip()
        if not url or not key:
            raise UsageError(
                f"set {URL_ENV} and {KEY_ENV} (a legacy token or a personal access token) to reach Label Studio, "
                "or work with files: `label push --to-file`, `label pull --from-file`"
            )
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"{URL_ENV} must be an http(s) URL")
        return cls(url, key)

    # --- error mapping ---------------------------------------------------------------

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except (BackendError, UsageError):
            raise
        except Exception as exc:  # httpx errors, the SDK's ApiError, JSON errors
            raise BackendError(f"Label Studio at {self.url}: {what} failed: {self._describe(exc)}") from None

    def _describe(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        body = getattr(exc, "body", None)
        if status in (401, 403):
            text = f"HTTP {status}: the API key was refused (check {KEY_ENV})"
        elif status is not None:
            detail = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
            text = f"HTTP {status}: {detail[:300]}"
        else:
            text = f"{type(exc).__name__}: {exc}"
        return scrub(text, [self._key])

    def call(self, what: str, func: Callable[[], T]) -> T:
        with self._errors(what):
            return func()

    # --- projects --------------------------------------------------------------------

    def find_project(self, title: str) -> dict[str, Any] | None:
        """The project with exactly this title (the server's title filter matches substrings)."""

        def run() -> list[dict[str, Any]]:
            pager: Any = self.sdk.projects.list(title=title, page_size=100)
            return [_plain(p) for p in pager if getattr(p, "title", None) == title]

        found = self.call(f"looking up project {title!r}", run)
        if len(found) > 1:
            ids = ", ".join(str(p["id"]) for p in found)
            raise UsageError(f"{len(found)} Label Studio projects are titled {title!r} (ids {ids}); rename all but one")
        return found[0] if found else None

    def create_project(self, title: str, label_config: str, *, predictions: bool, description: str) -> dict[str, Any]:
        return self.call(
            f"creating project {title!r}",
            lambda: _plain(
                self.sdk.projects.create(
                    title=title,
                    description=description,
                    label_config=label_config,
                    maximum_annotations=2,
                    overlap_cohort_percentage=100,
                    show_collab_predictions=predictions,
                    show_annotation_history=False,
                    enable_empty_annotation=False,
                    show_skip_button=True,
                    request_options=NO_RETRY,
                )
            ),
        )

    def get_project(self, project_id: int) -> dict[str, Any]:
        return self.call(f"reading project {project_id}", lambda: _plain(self.sdk.projects.get(id=project_id)))

    def show_predictions(self, project_id: int) -> None:
        self.call(
            "turning predictions on",
            lambda: self.sdk.projects.update(id=project_id, show_collab_predictions=True),
        )

    # --- tasks -----------------------------------------------------------------------

    def list_tasks(self, project_id: int) -> list[dict[str, Any]]:
        """Every task of the project with its data, meta, counters and predictions."""

        def run() -> list[dict[str, Any]]:
            pager: Any = self.sdk.tasks.list(project=project_id, fields="all", page_size=500)
            return [_plain(t) for t in pager]

        return self.call(f"listing the tasks of project {project_id}", run)

    def import_tasks(self, project_id: int, tasks: list[dict[str, Any]]) -> list[int]:
        def run() -> list[int]:
            response = self.sdk.projects.import_tasks(
                id=project_id, request=cast(Any, tasks), return_task_ids=True, request_options=NO_RETRY
            )
            return list(getattr(response, "task_ids", None) or [])

        return self.call(f"importing {len(tasks)} task(s)", run)

    def update_task(self, task_id: int, data: dict[str, Any], meta: dict[str, Any]) -> None:
        self.call(f"updating task {task_id}", lambda: self.sdk.tasks.update(id=str(task_id), data=data, meta=meta))

    def create_prediction(self, task_id: int, prediction: dict[str, Any]) -> None:
        self.call(
            f"adding a prediction to task {task_id}",
            lambda: self.sdk.predictions.create(
                task=task_id,
                result=prediction["result"],
                model_version=prediction["model_version"],
                request_options=NO_RETRY,
            ),
        )

    def delete_prediction(self, prediction_id: int) -> None:
        self.call(f"deleting prediction {prediction_id}", lambda: self.sdk.predictions.delete(id=prediction_id))

    # --- annotations -----------------------------------------------------------------

    def export(self, project_id: int) -> list[dict[str, Any]]:
        """The project's JSON export of all tasks, with annotations and drafts."""

        def run() -> list[dict[str, Any]]:
            raw = b"".join(
                self.sdk.projects.exports.download_sync(project_id, download_all_tasks=True, export_type="JSON")
            )
            data = json.loads(raw)
            if not isinstance(data, list):
                raise ValueError("the export is not a JSON list of tasks")
            return data

        return self.call(f"exporting project {project_id}", run)

    def user_emails(self) -> dict[int, str]:
        return self.call("listing users", lambda: {u.id: u.email for u in self.sdk.users.list() if u.email})
