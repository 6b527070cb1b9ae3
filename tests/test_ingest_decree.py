"""Legal structure decides what is a heading, font size is only a hint.

A table-heavy decree (tests/decree_pdf.py: 13.5 pt body, 12 pt tables holding most characters, a
2,300-character amendment preamble ending «постановляю:», numbered items with lettered sub-items)
used to have its body read as headings and ~9,800 non-space characters in no chunk. Law-style
PDFs made from the kz-laws corpus (../shared/corpus/kz-laws, skipped when absent; never copied
into the project) must keep every character too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib
import pytest
from decree_pdf import operative, preamble, write_decree
from fpdf import FPDF
from ingest_helpers import ingest_valid_dataset

from evals.ingest.chunking import MAX_HEADING, Block, EditionText, chunk_edition, text_outside
from evals.ingest.sources import _lost_message

FONTS = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf"


def collapse(text: str) -> str:
    return " ".join(text.split())


def non_space(text: str) -> int:
    return len("".join(text.split()))


def manifest(sources: Path, files: list[str]) -> None:
    lines = []
    for name in files:
        stem = Path(name).stem
        lines += ["[[document]]", f'document_id = "{stem}"', f'title = "{stem}"', "[[document.edition]]",
                  f'version_id = "{stem}-v1"', "revision = 1", f'file = "{name}"', 'effective_from = "2024-01-01"', ""]
    (sources / "manifest.toml").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture(scope="module")
def decree(tmp_path_factory):
    root = tmp_path_factory.mktemp("decree")
    (root / "src").mkdir()
    written = write_decree(root / "src" / "decree.pdf")
    manifest(root / "src", ["decree.pdf"])
    registry = ingest_valid_dataset(root / "src", root / "ds")
    return written, registry


def test_decree_layout_is_table_heavy_with_a_long_preamble(decree):
    written, _ = decree
    assert 24 <= written.pages <= 27
    assert len(preamble()) > 2_000 and preamble().endswith("постановляю:")
    # the tables outweigh the body: by font size alone the 12 pt table text is "the body"
    assert sum(map(non_space, written.cells)) > 2 * sum(map(non_space, written.body))


def test_no_text_of_the_decree_is_lost_and_no_heading_is_long(decree):
    written, registry = decree
    chunks = registry.chunks_of("decree-v1")
    text = registry.text("decree-v1") or ""
    assert non_space(text) == sum(map(non_space, written.body + written.cells))
    headings = {h for c in chunks for h in c.heading_path}
    assert max(len(h) for h in headings) <= MAX_HEADING
    # every character of the text lies in a chunk or a heading a chunk is under
    covered = [False] * len(text)
    for c in chunks:
        covered[c.char_start : c.char_end] = [True] * (c.char_end - c.char_start)
    outside = "".join(ch for ch, cov in zip(text, covered, strict=True) if not cov and not ch.isspace())
    assert collapse(outside) in {collapse(h).replace(" ", "") for h in headings} | {""}


def test_operative_items_are_chunks_under_their_punkt(decree):
    written, registry = decree
    chunks = registry.chunks_of("decree-v1")
    by_text = {collapse(c.text): c for c in chunks}
    preamble_chunk = by_text[collapse(preamble())]
    assert "пункт" not in " ".join(preamble_chunk.heading_path)
    for item in operative():
        chunk = by_text[collapse(item)]  # each item, and each lettered sub-item, is a chunk of its own
        number = re.match(r"(\d+)\.", item)
        letter = re.match(r"([а-я])\)", item)
        if number:
            assert chunk.heading_path[-1] == f"пункт {number.group(1)}"
        else:
            assert letter and chunk.heading_path[-1] == f"подпункт «{letter.group(1)}»"
            assert chunk.heading_path[-2].startswith("пункт ")
        assert chunk.page_start == written.body_pages[written.body.index(item)]


def test_text_outside_names_a_gap_between_blocks():
    text = "Заголовок\n\nПервый абзац.\n\nЗабытый абзац.\n\nПоследний абзац."
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    blocks = [Block(*spans[0], heading_level=1), Block(*spans[1]), Block(*spans[3])]  # the third left out
    edition = EditionText(text, blocks, None)
    chunks = chunk_edition("v", "d", edition)
    assert [text[a:b] for a, b in text_outside(edition, chunks)] == ["Забытый абзац."]
    whole = EditionText(text, [*blocks[:2], Block(*spans[2]), blocks[2]], None)
    assert text_outside(whole, chunk_edition("v", "d", whole)) == []


def test_the_refusal_says_how_much_and_where():
    text = "Абзац первый.\n\nПропущенный абзац на второй странице.\n\nАбзац третий."
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    edition = EditionText(text, [Block(*spans[0]), Block(*spans[2])], [(0, 1), (spans[1][0], 2)])
    lost = text_outside(edition, chunk_edition("v", "d", edition))
    message = _lost_message(edition, lost)
    assert message.startswith(f"{non_space(text[slice(*spans[1])])} non-space characters")
    assert f"at character {spans[1][0]}, page 2: 'Пропущенный абзац на второй странице.'" in message


def test_a_heading_with_nothing_under_it_is_a_chunk():
    text = "Раздел 1\n\nРаздел 2\n\nТекст раздела."
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    edition = EditionText(text, [Block(*spans[0], 1), Block(*spans[1], 1), Block(*spans[2])], None)
    chunks = chunk_edition("v", "d", edition)
    assert [(c.heading_path, c.text) for c in chunks] == [(["Раздел 1"], "Раздел 1"),
                                                         (["Раздел 2"], "Текст раздела.")]
    assert text_outside(edition, chunks) == []


def law_pdf(markdown: str, path: Path) -> list[str]:
    """A law set as a federal law's PDF: title 14 pt bold, chapter headings 13 pt bold, articles and
    their parts in 12 pt, first-line indents, no space between paragraphs. Returns the paragraphs."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_font("serif", "", str(FONTS / "DejaVuSerif.ttf"))
    pdf.add_font("serif", "B", str(FONTS / "DejaVuSerif-Bold.ttf"))
    pdf.set_margins(85, 57, 42)
    pdf.set_auto_page_break(True, 57)
    pdf.add_page()
    paragraphs = []
    for block in re.split(r"\n\s*\n", markdown):
        block = block.strip()
        if not block:
            continue
        heading = re.match(r"(#+)\s+(.*)", block)
        text = heading.group(2) if heading else collapse(block)
        size = (14.0 if len(heading.group(1)) == 1 else 13.0) if heading else 12.0
        pdf.set_font("serif", "B" if heading else "", size)
        pdf.multi_cell(0, size * 1.15, text if heading else "      " + text, align="C" if heading else "J",
                       new_x="LMARGIN", new_y="NEXT")
        paragraphs.append(text)
    pdf.output(str(path))
    return paragraphs


CORPUS = Path(os.environ.get("CITEVAL_KZ_LAWS", Path(__file__).resolve().parents[2] / "shared/corpus/kz-laws"))
# the five shorter laws (the sixth, 1.2 MB, would make the test slow without showing more)
LAWS = sorted(p for p in (CORPUS / "rus").glob("*.md") if p.stat().st_size < 100_000) if CORPUS.is_dir() else []


@pytest.mark.skipif(not LAWS, reason=f"kz-laws corpus not found at {CORPUS}")
def test_law_style_pdfs_lose_no_text(tmp_path):
    (tmp_path / "src").mkdir()
    written = {}
    for law in LAWS:
        written[law.stem] = law_pdf(law.read_text(encoding="utf-8"), tmp_path / "src" / f"{law.stem}.pdf")
    manifest(tmp_path / "src", [f"{law.stem}.pdf" for law in LAWS])
    registry = ingest_valid_dataset(tmp_path / "src", tmp_path / "ds")  # ingest refuses any text left out
    for stem, paragraphs in written.items():
        text = registry.text(f"{stem}-v1") or ""
        chunks = registry.chunks_of(f"{stem}-v1")
        assert non_space(text) == sum(map(non_space, paragraphs))
        assert max(len(h) for c in chunks for h in c.heading_path) <= MAX_HEADING
        articles = [p for p in paragraphs if p.startswith("Статья ")]
        placed = {re.match(r"Статья \d+", h).group(0) for c in chunks for h in c.heading_path
                  if h.startswith("Статья ")}
        assert placed >= {re.match(r"Статья \d+", a).group(0) for a in articles}, stem
