"""Hostile ids and labels in what citeval prints (issue 33): a `gate --summary` Markdown file shows
question ids, run ids and paths as inline code — no live link, image, HTML or @mention — and
`compare` and `gate` on a terminal show control characters escaped (ESC as `\\x1b`)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from factories import dataset_rows, write_dataset
from typer.testing import CliRunner

from cli import app
from evals.text.escape import markdown_code, markdown_text, terminal_safe

HOSTILE_IDS = [
    "[click](https://evil.example/x)",
    "![pixel](https://evil.example/p.png)",
    "@everyone",
    "<img src=x onerror=alert(1)>",
    "tick`s``here|pipe",
    "https://evil.example/bare",
    "red\x1b[31mtext\x1b]0;title\x07",
]


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path, Path]:
    """Run A over the three questions; run B over them and copies of q1 under hostile ids, with a
    hostile label: so B has questions the baseline has not, named in the overlap."""
    root = tmp_path_factory.mktemp("escape")
    base = write_dataset(root / "a")
    rows = dataset_rows()
    for qid in HOSTILE_IDS:
        q = copy.deepcopy(rows["questions"][0])
        q["question_id"] = qid
        rows["questions"].append(q)
    wider = write_dataset(root / "b", rows)
    for name, ds, label in (("a", base, "main"), ("b", wider, "cand\x1b[2J\x1b[31mhostile\rX")):
        made = invoke("run", str(ds), "--backend", "reference", "--out", str(root / "runs"), "--run-id", name,
                      "--label", label)
        assert made.exit_code == 0, made.output
        assert invoke("score", str(root / "runs" / name)).exit_code == 0
    return root, root / "runs" / "a", root / "runs" / "b"


def _live_markdown(md: str) -> list[str]:
    """What a Markdown renderer would make live, outside code spans: links, images, HTML tags,
    bare URLs, mentions."""
    prose = re.sub(r"(`+)(?:(?!\1).)+?\1", "", md)  # drop code spans
    found = re.findall(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", prose)
    found += re.findall(r"(?<!\\)<[a-zA-Z/]", prose.replace("<details>", "").replace("</details>", "")
                        .replace("<summary>", "").replace("</summary>", ""))
    found += re.findall(r"https?://", prose) + re.findall(r"@[A-Za-z]", prose) + re.findall("\x1b", md)
    return found


def test_gate_summary_shows_hostile_question_ids_as_inline_code(runs):
    root, a, b = runs
    summary = root / "summary.md"
    result = invoke("gate", str(b), "--baseline", str(a), "--summary", str(summary))
    assert result.exit_code in (0, 1), result.output
    md = summary.read_text(encoding="utf-8")
    assert "only in this run" in md
    assert _live_markdown(md) == []
    for qid in HOSTILE_IDS[:4]:
        assert markdown_code(qid) in md
    assert "``` tick`s``here|pipe ```" not in md and "```tick`s``here|pipe```" in md  # fence longer than ``
    assert "red\\x1b[31mtext\\x1b]0;title\\x07" in md  # ESC and BEL shown, not sent


def test_compare_and_gate_on_a_terminal_show_control_characters_escaped(runs):
    _, a, b = runs
    compared = invoke("compare", str(a), str(b))
    assert compared.exit_code == 0, compared.output
    assert "\x1b" not in compared.output and "\r" not in compared.output
    assert "cand\\x1b[2J\\x1b[31mhostile\\x0dX" in compared.output or "cand\\x1b[2J\\x1b[31mhostile\\rX" in compared.output
    gated = invoke("gate", str(b), "--baseline", str(a))
    assert "\x1b" not in gated.output and "red\\x1b[31mtext" in gated.output


@pytest.mark.parametrize("text", [*HOSTILE_IDS, "", "`", "``", " `a` ", "a\nb", "x\u202eevil"])
def test_a_code_span_reads_back_as_the_text(text):
    """CommonMark: strip the fence, then one space each side when both are spaces; the content
    is the text with its controls escaped, never cut short by a backtick inside."""
    span = markdown_code(text)
    fence = re.match("`+", span).group(0)
    assert span.endswith(fence) and fence not in span[len(fence):-len(fence)]
    inner = span[len(fence):-len(fence)]
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    expected = terminal_safe(text).replace("\n", "\\n")
    assert inner == (expected or " ")


def test_prose_escaping_breaks_mentions_and_autolinks():
    text = markdown_text("mail me@corp.example, see www.evil.example or https://evil.example [x](y) @here")
    assert _live_markdown(text) == [] and "www." not in text and "@h" not in text


def test_an_error_naming_a_hostile_path_shows_its_control_characters_escaped(tmp_path: Path) -> None:
    # the message quotes the path it was given; ESC and BEL must reach stderr as visible escapes
    folder = tmp_path / "x\x1b[31my\x07"
    folder.mkdir()
    result = invoke("judge", str(folder / "missing.jsonl"))
    assert result.exit_code == 2
    assert "x\\x1b[31my\\x07" in result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
