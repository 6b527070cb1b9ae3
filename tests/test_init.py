"""citeval init: a skeleton dataset that validates as is and evaluates with its replay answers."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app
from evals.gate.core import load_gates


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_init_validates_and_its_example_answers_pass_the_default_and_its_own_gates(tmp_path):
    folder = tmp_path / "team-data"
    made = invoke("init", str(folder))
    assert made.exit_code == 0, made.output
    for name in ("registry/documents.jsonl", "registry/versions.jsonl", "registry/chunks.jsonl", "questions.jsonl",
                 "answers/example.jsonl", "gates.toml", "README.md", "sources/manifest.toml"):
        assert (folder / name).is_file(), name
    registry = [len((folder / "registry" / f).read_text(encoding="utf-8").splitlines())
                for f in ("documents.jsonl", "versions.jsonl", "chunks.jsonl")]
    assert registry == [1, 1, 1]  # one example document, edition and chunk
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    gold = questions[0]["gold"]
    assert set(gold) == {"should_abstain", "evidence", "answer", "key_facts"}
    assert set(gold["evidence"][0]) == {"document_id", "version_id", "page", "char_start", "char_end", "quote"}
    assert questions[1]["gold"] == {"should_abstain": True}

    valid = invoke("data", "validate", str(folder))
    assert valid.exit_code == 0, valid.output
    assert "1 documents, 1 editions" in valid.output and "2 questions" in valid.output

    gates = load_gates(folder / "gates.toml")  # the commented gates file loads, baseline rules included
    assert gates.baseline_rules and gates.rules

    replay = f"replay:{folder / 'answers' / 'example.jsonl'}"
    for run_id, extra in (("default", []), ("own", ["--gates", str(folder / "gates.toml")])):
        result = invoke("eval", str(folder), "--backend", replay, "--out", str(tmp_path / "runs"), "--run-id", run_id,
                        "--report-out", str(tmp_path / f"{run_id}.html"), *extra)
        assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "runs" / "default" / "scores.json").read_text(encoding="utf-8"))
    # the answer cites the one chunk correctly and the second question is declined, as its gold says
    assert scores["metrics"]["citation_validity"]["value"] == 1.0
    assert scores["metrics"]["quote_exactness"]["value"] == 1.0
    assert scores["metrics"]["abstention_f1"]["value"] == 1.0
    assert scores["findings"] == {}


def test_init_refuses_a_folder_that_is_not_empty_unless_forced(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    refused = invoke("init", str(folder))
    assert refused.exit_code == 2 and "not empty" in refused.output and "--force" in refused.output
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # nothing half-written
    forced = invoke("init", str(folder), "--force")
    assert forced.exit_code == 0, forced.output
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine" and (folder / "questions.jsonl").exists()


def test_init_from_markdown_ingests_the_teams_documents(tmp_path):
    sources = tmp_path / "docs"
    (sources / "leave").mkdir(parents=True)
    (sources / "manifest.toml").write_text("""
[[document]]
document_id = "leave"
title = "Правила отпусков"
acl = []
[[document.edition]]
version_id = "leave-v1"
revision = 1
file = "leave/v1.md"
effective_from = "2024-01-01"
viewer_url = "https://docs.example.org/leave/1"
""", encoding="utf-8")
    (sources / "leave" / "v1.md").write_text(
        "<!-- page 1 -->\n# Отпуск\n\nЕжегодный отпуск составляет 28 календарных дней. Его делят на части.\n\n"
        "## Перенос\n\nПеренос согласуют с руководителем.\n", encoding="utf-8")
    folder = tmp_path / "ds"
    made = invoke("init", str(folder), "--from-markdown", str(sources))
    assert made.exit_code == 0, made.output
    assert not (folder / "sources").exists()  # the team's folder stays theirs
    chunks = (folder / "registry" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(chunks) == 2
    question = json.loads((folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert question["gold"]["evidence"][0]["quote"] == "Ежегодный отпуск составляет 28 календарных дней."
    assert invoke("data", "validate", str(folder)).exit_code == 0
    result = invoke("eval", str(folder), "--backend", f"replay:{folder / 'answers' / 'example.jsonl'}",
                    "--out", str(tmp_path / "runs"), "--run-id", "md", "--report-out", str(tmp_path / "md.html"))
    assert result.exit_code == 0, result.output

    missing = invoke("init", str(tmp_path / "other"), "--from-markdown", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "folder not found" in missing.output
    assert not (tmp_path / "other").exists()


RU_REGULATION = """# Правила хранения медицинской документации

## 1. Общие положения

1.1. Настоящие Правила определяют порядок хранения медицинской документации в медицинских организациях.

1.2. Медицинская карта стационарного пациента хранится в течение 25 лет.
"""

RU_MANIFEST = """[[document]]
document_id = "prikaz-12"
title = "Правила хранения медицинской документации"
acl = []

[[document.edition]]
version_id = "prikaz-12-v1"
revision = 1
file = "prikaz/v1.md"
effective_from = "2024-01-01"
viewer_url = "https://docs.example.com/d/prikaz-12/v/1"
"""


def test_init_from_a_russian_numbered_regulation_asks_in_russian_and_passes_its_own_gate(tmp_path):
    sources = tmp_path / "src"
    (sources / "prikaz").mkdir(parents=True)
    (sources / "manifest.toml").write_text(RU_MANIFEST, encoding="utf-8")
    (sources / "prikaz" / "v1.md").write_text(RU_REGULATION, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(tmp_path / "ds"), "--from-markdown", str(sources)]).exit_code == 0
    first, declined = [json.loads(line) for line in (tmp_path / "ds" / "questions.jsonl").read_text().splitlines()]
    # the item number "1.1." is not the sentence; the question is in the documents' language
    assert first["gold"]["answer"] == ("Настоящие Правила определяют порядок хранения медицинской документации "
                                       "в медицинских организациях.")
    assert first["question"].startswith("Что говорится в документе «Правила хранения")
    assert declined["question"] == "Какое сегодня меню в столовой?"
    result = runner.invoke(app, ["eval", str(tmp_path / "ds"), "--backend", "replay:answers/example.jsonl",
                                 "--gates", str(tmp_path / "ds" / "gates.toml"), "--out", str(tmp_path / "runs"),
                                 "--report-out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output


def test_ingest_without_a_manifest_offers_one_for_the_files_found(tmp_path):
    sources = tmp_path / "src"
    (sources / "prikaz").mkdir(parents=True)
    (sources / "prikaz" / "v1.md").write_text(RU_REGULATION, encoding="utf-8")
    (sources / "faq.md").write_text("# FAQ\n\nQuestions and answers.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["init", str(tmp_path / "ds"), "--from-markdown", str(sources)])
    assert result.exit_code == 2
    assert "no manifest.toml in the sources folder" in result.output
    for expected in ('document_id = "prikaz"', 'title = "Правила хранения медицинской документации"',
                     'file = "prikaz/v1.md"', 'document_id = "faq"', 'file = "faq.md"', 'effective_from = "YYYY-MM-DD"'):
        assert expected in result.output
    assert not (tmp_path / "ds").exists()  # nothing half-written
