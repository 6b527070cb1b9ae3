"""`citeval quotes logs`: did verbatim quotes change the 👍 rate? From the bot's metrics lines.

A metrics file holds one JSON object a line (README "Production logs" defines the fields):
- `{"event": "answer", "time", "answer_id", "chat_id"?, "variant"?, "quotes_injected", …}` —
  the bot sent an answer with that many verbatim quotes injected (0: none); it may carry
  `answer_text`, `citations` (as in a quotes file) and `placements` `[{citation_id, span,
  score}]`, the matcher's choices, which `--export` needs;
- `{"event": "feedback", "time", "answer_id"?, "chat_id"?, "value": "👍" | "👎"}` — a reaction,
  keyed to its answer by answer_id, else to the chat's latest answer sent before it. A
  later reaction to the same answer replaces the earlier one (the user changed it).
Any other event is counted and skipped.

Per day (the answer's UTC date) and per variant, and for the whole window: answers with and
without quotes, quotes injected, and the 👍 rate (👍 / rated answers) of each group with its
Wilson 95 % interval, the difference (with − without) with Newcombe's hybrid score interval
(method 10 of Newcombe 1998) and a two-sided pooled two-proportion z-test. A rate that
cannot be computed is null with a reason.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evals.contract.models import parse_time
from evals.contract.quotes import QuoteCitation
from evals.errors import DataError, DatasetInvalid, UsageError
from evals.store.jsonl import iter_json_lines, validation_errors, write_jsonl_atomic

Z95 = 1.959963984540054  # the 97.5 % point of the standard normal
ALPHA = 0.05
UP, DOWN = "up", "down"
_FEEDBACK = {"👍": UP, "👎": DOWN, "up": UP, "down": DOWN, "like": UP, "dislike": DOWN, "+1": UP, "-1": DOWN,
             "thumbs_up": UP, "thumbsup": UP, "thumbs_down": DOWN, "thumbsdown": DOWN}
# what may ride on the emoji: the emoji presentation selector and the five skin tones (👍🏽 is 👍)
_EMOJI_MODIFIERS = dict.fromkeys([0xFE0F, *range(0x1F3FB, 0x1F400)])
DEFAULT_VARIANT = "default"
EXPORT_SAMPLE = 50


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow")

    event: str
    time: datetime
    answer_id: str | None = None
    chat_id: str | None = None

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, value: Any) -> Any:
        return parse_time(value)

    @field_validator("chat_id", "answer_id", mode="before")
    @classmethod
    def _text_id(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class LoggedPlacement(BaseModel):
    model_config = ConfigDict(extra="allow")

    citation_id: str
    span: tuple[int, int] | None = None
    score: float | None = None


class AnswerEvent(_Event):
    answer_id: str = Field(min_length=1)
    variant: str = DEFAULT_VARIANT
    quotes_injected: int = Field(ge=0)
    answer_text: str | None = None
    citations: list[QuoteCitation] | None = None
    placements: list[LoggedPlacement] | None = None


class FeedbackEvent(_Event):
    value: str

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> str:
        key = str(value).translate(_EMOJI_MODIFIERS).strip().lower() if not isinstance(value, bool) else ""
        if isinstance(value, int) and not isinstance(value, bool):
            key = {1: "+1", -1: "-1"}.get(value, "")
        if key not in _FEEDBACK:
            raise ValueError(f"feedback must be 👍 or 👎 (or up/down, +1/-1), got {value!r}")
        return _FEEDBACK[key]


# --- statistics ---------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of successes / n (None when n is 0)."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval of p1 − p2 (his method 10): each proportion's Wilson
    interval, combined in quadrature."""
    a, b = wilson(x1, n1), wilson(x2, n2)
    if a is None or b is None:
        return None
    p1, p2 = x1 / n1, x2 / n2
    d = p1 - p2
    lower = d - math.sqrt((p1 - a[0]) ** 2 + (b[1] - p2) ** 2)
    upper = d + math.sqrt((a[1] - p1) ** 2 + (p2 - b[0]) ** 2)
    return (max(-1.0, lower), min(1.0, upper))


def two_proportion_z(x1: int, n1: int, x2: int, n2: int) -> dict[str, Any]:
    """Two-sided z-test of p1 = p2 with the pooled proportion."""
    from scipy.stats import norm

    if n1 == 0 or n2 == 0:
        return {"z": None, "p_value": None, "reason": "a group has no rated answer"}
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return {"z": None, "p_value": None, "reason": "every rated answer has the same reaction"}
    z = (x1 / n1 - x2 / n2) / se
    p = float(2 * norm.sf(abs(z)))
    return {"z": round(z, 6), "p_value": round(p, 6), "significant": p < ALPHA}


def _rate(up: int, rated: int) -> dict[str, Any]:
    if rated == 0:
        return {"value": None, "ci": None, "n": 0, "up": 0, "reason": "no rated answer"}
    ci = wilson(up, rated)
    assert ci is not None
    return {"value": round(up / rated, 6), "ci": [round(ci[0], 6), round(ci[1], 6)], "n": rated, "up": up}


@dataclass
class Group:
    """Counts of one cell (a day and variant, a variant, everything)."""

    answers: int = 0
    with_quotes: int = 0
    quotes_injected: int = 0
    rated: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})
    up: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})

    def add(self, quotes: int, feedback: str | None) -> None:
        has = quotes > 0
        self.answers += 1
        self.with_quotes += has
        self.quotes_injected += quotes
        if feedback is not None:
            self.rated[has] += 1
            self.up[has] += feedback == UP

    def to_json(self) -> dict[str, Any]:
        x1, n1, x2, n2 = self.up[True], self.rated[True], self.up[False], self.rated[False]
        diff: dict[str, Any]
        if n1 and n2:
            ci = newcombe(x1, n1, x2, n2)
            assert ci is not None
            diff = {"value": round(x1 / n1 - x2 / n2, 6), "ci": [round(ci[0], 6), round(ci[1], 6)]}
        else:
            diff = {"value": None, "ci": None, "reason": "a group has no rated answer"}
        return {
            "answers": self.answers,
            "with_quotes": self.with_quotes,
            "without_quotes": self.answers - self.with_quotes,
            "quotes_injected": self.quotes_injected,
            "up_rate_with_quotes": _rate(x1, n1),
            "up_rate_without_quotes": _rate(x2, n2),
            "difference": diff,
            "z_test": two_proportion_z(x1, n1, x2, n2),
        }


@dataclass
class LogReport:
    days: dict[tuple[str, str], Group]
    variants: dict[str, Group]
    total: Group
    events: dict[str, int]
    feedback_unmatched: int
    files: list[str]
    since: datetime | None
    answers: dict[str, AnswerEvent]
    feedback: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "since": self.since.isoformat() if self.since else None,
            "events": self.events,
            "feedback_unmatched": self.feedback_unmatched,
            "total": self.total.to_json(),
            "variants": {v: g.to_json() for v, g in sorted(self.variants.items())},
            "days": [{"day": d, "variant": v, **g.to_json()} for (d, v), g in sorted(self.days.items())],
            "method": "👍 rate = 👍 / rated answers; Wilson 95 % intervals; difference with Newcombe's hybrid score "
            "interval; two-sided pooled two-proportion z-test",
        }

    def to_text(self) -> str:
        lines = [
            f"{sum(self.events.values())} event(s) in {len(self.files)} file(s): "
            + ", ".join(f"{k} {n}" for k, n in sorted(self.events.items()))
        ]
        if self.feedback_unmatched:
            lines.append(f"{self.feedback_unmatched} feedback event(s) match no answer (left out)")
        if not self.total.answers:
            since = f" at or after {self.since.isoformat()}" if self.since else ""
            lines.append(f"no answer event{since}: nothing to report")
            return "\n".join(lines) + "\n"
        lines.append(
            f"{'day':<11} {'variant':<14} {'answers':>7} {'with':>5} {'without':>8} {'quotes':>7}  "
            f"{'👍 with quotes':<23} {'👍 without quotes':<23} {'difference':<25} p"
        )
        rows = [(d, v, g) for (d, v), g in sorted(self.days.items())]
        rows += [("all days", v, g) for v, g in sorted(self.variants.items())]
        if len(self.variants) > 1:
            rows.append(("all days", "all", self.total))
        for day, variant, group in rows:
            j = group.to_json()
            lines.append(
                f"{day:<11} {variant[:14]:<14} {j['answers']:>7} {j['with_quotes']:>5} {j['without_quotes']:>8} "
                f"{j['quotes_injected']:>7}  {_rate_text(j['up_rate_with_quotes']):<23} "
                f"{_rate_text(j['up_rate_without_quotes']):<23} {_diff_text(j['difference']):<25} "
                f"{_p_text(j['z_test'])}"
            )
        return "\n".join(lines) + "\n"


def _rate_text(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "—"
    return f"{rate['up']}/{rate['n']} {rate['value']:.2f} [{rate['ci'][0]:.2f}, {rate['ci'][1]:.2f}]"


def _diff_text(diff: dict[str, Any]) -> str:
    if diff["value"] is None:
        return "—"
    return f"{diff['value']:+.3f} [{diff['ci'][0]:+.2f}, {diff['ci'][1]:+.2f}]"


def _p_text(test: dict[str, Any]) -> str:
    if test.get("p_value") is None:
        return "—"
    return "< 0.001" if test["p_value"] < 0.001 else f"{test['p_value']:.3f}"


# --- reading --------------------------------------------------------------------------------


def parse_since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_time(text)  # type: ignore[no-any-return]
    except ValueError:
        raise UsageError(f"--since {text!r}: give an ISO 8601 date or time, e.g. 2026-11-23") from None


def _day(t: datetime) -> str:
    return t.astimezone(timezone.utc).date().isoformat()


def read_events(paths: Sequence[Path | str]) -> tuple[list[tuple[str, int, _Event]], dict[str, int]]:
    """Every answer and feedback event, in file order; a bad line raises (all problems listed)."""
    problems: list[DataError] = []
    events: list[tuple[str, int, _Event]] = []
    counts: dict[str, int] = defaultdict(int)
    models: dict[str, type[_Event]] = {"answer": AnswerEvent, "feedback": FeedbackEvent}
    for path in paths:
        for lineno, obj in iter_json_lines(path, problems.append):
            name = obj.get("event")
            if not isinstance(name, str) or not name:
                problems.append(DataError(path, lineno, "no event name (field event)", "event"))
                continue
            counts[name] += 1
            model = models.get(name)
            if model is None:
                continue
            try:
                event = model.model_validate(obj)
            except ValidationError as exc:
                problems.extend(validation_errors(path, lineno, exc))
                continue
            if isinstance(event, FeedbackEvent) and not event.answer_id and not event.chat_id:
                problems.append(DataError(path, lineno, "feedback names neither answer_id nor chat_id", "answer_id"))
                continue
            events.append((str(path), lineno, event))
    if problems:
        raise problems[0] if len(problems) == 1 else DatasetInvalid(problems)
    return events, dict(counts)


def analyse_logs(paths: Sequence[Path | str], since: str | datetime | None = None) -> LogReport:
    """`citeval quotes logs`: the report over the answers sent at or after since."""
    if not paths:
        raise UsageError("give at least one metrics file")
    start = since if isinstance(since, datetime) or since is None else parse_since(since)
    if isinstance(start, datetime) and start.tzinfo is None:
        start = start.replace(tzinfo=timezone.utc)
    events, counts = read_events(paths)
    answers: dict[str, AnswerEvent] = {}
    by_chat: dict[str, list[AnswerEvent]] = defaultdict(list)
    for _, _, e in events:
        if isinstance(e, AnswerEvent):
            answers[e.answer_id] = e  # a repeated answer line (a retried log write) counts once
            if e.chat_id:
                by_chat[e.chat_id].append(e)
    for chat in by_chat.values():
        chat.sort(key=lambda a: a.time)
    feedback: dict[str, tuple[datetime, str]] = {}
    unmatched = 0
    for _, _, e in events:
        if not isinstance(e, FeedbackEvent):
            continue
        target = e.answer_id if e.answer_id in answers else None
        if target is None and e.answer_id is None and e.chat_id:
            earlier = [a for a in by_chat.get(e.chat_id, []) if a.time <= e.time]
            target = earlier[-1].answer_id if earlier else None
        if target is None:
            unmatched += 1
            continue
        if target not in feedback or feedback[target][0] <= e.time:
            feedback[target] = (e.time, e.value)
    days: dict[tuple[str, str], Group] = defaultdict(Group)
    variants: dict[str, Group] = defaultdict(Group)
    total = Group()
    kept: dict[str, AnswerEvent] = {}
    for answer in sorted(answers.values(), key=lambda a: (a.time, a.answer_id)):
        if start is not None and answer.time < start:
            continue
        kept[answer.answer_id] = answer
        value = feedback.get(answer.answer_id, (None, None))[1]
        for group in (days[(_day(answer.time), answer.variant)], variants[answer.variant], total):
            group.add(answer.quotes_injected, value)
    return LogReport(
        dict(days),
        dict(variants),
        total,
        counts,
        unmatched,
        [str(p) for p in paths],
        start,
        kept,
        {k: v for k, (_, v) in feedback.items() if k in kept},
    )


# --- export for rater review -------------------------------------------------------------------


def low_scoring_sample(report: LogReport, size: int = EXPORT_SAMPLE) -> list[dict[str, Any]]:
    """Quotes-file lines of the injected answers whose weakest injected quote scored lowest (a 👎
    first among equals): the answers most likely to show a quote in the wrong place."""
    candidates = []
    for answer in report.answers.values():
        if not answer.quotes_injected or not answer.answer_text or not answer.citations:
            continue
        scores = [p.score for p in answer.placements or [] if p.span is not None and p.score is not None]
        weakest = min(scores) if scores else math.inf
        down = report.feedback.get(answer.answer_id) == DOWN
        candidates.append((weakest, not down, answer.answer_id, answer))
    candidates.sort(key=lambda c: c[:3])
    out = []
    for weakest, _, _, answer in candidates[:size]:
        row: dict[str, Any] = {
            "answer_id": answer.answer_id,
            "answer_text": answer.answer_text,
            "citations": [c.model_dump(exclude_none=True) for c in answer.citations or []],
            "variant": answer.variant,
            "sent_at": answer.time.isoformat(),
            "feedback": report.feedback.get(answer.answer_id),
            "weakest_score": None if weakest == math.inf else weakest,
        }
        if answer.placements:
            row["logged_placements"] = [p.model_dump() for p in answer.placements]
        out.append(row)
    return out


def export_sample(report: LogReport, out: Path | str, size: int = EXPORT_SAMPLE) -> int:
    rows = low_scoring_sample(report, size)
    write_jsonl_atomic(out, rows)
    return len(rows)
