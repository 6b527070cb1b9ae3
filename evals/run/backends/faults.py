"""`faults:KIND[,KIND]:SPEC` — wraps a backend and injects known faults into its answers."""

from __future__ import annotations

from datetime import datetime

from evals.contract.models import Answer, Question
from evals.data.registry import Registry
from evals.errors import UsageError
from evals.run.backends.base import BaseBackend
from evals.run.faults import FAULT_KINDS, apply_fault


class FaultBackend(BaseBackend):
    def __init__(self, inner: BaseBackend, kinds: list[str], registry: Registry) -> None:
        unknown = [k for k in kinds if k not in FAULT_KINDS]
        if unknown or not kinds:
            raise UsageError(f"unknown fault kind(s) {unknown or kinds}; known: {', '.join(FAULT_KINDS)}")
        self.inner, self.kinds, self.registry = inner, kinds, registry
        self.name = f"faults:{','.join(kinds)}:{inner.name}"

    def secrets(self) -> list[str]:
        return self.inner.secrets()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        answer = await self.inner.answer(question, asked_at)
        applied, skipped = [], []
        for kind in self.kinds:
            changed = apply_fault(kind, answer, question, self.registry, asked_at)
            if changed is None:
                skipped.append(kind)
                continue
            applied.append(changed.raw["fault"])
            answer = changed
        raw = answer.raw if isinstance(answer.raw, dict) else {"original_raw": answer.raw}
        raw.pop("fault", None)
        answer.raw = {**raw, "faults": applied, "faults_not_applicable": skipped}
        return answer
