"""`citeval data ingest`: pages, headings, chunk spans and ids from Markdown sources."""

import json

from typer.testing import CliRunner

from cli import app
from evals.data import Registry, default_chunk_id, sha256_text, validate_dataset

SOURCE = (
    "<!-- page 1 -->\n# Положение\n\n## 1. Общие положения\n\n1.1. Первый пункт.\n\n"
    "<!-- page 2 -->\n1.2. Второй\nпункт на двух строках.\n\n## 2. Сроки\n\n### 2.1 Подраздел\n\n"
    "2.1.1. Срок 12 месяцев.\n\f2.1.2. На третьей\fстранице.\n"
)
MANIFEST = """
[[document]]
document_id = "doc"
title = "Положение"
acl = [{ group = "hr", from = "2024-01-01" }]

[[document.edition]]
version_id = "doc-v1"
revision = 1
file = "doc/v1.md"
effective_from = "2024-01-01"
viewer_url = "https://docs.example/d/doc/v/1"
"""


def make_sources(tmp_path, manifest=MANIFEST):
    src = tmp_path / "sources"
    (src / "doc").mkdir(parents=True)
    (src / "doc" / "v1.md").write_text(SOURCE, encoding="utf-8")
    (src / "manifest.toml").write_text(manifest, encoding="utf-8")
    return src


def test_ingest_builds_a_valid_registry(tmp_path):
    src = make_sources(tmp_path)
    result = CliRunner().invoke(app, ["data", "ingest", str(src), "--out", str(tmp_path / "ds" / "registry")])
    assert result.exit_code == 0, result.output
    assert "1 documents, 1 editions, 4 chunks" in result.output
    reg = Registry.load(tmp_path / "ds")
    text = reg.text("doc-v1")
    assert "<!--" not in text and "\f" not in text
    assert reg.versions["doc-v1"].content_sha256 == sha256_text(text)
    chunks = reg.chunks_of("doc-v1")
    # hand-worked: four paragraphs; headings are paths, not chunks; pages from markers and \f
    assert [(c.text, c.heading_path, c.page_start, c.page_end) for c in chunks] == [
        ("1.1. Первый пункт.", ["Положение", "1. Общие положения"], 1, 1),
        ("1.2. Второй\nпункт на двух строках.", ["Положение", "1. Общие положения"], 2, 2),
        ("2.1.1. Срок 12 месяцев.", ["Положение", "2. Сроки", "2.1 Подраздел"], 2, 2),
        ("2.1.2. На третьей\nстранице.", ["Положение", "2. Сроки", "2.1 Подраздел"], 3, 4),
    ]
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert c.chunk_id == default_chunk_id("doc-v1", c.heading_path, c.text)
    doc = json.loads((tmp_path / "ds" / "registry" / "documents.jsonl").read_text(encoding="utf-8"))
    assert doc["acl"] == [{"group": "hr", "from": "2024-01-01T00:00:00+00:00"}]
    (tmp_path / "ds" / "questions.jsonl").write_text('{"question_id": "q", "question": "?"}\n', encoding="utf-8")
    assert validate_dataset(tmp_path / "ds").ok


def test_ingest_failure_leaves_the_old_registry(tmp_path):
    src = make_sources(tmp_path)
    out = tmp_path / "ds" / "registry"
    runner = CliRunner()
    assert runner.invoke(app, ["data", "ingest", str(src), "--out", str(out)]).exit_code == 0
    before = (out / "chunks.jsonl").read_text(encoding="utf-8")
    (src / "manifest.toml").write_text(MANIFEST.replace('file = "doc/v1.md"', 'file = "doc/v9.md"'), encoding="utf-8")
    result = runner.invoke(app, ["data", "ingest", str(src), "--out", str(out)])
    assert result.exit_code == 2
    assert "edition file 'doc/v9.md' not found" in result.output
    assert (out / "chunks.jsonl").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["registry"]  # no staging left behind
