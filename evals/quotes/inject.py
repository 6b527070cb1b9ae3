"""`citeval quotes inject`: the answers with their verbatim quotes injected, as the bot shows them.

A matcher places each citation (Matcher.place, then its threshold); each placed quote goes
right after its span (DESIGN 9: the span is trimmed of closing punctuation, so the quote sits
before the period). Two styles:
- inline: `… раз в полгода [источник: «3.1. Периодическое обучение …»].`
- footnote: `… раз в полгода [1].` and, after a blank line at the end, `[1] «…»` per quote.

The answer text is plain text (the final text before injection, DESIGN 9), so in MarkdownV2
and HTML it is escaped like the quotes; the quote itself is set in italics. Each output is
parsed back with Telegram's rules (telegram.parse_message): it must be well-formed, fit the
4096-character limit, and removing the inserted pieces from the visible text must give the
answer back exactly (`round_trip_ok`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from evals.contract.quotes import Placement, QuoteAnswer, Span
from evals.errors import UsageError
from evals.quotes.boundaries import span_problems
from evals.quotes.matchers import DEFAULT, get_matcher
from evals.quotes.telegram import MESSAGE_LIMIT, PARSE_MODES, ParseMode, escape, parse_message, utf16_length
from evals.store.jsonl import write_jsonl_atomic
from evals.store.quotes import read_quotes

Style = Literal["inline", "footnote"]
STYLES: tuple[str, ...] = ("inline", "footnote")
SOURCE_LABEL = "источник"
GOLD = "gold"  # --matcher gold: inject at the raters' places (what a perfect matcher would show)
_SPACES = re.compile(r"\s+")
PLACEMENT_PROBLEM = "placement: "


def quote_text(cited_text: str) -> str:
    """The quote as shown: cited_text with its whitespace runs (line breaks of a PDF) folded to
    one space, so a footnote stays on its line."""
    return _SPACES.sub(" ", cited_text.replace("\x02", "")).strip()


@dataclass(frozen=True)
class Insertion:
    citation_id: str
    at: int  # offset in answer_text (code points) the quote follows
    visible: Span  # the inserted piece in the visible text (code points)


@dataclass
class Piece:
    """A run of the message: what the reader sees and how it is written in the parse mode."""

    visible: str
    written: str
    citation_id: str | None = None  # an inserted piece (a quote, a footnote mark) of this citation


@dataclass
class Injection:
    answer_id: str
    text: str  # the message in its parse mode
    visible: str  # what the reader sees
    parse_mode: str
    style: str
    insertions: list[Insertion]
    citations: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)
    answer_text: str = ""

    def placement_problems(self) -> list[str]:
        return [p for p in self.problems if p.startswith(PLACEMENT_PROBLEM)]

    @property
    def quotes_injected(self) -> int:
        return len({i.citation_id for i in self.insertions})

    @property
    def chars_added(self) -> int:
        return len(self.visible) - len(self.answer_text)

    @property
    def length(self) -> int:
        return utf16_length(self.visible)

    def without_quotes(self) -> str:
        """The visible text with every inserted piece cut out: the answer, when injection is right."""
        out, cursor = [], 0
        for start, end in sorted(i.visible for i in self.insertions):
            out.append(self.visible[cursor:start])
            cursor = end
        out.append(self.visible[cursor:])
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "answer_id": self.answer_id,
            "parse_mode": self.parse_mode,
            "style": self.style,
            "text": self.text,
            "quotes_injected": self.quotes_injected,
            "chars_added": self.chars_added,
            "length": self.length,
            "fits_limit": self.length <= MESSAGE_LIMIT,
            "well_formed": len(self.problems) == len(self.placement_problems()),
            "round_trip_ok": self.without_quotes() == self.answer_text,
            "problems": self.problems,
            "citations": self.citations,
        }


def _italic(text: str, mode: ParseMode) -> str:
    if mode == "markdown_v2":
        return f"_{escape(text, mode)}_"
    if mode == "html":
        return f"<i>{escape(text, mode)}</i>"
    return text


def _piece(visible: str, mode: ParseMode, citation_id: str | None = None, quote: str | None = None) -> Piece:
    """A piece whose visible text is `visible`; `quote`, when given, is the part of it set in italics."""
    if quote is None:
        return Piece(visible, escape(visible, mode), citation_id)
    before, _, after = visible.partition(quote)
    return Piece(visible, escape(before, mode) + _italic(quote, mode) + escape(after, mode), citation_id)


def inject_answer(
    answer: QuoteAnswer,
    placed: dict[str, Span | None],
    style: Style = "inline",
    parse_mode: ParseMode = "plain",
) -> list[Piece]:
    """The message as pieces: the answer's text, with each placed citation's quote (inline) or
    footnote mark after its span, and (footnote) the quotes at the end."""
    text = answer.answer_text
    order = {c.citation_id: k for k, c in enumerate(answer.citations)}
    quotes = {c.citation_id: quote_text(c.cited_text) for c in answer.citations}
    at = sorted(
        ((span[1], order[cid], cid) for cid, span in placed.items() if span is not None and 0 <= span[1] <= len(text)),
    )
    pieces: list[Piece] = []
    cursor = 0
    numbers: dict[str, int] = {}
    for end, _, cid in at:
        if end > cursor:
            pieces.append(_piece(text[cursor:end], parse_mode))
            cursor = end
        if style == "inline":
            inner = f"«{quotes[cid]}»"
            pieces.append(_piece(f" [{SOURCE_LABEL}: {inner}]", parse_mode, cid, inner))
        else:
            numbers[cid] = len(numbers) + 1
            pieces.append(_piece(f" [{numbers[cid]}]", parse_mode, cid))
    if cursor < len(text):
        pieces.append(_piece(text[cursor:], parse_mode))
    if style == "footnote" and numbers:
        for cid, number in numbers.items():
            inner = f"«{quotes[cid]}»"
            lead = "\n\n" if number == 1 else "\n"
            pieces.append(_piece(f"{lead}[{number}] {inner}", parse_mode, cid, inner))
    return pieces


def build_injection(
    answer: QuoteAnswer,
    placements: Sequence[Placement | None],
    threshold: float | None,
    style: Style = "inline",
    parse_mode: ParseMode = "plain",
) -> Injection:
    """One answer's message with the citations placed at threshold (None: every offered span,
    as for gold places), checked for its parse mode and the message limit."""
    placed: dict[str, Span | None] = {}
    cited: list[dict[str, Any]] = []
    for citation, placement in zip(answer.citations, placements, strict=True):
        if placement is None:
            span = None
        elif threshold is None:
            span = placement.span
        else:
            span = placement.placed_at(threshold)
        placed[citation.citation_id] = span
        cited.append(
            {
                "citation_id": citation.citation_id,
                "span": list(span) if span else None,
                "score": placement.score if placement else None,
                "injected": span is not None,
            }
        )
    pieces = inject_answer(answer, placed, style, parse_mode)
    placement_problems = span_problems(
        answer.answer_text, [(cid, span) for cid, span in placed.items() if span is not None]
    )
    insertions: list[Insertion] = []
    cursor = 0
    source_cursor = 0
    for piece in pieces:
        if piece.citation_id is not None:
            insertions.append(Insertion(piece.citation_id, source_cursor, (cursor, cursor + len(piece.visible))))
        else:
            source_cursor += len(piece.visible)
        cursor += len(piece.visible)
    message = "".join(p.written for p in pieces)
    visible = "".join(p.visible for p in pieces)
    parsed = parse_message(message, parse_mode)
    problems = list(parsed.problems)  # the length is checked apart: a long message is well-formed
    if parsed.well_formed and parsed.text != visible:
        problems.append("the message does not read back as the text it was built from (an escaping bug)")
    problems.extend(PLACEMENT_PROBLEM + p for p in placement_problems)
    return Injection(
        answer.answer_id, message, visible, parse_mode, style, insertions, cited, problems, answer.answer_text
    )


@dataclass
class InjectionReport:
    injections: list[Injection]
    matcher: str
    threshold: float | None
    style: str
    parse_mode: str

    def summary(self) -> dict[str, Any]:
        added = sorted(i.chars_added for i in self.injections)
        rows = [i.to_json() for i in self.injections]
        return {
            "matcher": self.matcher,
            "threshold": self.threshold,
            "style": self.style,
            "parse_mode": self.parse_mode,
            "answers": len(rows),
            "answers_with_quotes": sum(1 for i in self.injections if i.quotes_injected),
            "quotes_injected": sum(i.quotes_injected for i in self.injections),
            "chars_added": {
                "mean": round(sum(added) / len(added), 1) if added else None,
                "max": added[-1] if added else None,
                "total": sum(added),
            },
            "message_limit": MESSAGE_LIMIT,
            "too_long": [r["answer_id"] for r in rows if not r["fits_limit"]],
            "malformed": [r["answer_id"] for r in rows if not r["well_formed"]],
            "round_trip_failed": [r["answer_id"] for r in rows if not r["round_trip_ok"]],
            "misplaced": [i.answer_id for i in self.injections if i.placement_problems()],
        }

    def has_problems(self) -> bool:
        """Anything `--strict` fails on: a malformed or too long message, a broken round trip,
        a quote inside a phrase or overlapping another."""
        s = self.summary()
        return bool(s["too_long"] or s["malformed"] or s["round_trip_failed"] or s["misplaced"])

    def to_text(self) -> str:
        s = self.summary()
        where = f"{s['matcher']}" + (f" at threshold {s['threshold']:g}" if s["threshold"] is not None else "")
        lines = [
            f"{s['answers']} answer(s), {s['style']} quotes, parse mode {s['parse_mode']}, placed by {where}",
            f"quotes injected: {s['quotes_injected']} in {s['answers_with_quotes']} answer(s); characters added per "
            f"answer: mean {s['chars_added']['mean']}, max {s['chars_added']['max']}",
        ]
        for name, label in (
            ("too_long", f"longer than {MESSAGE_LIMIT} characters"),
            ("malformed", f"not well-formed for {s['parse_mode']}"),
            ("round_trip_failed", "removing the quotes does not give the answer back"),
            ("misplaced", "a quote inside a phrase or spans overlapping"),
        ):
            ids = s[name]
            lines.append(f"{label}: {len(ids)}" + (f" ({', '.join(ids[:10])})" if ids else ""))
        for i in self.injections:
            for problem in i.problems:
                lines.append(f"  {i.answer_id}: {problem}")
            if i.length > MESSAGE_LIMIT:
                lines.append(f"  {i.answer_id}: {i.length} characters after entity parsing (limit {MESSAGE_LIMIT})")
        return "\n".join(lines) + "\n"


def inject_answers(
    answers: Sequence[QuoteAnswer],
    matcher: str = DEFAULT,
    threshold: float | None = None,
    style: str = "inline",
    parse_mode: str = "plain",
) -> InjectionReport:
    """Every answer's message: placed by the named matcher at its default threshold (or the
    one given), or at the gold places (`gold`)."""
    if style not in STYLES:
        raise UsageError(f"--style must be one of {', '.join(STYLES)} (got {style!r})")
    if parse_mode not in PARSE_MODES:
        raise UsageError(f"--parse-mode must be one of {', '.join(PARSE_MODES)} (got {parse_mode!r})")
    if threshold is not None and threshold < 0:
        raise UsageError(f"--threshold must be ≥ 0 (got {threshold})")
    chosen_style, mode = cast(Style, style), cast(ParseMode, parse_mode)
    if matcher == GOLD:
        injections = []
        for answer in answers:
            gold = answer.gold_by_citation()
            placements = [
                Placement(gold[c.citation_id].span, None) if c.citation_id in gold else None for c in answer.citations
            ]
            injections.append(build_injection(answer, placements, None, chosen_style, mode))
        return InjectionReport(injections, GOLD, None, style, parse_mode)
    chosen = get_matcher(matcher)
    at = float(chosen.default_threshold) if threshold is None else threshold
    injections = [
        build_injection(a, chosen.place(a.answer_text, a.citations), at, chosen_style, mode)
        for a in answers
    ]
    return InjectionReport(injections, chosen.name, at, style, parse_mode)


def inject_path(
    path: Path | str,
    matcher: str,
    out: Path | str,
    threshold: float | None = None,
    style: str = "inline",
    parse_mode: str = "plain",
) -> InjectionReport:
    """`citeval quotes inject`: read a quotes file, inject, write one line per answer to out."""
    if matcher != GOLD:
        get_matcher(matcher)  # a bad name fails before any reading
    report = inject_answers(read_quotes(path), matcher, threshold, style, parse_mode)
    write_jsonl_atomic(out, [i.to_json() for i in report.injections])
    return report
