"""Ingest speed on the Health Code (680,940 characters): read, chunk with legal structure, validate, write.

    python bench/ingest.py [PATH_TO_KZ_LAWS]      (default ../shared/corpus/kz-laws beside the repo)

Baselines measured in the same run: a bare pass that reads the file, splits it into paragraphs
with one regular expression and hashes each (what any ingest must do at least), and the
registry validation alone (ingest validates what it writes). Also a PDF of the first 40,000
characters, made with fpdf2, through the PDF path (pdfplumber), beside pypdf (text only) and
pypdfium2 (text and character boxes) on the same file. Nothing of the corpus is copied.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
import time
from pathlib import Path

from evals.data.validate import validate_registry
from evals.ingest.sources import ingest

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = """[[document]]
document_id = "health-code"
title = "Кодекс РК о здоровье народа и системе здравоохранения"
[[document.edition]]
version_id = "health-code-v1"
revision = 1
file = "{file}"
effective_from = "2020-07-07"
"""


def best_of(n: int, run) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def bare_pass(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", text):
        hashlib.sha256(match.group(0).encode("utf-8")).hexdigest()


def make_pdf(text: str, out: Path) -> int:
    import matplotlib
    from fpdf import FPDF

    font = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_font("dejavu", "", str(font))
    pdf.set_font("dejavu", "", 10)
    pdf.set_margins(56, 56)
    pdf.add_page()
    for paragraph in re.split(r"\n\s*\n", text):
        pdf.multi_cell(0, 13, paragraph.lstrip("# ").strip())
        pdf.ln(6)
    pdf.output(str(out))
    return pdf.pages_count


def pypdf_text(path: Path) -> None:
    from pypdf import PdfReader

    for page in PdfReader(path).pages:
        page.extract_text()


def pdfium_text_and_boxes(path: Path) -> None:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    for page in document:
        text_page = page.get_textpage()
        text_page.get_text_range()
        for i in range(text_page.count_chars()):
            text_page.get_charbox(i)
    document.close()


def main() -> int:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus" / "kz-laws"
    law = corpus / "rus" / "144582.md"
    if not law.is_file():
        print(f"Health Code not found at {law}: pass the kz-laws folder")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        sources = Path(tmp) / "sources"
        sources.mkdir()
        # a link, not a copy: ingest reads only files inside SOURCES, and the corpus stays where it is
        (sources / law.name).symlink_to(law)
        (sources / "manifest.toml").write_text(MANIFEST.format(file=law.name), encoding="utf-8")
        out = Path(tmp) / "registry"
        baseline = best_of(3, lambda: bare_pass(law))
        full = best_of(3, lambda: ingest(sources, out))
        validation = best_of(3, lambda: validate_registry(out))
        chunks = sum(1 for _ in open(out / "chunks.jsonl", encoding="utf-8"))
        chars = len(law.read_text(encoding="utf-8"))
        print(f"Health Code: {chars:,} characters → {chunks:,} chunks")
        print(f"  ingest (read, legal chunking, write, validate): {full:.2f} s = {full / baseline:.1f}× the bare pass")
        print(f"  bare read + paragraph split + sha256:           {baseline:.3f} s")
        print(f"  validation of the written registry alone:       {validation:.2f} s")

        pdf_sources = Path(tmp) / "pdf"
        pdf_sources.mkdir()
        pages = make_pdf(law.read_text(encoding="utf-8")[:40_000], pdf_sources / "part.pdf")
        (pdf_sources / "manifest.toml").write_text(
            MANIFEST.format(file="part.pdf").replace("health-code", "health-code-pdf"), encoding="utf-8"
        )
        pdf_time = best_of(1, lambda: ingest(pdf_sources, Path(tmp) / "pdf-registry"))
        per_page = pdf_time / pages
        print(f"  PDF of the first 40,000 characters ({pages} pages): {pdf_time:.2f} s ({per_page:.3f} s a page)")
        # the alternatives, on the same file: text alone (pypdf), text and character boxes (pypdfium2)
        pdfium_time = best_of(1, lambda: pdfium_text_and_boxes(pdf_sources / "part.pdf"))
        print(f"    pypdfium2, text and character boxes:      {pdfium_time:.2f} s")
        try:
            pypdf_time = best_of(1, lambda: pypdf_text(pdf_sources / "part.pdf"))
            print(f"    pypdf, text only (no boxes):              {pypdf_time:.2f} s")
        except ImportError:
            print("    pypdf: not installed (pip install pypdf to compare)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
