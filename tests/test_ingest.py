"""`citeval data ingest`: pages, headings, chunk spans and ids from Markdown sources."""

import json

from typer.testing import CliRunner

from cli import app
from evals.data.registry import Registry, default_chunk_id, sha256_text
from evals.data.validate import validate_dataset
from evals.ingest.sources import ingest as evals_ingest

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


def make_sources(tmp_path, manifest=MANIFEST, source=SOURCE):
    src = tmp_path / "sources"
    (src / "doc").mkdir(parents=True)
    (src / "doc" / "v1.md").write_text(source, encoding="utf-8")
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


def reingest_refused(tmp_path, manifest, kept):
    """Ingest the sources, then again with `manifest`: the second run must exit 2 and leave the registry's
    `kept` file as the first run wrote it. Returns the second run's result and the registry folder."""
    src = make_sources(tmp_path)
    out = tmp_path / "ds" / "registry"
    runner = CliRunner()
    assert runner.invoke(app, ["data", "ingest", str(src), "--out", str(out)]).exit_code == 0
    before = (out / kept).read_text(encoding="utf-8")
    (src / "manifest.toml").write_text(manifest, encoding="utf-8")
    result = runner.invoke(app, ["data", "ingest", str(src), "--out", str(out)])
    assert result.exit_code == 2
    assert (out / kept).read_text(encoding="utf-8") == before
    return result, out


def test_ingest_failure_leaves_the_old_registry(tmp_path):
    manifest = MANIFEST.replace('file = "doc/v1.md"', 'file = "doc/v9.md"')
    result, out = reingest_refused(tmp_path, manifest, "chunks.jsonl")
    assert "edition file 'doc/v9.md' not found" in result.output
    assert sorted(p.name for p in out.parent.iterdir()) == ["registry"]  # no staging left behind


LAW = """# О порядке

## Глава 1. Общие положения

### Статья 1. Сроки

1. Срок рассмотрения составляет:

1) десять дней;

Сноска. Подпункт 1) изменен.

2. Продление допускается:

1) десять дней;
2) по решению руководителя.

Сноска. Подпункт 1) изменен.

### Статья 2. Ввести в действие настоящий Закон с 1 января 2025 года.

### Статья 3. Исключена

## Глава 2. Заключительные положения

Статья 4. Контроль возлагается на министерство.
"""


def ingest_text(tmp_path, source):
    evals_ingest(make_sources(tmp_path, source=source), tmp_path / "ds" / "registry")
    return Registry.load(tmp_path / "ds")


def test_legal_structure_cuts_at_units_and_keeps_repeated_sub_items_apart(tmp_path):
    reg = ingest_text(tmp_path, LAW)
    chunks = reg.chunks_of("doc-v1")
    text = reg.text("doc-v1")
    art1 = ["О порядке", "Глава 1. Общие положения", "Статья 1. Сроки"]
    # worked out by hand from LAW: one chunk per пункт / подпункт (the two-line paragraph is cut at "2)"),
    # a content-carrying article heading is a chunk, and the структурный path goes into heading_path
    assert [(c.text, c.heading_path) for c in chunks] == [
        ("1. Срок рассмотрения составляет:", [*art1, "пункт 1"]),
        ("1) десять дней;", [*art1, "пункт 1", "подпункт 1)"]),
        ("Сноска. Подпункт 1) изменен.", [*art1, "пункт 1", "подпункт 1)"]),
        ("2. Продление допускается:", [*art1, "пункт 2"]),
        ("1) десять дней;", [*art1, "пункт 2", "подпункт 1)"]),
        ("2) по решению руководителя.", [*art1, "пункт 2", "подпункт 2)"]),
        ("Сноска. Подпункт 1) изменен.", [*art1, "пункт 2", "подпункт 2)"]),
        (
            "Статья 2. Ввести в действие настоящий Закон с 1 января 2025 года.",
            ["О порядке", "Глава 1. Общие положения", "Статья 2. Ввести в действие настоящий Закон с 1 января 2025 года."],
        ),
        ("Статья 3. Исключена", ["О порядке", "Глава 1. Общие положения", "Статья 3. Исключена"]),
        ("Статья 4. Контроль возлагается на министерство.", ["О порядке", "Глава 2. Заключительные положения", "Статья 4"]),
    ]
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert c.chunk_id == default_chunk_id("doc-v1", c.heading_path, c.text)
        assert c.page_start is None  # no page markers
    assert reg.versions["doc-v1"].pages_known is False


def test_repeats_that_structure_cannot_separate_get_a_counter(tmp_path):
    reg = ingest_text(tmp_path, "# Памятка\n\nПовторите.\n\nПовторите.\n\nПовторите.\n")
    assert [c.heading_path for c in reg.chunks_of("doc-v1")] == [["Памятка"], ["Памятка", "#2"], ["Памятка", "#3"]]


def test_ingest_refuses_a_registry_that_would_not_validate(tmp_path):
    result, out = reingest_refused(tmp_path, MANIFEST + 'supersedes = "doc-v0"\n', "versions.jsonl")
    assert f"ingest refused to write {out}: 1 problem(s)" in result.output
    assert f"{out}/versions.jsonl:1: supersedes: supersedes unknown version 'doc-v0'" in result.output
    assert sorted(p.name for p in out.parent.iterdir()) == ["registry"]


def test_an_unknown_format_is_a_data_error(tmp_path):
    src = make_sources(tmp_path, MANIFEST + 'format = "docx"\n')
    result = CliRunner().invoke(app, ["data", "ingest", str(src), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "document[0].edition[0].format: unknown format 'docx'" in result.output


def test_cli_warns_about_editions_without_pages(tmp_path):
    src = make_sources(tmp_path, source="# Памятка\n\nБез страниц.\n")
    result = CliRunner().invoke(app, ["data", "ingest", str(src), "--out", str(tmp_path / "ds" / "registry")])
    assert result.exit_code == 0, result.output
    assert "warning: doc-v1: no page information (pages_known: false)" in result.output
    line = (tmp_path / "ds" / "registry" / "versions.jsonl").read_text(encoding="utf-8")
    assert json.loads(line)["pages_known"] is False
