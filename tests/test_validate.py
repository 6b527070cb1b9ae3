"""`citeval data validate`: each fault is named with its file and line, exit 2, no traceback."""

import json
import subprocess
import sys

import pytest
from factories import dataset_rows, write_dataset, write_jsonl
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def validate(path, *extra):
    result = runner.invoke(app, ["data", "validate", str(path), *extra])
    return result.exit_code, result.stdout + (result.stderr or "")


def test_clean_dataset_passes_with_summary(tmp_path):
    code, out = validate(write_dataset(tmp_path))
    assert code == 0, out
    # at "now" (2026 or later) train-v1 is superseded, train-v2 and pay-v1 active
    assert "2 documents, 3 editions (active 2, superseded 1), 5 chunks, 3 questions (critical 2, policy 1)" in out


def test_json_format(tmp_path):
    code, out = validate(write_dataset(tmp_path), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["chunks"] == 5
    assert report["questions_by_tier"] == {"policy": 1, "critical": 2}


def with_fault(tmp_path, mutate):
    rows = dataset_rows()
    mutate(rows)
    return write_dataset(tmp_path, rows)


def test_invalid_json_line(tmp_path):
    root = write_dataset(tmp_path)
    path = root / "registry" / "chunks.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(2, '{"chunk_id": "broken",\n')
    path.write_text("".join(lines), encoding="utf-8")
    code, out = validate(root)
    assert code == 2
    assert f"{path}:3: invalid JSON" in out
    assert "Traceback" not in out


CASES = [
    ("missing required field",
     lambda r: r["chunks"][1].pop("text"), "chunks.jsonl:2: text: required field is missing"),
    ("wrong type",
     lambda r: r["versions"][0].update(revision="first"), "versions.jsonl:1: revision: Input should be a valid integer"),
    ("wrong type in a nested field",
     lambda r: r["questions"][0]["user"].update(groups="hr"), "questions.jsonl:1: user.groups: Input should be a valid list"),
    ("duplicate chunk id",
     lambda r: r["chunks"][4].update(chunk_id="a1-1"), "chunks.jsonl:5: duplicate chunk_id 'a1-1' (first on line 1)"),
    ("chunk to unknown version",
     lambda r: r["chunks"][4].update(version_id="pay-v9"), "chunks.jsonl:5: version_id: unknown version_id 'pay-v9'"),
    ("version to unknown document",
     lambda r: r["versions"][2].update(document_id="salary"), "versions.jsonl:3: document_id: unknown document_id 'salary'"),
    ("supersedes cycle",
     lambda r: r["versions"][0].update(supersedes="train-v2"), "supersedes cycle: train-v1 → train-v2 → train-v1"),
    ("span does not match text",
     lambda r: r["chunks"][1].update(char_start=54), "chunks.jsonl:2: text: text does not match texts/train-v1.txt[54:78]"),
    ("overlapping active editions",
     lambda r: r["versions"][0].update(effective_to="2025-03-01"),
     "versions.jsonl:2: effective_from: effective window of 'train-v2' overlaps 'train-v1' (line 1)"),
    ("gold evidence to unknown document",
     lambda r: r["questions"][0]["gold"]["evidence"][0].update(document_id="nope"),
     "questions.jsonl:1: gold.evidence.0.document_id: unknown document_id 'nope'"),
    ("unknown risk tier",
     lambda r: r["questions"][1].update(risk_tier="urgent"), "questions.jsonl:2: risk_tier: unknown risk tier 'urgent'"),
    ("empty question",
     lambda r: r["questions"][2].update(question="  "), "questions.jsonl:3: question: must not be empty"),
    ("gold quote absent",
     lambda r: r["questions"][1]["gold"]["evidence"][0].update(quote="Порог 90 %"),
     "questions.jsonl:2: gold.evidence.0.quote: gold quote does not occur in any chunk of its edition"),
    ("gold page wrong",
     lambda r: r["questions"][1]["gold"]["evidence"][0].update(page=1),
     "questions.jsonl:2: gold.evidence.0.page: gold quote is on page(s) [2], not on page 1"),
]


@pytest.mark.parametrize("name,mutate,expected", CASES, ids=[c[0] for c in CASES])
def test_each_fault_is_named(tmp_path, name, mutate, expected):
    code, out = validate(with_fault(tmp_path, mutate))
    assert code == 2, out
    assert expected in out
    assert "Traceback" not in out
    assert "1 problem(s)" in out  # exactly the injected fault, nothing collateral


def test_a_revoked_edition_does_not_overlap_its_successor(tmp_path):
    def mutate(r):
        r["versions"][0].update(effective_to="2025-06-01", revoked_at="2025-02-01")
    code, out = validate(with_fault(tmp_path, mutate))
    assert code == 0, out


def test_problem_limit_and_count(tmp_path):
    rows = dataset_rows()
    rows["chunks"] += [dict(rows["chunks"][0], chunk_id=f"c{i}", version_id="ghost") for i in range(60)]
    root = write_dataset(tmp_path, rows)
    code, out = validate(root, "--limit", "5")
    assert code == 2
    assert out.count("unknown version_id 'ghost'") == 5
    assert "… and 55 more problem(s)" in out


def test_questions_from_csv_report_their_row(tmp_path):
    root = write_dataset(tmp_path)
    (root / "questions.jsonl").unlink()
    (root / "questions.csv").write_text(
        "question_id,question,asked_at,user_id,groups,risk_tier,tags\n"
        "q1,Как часто?,2024-05-01,nurse-1,clinical;headnurses,policy,single_fact;numeric\n"
        "q2,Сколько?,2024-05-01,,,severe,\n",
        encoding="utf-8",
    )
    code, out = validate(root)
    assert code == 2
    assert f"{root / 'questions.csv'}:3: risk_tier: unknown risk tier 'severe'" in out


def test_questions_from_parquet(tmp_path):
    import pandas as pd

    from evals.data import read_questions

    path = tmp_path / "q.parquet"
    pd.DataFrame(
        [{"question_id": "q1", "question": "Вопрос?", "risk_tier": "critical", "tags": ["numeric"], "user_id": "u1",
          "groups": "hr"}]
    ).to_parquet(path)
    (line, q), = list(read_questions(path))
    assert line == 1 and q.risk_tier == "critical" and q.tags == ["numeric"] and q.user.groups == ["hr"]


def test_console_script_prints_no_traceback(tmp_path):
    root = write_dataset(tmp_path)
    write_jsonl(root / "registry" / "documents.jsonl", [{"document_id": "train"}])
    proc = subprocess.run([sys.executable, "cli.py", "data", "validate", str(root)], capture_output=True, text=True,
                          cwd=__import__("pathlib").Path(__file__).parent.parent)
    assert proc.returncode == 2
    assert "documents.jsonl:1: title: required field is missing" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
