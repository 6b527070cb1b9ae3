"""Quote placement in Label Studio without a server: the UTF-16 border (hand-counted offsets
on text with emoji and Cyrillic), tasks and predictions, and pull from an export file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from evals.contract.quotes import QuoteAnswer
from evals.label.quotes import CONFIG_NAMES, from_utf16, quote_config_path, quote_tasks, to_utf16
from evals.store.quotes import read_quotes

runner = CliRunner()
# code points: 👋 0, space 1, «Обучение» 2–9, space 10, — 11, space 12, «раз» 13–15, …, «полгода» 19–25,
# «.» 26, space 27, «Тест» 28–31, space 32, 😀 33, space 34, «из» 35–36, …, «вопросов» 41–48, «.» 49
TEXT = "👋 Обучение — раз в полгода. Тест 😀 из 30 вопросов."


def test_utf16_offsets_by_hand() -> None:
    assert len(TEXT) == 50 and len(TEXT.encode("utf-16-le")) // 2 == 52  # two emoji: one extra unit each
    # before 👋 nothing changes; after it +1; after 😀 +2; Cyrillic and the dash are one unit each
    cases = {0: 0, 1: 2, 2: 3, 26: 27, 33: 34, 34: 36, 49: 51, 50: 52}
    for cp, units in cases.items():
        assert to_utf16(TEXT, cp) == units
        assert from_utf16(TEXT, units) == cp
    with pytest.raises(ValueError, match="inside the character"):
        from_utf16(TEXT, 1)  # the second half of 👋
    with pytest.raises(ValueError, match="inside the character"):
        from_utf16(TEXT, 35)
    with pytest.raises(ValueError, match="outside"):
        from_utf16(TEXT, 53)
    plain = "Ставка — 5 % годовых"
    assert all(to_utf16(plain, k) == k == from_utf16(plain, k) for k in range(len(plain) + 1))


def test_configs_ship_in_both_languages() -> None:
    import xml.etree.ElementTree as ET

    for lang in CONFIG_NAMES:
        root = ET.parse(quote_config_path(lang)).getroot()
        names = {n.attrib.get("name") for n in root.iter()}
        assert {"answer", "quote", "place", "no_place"} <= names
        (choice,) = [n for n in root.iter() if n.tag == "Choice"]
        assert choice.attrib["alias"] == "none"
        # untrusted text only through <Text>: no HyperText, no HTML view
        assert not [n for n in root.iter() if n.tag in ("HyperText", "HTML")]
    assert (Path(__file__).resolve().parent.parent / "annotator_configs" / "quote_placement.ru.xml").exists()


def _answer() -> QuoteAnswer:
    return QuoteAnswer(
        answer_id="a1",
        answer_text=TEXT,
        citations=[
            {"citation_id": "c1", "cited_text": "Обучение проводится не реже одного раза в 6 месяцев."},
            {"citation_id": "c2", "cited_text": "Тест 😀 из 30 вопросов."},
        ],
    )


def test_tasks_blind_by_default_and_predictions_in_utf16() -> None:
    (t1, t2) = quote_tasks([_answer()], "en")
    assert "predictions" not in t1 and t1["data"]["cited_text"].startswith("Обучение")
    assert t2["data"]["quote_meta"] == "quote 2 of 2 · document —"
    (p1, p2) = quote_tasks([_answer()], "ru", matcher="rapidfuzz")
    (result,) = p2["predictions"][0]["result"]
    # rapidfuzz places c2 on "Тест 😀 из 30 вопросов": code points [28, 49] are UTF-16 [29, 51]
    assert result["value"]["start"] == 29 and result["value"]["end"] == 51
    assert result["value"]["text"] == "Тест 😀 из 30 вопросов"
    assert p2["predictions"][0]["model_version"] == "citeval-quotes:rapidfuzz"


def _place(start: int, end: int) -> dict[str, Any]:
    return {"from_name": "place", "to_name": "answer", "type": "labels",
            "value": {"start": start, "end": end, "labels": ["place"]}}


def test_pull_from_export_file(tmp_path: Path) -> None:
    src = tmp_path / "q.jsonl"
    src.write_text(_answer().model_dump_json() + "\n", encoding="utf-8")
    tasks = quote_tasks(read_quotes(src), "ru")
    export = []
    for k, task in enumerate(tasks):
        anns = [
            # rater 1 selects with the period, rater 2 without: both trim to the same span
            {"id": 10 + k, "completed_by": 1, "result": [_place(3, 28) if k == 0 else _place(29, 51)],
             "updated_at": "2026-11-30T10:00:00Z"},
            {"id": 20 + k, "completed_by": 2, "result": [_place(3, 27) if k == 0 else _place(37, 51)],
             "updated_at": "2026-11-30T10:00:00Z"},
        ]
        export.append({"id": k + 1, **task, "annotations": anns, "drafts": []})
    exported = tmp_path / "export.json"
    exported.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "gold.jsonl"
    result = runner.invoke(app, ["label", "pull", str(src), "--kind", "quotes", "--from-file", str(exported),
                                 "--rater", "1=a@x.test", "--rater", "2=b@x.test", "--out", str(out),
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["answers_with_gold"] == 1 and doc["unresolved"] == []
    (answer,) = read_quotes(out)
    # c1 agreed exactly; c2: [28, 49] and [35, 49] overlap with IoU 14/21 ≥ 0.5 → their intersection
    assert [(g.citation_id, g.span) for g in answer.gold or []] == [("c1", (2, 26)), ("c2", (35, 49))]
    assert doc["agreement"]["exact_span"]["value"] == 0.5
    assert doc["agreement"]["mean_iou"]["value"] == pytest.approx((1 + 14 / 21) / 2, abs=1e-6)
    assert doc["agreement"]["has_place_kappa"]["value"] is None  # both placed both: κ undefined, with a reason
    assert "chance agreement is 1" in doc["agreement"]["has_place_kappa"]["reason"]


def test_cli_push_to_file_and_usage_errors(tmp_path: Path) -> None:
    src = tmp_path / "q.jsonl"
    src.write_text(_answer().model_dump_json() + "\n", encoding="utf-8")
    out = tmp_path / "tasks.json"
    result = runner.invoke(app, ["label", "push", str(src), "--kind", "quotes", "--to-file", str(out), "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert f"{out}: 2 task(s)" in result.output
    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert [t["meta"]["citeval_key"] for t in tasks] == ['["quotes", "a1", "c1"]', '["quotes", "a1", "c2"]']
    result = runner.invoke(app, ["label", "push", str(src), "--kind", "quotes", "--to-file", str(out),
                                 "--matcher", "nope"])
    assert result.exit_code == 2 and "unknown matcher" in result.output
    result = runner.invoke(app, ["label", "pull", str(src), "--kind", "quotes", "--from-file", str(out)])
    assert result.exit_code == 2 and "--out" in result.output
