"""Navigation inside a report: HTML ids made from untrusted ids, the questions grouped so a failed
gate rule has somewhere to point, the questions behind each finding code, and the language of the
content (the page's `lang`).

Every id of a page comes from one `Anchors`, so two untrusted ids that encode alike still get
different HTML ids; a question's id is `q-` and the question id itself where that is safe."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.contract.scores import QuestionScore
from evals.gate.config import FINDINGS_PREFIX
from evals.report.views import QuestionView

_KEEP = re.compile(r"[A-Za-z0-9_.:-]")
LANG_TAG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
CYRILLIC = re.compile(r"[\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f]")
OPEN_FAILING = 3  # the first failing questions are shown open


def id_part(text: str) -> str:
    """`text` with every character outside [A-Za-z0-9_.:-] written as `_<hex code point>_`
    ("q 1/2" → "q_20_1_2f_2"): deterministic, and only characters safe in an id and a URL fragment."""
    return "".join(c if _KEEP.fullmatch(c) else f"_{ord(c):x}_" for c in text)


class Anchors:
    """The ids of one page: each asked-for id once; a second, different text that encodes to an id
    already taken gets a suffix from its own hash (so the suffix does not depend on order)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def claim(self, prefix: str, *parts: str) -> str:
        wanted = prefix + "-".join(id_part(p) for p in parts)
        if wanted in self.taken:
            digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
            base = wanted = f"{wanted}-{digest[:8]}"
            n = 2
            while wanted in self.taken:
                wanted, n = f"{base}-{n}", n + 1
        self.taken.add(wanted)
        return wanted


@dataclass
class QuestionGroup:
    anchor: str
    title: str
    tier: str | None  # the failing questions of one tier; None for the passing ones
    questions: list[QuestionView]


@dataclass
class FindingQuestions:
    """The questions with one finding code: per tier, (question id, its anchor or None when the
    question is not shown in the drill-down)."""

    code: str
    anchor: str
    tiers: list[tuple[str, str, list[tuple[str, str | None]]]]  # (tier, anchor, questions)

    @property
    def count(self) -> int:
        return sum(len(items) for _, _, items in self.tiers)


@dataclass
class SectionNav:
    """The ids of one run's sections and the targets of its failed gate rules."""

    run: str
    gate: str
    questions: str
    failing: str | None
    groups: list[QuestionGroup]
    opened: set[str]  # question ids shown open
    findings: dict[str, FindingQuestions] = field(default_factory=dict)

    def code_href(self, code: str) -> str | None:
        found = self.findings.get(code)
        return "#" + found.anchor if found else None

    def rule_href(self, rule: Any) -> str:
        """Where a failed rule's questions are: a findings.CODE rule at that code's questions (of the
        rule's tier when it has a tier), a tier's metric rule at that tier's failing questions, an
        overall rule at all failing questions; the questions section when none of them is shown."""
        scope, key = str(rule.scope), str(rule.key)
        found = self.findings.get(key[len(FINDINGS_PREFIX):]) if key.startswith(FINDINGS_PREFIX) else None
        if found is not None:
            return "#" + next((anchor for tier, anchor, _ in found.tiers if tier == scope), found.anchor)
        tier_group = next((g for g in self.groups if g.tier is not None and g.tier == scope), None)
        if tier_group is not None:
            return "#" + tier_group.anchor
        return "#" + (self.failing or self.questions)


def _groups(anchors: Anchors, run_id: str, questions: Sequence[QuestionView]) -> list[QuestionGroup]:
    """The drill-down's failing questions by tier (in the order the tiers first come, worst first
    within), then the passing ones."""
    failing: dict[str, list[QuestionView]] = {}
    for q in questions:
        if not q.passed:
            failing.setdefault(q.risk_tier, []).append(q)
    groups = [QuestionGroup(anchors.claim("failing-", run_id, tier), f"Failing — {tier}", tier, qs)
              for tier, qs in failing.items()]
    passing = [q for q in questions if q.passed]
    if passing:
        groups.append(QuestionGroup(anchors.claim("passing-", run_id), "Passing", None, passing))
    return groups


def _finding_questions(
    anchors: Anchors, run_id: str, rows: Mapping[str, QuestionScore], shown: Mapping[str, str],
    tier_order: Mapping[str, int],
) -> dict[str, FindingQuestions]:
    by_code: dict[str, dict[str, list[str]]] = {}
    for qid, row in rows.items():
        for code in dict.fromkeys(row.findings):
            by_code.setdefault(code, {}).setdefault(row.risk_tier or "policy", []).append(qid)
    out: dict[str, FindingQuestions] = {}
    for code in sorted(by_code):
        tiers = []
        for tier in sorted(by_code[code], key=lambda t: (tier_order.get(t, 9), t)):
            qids = sorted(by_code[code][tier])
            tiers.append((tier, anchors.claim("findings-", run_id, code, tier), [(q, shown.get(q)) for q in qids]))
        out[code] = FindingQuestions(code, anchors.claim("findings-", run_id, code), tiers)
    return out


def section_nav(
    anchors: Anchors, run_id: str, questions: Sequence[QuestionView], rows: Mapping[str, QuestionScore],
    tier_order: Mapping[str, int], suffix: str | None = None,
) -> SectionNav:
    """Claim one run section's ids and set each question's anchor to `q-<question id>` (with
    `--<suffix>` for a second run's drill-down on the same page)."""
    for q in questions:
        q.anchor = anchors.claim("q-", q.question_id) if suffix is None else anchors.claim(
            "q-", q.question_id + "--" + suffix)
    shown = {q.question_id: q.anchor for q in questions}
    failing = [q for q in questions if not q.passed]
    return SectionNav(
        run=anchors.claim("run-", run_id),
        gate=anchors.claim("gate-", run_id),
        questions=anchors.claim("questions-", run_id),
        failing=anchors.claim("failing-", run_id) if failing else None,
        groups=_groups(anchors, run_id, questions),
        opened={q.question_id for q in failing[:OPEN_FAILING]},
        findings=_finding_questions(anchors, run_id, rows, shown, tier_order),
    )


def content_lang(texts: Iterable[str | None], default: str = "en") -> str:
    """'ru' when most letters of the texts (questions, answers) are Cyrillic, else `default`."""
    letters = cyrillic = 0
    for text in texts:
        for c in text or "":
            if c.isalpha():
                letters += 1
                cyrillic += bool(CYRILLIC.match(c))
    return "ru" if letters and cyrillic * 2 > letters else default
