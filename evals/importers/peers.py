"""`citeval data peers RUN`: a peer tool's own scores beside citeval's, question by question.

A dataset imported from a file the peer has scored (RAGChecker's checking_outputs.json, a
ragas `evaluate()` result saved with its metric columns) keeps those scores in
DATASET/import.json (evals/importers/build.py). Once the dataset's replay answers are run and
scored, this table sets each peer metric and each citeval metric side by side: the mean over
the questions both scored, per question in the JSON, and the peer file's own overall figures
as it printed them (RAGChecker: percentages by group).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.contract.metrics import METRICS
from evals.errors import DataError, UsageError
from evals.importers.build import IMPORT_MANIFEST
from evals.store.reading import read_file_text
from evals.store.runfolder import RunFolder

_TOOLS = {"ragchecker": "RAGChecker", "ragas": "Ragas", "alce": "ALCE"}


@dataclass
class MetricColumn:
    source: str  # the peer's name (RAGChecker, Ragas) or "citeval"
    name: str
    values: dict[str, float] = field(default_factory=dict)  # question_id → value

    def mean(self, questions: list[str]) -> float | None:
        got = [self.values[q] for q in questions if q in self.values]
        return sum(got) / len(got) if got else None


@dataclass
class PeerTable:
    tool: str
    source: str
    run_id: str
    questions: list[str]
    columns: list[MetricColumn]
    overall: dict[str, Any]  # the peer file's own overall figures, as it gives them

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "source": self.source,
            "run_id": self.run_id,
            "questions": len(self.questions),
            "metrics": [{"source": c.source, "metric": c.name, "n": sum(q in c.values for q in self.questions),
                         "mean": c.mean(self.questions)} for c in self.columns],
            "per_question": {q: {f"{c.source}:{c.name}": c.values.get(q) for c in self.columns}
                             for q in self.questions},
            "peer_overall": self.overall,
        }

    def to_text(self) -> str:
        lines = [f"{self.tool}'s own scores ({self.source}) beside citeval's, run {self.run_id}: "
                 f"{len(self.questions)} question(s)", "",
                 f"{'source':<12}{'metric':<34}{'n':>5}{'mean':>9}"]
        for c in self.columns:
            n = sum(q in c.values for q in self.questions)
            mean = c.mean(self.questions)
            lines.append(f"{c.source:<12}{c.name:<34}{n:>5}{'—' if mean is None else f'{mean:.3f}':>9}")
        if self.overall:
            lines += ["", f"{self.tool}'s overall figures as its file gives them:"]
            for group, values in self.overall.items():
                shown = ", ".join(f"{k} {v}" for k, v in values.items()) if isinstance(values, dict) else values
                lines.append(f"  {group}: {shown}")
        lines += ["", "per question: --format json"]
        return "\n".join(lines) + "\n"


def read_import_manifest(dataset: Path) -> dict[str, Any]:
    path = dataset / IMPORT_MANIFEST
    if not path.is_file():
        raise UsageError(f"{dataset} has no {IMPORT_MANIFEST}: it was not made by `citeval data import` "
                         "(alce, ragchecker, ragas), or by an older citeval")
    try:
        doc = json.loads(read_file_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("peer_scores"), dict):
        raise DataError(path, None, "expected an object with peer_scores")
    return doc


def peer_table(run_dir: Path | str, dataset: Path | str | None = None) -> PeerTable:
    """The peer's scores (from the dataset's import.json) and citeval's (the scored run's
    per_question rows) for the run's questions; the dataset defaults to the one the run names."""
    run = RunFolder(run_dir)
    manifest = run.manifest
    folder = Path(dataset) if dataset is not None else Path(manifest.dataset.path)
    doc = read_import_manifest(folder)
    scores = doc["peer_scores"]
    per_question = scores.get("questions") if isinstance(scores.get("questions"), dict) else {}
    rows = run.per_question
    questions = list(rows)
    tool = _TOOLS.get(str(doc.get("kind")), str(doc.get("kind")))
    names: list[str] = []
    for values in per_question.values():
        names += [k for k in values if k not in names] if isinstance(values, dict) else []
    columns = [MetricColumn(tool, name, {q: float(v[name]) for q, v in per_question.items()
                                         if isinstance(v, dict) and isinstance(v.get(name), (int, float))})
               for name in names]
    for metric in METRICS:
        values = {q: float(value) for q, row in rows.items()
                  if isinstance(value := getattr(row, metric.name, None), (int, float))}
        if values:
            columns.append(MetricColumn("citeval", metric.name, values))
    overall = scores.get("overall") if isinstance(scores.get("overall"), dict) else {}
    return PeerTable(tool, str(doc.get("source") or ""), manifest.run_id, questions, columns, overall)
