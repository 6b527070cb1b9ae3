"""Page region rendering: a PDF page as a PNG data URI with the chunk's box highlighted."""

import base64
import io

import pytest
from fpdf import FPDF
from PIL import Image

from evals.contract.models import BBox
from evals.data.registry import Registry
from evals.data.render import HIGHLIGHT_FILL, render_chunk_region, render_page_region
from evals.errors import DataError
from evals.ingest.sources import ingest


def blank_pdf(path, pages=2):
    pdf = FPDF(unit="pt", format=(400, 300))
    for _ in range(pages):
        pdf.add_page()
    pdf.output(str(path))


def decode(uri):
    assert uri.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")


def expected_fill():
    # the highlight composited over a white page, by hand: white·(1 − a) + fill·a
    a = HIGHLIGHT_FILL[3] / 255
    return tuple(round(255 * (1 - a) + c * a) for c in HIGHLIGHT_FILL[:3])


def test_the_box_is_highlighted_on_its_page_only(tmp_path):
    blank_pdf(tmp_path / "p.pdf")
    box = BBox(page=2, x0=100, y0=50, x1=200, y1=80)
    image = decode(render_page_region(tmp_path / "p.pdf", 2, [box], scale=2.0))
    assert image.size == (800, 600)  # 400 × 300 pt at scale 2
    inside = image.getpixel((300, 130))  # (150, 65) pt
    assert all(abs(a - b) <= 2 for a, b in zip(inside, expected_fill(), strict=True))
    assert image.getpixel((100, 400)) == (255, 255, 255)
    # the same box does not show on page 1
    other = decode(render_page_region(tmp_path / "p.pdf", 1, [box], scale=2.0))
    assert other.getpixel((300, 130)) == (255, 255, 255)


def test_crop_keeps_the_region_and_a_margin(tmp_path):
    blank_pdf(tmp_path / "p.pdf", pages=1)
    box = BBox(page=1, x0=100, y0=100, x1=200, y1=130)
    image = decode(render_page_region(tmp_path / "p.pdf", 1, [box], scale=1.0, crop_margin=20))
    assert image.size == (400, 70)  # 130 + 20 − (100 − 20)
    with pytest.raises(DataError, match="outside the PDF"):
        render_page_region(tmp_path / "p.pdf", 3, [box])


def test_render_chunk_region_uses_the_registry_copy_of_the_pdf(tmp_path):
    from test_ingest_pdf import MANIFEST, write_pdf

    src = tmp_path / "src"
    src.mkdir()
    write_pdf(src / "check.pdf")
    (src / "manifest.toml").write_text(MANIFEST, encoding="utf-8")
    ingest(src, tmp_path / "ds" / "registry")
    (src / "check.pdf").unlink()  # the registry holds its own copy
    reg = Registry.load(tmp_path / "ds")
    chunk = [c for c in reg.chunks_of("check-v1") if c.page_start == 2][0]
    image = decode(render_chunk_region(reg, chunk, scale=1.0, crop_margin=10))
    box = chunk.bbox[0]
    assert image.height == pytest.approx(box.y1 - box.y0 + 20, abs=1.5)
    assert any(image.getpixel((x, 10)) != (255, 255, 255) for x in range(int(box.x0), int(box.x1)))


def test_page_link_opens_the_edition_at_the_page():
    from evals.contract.models import Version
    from evals.data.render import page_link

    base = {"version_id": "v", "document_id": "d", "revision": 1, "content_sha256": "x", "effective_from": "2024-01-01"}
    with_url = Version.model_validate({**base, "viewer_url": "https://docs.example/d/d/v/1"})
    assert page_link(with_url, 3) == "https://docs.example/d/d/v/1#page=3"
    assert page_link(with_url, None) == "https://docs.example/d/d/v/1"
    assert page_link(Version.model_validate(base), 3) is None
