"""Label Studio push/pull without a server: configs, task building, export → judgments, files, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from labelstudio.runs import XSS, XSS_IMG, make_run
from typer.testing import CliRunner

from cli import app
from evals.contract.models import JUDGMENT_VALUES, Judgment
from evals.errors import DataError
from evals.label.config import ReviewConfig, config_path
from evals.label.pull import export_to_judgments
from evals.label.push import write_tasks_file
from evals.label.tasks import TaskBuilder, layout_of
from evals.store.jsonl import load_jsonl
from evals.store.runfolder import RunFolder

runner = CliRunner()


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    return make_run(tmp_path)


# --- configs -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_configs_map_one_to_one_onto_design_5(lang: str) -> None:
    config = ReviewConfig.load(config_path(lang))
    by_field = {c.field: c for c in config.controls}
    assert set(by_field) == {*JUDGMENT_VALUES, "comment"}
    for field, values in JUDGMENT_VALUES.items():
        assert by_field[field].values == frozenset(values)
    assert by_field["support"].levels == by_field["anchor"].levels == 2  # claim x evidence
    assert by_field["significant"].levels == 1  # claim
    assert by_field["should_abstain"].levels == by_field["version_ok"].levels == 0  # answer
    assert config.names_for("support", 2, 1) == ("support_2_1", "card_2_1")
    assert config.match("anchor_0_3").indices == (0, 3)
    assert config.match("support_0") is None and config.match("significant_x") is None


def test_russian_twin_has_the_same_controls_and_russian_labels() -> None:
    en = ReviewConfig.load(config_path("en"))
    ru = ReviewConfig.load(config_path("ru"))
    assert [(c.name, c.to_name, c.values) for c in en.controls] == [(c.name, c.to_name, c.values) for c in ru.controls]
    shown = re.findall(r'<Choice value="([^"]+)"', ru.xml) + re.findall(r'<Header value="([^"]+)"', ru.xml)
    assert shown and all(re.search("[а-яА-ЯёЁ]", text) for text in shown)
    # untrusted text is shown through <Text>; the one HTML object is a card's links, whose HTML
    # citeval builds with every part escaped (evals.label.tasks.link_html)
    for xml in (ru.xml, en.xml):
        assert re.findall(r'<HyperText name="([^"]+)" value="([^"]+)"', xml) == [
            ("card_link_{{idx}}_{{jdx}}", "$claims[{{idx}}].cards[{{jdx}}].link_html")
        ]


def test_a_config_with_a_wrong_choice_is_refused() -> None:
    xml = config_path("en").read_text(encoding="utf-8").replace('alias="no" hotkey="v"', 'alias="maybe" hotkey="v"')
    with pytest.raises(DataError, match="version_ok"):
        ReviewConfig(xml)
    # a dynamic control (choices from the task data) must not also list choices of its own
    xml = config_path("en").read_text(encoding="utf-8").replace(
        '<Header value="Does this fragment support the claim?" size="6"/>',
        '<Header value="Does this fragment support the claim?" size="6"/><Choice value="Maybe" alias="maybe"/>')
    with pytest.raises(DataError, match="dynamic choices"):
        ReviewConfig(xml)


# --- tasks ---------------------------------------------------------------------------


def test_tasks_one_per_answered_question_keyed_and_untrusted_text_kept_as_text(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "tasks.json"
    assert write_tasks_file(run_dir, out) == 5  # q5 is a backend error: nothing to judge
    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert [t["data"]["question_id"] for t in tasks] == ["q1", "q2", "q3", "q4", "q6"]
    for task in tasks:
        assert task["data"]["run_id"] == task["meta"]["run_id"] == "run-0001"
        assert task["meta"]["question_id"] == task["data"]["question_id"]
        assert "predictions" not in task  # off by default: raters judge independently
    q1, q2, q3, q4, q6 = tasks
    assert layout_of(q1["data"]) == [("c1", ("E1",)), ("c2", ("E1", "E2"))]
    card = q1["data"]["claims"][1]["cards"][1]
    assert card["snippet"].endswith(XSS_IMG)  # raw text, shown by <Text>, never as HTML
    assert XSS in card["head"] and "редакция 1 (D2v1)" in card["head"] and "стр. 2" in card["head"]
    assert "на дату вопроса: заменена более новой" in q2["data"]["claims"][0]["cards"][0]["head"]
    assert q2["data"]["claims"][0]["cards"][0]["edition_status"] == "superseded"
    assert q3["data"]["claims"] == [] and q3["data"]["status"] == "abstained"
    assert layout_of(q4["data"]) == [("s1", ("E1",))]  # claims derived from the answer text
    assert layout_of(q6["data"]) == [("c1", ("E99",)), ("c2", ())]
    assert "нет в наборе" in q6["data"]["claims"][0]["cards"][0]["head"]
    assert "https://docs.example/d/D1/v/2#p3" in q1["data"]["claims"][0]["cards"][0]["link"]


def test_predictions_only_when_asked_and_mapped_to_control_names(run_dir: Path) -> None:
    run = RunFolder(run_dir)
    tasks = {t["data"]["question_id"]: t for t in TaskBuilder(run).tasks(predictions=True)}
    (pred,) = tasks["q1"]["predictions"]
    assert pred["model_version"] == "auto:offline"
    got = {r["from_name"]: (r["to_name"], r["value"]["choices"][0]) for r in pred["result"]}
    assert got == {
        "support_0_0": ("card_0_0", "supported"),
        "support_1_1": ("card_1_1", "supported"),
        "support_1_0": ("card_1_0", "unsupported"),
        "significant_0": ("claim_0", "yes"),
        "should_abstain": ("answer", "no"),
    }
    assert "predictions" not in tasks["q3"]


def test_english_tasks_have_english_wording(run_dir: Path) -> None:
    run = RunFolder(run_dir)
    task = TaskBuilder(run, "en").task(run.answer_list[1])
    assert "at the time of the question: superseded" in task["data"]["claims"][0]["cards"][0]["head"]


# --- export → judgments --------------------------------------------------------------


def _choice(name: str, to: str, value: str) -> dict:
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": [value]}}


def _export(run_dir: Path) -> list[dict]:
    tasks = TaskBuilder(RunFolder(run_dir)).tasks()
    by_q = {t["data"]["question_id"]: t for t in tasks}
    q1 = {
        "id": 11,
        "data": by_q["q1"]["data"],
        "meta": by_q["q1"]["meta"],
        "drafts": [{"id": 1, "user": "b@bank.test", "result": [_choice("should_abstain", "answer", "yes")]}],
        "annotations": [
            {
                "id": 101,
                "completed_by": 7,
                "was_cancelled": False,
                "updated_at": "2024-04-01T10:00:00Z",
                "task": 11,
                "result": [_choice("support_0_0", "card_0_0", "partial"), _choice("should_abstain", "answer", "yes")],
            },
            {
                "id": 102,
                "completed_by": 7,
                "was_cancelled": False,
                "updated_at": "2024-04-02T10:00:00Z",
                "task": 11,
                "result": [  # the same rater again: replaces annotation 101
                    _choice("support_0_0", "card_0_0", "supported"),
                    _choice("support_1_1", "card_1_1", "supported"),
                    _choice("anchor_1_0", "card_1_0", "no"),
                    _choice("significant_1", "claim_1", "yes"),
                    _choice("should_abstain", "answer", "no"),
                    {
                        "from_name": "comment",
                        "to_name": "answer",
                        "type": "textarea",
                        "value": {"text": ["E1 не о комиссии"]},
                    },
                    _choice("support_9_0", "card_9_0", "supported"),  # no claim 9
                    _choice("support_1_5", "card_1_5", "supported"),  # no card 5
                    _choice("verdict", "answer", "yes"),  # not in the config
                    _choice("version_ok", "answer", "maybe"),  # not a choice
                ],
            },
            {
                "id": 103,
                "completed_by": {"id": 8, "email": "b@bank.test"},
                "was_cancelled": True,
                "updated_at": "2024-04-03T10:00:00Z",
                "task": 11,
                "result": [],
            },
        ],
    }
    q2 = {
        "id": 12,
        "data": by_q["q2"]["data"],
        "meta": by_q["q2"]["meta"],
        "drafts": [],
        "annotations": [
            {
                "id": 201,
                "completed_by": {"id": 8, "email": "b@bank.test"},
                "was_cancelled": False,
                "updated_at": "2024-04-03T11:00:00Z",
                "task": 12,
                "result": [_choice("support_0_0", "card_0_0", "supported"), _choice("version_ok", "answer", "no")],
            },
        ],
    }
    other = {"id": 13, "data": {**by_q["q3"]["data"], "run_id": "another-run"}, "annotations": []}
    rest = [
        {"id": 20 + i, "data": by_q[q]["data"], "meta": by_q[q]["meta"], "annotations": []}
        for i, q in enumerate(["q3", "q4", "q6"])
    ]
    return [q1, q2, other, *rest]


def test_export_to_judgments(run_dir: Path) -> None:
    config = ReviewConfig.load(config_path("ru"))
    report = export_to_judgments(_export(run_dir), "run-0001", config, {7: "a@bank.test"})
    got = {(j.question_id, j.claim_id, j.evidence_id, j.source, j.field, j.value, j.comment) for j in report.judgments}
    c = "E1 не о комиссии"
    assert len(report.judgments) == 7
    assert got == set(
        [
            ("q1", "c1", "E1", "human:a@bank.test", "support", "supported", c),
            ("q1", "c2", "E2", "human:a@bank.test", "support", "supported", c),
            ("q1", "c2", "E1", "human:a@bank.test", "anchor", "no", c),
            ("q1", "c2", None, "human:a@bank.test", "significant", "yes", c),
            ("q1", None, None, "human:a@bank.test", "should_abstain", "no", c),
            ("q2", "c1", "E1", "human:b@bank.test", "support", "supported", None),
            ("q2", None, None, "human:b@bank.test", "version_ok", "no", None),
        ]
    )
    assert all(j.run_id == "run-0001" for j in report.judgments)
    assert {str(j.at) for j in report.judgments if j.question_id == "q1"} == {"2024-04-02 10:00:00+00:00"}
    assert len(report.problems) == 4
    assert any("support_9_0" in p for p in report.problems) and any("'verdict'" in p for p in report.problems)
    assert any("'maybe'" in p for p in report.problems) and any("support_1_5" in p for p in report.problems)
    assert report.tasks == 5 and report.ignored_tasks == 1 and report.drafts == 1
    a, b = report.raters["a@bank.test"], report.raters["b@bank.test"]
    assert (a.tasks, a.labels, a.missing_tasks) == (1, 5, ["q2", "q3", "q4", "q6"])
    assert (b.tasks, b.labels, b.skipped, b.missing_tasks) == (1, 2, 1, ["q1", "q3", "q4", "q6"])
    assert report.short_of_two == {0: 3, 1: 2}
    assert "still missing for two raters per task" in report.summary()


def test_pull_from_file_appends_once_and_then_only_changes(run_dir: Path, tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export(run_dir), ensure_ascii=False), encoding="utf-8")
    before = len(load_jsonl(run_dir / "judgments.jsonl", Judgment))
    args = ["label", "pull", str(run_dir), "--from-file", str(export), "--rater", "7=a@bank.test"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "a@bank.test: 1 task(s) done, 5 label(s)" in first.output
    rows = load_jsonl(run_dir / "judgments.jsonl", Judgment)
    assert len(rows) == before + 7
    second = runner.invoke(app, [*args, "--format", "json"])
    assert second.exit_code == 0, second.output
    assert json.loads(second.output)["added"] == 0
    assert len(load_jsonl(run_dir / "judgments.jsonl", Judgment)) == before + 7
    # rater b changes one label later: exactly one new row
    data = _export(run_dir)
    data[1]["annotations"][0]["result"][1] = _choice("version_ok", "answer", "yes")
    data[1]["annotations"][0]["updated_at"] = "2024-04-05T00:00:00Z"
    export.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    third = runner.invoke(app, [*args, "--format", "json"])
    assert json.loads(third.output)["added"] == 1
    last = load_jsonl(run_dir / "judgments.jsonl", Judgment)[-1]
    assert (last.question_id, last.field, last.value, last.source) == ("q2", "version_ok", "yes", "human:b@bank.test")


# --- CLI without a server ------------------------------------------------------------


def test_push_without_server_settings_is_a_usage_error(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    result = runner.invoke(app, ["label", "push", str(run_dir), "--project", "P"])
    assert result.exit_code == 2 and "LABEL_STUDIO_URL" in result.output
    result = runner.invoke(app, ["label", "push", str(run_dir)])
    assert result.exit_code == 2 and "--project" in result.output


def test_unreachable_server_is_a_service_failure_without_the_key(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LABEL_STUDIO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "secret-token-123")
    result = runner.invoke(app, ["label", "push", str(run_dir), "--project", "P"])
    assert result.exit_code == 3, result.output
    assert "secret-token-123" not in result.output
    result = runner.invoke(app, ["label", "pull", str(run_dir), "--project", "P"])
    assert result.exit_code == 3 and "secret-token-123" not in result.output


def test_push_to_file_via_cli(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "import.json"
    result = runner.invoke(app, ["label", "push", str(run_dir), "--to-file", str(out), "--predictions"])
    assert result.exit_code == 0, result.output
    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert sum(1 for t in tasks if t.get("predictions")) == 2  # q1 and q2 have auto labels


def test_bad_run_folder_names_the_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["label", "push", str(tmp_path), "--to-file", str(tmp_path / "x.json")])
    assert result.exit_code == 2 and "manifest.json" in result.output


def test_cards_link_the_viewer_in_a_new_tab_escaped_and_show_the_status_then_and_now(tmp_path: Path) -> None:
    from datetime import datetime, timezone
    from html.parser import HTMLParser

    from labelstudio.runs import make_answers

    from evals.contract.models import Link, Version
    from evals.store.jsonl import write_jsonl_atomic

    answers = make_answers()
    answers[0].links = [
        Link(evidence_id="E1", url="https://docs.example/d/D1/v/2#p3"),
        Link(evidence_id="E2", url='https://docs.example/d/D2/v/1?q="><script>x()</script>'),
        Link(evidence_id="E2", url="javascript:alert(1)"),
    ]
    run_dir = make_run(tmp_path, answers=answers)
    versions_path = tmp_path / "dataset" / "registry" / "versions.jsonl"
    versions = load_jsonl(versions_path, Version)
    for v in versions:
        if v.version_id == "D2v1":
            v.revoked_at = datetime(2024, 6, 1, tzinfo=timezone.utc)  # after the question was asked, before now
    write_jsonl_atomic(versions_path, versions)
    run = RunFolder(run_dir)
    task = TaskBuilder(run, now=datetime(2025, 1, 10, tzinfo=timezone.utc)).task(run.answer_list[0])
    e1, e2 = task["data"]["claims"][1]["cards"]

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.links: list[dict[str, str | None]] = []
            self.text = ""

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            assert tag == "a", tag  # no other tag: the rest is escaped text
            self.links.append(dict(attrs))

        def handle_data(self, data: str) -> None:
            self.text += data

    first = Links()
    first.feed(e1["link_html"])
    assert [a["href"] for a in first.links] == ["https://docs.example/d/D1/v/2#p3", "https://docs.example/d/D1/v/2#page=3"]
    assert all(a["target"] == "_blank" and a["rel"] == "noopener noreferrer" for a in first.links)
    second = Links()
    second.feed(e2["link_html"])
    # the answer's odd link stays one link, its markup text; javascript: is text only; then the registry's page link
    assert [a["href"] for a in second.links] == [
        'https://docs.example/d/D2/v/1?q="><script>x()</script>', "https://docs.example/d/D2/v/1#page=2"
    ]
    assert "javascript:alert(1) (не http(s), не открывается)" in second.text
    assert "<script>" not in e2["link_html"]
    assert "на дату вопроса: действует" in e2["head"] and "сейчас (2025-01-10): отозвана" in e2["head"]
    assert (e2["edition_status"], e2["edition_status_now"]) == ("active", "revoked")
    assert e2["head"].startswith("источник #1 · [E2]") and task["data"]["claims"][1]["head"].startswith(
        "Утверждение 2 из 2 (#1) · c2"
    )
