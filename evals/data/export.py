"""`citeval data export-hf RUN --out DIR`: a scored run's per-question rows as a Hugging Face dataset.

One row per question, as per_question.jsonl has it (DESIGN 6: every metric, status, markers,
findings codes, reasons), plus `run_id` (so several runs' exports concatenate) and the question's
text and answer text where the run folder still reaches them. Lists of codes stay lists; an
object column whose keys vary (`reasons`) is JSON text, as the questions tables keep `gold`.
Written by `evals.store.hf.save_hf_dataset` (`Dataset.from_list`, `save_to_disk`), read back
with `datasets.load_from_disk(DIR)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.store.hf import save_hf_dataset
from evals.store.runfolder import RunFolder


@dataclass(frozen=True)
class HfExport:
    out: Path
    rows: int
    columns: list[str]

    def to_text(self) -> str:
        return f"{self.out}: {self.rows} rows, {len(self.columns)} columns (datasets.load_from_disk reads it)\n"

    def to_json(self) -> dict[str, Any]:
        return {"out": str(self.out), "rows": self.rows, "columns": list(self.columns)}


def export_run_hf(run_dir: Path | str, out: Path | str) -> HfExport:
    """Write RUN's per-question rows (with run_id, question and answer text) as a dataset into OUT."""
    run = RunFolder(run_dir).require_dir().require_complete_score()
    questions = run.try_questions()
    answers = run.answers
    rows: list[dict[str, Any]] = []
    for score in run.iter_per_question():
        row = score.model_dump(mode="json")
        question = questions.get(score.question_id)
        answer = answers.get(score.question_id)
        rows.append({"run_id": run.run_id, "question_id": score.question_id,
                     "question": question.question if question else None,
                     "answer_text": answer.answer_text if answer else None,
                     **{k: v for k, v in row.items() if k != "question_id"}})
    written = save_hf_dataset(rows, out)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return HfExport(Path(out), written, columns)
