"""`citeval quotes inject` and Telegram's formats: escaping worked out by hand from the Bot API's
"Formatting options", the strict parser that checks each message, the 4096 limit and the
round trip (removing the inserted quotes gives the answer back)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.contract.quotes import Placement, QuoteAnswer
from evals.quotes.inject import build_injection, inject_answers
from evals.quotes.telegram import check_message, escape_html, escape_markdown_v2, parse_message, utf16_length
from evals.store.quotes import read_quotes

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo" / "quotes" / "answers.jsonl"
runner = CliRunner()

HOSTILE = 'Ставка_1 *5%* [см](javascript:x) <b>&amp; "q" a-b=c #1 {x} |y| ~z~ `k` > 1.5! C:\\d'


def test_markdown_v2_escaping_by_hand() -> None:
    # every one of _*[]()~`>#+-=|{}.! and the backslash gets a backslash; < & % " do not
    assert escape_markdown_v2(HOSTILE) == (
        'Ставка\\_1 \\*5%\\* \\[см\\]\\(javascript:x\\) <b\\>&amp; "q" a\\-b\\=c \\#1 \\{x\\} \\|y\\| '
        "\\~z\\~ \\`k\\` \\> 1\\.5\\! C:\\\\d"
    )
    assert escape_markdown_v2("1+1") == "1\\+1"


def test_html_escaping_by_hand() -> None:
    assert escape_html(HOSTILE) == (
        "Ставка_1 *5%* [см](javascript:x) &lt;b&gt;&amp;amp; &quot;q&quot; a-b=c #1 {x} |y| ~z~ `k` &gt; 1.5! C:\\d"
    )


@pytest.mark.parametrize("mode,escaper", [("markdown_v2", escape_markdown_v2), ("html", escape_html)])
def test_escaped_hostile_text_reads_back_as_itself(mode: str, escaper) -> None:  # noqa: ANN001
    parsed = parse_message(escaper(HOSTILE), mode)  # type: ignore[arg-type]
    assert parsed.problems == [] and parsed.text == HOSTILE and parsed.entities == []


@pytest.mark.parametrize(
    "mode,message,fragment",
    [
        ("markdown_v2", "*bold", "never closed"),
        ("markdown_v2", "ставка 1.5", "'.' is reserved"),
        ("markdown_v2", "_a *b_ c*", "nest"),
        ("markdown_v2", "[text] more", "followed by (url)"),
        ("html", "<b>x</i>", "does not close"),
        ("html", "<b>x", "never closed"),
        ("html", "<script>alert(1)</script>", "not supported"),
        ("html", "a & b", "'&' is not part of an entity"),
        ("html", "a < b", "'<' is not part of a tag"),
        ("html", "1 > 0", "'>' is not part of a tag"),
        ("html", "<span>x</span>", "tg-spoiler"),
        ("html", '<b class="x">x</b>', "attribute 'class'"),
        ("html", "&nbsp;", "'&' is not part of an entity"),
    ],
)
def test_malformed_messages_are_refused(mode: str, message: str, fragment: str) -> None:
    problems = check_message(message, mode)  # type: ignore[arg-type]
    assert any(fragment in p for p in problems), problems


def test_well_formed_messages_parse_to_their_visible_text() -> None:
    html = parse_message('<b>жир</b> &lt;5&gt; <a href="https://x.test/?a=1&amp;b=2">ссылка</a> &#128512;', "html")
    assert html.problems == [] and html.text == "жир <5> ссылка 😀"
    assert [(e.kind, e.start, e.end) for e in html.entities] == [("b", 0, 3), ("a", 8, 14)]
    md = parse_message("*жир* _курсив_ __подч__ ||сп|| `к\\`од` [т](https://x.test/a\\)b) 1\\.5", "markdown_v2")
    assert md.problems == [] and md.text == "жир курсив подч сп к`од т 1.5"
    assert [e.kind for e in md.entities] == ["bold", "italic", "underline", "spoiler", "code", "text_link"]


def test_message_limit_counts_utf16_units() -> None:
    assert check_message("а" * 4096, "plain") == []
    assert any("4097 characters" in p for p in check_message("а" * 4097, "plain"))
    emoji = "😀" * 2048  # two UTF-16 units each
    assert utf16_length(emoji) == 4096 and check_message(emoji, "plain") == []
    assert any("4097" in p for p in check_message(emoji + "!", "plain"))
    # entity markup does not count: 4096 visible characters in bold are fine
    assert check_message("<b>" + "а" * 4096 + "</b>", "html") == []


def _answer(text: str, *cited: str) -> QuoteAnswer:
    return QuoteAnswer(
        answer_id="a1",
        answer_text=text,
        citations=[{"citation_id": f"c{k + 1}", "cited_text": c} for k, c in enumerate(cited)],
    )


def test_injection_of_hostile_text_by_hand() -> None:
    answer = _answer("Ставка — 5% (год). Срок_1 [важно]!", "Ставка *5%* <годовых> & 1.0", "Срок: 1 год")
    spans = [Placement((0, 11), 0.9), Placement((19, 33), 0.8)]
    md = build_injection(answer, spans, 0.5, "inline", "markdown_v2")
    assert md.text == (
        "Ставка — 5% \\[источник: _«Ставка \\*5%\\* <годовых\\> & 1\\.0»_\\] \\(год\\)\\. "
        "Срок\\_1 \\[важно\\] \\[источник: _«Срок: 1 год»_\\]\\!"
    )
    html = build_injection(answer, spans, 0.5, "inline", "html")
    assert html.text == (
        "Ставка — 5% [источник: <i>«Ставка *5%* &lt;годовых&gt; &amp; 1.0»</i>] (год). "
        "Срок_1 [важно] [источник: <i>«Срок: 1 год»</i>]!"
    )
    foot = build_injection(answer, spans, 0.5, "footnote", "html")
    assert foot.text == (
        "Ставка — 5% [1] (год). Срок_1 [важно] [2]!\n\n"
        "[1] <i>«Ставка *5%* &lt;годовых&gt; &amp; 1.0»</i>\n[2] <i>«Срок: 1 год»</i>"
    )
    for injection in (md, html, foot):
        row = injection.to_json()
        assert row["well_formed"] and row["round_trip_ok"] and row["quotes_injected"] == 2
    # visible characters added: " [источник: «…»]" is 15 + the quote
    assert md.chars_added == (15 + len("Ставка *5%* <годовых> & 1.0")) + (15 + len("Срок: 1 год"))
    # below the threshold nothing is injected and the message is the escaped answer
    none = build_injection(answer, spans, 0.95, "inline", "markdown_v2")
    assert none.text == "Ставка — 5% \\(год\\)\\. Срок\\_1 \\[важно\\]\\!" and none.quotes_injected == 0


@pytest.mark.parametrize("mode", ["plain", "markdown_v2", "html"])
@pytest.mark.parametrize("style", ["inline", "footnote"])
@pytest.mark.parametrize("matcher", ["bm25", "gold"])
def test_demo_injection_round_trips(mode: str, style: str, matcher: str) -> None:
    answers = read_quotes(DEMO)
    report = inject_answers(answers, matcher, style=style, parse_mode=mode)
    assert report.summary()["quotes_injected"] > 0
    for answer, injection in zip(answers, report.injections, strict=True):
        parsed = parse_message(injection.text, mode)  # type: ignore[arg-type]
        assert parsed.problems == [], (answer.answer_id, parsed.problems)
        # cut the inserted pieces out of what Telegram shows: the answer comes back
        cut, cursor = [], 0
        for ins in sorted(injection.insertions, key=lambda i: i.visible):
            cut.append(parsed.text[cursor : ins.visible[0]])
            cursor = ins.visible[1]
        cut.append(parsed.text[cursor:])
        assert "".join(cut) == answer.answer_text


def test_plain_inline_round_trip_by_string_removal() -> None:
    answers = read_quotes(DEMO)
    report = inject_answers(answers, "gold", style="inline", parse_mode="plain")
    for answer, injection in zip(answers, report.injections, strict=True):
        text = injection.text
        for c in answer.citations:
            text = text.replace(f" [источник: «{' '.join(c.cited_text.split())}»]", "")
        assert text == answer.answer_text


def test_cli_inject_reports_a_message_over_the_limit(tmp_path: Path) -> None:
    long_text = "Обучение проводится раз в год. " + "Подробности в положении. " * 162
    assert 4000 < len(long_text) < 4096
    line = {
        "answer_id": "long",
        "answer_text": long_text,
        "citations": [{"citation_id": "c1", "cited_text": "Обучение проводится не реже чем раз в 12 месяцев."}],
        "gold": [{"citation_id": "c1", "span": [0, 29]}],
    }
    src = tmp_path / "q.jsonl"
    src.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "msgs.jsonl"
    result = runner.invoke(app, ["quotes", "inject", str(src), "--matcher", "gold", "--parse-mode", "html", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "longer than 4096 characters: 1 (long)" in result.output
    (row,) = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert row["fits_limit"] is False and row["well_formed"] is True and row["length"] == len(long_text) + 15 + 49


def test_cli_inject_bad_input_exits_2(tmp_path: Path) -> None:
    src = tmp_path / "q.jsonl"
    src.write_text('{"answer_id": "a", "answer_text": "x", "citations": "no"}\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    result = runner.invoke(app, ["quotes", "inject", str(src), "--matcher", "bm25", "--out", str(out)])
    assert result.exit_code == 2 and "q.jsonl:1" in result.output and not out.exists()
