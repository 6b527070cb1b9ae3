"""Label Studio review rounds: push a run's answers to two raters, pull their labels back.

`push` / `write_tasks_file` build one task per answered question (claims with their
evidence cards) and bring a Label Studio project up to date without duplicates;
`pull` turns the raters' annotations into `human:<email>` judgments (DESIGN 5).
"""

from evals.label.client import LabelStudioClient
from evals.label.config import ReviewConfig, config_path
from evals.label.export import RaterMap, accepted_prediction, parse_rater_flags, read_full_export, record_pushed
from evals.label.pull import PullReport, export_to_judgments, pull, read_export
from evals.label.push import PushResult, push, write_tasks_file
from evals.label.tasks import TaskBuilder, answer_claims, predictions_for

__all__ = [
    "LabelStudioClient",
    "PullReport",
    "PushResult",
    "RaterMap",
    "ReviewConfig",
    "TaskBuilder",
    "accepted_prediction",
    "answer_claims",
    "config_path",
    "export_to_judgments",
    "parse_rater_flags",
    "predictions_for",
    "pull",
    "push",
    "read_export",
    "read_full_export",
    "record_pushed",
    "write_tasks_file",
]
