"""The report's evidence card for a PDF-backed citation (issue 18): the cited page region as an embedded
PNG with the chunk's box highlighted, alt text, and the viewer_url opened at that page.

A real run of the reference backend over the demo's medical-gases questions (both editions are PDFs
in the registry), scored and rendered; expectations come from the registry files and pypdf, not from
the report code.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

from evals.report.render import render_report
from evals.run.runner import start_run
from evals.score.scoring import score_run

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"
PDF_DOCUMENT = "medical-gases"
SCALE = 1.25  # the report renders pages at 90 DPI
OUTLINE = (214, 40, 40)  # the highlight's outline colour (evals.data.render)


def pdf_run(root: Path) -> Path:
    """A scored run over a copy of the demo registry and the questions whose gold is in medical-gases."""
    ds = root / "ds"
    shutil.copytree(DEMO / "registry", ds / "registry")
    rows = [json.loads(x) for x in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    keep = [q for q in rows if any(e["document_id"] == PDF_DOCUMENT for e in (q.get("gold") or {}).get("evidence", []))]
    assert len(keep) >= 4
    (ds / "questions.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in keep),
                                        encoding="utf-8")
    run = start_run(ds, "reference", out=root / "runs", run_id="pdf").run_dir
    score_run(run, judge="none")
    return run


class _Regions(HTMLParser):
    """Every <tr class="region">: its image (src, alt) and link (href)."""

    def __init__(self) -> None:
        super().__init__()
        self.regions: list[dict[str, str]] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "tr":
            self._inside = a.get("class") == "region"
            if self._inside:
                self.regions.append({})
        elif self._inside and tag == "img":
            self.regions[-1].update(src=a["src"], alt=a.get("alt", ""))
        elif self._inside and tag == "a":
            self.regions[-1]["href"] = a["href"]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("pdfrun")
    run = pdf_run(root)
    report = render_report([run], root / "report.html").path
    return run, report.read_text(encoding="utf-8")


def _expected_cards(run: Path) -> list[tuple[str, int]]:
    """(version_id, page) of each cited marker whose edition the registry holds as a PDF, in report order
    per question: from answers.jsonl, chunks.jsonl and versions.jsonl."""
    registry = run.parent.parent / "ds" / "registry"
    pdf_editions = {v["version_id"] for v in _jsonl(registry / "versions.jsonl") if v.get("source_file", "").endswith(".pdf")}
    chunks = {c["chunk_id"]: c for c in _jsonl(registry / "chunks.jsonl")}
    out = []
    for answer in _jsonl(run / "answers.jsonl"):
        evidence = {e["evidence_id"]: e for e in answer.get("evidence", [])}
        for claim in answer.get("claims", []):
            for eid in claim.get("evidence_ids", []):
                chunk = chunks.get(evidence.get(eid, {}).get("chunk_id", ""))
                if chunk and chunk["version_id"] in pdf_editions:
                    page = evidence[eid].get("page")
                    inside = page is not None and chunk["page_start"] <= page <= chunk.get("page_end", chunk["page_start"])
                    out.append((chunk["version_id"], page if inside else chunk["page_start"]))
    return out


def test_every_pdf_citation_has_its_page_region_and_link(rendered):
    run, html = rendered
    parser = _Regions()
    parser.feed(html)
    expected = _expected_cards(run)
    assert len(expected) >= 4
    assert len(parser.regions) == len(expected)
    urls = {v["version_id"]: v["viewer_url"] for v in _jsonl(run.parent.parent / "ds" / "registry" / "versions.jsonl")}
    shown = []
    for region in parser.regions:
        assert region["src"].startswith("data:image/png;base64,")
        assert region["alt"].startswith("Page ") and "the cited passage highlighted" in region["alt"]
        version_id = next(v for v in urls if f"({v})" in region["alt"])
        page = int(region["alt"].split()[1])
        assert region["href"] == f"{urls[version_id]}#page={page}"
        shown.append((version_id, page))
    assert sorted(shown) == sorted(expected)


def test_the_gold_page_of_the_current_edition_is_shown(rendered):
    # q-p3-002's gold: medical-gases-v2, page 2 («каждые 4 часа»); the reference backend cites it
    _, html = rendered
    assert 'href="https://docs.altyndala.example/d/medical-gases/v/2#page=2"' in html
    assert "Page 2 of Инструкция по безопасному хранению и использованию медицинского кислорода (medical-gases-v2)" in html


def test_the_image_is_the_page_width_at_90_dpi_with_the_box_drawn(rendered):
    from pypdf import PdfReader

    _, html = rendered
    parser = _Regions()
    parser.feed(html)
    widths = {float(p.mediabox.width) for p in PdfReader(DEMO / "registry" / "files" / "medical-gases-v1.pdf").pages}
    for region in parser.regions:
        png = base64.b64decode(region["src"].split(",", 1)[1])
        assert len(png) < 100_000  # a cropped region, not a whole page at print resolution
        image = Image.open(io.BytesIO(png)).convert("RGB")
        assert any(abs(image.width - w * SCALE) <= 1 for w in widths), image.size
        assert image.height < image.width  # cropped to the region, not the whole A4 page
        colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
        assert OUTLINE in colours  # the chunk's box is outlined


def test_a_citation_of_a_markdown_edition_has_no_image(tmp_path):
    from factories import write_dataset

    ds = write_dataset(tmp_path / "ds")
    run = start_run(ds, "reference", out=tmp_path / "runs", run_id="md").run_dir
    score_run(run, judge="none")
    html = render_report([run], tmp_path / "r.html").path.read_text(encoding="utf-8")
    assert 'class="region"' not in html and "data:image/png" not in html
