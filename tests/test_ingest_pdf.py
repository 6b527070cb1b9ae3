"""PDF ingest round trip: a PDF with known text on known pages (written here with fpdf2) comes back
as chunks whose text, pages and boxes are what the generator placed."""

import os
from pathlib import Path

import matplotlib
import pytest
from fontTools.ttLib import TTFont
from fpdf import FPDF
from ingest_helpers import ingest_valid_dataset

from evals.ingest.pdf import read_pdf, text_from_words

FONT = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
BODY, HEAD = 11.0, 16.0
LEFT = 72.0

# page → [(size, [(baseline, line text), …]) per paragraph]; a soft hyphen ends one line on page 2
LAYOUT = {
    1: [
        (HEAD, [(90.0, "Положение о проверке")]),
        (BODY, [(130.0, "Проверка проводится не реже одного раза"), (144.0, "в двенадцать месяцев.")]),
        (BODY, [(175.0, "Результаты заносятся в журнал.")]),
    ],
    2: [
        (BODY, [(100.0, "Журнал хранится у заведующего отделе\u00ad"), (114.0, "нием пять лет.")]),
    ],
    3: [
        (HEAD, [(90.0, "Статья 5. Сроки")]),
        (BODY, [(130.0, "1. Срок ответа — десять рабочих дней."), (144.0, "2) подпункт о продлении срока.")]),
    ],
}


def _metrics():
    font = TTFont(FONT)
    return font["hhea"].descent / font["head"].unitsPerEm  # negative: below the baseline


def write_pdf(path):
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_font("dejavu", "", str(FONT))
    expected = []  # (text, page, (x0, y0, x1, y1))
    descent = _metrics()
    for page, paragraphs in LAYOUT.items():
        pdf.add_page()
        for size, lines in paragraphs:
            pdf.set_font("dejavu", "", size)
            x1 = 0.0
            for baseline, line in lines:
                pdf.text(LEFT, baseline, line)
                x1 = max(x1, LEFT + pdf.get_string_width(line))
            # pdfminer's glyph box: from baseline − descent up by the font size
            y1 = lines[-1][0] - descent * size
            y0 = lines[0][0] - descent * size - size
            text = "\n".join(line for _, line in lines)
            text = text.replace("\u00ad\n", "")  # hyphenation joined
            expected.append((text, page, (LEFT, y0, x1, y1), size == HEAD))
    pdf.output(str(path))
    return expected


MANIFEST = """
[[document]]
document_id = "check"
title = "Положение о проверке"

[[document.edition]]
version_id = "check-v1"
revision = 1
file = "check.pdf"
effective_from = "2024-01-01"
viewer_url = "https://docs.example/d/check/v/1"
"""


def test_pdf_round_trip_keeps_text_pages_and_boxes(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    expected = write_pdf(src / "check.pdf")
    (src / "manifest.toml").write_text(MANIFEST, encoding="utf-8")
    reg = ingest_valid_dataset(src, tmp_path / "ds")
    text = reg.text("check-v1")
    chunks = reg.chunks_of("check-v1")
    # paragraphs, cut at the пункт / подпункт lines inside «Статья 5»; headings are paths, not chunks
    bodies = [e for e in expected if not e[3]]
    last_text, last_page, last_box, _ = bodies[-1]
    first_line, second_line = last_text.split("\n")
    assert [c.text for c in chunks] == [e[0] for e in bodies[:-1]] + [first_line, second_line]
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
    for chunk, (_, page, box, _) in zip(chunks, bodies[:-1], strict=False):
        assert (chunk.page_start, chunk.page_end) == (page, page)
        assert len(chunk.bbox) == 1 and chunk.bbox[0].page == page
        got = chunk.bbox[0]
        assert (got.x0, got.y0, got.x1, got.y1) == pytest.approx(box, abs=1.0)
    assert chunks[2].text == "Журнал хранится у заведующего отделением пять лет."  # soft hyphen joined
    assert [c.heading_path for c in chunks[-2:]] == [
        ["Статья 5. Сроки", "пункт 1"],
        ["Статья 5. Сроки", "пункт 1", "подпункт 2)"],
    ]
    assert chunks[0].heading_path == ["Положение о проверке"]
    version = reg.versions["check-v1"]
    assert version.pages_known is None and version.source_format == "pdf"
    assert reg.source_pdf("check-v1").read_bytes() == (src / "check.pdf").read_bytes()


def test_pdf_pages_have_offsets_into_the_full_text(tmp_path):
    write_pdf(tmp_path / "check.pdf")
    parsed = read_pdf(tmp_path / "check.pdf")
    assert [p.page for p in parsed.pages] == [1, 2, 3]
    text = parsed.edition.text
    assert text[parsed.pages[1].char_start : parsed.pages[1].char_end] == (
        "Журнал хранится у заведующего отделением пять лет."
    )
    assert text[parsed.pages[0].char_start : parsed.pages[0].char_end].startswith("Положение о проверке\n\n")
    # every word box indexes its own word
    assert all(" " not in text[w.char_start : w.char_end] and w.char_end > w.char_start for w in parsed.words)
    # the joined word keeps a box per line: "отделе" on the first, "нием" right after it on the next
    halves = [w for w in parsed.words if text[w.char_start : w.char_end] in ("отделе", "нием")]
    assert [(w.page, w.char_end == h.char_start) for w, h in zip(halves, halves[1:], strict=False)] == [(2, True)]
    assert halves[1].y0 > halves[0].y1 - 1


def _word(text, x0, top, size=10.0):
    return {"text": text, "x0": x0, "x1": x0 + 6 * len(text), "top": top, "bottom": top + size, "size": size}


def test_u0002_hyphenation_mark_is_removed_and_the_word_joined():
    # as a producer that writes U+0002 at line-end hyphenation would give them to us
    words = [_word("Расчёт", 72, 100), _word("произво\u0002", 120, 100), _word("дится", 72, 112), _word("еже\u0002годно.", 110, 112)]
    parsed = text_from_words([(595.0, 842.0, words)])
    assert parsed.edition.text == "Расчёт производится ежегодно."
    join = [w for w in parsed.words if w.char_start == len("Расчёт ")][0]
    assert parsed.edition.text[join.char_start : join.char_end] == "произво"


def test_a_pdf_without_text_is_refused(tmp_path):
    pdf = FPDF(unit="pt")
    pdf.add_page()
    pdf.rect(10, 10, 100, 100)
    pdf.output(str(tmp_path / "scan.pdf"))
    from evals.errors import DataError

    with pytest.raises(DataError, match="no text layer"):
        read_pdf(tmp_path / "scan.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(DataError, match="not a readable PDF"):
        read_pdf(tmp_path / "broken.pdf")
    assert os.path.exists(tmp_path / "scan.pdf")


def test_a_page_number_alone_at_the_page_foot_or_head_is_left_out():
    page = [_word("– 7 –", 280, 30), _word("Срок", 72, 100), _word("12", 110, 100), _word("12", 72, 400), _word("7", 290, 810)]
    parsed = text_from_words([(595.0, 842.0, page)])
    # "12" alone in mid-page is text; "– 7 –" at the head and "7" at the foot are page numbers
    assert parsed.edition.text == "Срок 12\n\n12"


def test_a_paragraph_running_over_a_page_break_is_one_chunk_on_both_pages():
    from evals.ingest.chunking import chunk_edition

    page1 = [_word("Журнал", 72, 100), _word("хранится", 120, 100), _word("у", 180, 100),
             _word("заведующего", 72, 114), _word("отде\u0002", 150, 114)]
    page2 = [_word("лением", 72, 60), _word("пять", 120, 60), _word("лет.", 150, 60),
             _word("Новый", 72, 90), _word("абзац.", 110, 90)]
    parsed = text_from_words([(595.0, 842.0, page1), (595.0, 842.0, page2)])
    text = parsed.edition.text
    # hand-worked: the page ends mid-sentence and the U+0002 hyphenation joins "отде|лением" over the break;
    # "Новый" is capitalised after a full stop, but 30 pt down from a 14 pt pitch: a paragraph of its own
    assert text == "Журнал хранится у\nзаведующего отделением пять лет.\n\nНовый абзац."
    assert [(p.page, text[p.char_start : p.char_end]) for p in parsed.pages] == [
        (1, "Журнал хранится у\nзаведующего отде"),
        (2, "лением пять лет.\n\nНовый абзац."),
    ]
    chunks = chunk_edition("v", "d", parsed.edition)
    assert [(c.text, c.page_start, c.page_end, [b.page for b in c.bbox]) for c in chunks] == [
        ("Журнал хранится у\nзаведующего отделением пять лет.", 1, 2, [1, 2]),
        ("Новый абзац.", 2, 2, [2]),
    ]


def test_a_new_sentence_on_the_next_page_is_a_new_paragraph():
    page1 = [_word("Первый", 72, 100), _word("абзац.", 130, 100)]
    page2 = [_word("второй", 72, 60), _word("абзац", 120, 60)]
    assert text_from_words([(595.0, 842.0, page1), (595.0, 842.0, page2)]).edition.text == "Первый абзац.\n\nвторой абзац"
