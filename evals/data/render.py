"""A PDF page as a PNG data URI with a chunk's boxes highlighted (pypdfium2, Pillow).

For the report's evidence card and the Label Studio task: the cited region is shown from the
registry's own copy of the edition (registry/files/<version_id>.pdf), never from a URL, so the
self-contained report stays self-contained. Boxes are citeval's (PDF points, top-left origin).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable
from pathlib import Path

from evals.contract.models import BBox, Chunk, Version
from evals.data.registry import Registry
from evals.errors import DataError

HIGHLIGHT_FILL = (255, 214, 0, 96)  # translucent yellow: the text stays readable under it
HIGHLIGHT_OUTLINE = (214, 40, 40, 255)


def render_page_png(
    pdf_path: Path | str,
    page: int,
    boxes: Iterable[BBox] = (),
    scale: float = 1.5,
    crop_margin: float | None = None,
) -> bytes:
    """PNG bytes of page `page` (1-based) with every box on that page highlighted.

    `crop_margin` (points): cut the image to the boxes' union plus this margin, full width kept,
    so a card shows the region rather than the whole page.
    """
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    path = Path(pdf_path)
    try:
        document = pdfium.PdfDocument(str(path))
    except (pdfium.PdfiumError, OSError) as exc:
        raise DataError(path, None, f"not a readable PDF: {exc}") from None
    try:
        if not 1 <= page <= len(document):
            raise DataError(path, None, f"page {page} is outside the PDF's 1..{len(document)}")
        image = document[page - 1].render(scale=scale).to_pil().convert("RGBA")
    finally:
        document.close()
    on_page = [b for b in boxes if b.page == page]
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for b in on_page:
        rect = (b.x0 * scale, b.y0 * scale, b.x1 * scale, b.y1 * scale)
        draw.rectangle(rect, fill=HIGHLIGHT_FILL, outline=HIGHLIGHT_OUTLINE, width=max(1, round(scale)))
    image = Image.alpha_composite(image, overlay).convert("RGB")
    if crop_margin is not None and on_page:
        top = max(0.0, (min(b.y0 for b in on_page) - crop_margin) * scale)
        bottom = min(float(image.height), (max(b.y1 for b in on_page) + crop_margin) * scale)
        image = image.crop((0, int(top), image.width, int(bottom + 0.5)))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_page_region(
    pdf_path: Path | str, page: int, boxes: Iterable[BBox] = (), scale: float = 1.5, crop_margin: float | None = None
) -> str:
    """The page with its boxes highlighted, as a `data:image/png;base64,…` URI for an <img> tag."""
    return png_data_uri(render_page_png(pdf_path, page, boxes, scale=scale, crop_margin=crop_margin))


def render_chunk_region(
    registry: Registry, chunk: Chunk, page: int | None = None, scale: float = 1.5, crop_margin: float | None = 36.0
) -> str | None:
    """The cited region of a chunk as a data URI, or None when the registry holds no PDF of its edition
    or the chunk has no page. `page` picks one of the chunk's pages (default: its first)."""
    pdf_path = registry.source_pdf(chunk.version_id)
    first = page if page is not None else chunk.page_start
    if pdf_path is None or first is None:
        return None
    return render_page_region(pdf_path, first, chunk.bbox or (), scale=scale, crop_margin=crop_margin)


def cited_page(chunk: Chunk, page: int | None = None) -> int | None:
    """The page a citation shows: `page` (the evidence's own) when it lies within the chunk's pages,
    else the chunk's first page; None for a chunk without pages."""
    if chunk.page_start is None:
        return None
    last = chunk.page_end if chunk.page_end is not None else chunk.page_start
    return page if page is not None and chunk.page_start <= page <= last else chunk.page_start


_REGIONS: dict[tuple[str, int, str, int, float, float | None], str | None] = {}
_REGIONS_KEPT = 512


def cached_chunk_region(
    registry: Registry, chunk: Chunk, page: int | None = None, scale: float = 1.5, crop_margin: float | None = 36.0
) -> str | None:
    """`render_chunk_region` remembered per (PDF file as it is on disk, chunk, page, scale, margin): a report
    over several runs, or a Label Studio push, renders each cited region once (~0.1 s a page)."""
    pdf_path = registry.source_pdf(chunk.version_id)
    first = page if page is not None else chunk.page_start
    if pdf_path is None or first is None:
        return None
    key = (str(pdf_path), pdf_path.stat().st_mtime_ns, chunk.chunk_id, first, scale, crop_margin)
    if key not in _REGIONS:
        if len(_REGIONS) >= _REGIONS_KEPT:
            _REGIONS.clear()
        _REGIONS[key] = render_chunk_region(registry, chunk, page=first, scale=scale, crop_margin=crop_margin)
    return _REGIONS[key]


def page_link(version: Version, page: int | None) -> str | None:
    """The registry's own link to the edition opened at a page: viewer_url#page=N (the form PDF viewers
    and citeval's link checks read); None without a viewer_url."""
    if not version.viewer_url:
        return None
    return version.viewer_url if page is None else f"{version.viewer_url}#page={page}"
