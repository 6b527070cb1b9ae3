"""The six Kazakhstan laws of ../shared/corpus/kz-laws ingest into a registry that validates, with every
character of their text in some chunk. Takes the path (CITEVAL_KZ_LAWS, default ../shared/corpus/kz-laws
beside the repository) and skips when it is absent; the corpus is never copied into the project."""

import os
import re
from pathlib import Path

import pytest

from evals.data.registry import Registry
from evals.data.validate import validate_dataset
from evals.ingest.sources import ingest

CORPUS = Path(os.environ.get("CITEVAL_KZ_LAWS", Path(__file__).resolve().parents[2] / "shared/corpus/kz-laws"))
LAWS = sorted((CORPUS / "rus").glob("*.md")) if CORPUS.is_dir() else []
pytestmark = pytest.mark.skipif(len(LAWS) != 6, reason=f"kz-laws corpus not found at {CORPUS}")


def write_manifest(sources: Path, laws: list[Path]) -> None:
    lines = []
    for law in laws:
        lines += [
            "[[document]]",
            f'document_id = "kz-{law.stem}"',
            f'title = "{law.stem}"',
            "[[document.edition]]",
            f'version_id = "kz-{law.stem}-v1"',
            "revision = 1",
            f'file = "{law.as_posix()}"',
            'effective_from = "2020-01-01"',
            "",
        ]
    (sources / "manifest.toml").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    root = tmp_path_factory.mktemp("kz")
    sources = root / "sources"
    sources.mkdir()
    # links, not copies: the corpus is read where it lies (ingest reads only files inside SOURCES)
    (sources / "laws").mkdir()
    for law in LAWS:
        (sources / "laws" / law.name).symlink_to(law)
    write_manifest(sources, [Path("laws") / law.name for law in LAWS])
    result = ingest(sources, root / "ds" / "registry")
    assert sorted(result.without_pages) == sorted(f"kz-{law.stem}-v1" for law in LAWS)
    (root / "ds" / "questions.jsonl").write_text('{"question_id": "q", "question": "?"}\n', encoding="utf-8")
    report = validate_dataset(root / "ds")
    assert report.ok, report.problems[:5]
    assert len(report.warnings) == 6 and all("no page information" in str(w) for w in report.warnings)
    return Registry.load(root / "ds")


def test_every_character_outside_headings_lies_in_a_chunk(registry):
    for law in LAWS:
        version_id = f"kz-{law.stem}-v1"
        text = registry.text(version_id)
        assert text == law.read_text(encoding="utf-8")  # no page markers: the text is the file
        covered = bytearray(len(text))
        for chunk in registry.chunks_of(version_id):
            covered[chunk.char_start : chunk.char_end] = b"\x01" * (chunk.char_end - chunk.char_start)
        headings = bytearray(len(text))
        for m in re.finditer(r"^#{1,6} .*$", text, re.MULTILINE):
            headings[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
        missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i] and not headings[i]]
        assert missing == [], f"{law.name}: {len(missing)} characters in no chunk, first at {missing[:1]}"


def test_article_text_that_sits_in_a_heading_is_a_chunk(registry):
    # 33276: each article is one "## Статья N. …" line; article 1 has no body at all
    chunks = registry.chunks_of("kz-33276-v1")
    article_lines = re.findall(r"^## (Статья \d\..*)$", registry.text("kz-33276-v1"), re.MULTILINE)
    assert len(article_lines) == 3
    assert [line for line in article_lines if line not in {c.text for c in chunks}] == []


def test_chunk_ids_are_unique_and_repeated_sub_items_get_their_structural_path(registry):
    all_ids = [c.chunk_id for v in registry.versions for c in registry.chunks_of(v)]
    assert len(all_ids) == len(set(all_ids))
    note = "Сноска. Подпункт 2) вводится в действие с 01.07.2021 в соответствии с подпунктом 4) пункта 1 статьи 276"
    repeats = [c for c in registry.chunks_of("kz-144582-v1") if c.text.startswith(note)]
    # article 27 has this footnote twice: under подпункт 2) of пункт 1 and of пункт 4 (read in the text)
    assert [c.heading_path[-3:] for c in repeats if "Статья 27." in " ".join(c.heading_path)] == [
        ["Статья 27. Сертификация специалиста и менеджера в области здравоохранения", "пункт 1", "подпункт 2)"],
        ["Статья 27. Сертификация специалиста и менеджера в области здравоохранения", "пункт 4", "подпункт 2)"],
    ]


def test_without_page_markers_no_chunk_claims_a_page(registry):
    for version_id in registry.versions:
        assert registry.versions[version_id].pages_known is False
        assert registry.page_check_skip_reason(version_id) is not None
        assert all(c.page_start is None and c.page_end is None for c in registry.chunks_of(version_id))


def test_a_law_as_pdf_keeps_its_words_and_its_structure(tmp_path):
    """The Labour Code enactment law set as a PDF (fpdf2, wrapped lines, one size): every word comes
    back in order, and its articles and подпункты still cut chunks and name their place."""
    import matplotlib
    from fpdf import FPDF

    law = CORPUS / "rus" / "33276.md"
    paragraphs = [p.lstrip("# ").strip() for p in re.split(r"\n\s*\n", law.read_text(encoding="utf-8")) if p.strip()]
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_font("dejavu", "", str(Path(matplotlib.__file__).parent / "mpl-data/fonts/ttf/DejaVuSans.ttf"))
    pdf.set_font("dejavu", "", 10)
    pdf.add_page()
    for paragraph in paragraphs:
        pdf.multi_cell(0, 13, " ".join(paragraph.split()))
        pdf.ln(8)
    sources = tmp_path / "src"
    sources.mkdir()
    pdf.output(str(sources / "law.pdf"))
    write_manifest(sources, [sources / "law.pdf"])
    ingest(sources, tmp_path / "ds" / "registry")
    chunks = Registry.load(tmp_path / "ds").chunks_of("kz-law-v1")
    assert " ".join(" ".join(c.text for c in chunks).split()) == " ".join(" ".join(paragraphs).split())
    assert [c.text.split(".")[0] for c in chunks if c.text.startswith("Статья")] == ["Статья 1", "Статья 2", "Статья 3"]
    items = [c for c in chunks if re.match(r"\d\) Закон|\d\) Постановление", c.text)]
    assert [c.heading_path for c in items] == [["Статья 2", f"подпункт {k})"] for k in range(1, 8)]
    assert all(c.page_start == 1 and c.bbox and c.bbox[0].page == 1 for c in chunks)
