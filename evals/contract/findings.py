"""The one findings table: every finding code of findings.jsonl (DESIGN 4) with its severity, the
line the report and the docs show, and the check of the score stage that emits it.

Severity, as the default gates (evals/gate/default.toml), the metrics and the report treat a code:
- error: the citation cannot be trusted or must never be shown — the code makes the marker
  invalid (citation_validity counts it 0) or the default gates allow none in any tier — or
  there is no answer at all (a backend error);
- warning: the citation resolves, but the answer is wrong in a way a metric counts against and
  the default gates may forbid in a risk tier (stale editions, quotes, numbers, anchors,
  uncited claims, abstentions, a cut answer);
- info: a grade against gold rather than a defect of the citation (key facts, gold evidence),
  gated through their recall metrics.
Every finding fails its question's pass (evals.report.stats.PASS_DEFINITION), whatever its severity.

The checks live in the score stage, which this base layer must not import: each is given by its
qualified name, looked up on first use (`FindingCode.emitters()`).
docs/reference/findings.md is `markdown_table()` (tests/test_reference_docs.py keeps it so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from evals.contract.qualname import resolve

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

_CHECKS = "evals.score.checks."
_EVIDENCE = _CHECKS + "EvidenceChecker"
_VERSION = _CHECKS + "edition_status_code"
_LINKS = _CHECKS + "check_links"
_STATUS = _CHECKS + "status_findings"


@dataclass(frozen=True)
class FindingCode:
    code: str
    severity: Severity
    description: str  # one line for the report and the docs
    emitted_by: tuple[str, ...]  # qualified names of the checks that emit it

    def emitters(self) -> list[Callable[..., Any]]:
        """The checks that emit the code (imports the score stage on first use)."""
        found = [resolve(name) for name in self.emitted_by]
        for name, check in zip(self.emitted_by, found, strict=True):
            if not callable(check):
                raise TypeError(f"{name} is not a function")
        return found


FINDINGS: tuple[FindingCode, ...] = (
    FindingCode("UNKNOWN_EVIDENCE_ID", "error", "marker names no evidence the model was given", (_EVIDENCE,)),
    FindingCode("UNRESOLVED_CHUNK", "error", "evidence matches no registry chunk", (_EVIDENCE,)),
    FindingCode("CHUNK_TEXT_MISMATCH", "error", "evidence text differs from the registry chunk", (_EVIDENCE,)),
    FindingCode("ACCESS_DENIED", "error", "the user could not read the document when asking", (_EVIDENCE,)),
    FindingCode("VERSION_SUPERSEDED", "warning", "cites a superseded edition without a stale notice", (_VERSION,)),
    FindingCode("VERSION_REVOKED", "warning", "cites a revoked edition", (_VERSION,)),
    FindingCode("VERSION_DELETED", "error", "cites a deleted edition", (_VERSION,)),
    FindingCode("VERSION_NOT_YET_EFFECTIVE", "warning", "cites an edition not yet in force", (_VERSION,)),
    FindingCode("LINK_NOT_FROM_REGISTRY", "error", "link not built on a registry viewer URL", (_LINKS,)),
    FindingCode("LINK_VERSION_REDIRECT", "error", "link opens another edition than the evidence", (_LINKS,)),
    FindingCode("LINK_LEAKS_TEXT", "error", "link carries the cited text", (_LINKS,)),
    FindingCode("LINK_UNSAFE_SCHEME", "error", "link scheme is not http(s)", (_LINKS,)),
    FindingCode("QUOTE_NOT_FOUND", "warning", "quote not found in the cited chunk", (_CHECKS + "check_quotes",)),
    FindingCode("QUOTE_OUTSIDE_ANCHOR", "warning", "quote found, but outside the cited anchor",
                (_CHECKS + "check_quotes",)),
    FindingCode("NUMBER_UNSUPPORTED", "warning", "a number in the claim is not in its evidence",
                (_CHECKS + "check_numbers",)),
    FindingCode("CLAIM_UNCITED", "warning", "a substantive claim carries no citation", (_CHECKS + "check_claim",)),
    FindingCode("ANCHOR_MISMATCH", "warning", "page or document of the citation disagrees with the registry",
                (_EVIDENCE, _LINKS, _CHECKS + "gold_anchor_findings")),
    FindingCode("SHOULD_HAVE_ABSTAINED", "warning", "answered a question it should have refused", (_STATUS,)),
    FindingCode("UNNEEDED_ABSTENTION", "warning", "refused an answerable question", (_STATUS,)),
    FindingCode("BACKEND_ERROR", "error", "the backend failed", (_STATUS,)),
    FindingCode("ANSWER_TRUNCATED", "warning", "the backend cut the answer short (e.g. max_tokens)",
                (_CHECKS + "truncation_finding",)),
    FindingCode("KEY_FACT_MISSING", "info", "a gold key fact the answer does not state",
                (_CHECKS + "key_fact_findings",)),
    FindingCode("GOLD_EVIDENCE_NOT_CITED", "info", "a gold evidence item no valid marker reaches",
                (_CHECKS + "gold_evidence_findings",)),
)

BY_CODE: dict[str, FindingCode] = {f.code: f for f in FINDINGS}
# Every finding code (DESIGN 4) with the one-line meaning the report and the docs show.
FINDING_DESCRIPTIONS: dict[str, str] = {f.code: f.description for f in FINDINGS}
FINDING_CODES: tuple[str, ...] = tuple(BY_CODE)


def severity(code: str) -> Severity:
    return BY_CODE[code].severity


def markdown_table() -> str:
    """docs/reference/findings.md: the table as a user reads it."""
    lines = [
        "# Finding codes of findings.jsonl",
        "",
        "Generated from `evals/contract/findings.py` (the one findings table); regenerate with",
        "`python3 scripts/reference_docs.py`. A gates file counts a code as `\"findings.<CODE>\"`.",
        "Severity: `error` — the citation cannot be trusted or must never be shown (the marker is",
        "invalid, or the default gates allow none in any tier), or the backend failed; `warning` —",
        "the citation resolves but the answer is wrong in a way a metric counts against; `info` — a",
        "grade against gold. Any finding fails its question's pass.",
        "",
        "| code | severity | meaning | emitted by |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{f.code}` | {f.severity} | {f.description} | {', '.join(f'`{name}`' for name in f.emitted_by)} |"
        for f in FINDINGS
    ]
    return "\n".join(lines) + "\n"
