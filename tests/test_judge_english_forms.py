"""English numbers and dates in the offline judge: grouped thousands and month abbreviations
(peers' pairs write "6,650 km" and "Jan 15, 1967" where the evidence spells them otherwise)."""

from __future__ import annotations

import pytest

from evals.score.judges.base import JudgeInput
from evals.score.judges.lexicon import english_forms
from evals.score.judges.offline import OfflineJudge


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6,650 km", "6650 km"),
        ("1,234,567 people", "1234567 people"),
        ("1,5 million", "1,5 million"),  # not three digits after the comma: left alone
        ("12,34", "12,34"),
        ("jan 15, 1967", "january 15, 1967"),
        ("jan. 15, 1967", "january 15, 1967"),
        ("15 sept 1967", "15 september 1967"),
        ("the dec meeting", "the dec meeting"),  # no day or year after it: not read as a month
    ],
)
def test_english_forms(text: str, expected: str) -> None:
    assert english_forms(text) == expected


@pytest.mark.parametrize(
    ("claim", "evidence", "value"),
    [
        ("The Nile is about 6,650 km long.", "The Nile is approximately 6650 km long.", "supported"),
        ("The Nile is about 6650 km long.", "The Nile is approximately 6,650 km (4,130 mi) long.", "supported"),
        ("The Nile is about 6.65 km long.", "The Nile is approximately 6,650 km long.", "unsupported"),
        ("The game was played on January 15, 1967.", "The first game was played on Jan 15, 1967.", "supported"),
        ("The game was played on Jan. 15, 1967.", "The first game was played on January 15, 1967.", "supported"),
        ("The game was played on Jan 16, 1967.", "The first game was played on January 15, 1967.", "unsupported"),
    ],
)
def test_judged(claim: str, evidence: str, value: str) -> None:
    assert OfflineJudge().judge_one(JudgeInput(claim, (evidence,))).value == value
