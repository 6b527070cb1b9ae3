"""Label Studio review round against a real server (label-studio 1.23.2 in its own venv).

Two raters join by invite link, annotate through the API as themselves (one with a
personal access token, one with a legacy token), with some disagreement, a skip, a draft,
a replaced annotation and results the config does not produce. Pull must give exactly
the labels worked out by hand, and `citeval agree` the hand-computed agreement.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from label_studio_sdk import LabelStudio
from labelstudio import fixtures as F
from labelstudio import server as S
from labelstudio.fixtures import ls_env, ls_server, raters  # noqa: F401  (fixtures used by name)
from labelstudio.runs import make_answers, make_run, synthetic_answers
from typer.testing import CliRunner

from cli import app
from evals.contract.models import Answer, Claim, Evidence, Judgment
from evals.errors import BackendError
from evals.label import pull, push
from evals.label.client import LabelStudioClient
from evals.store.jsonl import load_jsonl, write_jsonl_atomic

pytestmark = pytest.mark.slow
runner = CliRunner()
PROJECT = "Проверка цитат — пилот"


def _c(name: str, to: str, value: str) -> dict[str, Any]:
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": [value]}}


def _q1(sig1: str, s10: str, a11: str, comment: str | None = None) -> list[dict[str, Any]]:
    result = [
        _c("significant_0", "claim_0", "yes"),
        _c("support_0_0", "card_0_0", "supported"),
        _c("anchor_0_0", "card_0_0", "yes"),
        _c("significant_1", "claim_1", sig1),
        _c("support_1_0", "card_1_0", s10),
        _c("anchor_1_0", "card_1_0", "na"),
        _c("support_1_1", "card_1_1", "supported"),
        _c("anchor_1_1", "card_1_1", a11),
        _c("should_abstain", "answer", "no"),
        _c("version_ok", "answer", "yes"),
    ]
    if comment:
        result.append({"from_name": "comment", "to_name": "answer", "type": "textarea", "value": {"text": [comment]}})
    return result


def _q2(anchor: str, version_ok: str) -> list[dict[str, Any]]:
    return [
        _c("significant_0", "claim_0", "yes"),
        _c("support_0_0", "card_0_0", "supported"),
        _c("anchor_0_0", "card_0_0", anchor),
        _c("should_abstain", "answer", "no"),
        _c("version_ok", "answer", version_ok),
    ]


Q3 = [_c("should_abstain", "answer", "yes"), _c("version_ok", "answer", "yes")]
Q4 = [
    _c("significant_0", "claim_0", "yes"),
    _c("support_0_0", "card_0_0", "supported"),
    _c("anchor_0_0", "card_0_0", "yes"),
    _c("should_abstain", "answer", "no"),
    _c("version_ok", "answer", "yes"),
]
Q6_B = [
    _c("significant_0", "claim_0", "no"),
    _c("support_0_0", "card_0_0", "unsupported"),
    _c("anchor_0_0", "card_0_0", "na"),
    _c("significant_1", "claim_1", "no"),
    _c("should_abstain", "answer", "no"),
    _c("version_ok", "answer", "yes"),
    _c("support_5_0", "card_5_0", "supported"),  # no claim 5: the server keeps it, pull must not
    _c("verdict", "answer", "yes"),  # not a control of the config
]

A_COMMENT = "E1 говорит о сроке, не о комиссии"
HAND = {  # (question, claim, evidence, field) → (ivanova, petrov)
    ("q1", "c1", "E1", "support"): ("supported", "supported"),
    ("q1", "c2", "E1", "support"): ("unsupported", "partial"),
    ("q1", "c2", "E2", "support"): ("supported", "supported"),
    ("q2", "c1", "E1", "support"): ("supported", "supported"),
    ("q4", "s1", "E1", "support"): ("supported", None),
    ("q6", "c1", "E99", "support"): (None, "unsupported"),
    ("q1", "c1", "E1", "anchor"): ("yes", "yes"),
    ("q1", "c2", "E1", "anchor"): ("na", "na"),
    ("q1", "c2", "E2", "anchor"): ("no", "yes"),
    ("q2", "c1", "E1", "anchor"): ("yes", "no"),
    ("q4", "s1", "E1", "anchor"): ("yes", None),
    ("q6", "c1", "E99", "anchor"): (None, "na"),
    ("q1", "c1", None, "significant"): ("yes", "yes"),
    ("q1", "c2", None, "significant"): ("yes", "yes"),
    ("q2", "c1", None, "significant"): ("yes", "yes"),
    ("q4", "s1", None, "significant"): ("yes", None),
    ("q6", "c1", None, "significant"): (None, "no"),
    ("q6", "c2", None, "significant"): (None, "no"),
    ("q1", None, None, "should_abstain"): ("no", "no"),
    ("q2", None, None, "should_abstain"): ("no", "no"),
    ("q3", None, None, "should_abstain"): ("yes", "yes"),
    ("q4", None, None, "should_abstain"): ("no", None),
    ("q6", None, None, "should_abstain"): (None, "no"),
    ("q1", None, None, "version_ok"): ("yes", "yes"),
    ("q2", None, None, "version_ok"): ("no", "no"),  # ivanova's second annotation replaced "yes"
    ("q3", None, None, "version_ok"): ("yes", "yes"),
    ("q4", None, None, "version_ok"): ("yes", None),
    ("q6", None, None, "version_ok"): (None, "yes"),
}


def _hand_percent_agreement(field: str) -> float:
    pairs = [(a, b) for (_, _, _, f), (a, b) in HAND.items() if f == field and a is not None and b is not None]
    return sum(a == b for a, b in pairs) / len(pairs)


def _tasks_by_question(client: LabelStudio, project_id: int) -> dict[str, Any]:
    return {t.data["question_id"]: t for t in client.tasks.list(project=project_id, fields="all")}


def test_push_annotate_pull_agree(ls_env: S.LabelStudioServer, raters, tmp_path: Path) -> None:  # noqa: F811
    server = ls_env
    ivanova, petrov = raters
    admin = LabelStudio(base_url=server.url, api_key=S.ADMIN_TOKEN)
    admin.projects.create(
        title=PROJECT + " (старый)", label_config="<View></View>"
    )  # the title search matches this too
    run_dir = make_run(tmp_path)

    t0 = time.monotonic()
    first = runner.invoke(app, ["label", "push", str(run_dir), "--project", PROJECT])
    assert first.exit_code == 0, first.output
    assert "imported 5" in first.output and "created" in first.output
    push_seconds = time.monotonic() - t0
    (project,) = [p for p in admin.projects.list(title=PROJECT) if p.title == PROJECT]
    assert project.maximum_annotations == 2 and project.show_collab_predictions is False
    tasks = _tasks_by_question(admin, project.id)
    assert sorted(tasks) == ["q1", "q2", "q3", "q4", "q6"]
    assert all(not t.predictions for t in tasks.values())  # raters judge blind by default
    assert all(t.meta["run_id"] == "run-0001" and t.meta["question_id"] == q for q, t in tasks.items())

    # --- the raters annotate, each as themselves -------------------------------------
    a = LabelStudio(base_url=server.url, api_key=ivanova.api_key)  # personal access token (JWT)
    b = LabelStudio(base_url=server.url, api_key=petrov.api_key)  # legacy token
    assert a.users.whoami().email == ivanova.email and b.users.whoami().email == petrov.email
    tid = {q: t.id for q, t in tasks.items()}
    a.annotations.create(id=tid["q1"], result=_q1("yes", "unsupported", "no", A_COMMENT), lead_time=30.0)
    a.annotations.create(id=tid["q2"], result=_q2("yes", "yes"))
    time.sleep(1.1)  # a later annotation by the same rater replaces the earlier one
    a.annotations.create(id=tid["q2"], result=_q2("yes", "no"))
    a.annotations.create(id=tid["q3"], result=Q3)
    a.annotations.create(id=tid["q4"], result=Q4)
    a.annotations.create(id=tid["q6"], result=[], was_cancelled=True)  # skipped: not a label

    # in the labelling stream petrov sees no one else's verdicts
    nxt = httpx.get(
        f"{server.url}/api/projects/{project.id}/next", headers={"Authorization": f"Token {petrov.api_key}"}
    )
    assert nxt.status_code == 200, nxt.text
    assert nxt.json()["annotations"] == [] and not nxt.json().get("predictions")

    b.annotations.create(id=tid["q1"], result=_q1("yes", "partial", "yes"))
    b.annotations.create(id=tid["q2"], result=_q2("no", "no"))
    b.annotations.create(id=tid["q3"], result=Q3)
    draft = httpx.post(
        f"{server.url}/api/tasks/{tid['q4']}/drafts",
        headers={"Authorization": f"Token {petrov.api_key}"},
        json={"result": Q4, "lead_time": 5},
    )
    assert draft.status_code == 201, draft.text  # a draft is not a label
    b.annotations.create(id=tid["q6"], result=Q6_B)

    # --- pull --------------------------------------------------------------------------
    pulled = runner.invoke(app, ["label", "pull", str(run_dir), "--project", PROJECT])
    assert pulled.exit_code == 0, pulled.output
    out = pulled.output
    assert f"{ivanova.email}: 4 task(s) done, 22 label(s), 1 skipped, 30 s spent; not yet done: 1 (q6)" in out
    assert f"{petrov.email}: 4 task(s) done, 23 label(s); not yet done: 1 (q4)" in out
    assert "still missing for two raters per task: 2 task(s) with 1 rater(s) — 2 annotation(s) to go" in out
    assert "1 draft(s) ignored" in out
    assert "2 result(s) not used" in out and "support_5_0" in out and "'verdict'" in out

    humans = [j for j in load_jsonl(run_dir / "judgments.jsonl", Judgment) if j.source.startswith("human:")]
    got = {(j.question_id, j.claim_id, j.evidence_id, j.field, j.source): j.value for j in humans}
    want = {}
    for (q, c, e, f), (va, vb) in HAND.items():
        if va is not None:
            want[(q, c, e, f, f"human:{ivanova.email}")] = va
        if vb is not None:
            want[(q, c, e, f, f"human:{petrov.email}")] = vb
    assert got == want and len(humans) == len(want) == 45
    assert {j.comment for j in humans if j.question_id == "q1" and j.source == f"human:{ivanova.email}"} == {A_COMMENT}
    assert all(j.run_id == "run-0001" for j in humans)

    again = runner.invoke(app, ["label", "pull", str(run_dir), "--project", PROJECT, "--format", "json"])
    assert again.exit_code == 0 and json.loads(again.output)["added"] == 0  # pulling twice adds nothing
    assert len(load_jsonl(run_dir / "judgments.jsonl", Judgment)) == len(humans) + 7

    # --- agreement: citeval agree equals the hand-computed figures ----------------------
    agreed = runner.invoke(app, ["agree", str(run_dir), "--format", "json", "--resamples", "200"])
    assert agreed.exit_code == 0, agreed.output
    fields = json.loads(agreed.output)["fields"]
    assert {
        f: fields[f]["percent_agreement"]["value"]
        for f in ("support", "anchor", "significant", "should_abstain", "version_ok")
    } == pytest.approx({"support": 0.75, "anchor": 0.5, "significant": 1.0, "should_abstain": 1.0, "version_ok": 1.0})
    for field in ("support", "anchor", "significant", "should_abstain", "version_ok"):
        assert fields[field]["percent_agreement"]["value"] == pytest.approx(_hand_percent_agreement(field))
    # Cohen's kappa by hand: support po = 3/4, pe = (3/4)^2 → 3/7; anchor po = 1/2, pe = 3/8 → 1/5
    assert fields["support"]["cohen_kappa"]["value"] == pytest.approx(3 / 7)
    assert fields["anchor"]["cohen_kappa"]["value"] == pytest.approx(1 / 5)

    # --- a second push: no duplicates; changed tasks updated in place, annotations kept ---
    again_push = runner.invoke(app, ["label", "push", str(run_dir), "--project", PROJECT])
    assert again_push.exit_code == 0, again_push.output
    assert "imported 0, updated 0, unchanged 5" in again_push.output
    answers = make_answers()
    answers[0].answer_text += " Уточнение."  # q1: same claims, new text → updated in place
    answers[5].claims[1].evidence_ids = ["E1"]  # q6: its claims' cards change and it is annotated → kept
    answers.append(
        Answer(
            question_id="q7",
            status="answered",
            answer_text="Новый ответ [E1].",
            claims=[Claim(claim_id="c1", text="Новый ответ", evidence_ids=["E1"])],
            evidence=[Evidence(evidence_id="E1", chunk_id="k-d1v2-1")],
        )
    )
    write_jsonl_atomic(run_dir / "answers.jsonl", answers)
    third = runner.invoke(app, ["label", "push", str(run_dir), "--project", PROJECT])
    assert third.exit_code == 0, third.output
    assert "imported 1, updated 1, unchanged 3" in third.output and "left as they are" in third.output
    tasks_after = _tasks_by_question(admin, project.id)
    assert sorted(tasks_after) == ["q1", "q2", "q3", "q4", "q6", "q7"]
    assert len(list(admin.tasks.list(project=project.id))) == 6
    assert tasks_after["q1"].id == tid["q1"] and tasks_after["q1"].data["answer_text"].endswith("Уточнение.")
    assert tasks_after["q1"].total_annotations == 2  # the raters' work stays
    assert (
        json.loads(
            runner.invoke(app, ["label", "pull", str(run_dir), "--project", PROJECT, "--format", "json"]).output
        )["added"]
        == 0
    )

    # --- predictions only when asked ---------------------------------------------------
    with_preds = runner.invoke(app, ["label", "push", str(run_dir), "--project", PROJECT, "--predictions"])
    assert with_preds.exit_code == 0, with_preds.output
    assert "predictions added 2" in with_preds.output
    tasks_after = _tasks_by_question(admin, project.id)
    assert [p.model_version for p in tasks_after["q1"].predictions] == ["auto:offline"]
    assert admin.projects.get(id=project.id).show_collab_predictions is True
    assert push_seconds < 30


def test_server_stopped_mid_push_then_pushed_again(tmp_path: Path) -> None:
    """200 tasks in batches of 50; the server dies after two batches; restarted, the push completes once."""
    F.need_label_studio()
    server = S.LabelStudioServer(S.fresh_data_dir(tmp_path))
    server.start()
    try:
        run_dir = make_run(tmp_path / "big", run_id="run-big", answers=synthetic_answers(200), judgments=False)
        client = LabelStudioClient(server.url, S.ADMIN_TOKEN)

        def die_after_two(done: int, total: int) -> None:
            if done == 100:
                server.kill()

        with pytest.raises(BackendError, match="100 of 200 new task"):
            push(run_dir, "Перезапуск", client=client, batch_size=50, on_batch=die_after_two)
        server.start()
        t0 = time.monotonic()
        result = push(run_dir, "Перезапуск", client=LabelStudioClient(server.url, S.ADMIN_TOKEN), batch_size=50)
        seconds = time.monotonic() - t0
        assert (result.imported, result.unchanged, result.updated, result.requests) == (100, 100, 0, 2)
        admin = LabelStudio(base_url=server.url, api_key=S.ADMIN_TOKEN)
        (project,) = [p for p in admin.projects.list(title="Перезапуск") if p.title == "Перезапуск"]
        keys = [t.data["question_id"] for t in admin.tasks.list(project=project.id, page_size=500)]
        assert len(keys) == 200 and len(set(keys)) == 200  # each task exactly once
        assert seconds < 20
        # and a pull of a project nobody has touched yet says what is missing
        report = pull(run_dir, "Перезапуск", client=LabelStudioClient(server.url, S.ADMIN_TOKEN))
        assert report.tasks == 200 and report.short_of_two == {0: 200} and report.added == 0
    finally:
        server.stop()


def test_ui_shows_claims_and_choices_and_stores_design_values(
    ls_server: S.LabelStudioServer,  # noqa: F811
    raters: tuple[F.Rater, F.Rater],  # noqa: F811
    tmp_path: Path,
) -> None:
    """A rater opens a task in headless Chromium, labels it by clicking, submits; pull maps it back."""
    F.need_chromium()
    ivanova, _ = raters
    run_dir = make_run(tmp_path, run_id="run-ui")
    admin_client = LabelStudioClient(ls_server.url, S.ADMIN_TOKEN)
    result = push(run_dir, "Проверка интерфейса", client=admin_client)
    tasks = {t["data"]["question_id"]: t for t in admin_client.list_tasks(result.project_id)}
    task_id = tasks["q1"]["id"]
    shot = tmp_path / "labelstudio-task-q1.png"
    with F.rater_task_page(ls_server, ivanova, result.project_id, task_id) as (page, problems):
        page.get_by_text("Утверждение 2 из 2", exact=False).wait_for(timeout=60_000)

        def pick(label: str, nth: int) -> None:
            page.locator(f'label:has(input[type=radio][name="{label}"])').nth(nth).click()

        # controls in page order: significant_0, support_0_0, anchor_0_0, significant_1,
        # support_1_0, anchor_1_0, support_1_1, anchor_1_1, should_abstain, version_ok
        pick("Да", 0)  # significant_0 = yes
        pick("Подтверждает", 0)  # support_0_0 = supported
        pick("Да", 1)  # anchor_0_0 = yes
        pick("Нет", 2)  # significant_1 = no
        pick("Не подтверждает", 1)  # support_1_0 = unsupported
        pick("Неприменимо", 1)  # anchor_1_0 = na
        pick("Частично", 2)  # support_1_1 = partial
        pick("Нет", 4)  # anchor_1_1 = no
        pick("Нет", 5)  # should_abstain = no
        pick("Да", 6)  # version_ok = yes
        page.wait_for_timeout(300)
        page.screenshot(path=str(shot), full_page=True)
        assert page.evaluate("window.__citeval_xss") is None  # the payloads stayed text
        assert page.get_by_text("<script>window.__citeval_xss = 1</script>", exact=False).count() >= 1
        page.get_by_role("button", name="Submit").click()
        page.wait_for_timeout(1500)
    F.keep_screenshot(shot)
    assert problems == []
    report = pull(run_dir, "Проверка интерфейса", client=admin_client)
    got = {(j.claim_id, j.evidence_id, j.field): j.value for j in report.judgments if j.question_id == "q1"}
    assert got == {
        ("c1", None, "significant"): "yes",
        ("c1", "E1", "support"): "supported",
        ("c1", "E1", "anchor"): "yes",
        ("c2", None, "significant"): "no",
        ("c2", "E1", "support"): "unsupported",
        ("c2", "E1", "anchor"): "na",
        ("c2", "E2", "support"): "partial",
        ("c2", "E2", "anchor"): "no",
        (None, None, "should_abstain"): "no",
        (None, None, "version_ok"): "yes",
    }
    assert {j.source for j in report.judgments} == {f"human:{ivanova.email}"}
    assert report.problems == []
