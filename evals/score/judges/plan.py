"""`citeval judge PAIRS --plan`: how much of a pairs file a cascade must send to the LLM to reach
a target macro-F1, and what that costs.

On the labelled pairs, the offline verdicts are ranked by confidence (evals.score.judges.cascade)
and the least confident are replaced, one by one, by their labels: the plan assumes an LLM that
answers correctly, so the share it gives is a lower bound for a real one. The cost is
estimated from the prompt the LLM judge would send (its characters / CHARS_PER_TOKEN) and
OUTPUT_TOKENS a reply, at the price given (USD per million input and output tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.score.judges.base import JudgeInput, JudgeResult
from evals.score.judges.cascade import confidence
from evals.score.judges.prompt import SUPPORT_PROMPT

CHARS_PER_TOKEN = 4.0  # a rough mean over English and Russian text for current tokenizers
OUTPUT_TOKENS = 60  # a verdict reply: {"label", "score", "reason"}


def _macro_f1(tp: int, fp: int, fn: int, tn: int) -> float:
    def f1(a: int, b: int, c: int) -> float:
        return 2 * a / (2 * a + b + c) if a else 0.0

    return (f1(tp, fp, fn) + f1(tn, fn, fp)) / 2


@dataclass(frozen=True)
class Plan:
    target: float
    labelled: int
    offline_macro_f1: float
    sent: int | None  # pairs to send; None: the target is above 1
    input_tokens_per_call: int
    output_tokens_per_call: int
    price: tuple[float, float] | None

    @property
    def share(self) -> float | None:
        return None if self.sent is None or not self.labelled else self.sent / self.labelled

    def cost_per_1000(self) -> float | None:
        if self.price is None or self.share is None:
            return None
        per_call = (self.input_tokens_per_call * self.price[0] + self.output_tokens_per_call * self.price[1]) / 1e6
        return self.share * 1000 * per_call

    def to_json(self) -> dict[str, Any]:
        cost = self.cost_per_1000()
        return {"target_macro_f1": self.target, "labelled_pairs": self.labelled,
                "offline_macro_f1": round(self.offline_macro_f1, 4), "pairs_to_send": self.sent,
                "llm_share": None if self.share is None else round(self.share, 4),
                "input_tokens_per_call": self.input_tokens_per_call,
                "output_tokens_per_call": self.output_tokens_per_call,
                "price_per_million": list(self.price) if self.price else None,
                "cost_usd_per_1000_pairs": None if cost is None else round(cost, 4),
                "assumes": "an LLM that answers every pair it is sent correctly"}

    def to_text(self) -> str:
        if self.sent is None:
            return f"plan: macro-F1 {self.target:.2f} cannot be reached on these {self.labelled} labelled pairs\n"
        cost = self.cost_per_1000()
        money = ""
        if cost is not None and self.price is not None:
            money = (f", about ${cost:.4f} per 1,000 pairs judged at ${self.price[0]:g} / ${self.price[1]:g} "
                     "per million input / output tokens")
        return (f"plan: for macro-F1 ≥ {self.target:.2f} on {self.labelled} labelled pairs (offline "
                f"{self.offline_macro_f1:.3f}) send {self.share:.0%} to the LLM (--llm-share {self.share:.2f}, "
                f"{self.sent} pairs; ~{self.input_tokens_per_call} input + {self.output_tokens_per_call} output tokens "
                f"a call{money}), assuming the LLM is right on every pair sent\n")


def plan_share(
    items: Sequence[JudgeInput], results: Sequence[JudgeResult], labels: Sequence[str | None], target: float,
    price: tuple[float, float] | None = None,
) -> Plan:
    """The fewest least-confident pairs whose correct verdicts lift binary macro-F1 to target."""
    rows = [(r, lab == "supported") for r, lab in zip(results, labels, strict=True) if lab is not None]
    tp = sum(1 for r, t in rows if t and r.value == "supported")
    fp = sum(1 for r, t in rows if not t and r.value == "supported")
    fn = sum(1 for r, t in rows if t and r.value != "supported")
    tn = len(rows) - tp - fp - fn
    offline = _macro_f1(tp, fp, fn, tn)
    order = sorted(range(len(rows)), key=lambda i: (c if (c := confidence(rows[i][0])) is not None else 1.0))
    sent: int | None = 0 if offline >= target else None
    for k, i in enumerate(order, start=1):
        if sent is not None:
            break
        result, truth = rows[i]
        if result.value == "supported" and not truth:
            fp, tn = fp - 1, tn + 1
        elif result.value != "supported" and truth:
            fn, tp = fn - 1, tp + 1
        if _macro_f1(tp, fp, fn, tn) >= target:
            sent = k
    labelled_items = [item for item, lab in zip(items, labels, strict=True) if lab is not None]
    chars = [len(SUPPORT_PROMPT.system) + len(SUPPORT_PROMPT.user_message(i)) for i in labelled_items]
    mean_chars = sum(chars) / len(chars) if chars else 0.0
    return Plan(target, len(rows), offline, sent, round(mean_chars / CHARS_PER_TOKEN), OUTPUT_TOKENS, price)
