"""The cascade judge (`--judge cascade`, DESIGN 7): the offline judge decides every unit, then
the units it is least sure of go to the LLM judge, whose verdict replaces the offline one.

Confidence is the offline judge's calibrated probability that its own verdict is right:
P(supported) for a "supported" verdict, 1 − P(supported) for any other. Which units are sent:
- `share` F (default 0.2): the F least confident units of each batch the judge is given. A
  remainder is carried from batch to batch, so over a scoring of many small shards the share
  sent stays F (the pairs file of `citeval judge` is one batch: exactly the F least confident);
- `below` P: every unit whose confidence is below P (no share; what is sent depends on the data).
Every result names the judge that decided it (`judge`: "offline" or "llm:<model>").

Failures: when every unit sent to the LLM fails (a dead endpoint, the circuit breaker open), the
cascade raises BackendError: a service failure (exit 3), not a silent fall-back to offline
verdicts. When only some fail, those keep their offline verdict, with the failure in the reason,
and usage counts them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evals.errors import BackendError
from evals.score.judges.base import JudgeInput, JudgeResult, SupportJudge
from evals.score.judges.llm import LlmJudge, LlmUsage
from evals.score.judges.offline import OfflineJudge

DEFAULT_SHARE = 0.2


@dataclass(frozen=True)
class CascadeSettings:
    """Which units go to the LLM: the least confident `share`, or those below `below`."""

    share: float | None = DEFAULT_SHARE
    below: float | None = None


@dataclass
class CascadeUsage(LlmUsage):
    """LlmUsage plus what the cascade sent: units judged offline and units sent to the LLM."""

    units: int = 0
    sent_to_llm: int = 0
    # the settings, recorded beside what they sent: "share=0.2" or "below=0.6" (text, so that the
    # scoring's per-shard usage deltas, which add numbers up, leave it alone)
    setting: str = ""

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["units"] = self.units
        out["sent_to_llm"] = self.sent_to_llm
        out["share_sent"] = round(self.sent_to_llm / self.units, 4) if self.units else None
        name, _, value = self.setting.partition("=")
        out["llm_share"] = float(value) if name == "share" else None
        out["llm_below"] = float(value) if name == "below" else None
        return out


def confidence(result: JudgeResult) -> float | None:
    """How likely the offline verdict is right, from its calibrated P(supported); None when
    there was nothing to judge."""
    if result.score is None:
        return None
    return result.score if result.value == "supported" else 1.0 - result.score


class CascadeJudge(SupportJudge):
    """Offline first; the least confident units to `llm`. name: "cascade"."""

    def __init__(self, llm: LlmJudge, share: float | None = DEFAULT_SHARE, below: float | None = None,
                 offline: OfflineJudge | None = None) -> None:
        if below is not None and not 0.0 <= below <= 1.0:
            raise ValueError("--llm-below must be a probability in [0, 1]")
        if below is None and (share is None or not 0.0 <= share <= 1.0):
            raise ValueError("--llm-share must be in [0, 1]")
        self.offline = offline or OfflineJudge()
        self.llm = llm
        self.share = None if below is not None else share
        self.below = below
        self.name = "cascade"
        self.llm_name = f"llm:{llm.config.model}"
        self.config = llm.config  # read by the provenance (model, endpoint, prompt version)
        self.prompt = llm.prompt
        self.usage = CascadeUsage(setting=f"below={below:g}" if below is not None else f"share={self.share:g}")
        self._owed = 0.0  # units of share not yet sent (carried between batches)

    def chosen(self, results: Sequence[JudgeResult]) -> list[int]:
        """Indices of the units to send, least confident first."""
        scored = [(c, i) for i, r in enumerate(results) if (c := confidence(r)) is not None]
        scored.sort()
        if self.below is not None:
            return [i for c, i in scored if c < self.below]
        assert self.share is not None
        self._owed += self.share * len(scored)
        count = min(len(scored), math.floor(self._owed + 1e-9))
        self._owed -= count
        return [i for _, i in scored[:count]]

    async def ajudge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        first = [replace(r, judge="offline") for r in self.offline.judge(items)]
        send = self.chosen(first)
        self.usage.units += len(items)
        if not send:
            return first
        before = replace(self.llm.usage)
        second = await self.llm.ajudge([items[i] for i in send])
        self._add_usage(before, len(send))
        if all(r.error is not None for r in second):
            reason = self.llm.usage.last_failure or second[0].reason
            raise BackendError(f"LLM judge of the cascade failed on all {len(send)} units sent: {reason}")
        out = list(first)
        for i, verdict in zip(send, second, strict=True):
            if verdict.error is None:
                out[i] = replace(verdict, judge=self.llm_name)
            else:
                out[i] = replace(first[i], reason=f"{first[i].reason} (llm not used: {verdict.error})")
        return out

    def _add_usage(self, before: LlmUsage, sent: int) -> None:
        after = self.llm.usage
        u = self.usage
        u.sent_to_llm += sent
        u.requests += after.requests - before.requests
        u.cache_hits += after.cache_hits - before.cache_hits
        u.input_tokens += after.input_tokens - before.input_tokens
        u.output_tokens += after.output_tokens - before.output_tokens
        u.failures += after.failures - before.failures
        u.last_failure = after.last_failure if after.failures > before.failures else u.last_failure
        if after.cost_usd is None or u.cost_usd is None:
            u.cost_usd = None
        else:
            u.cost_usd += after.cost_usd - (before.cost_usd or 0.0)
