"""A Label Studio task of a PDF-backed citation shows its page region (issue 18), in a real server
(label-studio 1.23.2 in its own venv) and headless chromium: every <Image> decodes, no console error,
no request leaves the server, and the card without a PDF shows no image.

Skipped like the other server tests when the server's venv is missing and CITEVAL_REQUIRE_LABEL_STUDIO
is unset.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from labelstudio import fixtures as F
from labelstudio import server as S
from labelstudio.fixtures import ls_server, raters  # noqa: F401  (fixtures used by name)
from PIL import Image
from test_report_pages import pdf_run

from evals.label import push
from evals.label.client import LabelStudioClient
from evals.label.tasks import TaskBuilder
from evals.store.runfolder import RunFolder

pytestmark = pytest.mark.slow


def test_the_page_region_shows_in_the_labelling_ui(
    ls_server: S.LabelStudioServer,  # noqa: F811
    raters: tuple[F.Rater, F.Rater],  # noqa: F811
    tmp_path: Path,
) -> None:
    F.need_chromium()
    run = pdf_run(tmp_path)
    built = {t["data"]["question_id"]: t["data"] for t in TaskBuilder(RunFolder(run)).tasks()}
    # the question whose claims cite the most PDF cards; count the images it must show
    def images(data: dict) -> int:
        return sum(len(card.get("page_images", [])) for claim in data["claims"] for card in claim["cards"])

    question_id = max(built, key=lambda q: images(built[q]))
    expected = images(built[question_id])
    assert expected >= 1
    ivanova, _ = raters
    admin = LabelStudioClient(ls_server.url, S.ADMIN_TOKEN)
    result = push(run, "Страницы PDF", client=admin)
    task_id = next(t["id"] for t in admin.list_tasks(result.project_id) if t["data"]["question_id"] == question_id)
    with F.rater_task_page(ls_server, ivanova, result.project_id, task_id) as (page, problems):
        page.get_by_text("Утверждение 1 из", exact=False).first.wait_for(timeout=60_000)
        # Label Studio turns a data URI into a blob: URL before it hands it to <img>
        page.wait_for_function(
            "Array.from(document.images).some(i => i.src.startsWith('blob:') && i.complete)", timeout=60_000
        )
        page.wait_for_timeout(500)
        shown = page.evaluate(
            "Array.from(document.images).filter(i => i.src.startsWith('blob:') || i.src.startsWith('data:'))"
            ".map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width])"
        )
        shot = tmp_path / "labelstudio-page-region.png"
        page.screenshot(path=str(shot), full_page=True)
    F.keep_screenshot(shot)
    assert len(shown) == expected, shown
    # each is the very PNG citeval put in the task: the same pixel size
    sizes = sorted(
        Image.open(io.BytesIO(base64.b64decode(card["page_images"][0]["image"].split(",", 1)[1]))).size
        for claim in built[question_id]["claims"] for card in claim["cards"] if card.get("page_images")
    )
    assert sorted((w, h) for _, w, h, _ in shown) == sizes
    assert all(done and laid_out > 0 for done, _, _, laid_out in shown), shown
    assert problems == []
