"""Label Studio tasks show the cited page region of a PDF-backed edition (issue 18), without a server:
the card carries `page_images` (one PNG data URI and a caption), both review configs bind an <Image>
to it inside a <Repeater> (so a card without one shows nothing), and a task stays small."""

from __future__ import annotations

import base64
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_report_pages import OUTLINE, pdf_run

from evals.label.config import ReviewConfig, config_path
from evals.label.tasks import TaskBuilder
from evals.store.runfolder import RunFolder

A4_WIDTH = 595.28  # points, the demo PDFs' page width (pypdf reads it in test_report_pages)
SCALE = 1.25


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, list[dict[str, Any]]]:
    run = pdf_run(tmp_path_factory.mktemp("lspdf"))
    return run, TaskBuilder(RunFolder(run), lang="ru").tasks()


def test_pdf_cards_carry_their_page_region_and_others_do_not(built):
    run, tasks = built
    registry = run.parent.parent / "ds" / "registry"
    versions = {v["version_id"]: v for v in _jsonl(registry / "versions.jsonl")}
    chunks = {c["chunk_id"]: c for c in _jsonl(registry / "chunks.jsonl")}
    answers = {a["question_id"]: a for a in _jsonl(run / "answers.jsonl")}
    with_image = without = 0
    for task in tasks:
        evidence = {e["evidence_id"]: e for e in answers[task["data"]["question_id"]]["evidence"]}
        for claim in task["data"]["claims"]:
            for card in claim["cards"]:
                chunk = chunks[evidence[card["evidence_id"]]["chunk_id"]]
                version = versions[chunk["version_id"]]
                if not version.get("source_file", "").endswith(".pdf"):
                    assert "page_images" not in card
                    without += 1
                    continue
                with_image += 1
                (image,) = card["page_images"]
                page = chunk["page_start"]  # the demo's medical-gases chunks lie on one page each
                assert image["caption"].startswith(f"стр. {page} · {chunk['version_id']} · ")
                assert image["caption"].endswith(f"{version['viewer_url']}#page={page}")
                png = base64.b64decode(image["image"].removeprefix("data:image/png;base64,"))
                picture = Image.open(io.BytesIO(png)).convert("RGB")
                assert abs(picture.width - A4_WIDTH * SCALE) <= 1 and picture.height < picture.width
                assert OUTLINE in {colour for _, colour in picture.getcolors(maxcolors=1 << 20)}
    assert with_image >= 4


def test_a_task_stays_small(built):
    _, tasks = built
    sizes = [len(json.dumps(t, ensure_ascii=False).encode("utf-8")) for t in tasks]
    assert max(sizes) < 400_000, sizes  # a few cropped regions at 90 DPI, never whole pages at print DPI


def _resolve(path: str, data: dict[str, Any]) -> Any:
    """Label Studio's `$a[0].b` data path against task data (a second implementation of its parseValue)."""
    value: Any = data
    for name, index in re.findall(r"\.?([A-Za-z_]\w*)|\[(\d+)\]", path.removeprefix("$")):
        if name:
            value = value.get(name) if isinstance(value, dict) else None
        else:
            value = value[int(index)] if isinstance(value, list) and int(index) < len(value) else None
    return value


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_both_configs_show_the_image_only_where_the_card_has_one(built, lang):
    _, tasks = built
    root = ET.parse(config_path(lang)).getroot()
    parents = {child: parent for parent in root.iter() for child in parent}
    (image,) = root.iter("Image")
    repeater = parents[parents[image]]
    assert repeater.tag == "Repeater" and repeater.attrib["indexFlag"] == "{{kdx}}"
    ReviewConfig.load(config_path(lang))  # the controls still parse as before
    for task in tasks:
        data = task["data"]
        for i, claim in enumerate(data["claims"]):
            for j, card in enumerate(claim["cards"]):
                fill = {"{{idx}}": str(i), "{{jdx}}": str(j)}
                on = repeater.attrib["on"]
                for flag, value in fill.items():
                    on = on.replace(flag, value)
                items = _resolve(on, data) or []  # Label Studio's Repeater: a missing list is no item
                assert len(items) == len(card.get("page_images", []))
                for k in range(len(items)):
                    value = image.attrib["value"]
                    for flag, index in {**fill, "{{kdx}}": str(k)}.items():
                        value = value.replace(flag, index)
                    assert _resolve(value, data) == card["page_images"][k]["image"]
