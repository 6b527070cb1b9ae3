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

    from evals.store.jsonl import read_questions

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


def without_pages(rows):
    """train-v1 recorded as having no page information: its chunks lose their pages."""
    for version in rows["versions"]:
        if version["version_id"] == "train-v1":
            version["pages_known"] = False
    for chunk in rows["chunks"]:
        if chunk["version_id"] == "train-v1":
            chunk.pop("page_start")
            chunk.pop("page_end")


def test_an_edition_without_pages_is_a_warning_and_so_is_a_gold_page_on_it(tmp_path):
    root = with_fault(tmp_path, without_pages)
    code, out = validate(root)
    assert code == 0, out
    assert (
        f"warning: {root / 'registry' / 'versions.jsonl'}:1: pages_known: edition 'train-v1' has no page "
        "information; page-level anchor checks are skipped for it" in out
    )
    assert f"warning: {root / 'questions.jsonl'}:1: gold.evidence.0.page: gold names page 1, but edition" in out
    assert "3 questions (critical 2, policy 1), 2 warning(s)" in out
    report = json.loads(validate(root, "--format", "json")[1])
    assert report["ok"] is True and [w["field"] for w in report["warnings"]] == ["pages_known", "gold.evidence.0.page"]


def test_chunks_may_not_claim_pages_on_an_edition_without_them(tmp_path):
    def mutate(rows):
        rows["versions"][0]["pages_known"] = False  # train-v1; its chunks keep pages

    root = with_fault(tmp_path, mutate)
    code, out = validate(root)
    assert code == 2
    assert "chunks.jsonl:1: page_start: chunk has pages but its edition 'train-v1' says pages_known: false" in out


def test_source_file_must_lie_inside_the_registry(tmp_path):
    def mutate(rows):
        rows["versions"][0]["source_file"] = "../../secret.pdf"
        rows["versions"][1]["source_file"] = "files/train-v2.pdf"

    code, out = validate(with_fault(tmp_path, mutate))
    assert code == 2
    assert "versions.jsonl:1: source_file: source_file '../../secret.pdf' is not a path inside the registry" in out
    assert "versions.jsonl:2: source_file: source_file 'files/train-v2.pdf' not found in the registry" in out


def test_require_valid_raises_with_the_first_problems(tmp_path):
    from evals.data.validate import DatasetNotValid, require_valid
    from evals.errors import DataError

    assert require_valid(write_dataset(tmp_path / "good")).ok

    def mutate(rows):
        for chunk in rows["chunks"]:
            chunk["version_id"] = "nope"

    root = with_fault(tmp_path / "bad", mutate)
    with pytest.raises(DatasetNotValid) as caught:
        require_valid(root)
    lines = str(caught.value).splitlines()
    # five chunks name an unknown edition, so the two gold quotes occur in no chunk of theirs
    assert lines[0] == f"{root}: dataset does not validate (citeval data validate): 7 problem(s)"
    assert len(lines) == 8 and "unknown version_id 'nope'" in lines[1] and "gold quote" in lines[-1]
    assert caught.value.exit_code == 2
    many = DatasetNotValid([DataError("q.jsonl", i, "bad") for i in range(1, 16)])
    assert str(many).splitlines()[-1] == "  … and 5 more (citeval data validate lists them all)"
    assert len(str(many).splitlines()) == 12


def test_boxes_must_lie_on_the_chunk_pages_and_be_upright(tmp_path):
    def mutate(rows):
        rows["chunks"][0]["bbox"] = [{"page": 1, "x0": 72, "y0": 100, "x1": 300, "y1": 130},
                                     {"page": 3, "x0": 72, "y0": 100, "x1": 300, "y1": 130}]
        rows["chunks"][1]["bbox"] = [{"page": 2, "x0": 300, "y0": 100, "x1": 72, "y1": 130}]

    code, out = validate(with_fault(tmp_path, mutate))
    assert code == 2
    assert "chunks.jsonl:1: bbox.1.page: box on page 3 lies outside the chunk's pages 1..1" in out
    assert "chunks.jsonl:2: bbox.0: box has x1 < x0 or y1 < y0" in out
    assert "bbox.0.page" not in out
