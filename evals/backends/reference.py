"""`reference` — citeval's built-in offline RAG, the first system a new user sees.

BM25 (bm25s) over stemmed chunks (PyStemmer) of the editions active at asked_at that the
user may read; the top chunks become evidence E1..Ek; each claim is the sentence of a top
chunk that best matches the question, quoted verbatim; links are built from the registry.
It abstains when the best score is below a threshold tuned on the demo dataset (higher for
critical questions, where a wrong answer costs most).
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime

import bm25s
import numpy as np

from ..data.models import Answer, Chunk, Claim, Evidence, Link, Question, Usage, VersionStatus
from ..data.registry import Registry
from ..data.text import split_sentences
from ..data.tokens import content_tokens
from .base import BaseBackend

# Tuned on datasets/demo (see bench/reference_tuning.py): below this best BM25 score, abstain.
DEFAULT_THRESHOLD = 3.0
# Where a wrong answer is costly (amounts, deadlines, payment details) the bar is higher:
# on the demo this refuses all 3 critical should-abstain questions at the price of 6 of 40
# answerable critical ones.
TIER_THRESHOLDS = {"critical": 4.0}
# A further claim is added from the next chunk when it scores at least this share of the best.
SECOND_CLAIM_RATIO = 0.8


class ReferenceBackend(BaseBackend):
    name = "reference"

    def __init__(
        self,
        registry: Registry,
        *,
        top_k: int = 3,
        max_claims: int = 2,
        threshold: float = DEFAULT_THRESHOLD,
        tier_thresholds: dict[str, float] | None = None,
    ) -> None:
        self.registry = registry
        self.top_k = top_k
        self.max_claims = max_claims
        self.threshold = threshold
        self.tier_thresholds = TIER_THRESHOLDS if tier_thresholds is None else tier_thresholds
        self._chunks: list[Chunk] = sorted(registry.chunks.values(), key=lambda c: (c.version_id, c.char_start or 0))
        corpus = [content_tokens(" ".join(c.heading_path[-1:]) + " " + c.text) for c in self._chunks]
        self._bm25 = bm25s.BM25()
        if corpus:
            self._bm25.index(corpus, show_progress=False)
        frequency = Counter(token for tokens in corpus for token in set(tokens))
        self._idf = {t: math.log(1 + len(corpus) / n) for t, n in frequency.items()}

    def _visible(self, question: Question, asked_at: datetime) -> np.ndarray:
        status: dict[str, bool] = {}
        readable: dict[str, bool] = {}
        mask = np.zeros(len(self._chunks), dtype=np.float32)
        for i, chunk in enumerate(self._chunks):
            if chunk.version_id not in status:
                status[chunk.version_id] = self.registry.status(chunk.version_id, asked_at) is VersionStatus.active
            if chunk.document_id not in readable:
                readable[chunk.document_id] = self.registry.can_read(question.user, chunk.document_id, asked_at)
            mask[i] = status[chunk.version_id] and readable[chunk.document_id]
        return mask

    def _best_sentence(self, chunk: Chunk, query: set[str]) -> str:
        best, best_score = chunk.text, -1.0
        for sentence in split_sentences(chunk.text):
            score = sum(self._idf.get(t, 0.0) for t in set(content_tokens(sentence.text)) & query)
            if score > best_score + 1e-9:
                best, best_score = sentence.text, score
        return best

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        query = content_tokens(question.question)
        if not self._chunks or not query:
            return self._abstain(question, "no searchable words in the question")
        scores = self._bm25.get_scores(query, weight_mask=self._visible(question, asked_at))
        order = np.argsort(-scores, kind="stable")[: self.top_k]
        top = [(self._chunks[i], float(scores[i])) for i in order if scores[i] > 0]
        threshold = self.tier_thresholds.get(question.risk_tier, self.threshold)
        if not top or top[0][1] < threshold:
            best = top[0][1] if top else 0.0
            return self._abstain(question, f"no passage matches well enough (best BM25 {best:.2f})")
        evidence, links = [], []
        for n, (chunk, _) in enumerate(top, start=1):
            evidence.append(
                Evidence(
                    evidence_id=f"E{n}",
                    chunk_id=chunk.chunk_id,
                    document_id=chunk.document_id,
                    version_id=chunk.version_id,
                    page=chunk.page_start,
                    char_start=chunk.char_start,
                    char_end=chunk.char_end,
                    text=chunk.text,
                )
            )
            viewer = self.registry.versions[chunk.version_id].viewer_url
            if viewer:
                page = f"#page={chunk.page_start}" if chunk.page_start else ""
                links.append(Link(evidence_id=f"E{n}", url=viewer.rstrip("/") + page))
        query_set = set(query)
        claims: list[Claim] = []
        parts: list[str] = []
        for n, (chunk, score) in enumerate(top, start=1):
            if len(claims) == self.max_claims or (claims and score < SECOND_CLAIM_RATIO * top[0][1]):
                break
            sentence = self._best_sentence(chunk, query_set)
            if any(c.text == sentence for c in claims):
                continue
            start = sum(len(p) + 1 for p in parts)
            parts.append(f"{sentence} [E{n}]")
            claims.append(
                Claim(
                    claim_id=f"c{len(claims) + 1}",
                    text=sentence,
                    evidence_ids=[f"E{n}"],
                    quote=sentence,
                    span=(start, start + len(sentence)),
                )
            )
        return Answer(
            question_id=question.question_id,
            status="answered",
            answer_text=" ".join(parts),
            claims=claims,
            evidence=evidence,
            links=links,
            usage=Usage(latency_ms=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0),
            model="citeval-reference-bm25",
            raw={"scores": [round(s, 4) for _, s in top]},
        )

    def _abstain(self, question: Question, reason: str) -> Answer:
        return Answer(
            question_id=question.question_id,
            status="abstained",
            answer_text="В доступных документах нет ответа на этот вопрос.",
            abstain_reason=reason,
            usage=Usage(latency_ms=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0),
            model="citeval-reference-bm25",
        )
