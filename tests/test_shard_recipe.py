"""The partition recipe of docs/how-to/score-production-logs.md, run as written: the shard function
mapped over JSONL partitions in a process pool and merged in order gives the metrics of
`citeval score`'s scores.json and its per_question.jsonl, byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from cli import app

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"
HOWTO = ROOT / "docs" / "how-to" / "score-production-logs.md"


def _recipe() -> str:
    blocks = re.findall(r"```python\n(.*?)```", HOWTO.read_text(encoding="utf-8"), flags=re.DOTALL)
    recipe = [b for b in blocks if "score_shard" in b]
    assert len(recipe) == 1, "the how-to holds one partition recipe"
    return recipe[0]


def test_the_partition_recipe_scores_like_citeval_score(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "demo"
    assert CliRunner().invoke(app, ["run", str(DEMO), "--out", str(tmp_path / "runs"), "--run-id", "demo"]).exit_code == 0
    assert CliRunner().invoke(app, ["score", str(run)]).exit_code == 0

    order = [json.loads(line)["question_id"] for line in (DEMO / "questions.jsonl").read_text("utf-8").splitlines()]
    by_id = {json.loads(line)["question_id"]: line for line in (run / "answers.jsonl").read_text("utf-8").splitlines()}
    ordered = [by_id[q] for q in order if q in by_id]
    half = len(ordered) // 2
    part_paths = []
    for k, rows in enumerate((ordered[:half], ordered[half:])):
        path = tmp_path / f"part-{k}.jsonl"
        path.write_text("".join(line + "\n" for line in rows), encoding="utf-8")
        part_paths.append(str(path))

    namespace = {"__name__": "recipe", "part_paths": part_paths, "DATASET": str(DEMO)}
    exec(compile(_recipe(), str(HOWTO), "exec"), namespace)  # noqa: S102 - the documented code, as written

    assert namespace["per_question"] == (run / "per_question.jsonl").read_text(encoding="utf-8")
    # the metric part: every field build_scores fills; the run's identity, judges and provenance
    # are what the scoring stage adds around it (left unset here)
    merged = {k: v for k, v in json.loads(namespace["scores"].model_dump_json()).items() if v is not None}
    scored = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert {"metrics", "by_tier", "by_tag", "findings", "n_questions"} <= set(merged)
    for key, value in merged.items():
        assert json.dumps(scored[key], sort_keys=True) == json.dumps(value, sort_keys=True), key
