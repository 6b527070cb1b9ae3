"""docs/how-to/review-round-walkthrough.md, run as written against a real Label Studio server (issue 32).

Every ```bash and ```python block of the page runs in order in a scratch folder laid out like the
repository (test_examples' `scratch`): the test starts the server and sets LABEL_STUDIO_URL /
LABEL_STUDIO_API_KEY and the two raters' own tokens in place of the page's `scripts/labelstudio.sh`
and `export` lines. The figures the page quotes are worked out here from the tasks as the server
holds them, not from citeval's output.

The second test opens a one-claim and a three-claim task in headless Chromium as a rater, reads the
keys shown beside the choices, labels the one-claim task with five keystrokes and checks what pull
brings back, and takes the two screenshots the page shows (written into docs/img/ when
CITEVAL_WRITE_DOC_SCREENSHOTS=1; the committed ones must exist and be referenced).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from label_studio_sdk import LabelStudio
from labelstudio import fixtures as F
from labelstudio import server as S
from labelstudio.fixtures import ls_server, raters  # noqa: F401  (fixtures used by name)
from labelstudio.runs import make_run
from test_examples import Shell, scratch  # noqa: F401  (fixture used by name)

from evals.contract.models import Answer, Claim, Evidence, Judgment, Link
from evals.label import pull, push
from evals.label.client import LabelStudioClient
from evals.store.jsonl import load_jsonl

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "how-to" / "review-round-walkthrough.md"
SHOTS = {1: REPO / "docs" / "img" / "review-task-1-claim.png", 3: REPO / "docs" / "img" / "review-task-3-claims.png"}
PROJECT = "Проверка цитат — разбор"


def page_blocks() -> list[tuple[str, str]]:
    """(language, text) of each ```bash and ```python block, in page order."""
    return re.findall(r"^```(bash|python)\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)


def _ours(line: str) -> bool:
    return not (line.startswith("export ") or "scripts/labelstudio.sh" in line)


def test_the_walkthrough_runs_as_written(scratch, ls_server, raters) -> None:  # noqa: F811
    cwd, env = scratch
    ivanova, petrov = raters
    env = {**env, "LABEL_STUDIO_URL": ls_server.url, "LABEL_STUDIO_API_KEY": S.ADMIN_TOKEN,
           "IVANOVA_KEY": ivanova.api_key, "PETROV_KEY": petrov.api_key}
    shell = Shell(cwd, env)
    blocks = page_blocks()
    assert [lang for lang, _ in blocks] == ["bash", "bash", "python", "bash", "python", "bash"]
    agree_outputs = []
    for n, (lang, text) in enumerate(blocks):
        if lang == "python":
            script = cwd / f"block{n}.py"
            script.write_text(text, encoding="utf-8")
            done = subprocess.run(["python", str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"python block {n}:\n{done.stderr[-3000:]}"
            continue
        for line in text.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line and not line.startswith("#") and _ours(line):
                shell.run(line)
                if line.startswith("citeval agree"):
                    agree_outputs.append(shell.outputs[line].stdout)
    out = shell.outputs

    # --- what the server holds, independently of citeval -------------------------------
    admin = LabelStudio(base_url=ls_server.url, api_key=S.ADMIN_TOKEN)
    (project,) = [p for p in admin.projects.list(title=PROJECT) if p.title == PROJECT]
    tasks = sorted(admin.tasks.list(project=project.id, fields="all"), key=lambda t: t.data["question_id"])
    assert len(tasks) == 6

    def n_labels(task: Any) -> int:  # significant per claim, support and anchor per card, two per answer
        claims = task.data["claims"]
        return len(claims) + 2 * sum(len(c["cards"]) for c in claims) + 2

    pulled = next(r for c, r in out.items() if c.startswith("citeval label pull")).stdout
    qids = [t.data["question_id"] for t in tasks]
    assert (f"{ivanova.email}: 5 task(s) done, {sum(n_labels(t) for t in tasks[:5])} label(s), 1 skipped, 208 s spent; "
            f"not yet done: 1 ({qids[5]})") in pulled
    assert (f"{petrov.email}: 5 task(s) done, {sum(n_labels(t) for t in tasks[:4] + tasks[5:])} label(s), 275 s spent; "
            f"not yet done: 1 ({qids[4]})") in pulled
    assert "1 draft(s) ignored" in pulled
    assert "still missing for two raters per task: 2 task(s) with 1 rater(s)" in pulled

    # 208 s: 5 × 40 labelled plus the 8 s of the skip; the draft's 12 s are no annotation
    # before settling: the first task's claim #1 is open, tasks 2-4 are accepted: 475 s / 3, at 1500 an hour
    assert "158 s per accepted answer, cost 65.97 per accepted answer at 1500/hour" in agree_outputs[0]
    doc = json.loads((cwd / "runs" / "review" / "agreement.json").read_text(encoding="utf-8"))
    support = doc["fields"]["support"]
    co_labelled = sum(len(c["cards"]) for t in tasks[:4] for c in t.data["claims"])
    assert support["percent_agreement"]["value"] == pytest.approx((co_labelled - 1) / co_labelled)
    (settled,) = support["disagreements"]
    first_claims = tasks[0].data["claims"]
    assert (settled["question_id"], settled["claim_id"], settled["evidence_id"]) == (
        qids[0], first_claims[1]["claim_id"], first_claims[1]["cards"][0]["evidence_id"]
    )
    assert settled["adjudicated"] == "partial"
    a, b = doc["rater_time"][f"human:{ivanova.email}"], doc["rater_time"][f"human:{petrov.email}"]
    assert (a["tasks"], a["seconds_per_task"], a["tasks_per_hour"]) == (5, {"median": 40.0, "p90": 40.0}, 90.0)
    assert (b["tasks"], b["seconds_per_task"]) == (5, {"median": 55.0, "p90": 55.0})
    assert b["tasks_per_hour"] == pytest.approx(3600 / 55, abs=1e-3)
    cost = doc["cost"]
    assert (cost["answers"], cost["accepted_answers"], cost["rater_seconds"]) == (6, 4, 475.0)
    assert cost["seconds_per_accepted_answer"] == 118.75
    assert cost["cost_per_accepted_answer"] == pytest.approx(118.75 / 3600 * 1500, abs=1e-4)
    assert "49.48 per accepted answer at 1500/hour" in agree_outputs[1]
    rows = load_jsonl(cwd / "runs" / "review" / "judgments.jsonl", Judgment)
    assert [(j.question_id, j.field, j.value) for j in rows if j.source == "adjudicated"] == [
        (qids[0], "support", "partial")
    ]
    html = (cwd / "reports" / "review.html").read_text(encoding="utf-8")
    assert "Rater time (Label Studio lead_time)" in html and "Accepted answers: 4 of 6" in " ".join(html.split())


# --- the rater's view: keys, links, screenshots ----------------------------------------


def _answers() -> list[Answer]:
    one = Answer(question_id="q2", status="answered", answer_text="Срок рассмотрения — 5 рабочих дней [E1].",
                 claims=[Claim(claim_id="c1", text="Срок рассмотрения — 5 рабочих дней", evidence_ids=["E1"])],
                 evidence=[Evidence(evidence_id="E1", chunk_id="k-d1v2-1")])
    three = Answer(
        question_id="q1", status="answered",
        answer_text="Заявление рассматривают 5 рабочих дней [E1]. Комиссия — 1 % [E1, E2]. Проценты — ежемесячно [E3].",
        claims=[
            Claim(claim_id="c1", text="Заявление рассматривают 5 рабочих дней", evidence_ids=["E1"]),
            Claim(claim_id="c2", text="Комиссия — 1 % суммы, не менее 50 ₽", evidence_ids=["E1", "E2"]),
            Claim(claim_id="c3", text="Проценты начисляются ежемесячно", evidence_ids=["E3"]),
        ],
        evidence=[Evidence(evidence_id="E1", chunk_id="k-d1v2-1"), Evidence(evidence_id="E2", chunk_id="k-d2v1-1"),
                  Evidence(evidence_id="E3", chunk_id="k-d1v2-2")],
    )
    one.links = [Link(evidence_id="E1", url="https://docs.example/d/D1/v/2#page=3")]
    four = Answer(
        question_id="q4", status="answered", answer_text="Четыре утверждения.",
        claims=[Claim(claim_id=f"c{i}", text=f"Утверждение номер {i}", evidence_ids=["E1"]) for i in range(1, 5)],
        evidence=[Evidence(evidence_id="E1", chunk_id="k-d1v2-2")],
    )
    return [one, three, four]


def _small_png(source: Path, target: Path) -> None:
    from PIL import Image

    with Image.open(source) as image:
        image = image.convert("RGB")
        image.thumbnail((900, 2400))
        image.quantize(colors=64).save(target, optimize=True)


def test_a_rater_sees_the_keys_and_labels_a_one_claim_task_with_five_keystrokes(
    ls_server, raters, tmp_path: Path  # noqa: F811
) -> None:
    F.need_chromium()
    ivanova, _ = raters
    run_dir = make_run(tmp_path, run_id="run-keys", answers=_answers(), judgments=False)
    admin = LabelStudioClient(ls_server.url, S.ADMIN_TOKEN)
    result = push(run_dir, "Клавиши", client=admin)
    task_ids = {t["data"]["question_id"]: t["id"] for t in admin.list_tasks(result.project_id)}
    shots = {}
    with F.rater_task_page(ls_server, ivanova, result.project_id, task_ids["q2"]) as (page, problems):
        page.get_by_text("Утверждение 1 из 1", exact=False).wait_for(timeout=60_000)
        page.wait_for_timeout(500)  # dynamic choices are built after the first render
        text = page.inner_text("body")
        for key in ("[1]", "[2]", "[3]", "[6]", "[7]", "[9]", "[z]", "[x]", "[c]", "[v]"):
            assert key in text, key
        link = page.locator('a[target="_blank"][href="https://docs.example/d/D1/v/2#page=3"]')
        assert link.count() == 2  # the answer's link and the registry's page link, both clickable
        for key in ("1", "3", "7", "x", "c"):
            page.keyboard.press(key)
        page.wait_for_timeout(300)
        assert page.locator(".ant-radio-wrapper-checked").count() == 5  # one per question; pull says which
        shots[1] = tmp_path / "one.png"
        page.screenshot(path=str(shots[1]), full_page=True)
        page.keyboard.press("Control+Enter")
        page.wait_for_timeout(1500)
    assert problems == []
    report = pull(run_dir, "Клавиши", client=admin)
    got = {(j.claim_id, j.evidence_id, j.field): j.value for j in report.judgments}
    assert got == {
        ("c1", None, "significant"): "yes", ("c1", "E1", "support"): "supported", ("c1", "E1", "anchor"): "yes",
        (None, None, "should_abstain"): "no", (None, None, "version_ok"): "yes",
    }
    with F.rater_task_page(ls_server, ivanova, result.project_id, task_ids["q1"]) as (page, problems):
        page.get_by_text("Утверждение 3 из 3", exact=False).wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        text = page.inner_text("body")
        assert "[shift+3]" not in text  # claim #0 has one source: no shifted keys in its row
        for key in ("[1]", "[q]", "[a]", "[e]", "[shift+e]", "[d]", "[z]"):
            assert key in text, key
        shots[3] = tmp_path / "three.png"
        page.screenshot(path=str(shots[3]), full_page=True)
        # a required question left open is named by its claim and source
        page.keyboard.press("1")  # claim #0 significant: yes; its source's support is the first open question
        page.keyboard.press("Control+Enter")
        page.get_by_text("Утверждение #0, источник #0: подтверждает ли фрагмент утверждение?").wait_for(timeout=10_000)
    assert problems == []
    with F.rater_task_page(ls_server, ivanova, result.project_id, task_ids["q4"]) as (page, problems):
        page.get_by_text("Утверждение 4 из 4", exact=False).wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        text = page.inner_text("body")
        # claim #3 has no key: its 9 choices show [—] and Label Studio assigns it none of its own
        assert text.count("[—]") == 9 and "[0]" not in text and "[b]" not in text
        for key in ("[1]", "[q]", "[a]", "[l]", "[z]", "[v]"):
            assert key in text, key
    assert problems == []
    for n, shot in shots.items():
        F.keep_screenshot(shot)
        if os.environ.get("CITEVAL_WRITE_DOC_SCREENSHOTS"):
            _small_png(shot, SHOTS[n])
    page_text = PAGE.read_text(encoding="utf-8")
    for path in SHOTS.values():
        assert path.is_file() and path.stat().st_size < 400_000, path
        assert f"../img/{path.name}" in page_text
    shutil.rmtree(tmp_path / "runs", ignore_errors=True)


def test_a_ground_truth_star_set_on_the_server_is_pulled_as_adjudicated(ls_server, raters, tmp_path: Path) -> None:  # noqa: F811
    """The lead settles a task in Label Studio: an annotation of their own, starred as ground truth."""
    ivanova, petrov = raters
    run_dir = make_run(tmp_path, run_id="run-truth", answers=_answers()[:1], judgments=False)  # q2 only
    admin = LabelStudioClient(ls_server.url, S.ADMIN_TOKEN)
    result = push(run_dir, "Эталон", client=admin)
    (task,) = admin.list_tasks(result.project_id)

    def labels(support: str) -> list[dict[str, Any]]:
        pick = [("significant_0", "claim_0", "yes"), ("support_0_0", "card_0_0", support),
                ("anchor_0_0", "card_0_0", "yes"), ("should_abstain", "answer", "no"), ("version_ok", "answer", "yes")]
        return [{"from_name": n, "to_name": t, "type": "choices", "value": {"choices": [v]}} for n, t, v in pick]

    LabelStudio(base_url=ls_server.url, api_key=ivanova.api_key).annotations.create(
        id=task["id"], result=labels("supported"), lead_time=31.5)
    LabelStudio(base_url=ls_server.url, api_key=petrov.api_key).annotations.create(
        id=task["id"], result=labels("unsupported"), lead_time=44.0)
    lead = LabelStudio(base_url=ls_server.url, api_key=S.ADMIN_TOKEN)
    star = lead.annotations.create(id=task["id"], result=labels("partial")[1:2], lead_time=20.0)
    lead.annotations.update(id=star.id, ground_truth=True)  # the star in the task's annotation list
    report = pull(run_dir, "Эталон", client=admin)
    settled = [(j.claim_id, j.evidence_id, j.field, j.value) for j in report.judgments if j.source == "adjudicated"]
    assert settled == [("c1", "E1", "support", "partial")]
    assert report.adjudicated == {"q2": S.ADMIN_EMAIL}
    assert sorted(report.raters) == [ivanova.email, petrov.email]  # the lead is no rater
    seconds = {j.source: j.model_extra.get("lead_time") for j in report.judgments}
    assert seconds == {f"human:{ivanova.email}": 31.5, f"human:{petrov.email}": 44.0, "adjudicated": 20.0}
