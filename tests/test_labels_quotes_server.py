"""Quote placement round against a real Label Studio server (label-studio 1.23.2 in its own venv).

Two raters (joined by invite link, each with their own token) mark the place of each quote
through the API with UTF-16 offsets, as the browser sends them, on answers with emoji and
Cyrillic. Pull must convert them to code points, write the gold worked out by hand and the
hand-computed agreement. Also: a replaced annotation, a skip, a draft, an offset inside an
emoji, a control the config does not have; pushing twice imports nothing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from label_studio_sdk import LabelStudio
from labelstudio import server as S
from labelstudio.fixtures import ls_env, ls_server, raters  # noqa: F401  (fixtures used by name)
from typer.testing import CliRunner

from cli import app
from evals.store.quotes import read_quotes

pytestmark = pytest.mark.slow
runner = CliRunner()
PROJECT = "Цитаты — где место? пилот"

# Code points of A1 (U+1F44B and U+1F600 are two UTF-16 units each):
#   «Обучение — раз в полгода» [2, 26] → UTF-16 [3, 27]   «Тест 😀 из 30 вопросов» [28, 49] → [29, 51]
#   «из 30 вопросов» [35, 49] → [37, 51]
A1 = "👋 Обучение — раз в полгода. Тест 😀 из 30 вопросов."
A2 = "Ставка — 5 % годовых; срок — 12 месяцев."  # no emoji: UTF-16 = code points
A3 = "Ответ 1. Ответ 2."
A4 = "😀 Эмодзи в начале."  # «Эмодзи» [2, 8] → UTF-16 [3, 9]


def _quotes(tmp_path: Path) -> Path:
    lines = [
        {"answer_id": "a1", "answer_text": A1, "citations": [
            {"citation_id": "c1", "cited_text": "Обучение — не реже раза в 6 месяцев."},
            {"citation_id": "c2", "cited_text": "Тестирование: 30 вопросов <b>&amp;</b>."}]},
        {"answer_id": "a2", "answer_text": A2, "citations": [
            {"citation_id": "c1", "cited_text": "Ставка 5 % годовых."},
            {"citation_id": "c2", "cited_text": "Комиссия не взимается."}]},
        {"answer_id": "a3", "answer_text": A3, "citations": [{"citation_id": "c1", "cited_text": "Ответ 1."}]},
        {"answer_id": "a4", "answer_text": A4, "citations": [{"citation_id": "c1", "cited_text": "Эмодзи."}]},
    ]
    path = tmp_path / "review.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def _place(start: int, end: int) -> list[dict[str, Any]]:
    return [{"from_name": "place", "to_name": "answer", "type": "labels",
             "value": {"start": start, "end": end, "labels": ["place"]}}]


NONE = [{"from_name": "no_place", "to_name": "quote", "type": "choices", "value": {"choices": ["none"]}}]


def test_quote_placement_round(ls_env: S.LabelStudioServer, raters, tmp_path: Path) -> None:  # noqa: F811
    server = ls_env
    ivanova, petrov = raters
    src = _quotes(tmp_path)
    # a blind round: without --matcher, push would show the default matcher's places
    first = runner.invoke(app, ["label", "push", str(src), "--kind", "quotes", "--matcher", "none", "--project", PROJECT])
    assert first.exit_code == 0, first.output
    assert "imported 6" in first.output and "created" in first.output
    again = runner.invoke(app, ["label", "push", str(src), "--kind", "quotes", "--matcher", "none", "--project", PROJECT])
    assert again.exit_code == 0 and "imported 0" in again.output and "unchanged 6" in again.output

    admin = LabelStudio(base_url=server.url, api_key=S.ADMIN_TOKEN)
    (project,) = [p for p in admin.projects.list(title=PROJECT) if p.title == PROJECT]
    assert project.show_collab_predictions is False
    tasks = {(t.data["answer_id"], t.data["citation_id"]): t for t in admin.tasks.list(project=project.id, fields="all")}
    assert len(tasks) == 6 and all(not t.predictions for t in tasks.values())
    assert tasks[("a1", "c2")].data["cited_text"] == "Тестирование: 30 вопросов <b>&amp;</b>."  # stored as text
    tid = {k: t.id for k, t in tasks.items()}

    a = LabelStudio(base_url=server.url, api_key=ivanova.api_key)
    b = LabelStudio(base_url=server.url, api_key=petrov.api_key)
    a.annotations.create(id=tid[("a1", "c1")], result=_place(29, 51))  # wrong at first …
    a.annotations.create(id=tid[("a1", "c2")], result=_place(29, 51))
    a.annotations.create(id=tid[("a2", "c1")], result=_place(0, 20))
    a.annotations.create(id=tid[("a2", "c2")], result=NONE)
    a.annotations.create(id=tid[("a3", "c1")], result=NONE)
    a.annotations.create(id=tid[("a4", "c1")], result=_place(3, 9))
    time.sleep(1.1)
    a.annotations.create(id=tid[("a1", "c1")], result=_place(3, 28))  # … replaced; the period is trimmed

    b.annotations.create(id=tid[("a1", "c1")], result=_place(3, 27))
    b.annotations.create(id=tid[("a1", "c2")], result=_place(37, 51))
    b.annotations.create(id=tid[("a2", "c1")], result=_place(22, 39))
    b.annotations.create(id=tid[("a2", "c2")], result=NONE)
    verdict = {"from_name": "verdict", "to_name": "answer", "type": "choices", "value": {"choices": ["ok"]}}
    b.annotations.create(id=tid[("a3", "c1")], result=_place(0, 7) + [verdict])
    b.annotations.create(id=tid[("a4", "c1")], result=_place(1, 9))  # starts inside 😀: not used
    draft = httpx.post(f"{server.url}/api/tasks/{tid[('a4', 'c1')]}/drafts",
                       headers={"Authorization": f"Token {petrov.api_key}"}, json={"result": _place(3, 9), "lead_time": 3})
    assert draft.status_code == 201, draft.text

    out = tmp_path / "gold.jsonl"
    pulled = runner.invoke(app, ["label", "pull", str(src), "--kind", "quotes", "--project", PROJECT,
                                 "--out", str(out), "--format", "json"])
    assert pulled.exit_code == 0, pulled.output
    doc = json.loads(pulled.output)
    assert doc["raters"] == {ivanova.email: 6, petrov.email: 5}
    assert doc["drafts_ignored"] == 1
    assert any("inside the character" in p for p in doc["problems"])
    assert any("'verdict'" in p for p in doc["problems"])
    # both decided: a1c1 same span, a1c2 IoU 14/21, a2c1 IoU 0, a2c2 both none, a3c1 none vs place
    agreement = doc["agreement"]
    assert agreement["n"] == 5
    assert agreement["exact_span"]["value"] == 0.4
    assert agreement["mean_iou"]["value"] == pytest.approx((1 + 14 / 21 + 0) / 3, abs=1e-6)
    # has a place: observed 4/5; ivanova 3 of 5 places, petrov 4 of 5 → chance 0.6·0.8 + 0.4·0.2 = 0.56
    assert agreement["has_place_kappa"]["value"] == pytest.approx((0.8 - 0.56) / (1 - 0.56), abs=1e-6)
    assert doc["unresolved"] == ["a2/c1", "a3/c1", "a4/c1"]
    by_id = {x.answer_id: x for x in read_quotes(out)}
    assert [(g.citation_id, g.span) for g in by_id["a1"].gold or []] == [("c1", (2, 26)), ("c2", (35, 49))]
    assert all(by_id[k].gold is None for k in ("a2", "a3", "a4"))
    assert A1[2:26] == "Обучение — раз в полгода" and A1[35:49] == "из 30 вопросов"

    adjudicated = runner.invoke(app, ["label", "pull", str(src), "--kind", "quotes", "--project", PROJECT,
                                      "--out", str(out), "--gold-rater", ivanova.email])
    assert adjudicated.exit_code == 0, adjudicated.output
    assert f"{out}: 4 answer(s) with gold" in adjudicated.output
    by_id = {x.answer_id: x for x in read_quotes(out)}
    assert [g.span for g in by_id["a1"].gold or []] == [(2, 26), (28, 49)]
    assert [g.span for g in by_id["a2"].gold or []] == [(0, 20), None]
    assert [g.span for g in by_id["a4"].gold or []] == [(2, 8)] and A4[2:8] == "Эмодзи"


def test_matcher_predictions_in_utf16(ls_env: S.LabelStudioServer, tmp_path: Path) -> None:  # noqa: F811
    lines = [json.loads(x) for x in _quotes(tmp_path).read_text(encoding="utf-8").splitlines()]
    lines[0]["citations"][1]["cited_text"] = "Тест 😀 из 30 вопросов."  # rapidfuzz 0.977: placed
    src = tmp_path / "hinted.jsonl"
    src.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    title = PROJECT + " (с подсказками)"
    pushed = runner.invoke(app, ["label", "push", str(src), "--kind", "quotes", "--project", title,
                                 "--matcher", "rapidfuzz", "--lang", "en"])
    assert pushed.exit_code == 0, pushed.output
    admin = LabelStudio(base_url=ls_env.url, api_key=S.ADMIN_TOKEN)
    (project,) = [p for p in admin.projects.list(title=title) if p.title == title]
    assert project.show_collab_predictions is True
    tasks = {(t.data["answer_id"], t.data["citation_id"]): t for t in admin.tasks.list(project=project.id, fields="all")}
    (prediction,) = tasks[("a1", "c2")].predictions
    (result,) = prediction["result"] if isinstance(prediction, dict) else prediction.result
    # rapidfuzz places a1/c2 on «Тест 😀 из 30 вопросов»: code points [28, 49], UTF-16 [29, 51];
    # a1/c1 scores 0.548, below its threshold: the prediction says "no fitting place"
    assert (result["value"]["start"], result["value"]["end"]) == (29, 51)
    assert result["value"]["text"] == A1[28:49]
    (none,) = tasks[("a1", "c1")].predictions
    (choice,) = none["result"] if isinstance(none, dict) else none.result
    assert choice["from_name"] == "no_place" and choice["value"]["choices"] == ["none"]
