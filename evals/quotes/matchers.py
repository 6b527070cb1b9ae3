"""Matchers: each scores the answer's candidate fragments against a citation and offers
its best place (DESIGN 9). A threshold, applied by the caller, decides whether the quote
is injected — so one pass gives every threshold of a sweep.

Interface (small on purpose, so a team's own matcher fits): an object with `name`,
`default_threshold` and `place(answer_text, citations) -> list[Placement]`, one Placement
per citation, in order. Fragment matchers subclass FragmentMatcher and only say how a
fragment scores; `block` aligns the streamed text instead; `python:module:function` wraps
a team's callable.
"""

from __future__ import annotations

import difflib
import importlib
import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from evals.contract.quotes import NOTHING, Placement, QuoteCitation
from evals.errors import UsageError
from evals.quotes.block import BLOCK_THRESHOLD, BlockMatcher
from evals.quotes.boundaries import settle
from evals.quotes.cascade import THRESHOLD as CASCADE_THRESHOLD
from evals.quotes.cascade import DefaultMatcher
from evals.quotes.fragments import DEFAULT_SPLITTER, Fragment, SentenceSplitter, split_fragments
from evals.text.normalize import normalize
from evals.text.tokens import content_tokens, is_stopword, words


@runtime_checkable
class Matcher(Protocol):
    name: str
    default_threshold: float

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]: ...


# Thresholds tuned on the tuning part of datasets/demo/quotes (both sets; the answers is_heldout
# leaves in; `citeval quotes eval datasets/demo --matcher all --tune` reproduces them): the
# threshold with the highest placement_accuracy whose wrong_place_rate stays ≤ 0.05. `default`
# has its own set (evals.quotes.cascade.PARAMS, tuned on the realistic set), on a 0.5 scale.
# A matcher whose wrong places score as high as its right ones gets a threshold that places few
# quotes (README: which matcher).
DEFAULT_THRESHOLDS: dict[str, float] = {
    "sequencematcher": 0.754098,
    "token_overlap": 0.845154,
    "rapidfuzz": 0.777202,
    "tfidf": 0.556197,
    "bm25": 0.579986,
    "embedding": 0.935226,
    "block": BLOCK_THRESHOLD,
    "default": CASCADE_THRESHOLD,
    "sequencematcher+order": 0.437659,
    "token_overlap+order": 0.204124,
    "rapidfuzz+order": 0.683938,
    "tfidf+order": 0.170223,
    "bm25+order": 0.228143,
    "embedding+order": 0.764095,
}


class FragmentMatcher:
    """Scores every candidate fragment of the answer; offers the best-scoring one.
    Ties go to the earlier fragment (a sentence comes before its clauses)."""

    name = "fragment"

    def __init__(self, splitter: SentenceSplitter = DEFAULT_SPLITTER) -> None:
        self.splitter = splitter
        self.default_threshold = DEFAULT_THRESHOLDS.get(self.name, 0.0)

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        """Per-answer state shared by its citations (texts, token sets, an index)."""
        return [answer_text[f.start : f.end] for f in fragments]

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        raise NotImplementedError

    def score_matrix(
        self, answer_text: str, fragments: Sequence[Fragment], citations: Sequence[QuoteCitation]
    ) -> list[Sequence[float]]:
        """One row per citation: the score of every fragment."""
        state = self.prepare(answer_text, fragments)
        return [self.scores(state, citation) for citation in citations]

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        fragments = split_fragments(answer_text, self.splitter)
        if not fragments or not citations:
            return [NOTHING for _ in citations]
        out = []
        for scores in self.score_matrix(answer_text, fragments, citations):
            best = max(range(len(fragments)), key=lambda i: (scores[i], -i))
            out.append(Placement(fragments[best].span, round(float(scores[best]), 6)))
        return out


class SequenceMatcherMatcher(FragmentMatcher):
    """difflib.SequenceMatcher ratio of fragment and cited text: the stdlib baseline."""

    name = "sequencematcher"

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        return [normalize(answer_text[f.start : f.end]) for f in fragments]

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(normalize(citation.cited_text))  # seq2 is the one difflib indexes
        out = []
        for text in state:
            matcher.set_seq1(text)
            out.append(matcher.ratio())
        return out


def _ochiai(a: set[str], b: set[str]) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


class TokenOverlapMatcher(FragmentMatcher):
    """Cosine of the sets of Snowball-stemmed content words (Ochiai coefficient): a fragment
    scores by the share of its claims' words that the source uses, not by sheer length."""

    name = "token_overlap"

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        return [set(content_tokens(answer_text[f.start : f.end])) for f in fragments]

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        cited = set(content_tokens(citation.cited_text))
        return [_ochiai(tokens, cited) for tokens in state]


class RapidfuzzMatcher(FragmentMatcher):
    """rapidfuzz's token_sort_ratio of the normalized fragment and cited text. (Its
    token_set_ratio and partial_ratio give 100 to any fragment whose words all occur in the
    source, short or long, so they cannot tell places apart; bench/quotes.py keeps the
    measurement.)"""

    name = "rapidfuzz"

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        return [normalize(answer_text[f.start : f.end]) for f in fragments]

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        from rapidfuzz import fuzz

        cited = normalize(citation.cited_text)
        return [fuzz.token_sort_ratio(text, cited) / 100 for text in state]


class TfidfMatcher(FragmentMatcher):
    """Cosine of character 3–5-gram TF-IDF vectors (scikit-learn), fitted on the answer's
    fragments and its citations: robust to inflection (обучения / обучение) without a stemmer."""

    name = "tfidf"

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        return [normalize(answer_text[f.start : f.end]) for f in fragments]

    def score_matrix(
        self, answer_text: str, fragments: Sequence[Fragment], citations: Sequence[QuoteCitation]
    ) -> list[Sequence[float]]:
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError as exc:  # pragma: no cover - scikit-learn is a dependency
            raise UsageError("the tfidf matcher needs scikit-learn: pip install scikit-learn") from exc
        texts = self.prepare(answer_text, fragments)
        cited = [normalize(c.cited_text) for c in citations]
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True)
        matrix = vectorizer.fit_transform(texts + cited)  # rows are L2-normalized
        similarity = (matrix[len(texts) :] @ matrix[: len(texts)].T).toarray()
        return [list(map(float, row)) for row in similarity]


class Bm25Matcher(FragmentMatcher):
    """bm25s over the answer's fragments (stemmed content words), the cited text as query.
    The score is BM25 divided by the query's length in words, so one threshold suits long
    and short citations."""

    name = "bm25"

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        import bm25s

        corpus = [content_tokens(answer_text[f.start : f.end]) or ["\x00"] for f in fragments]
        index = bm25s.BM25()
        index.index(corpus, show_progress=False)
        return index

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        query = list(dict.fromkeys(content_tokens(citation.cited_text)))
        if not query:
            return [0.0] * state.scores["num_docs"]
        raw = state.get_scores(query)
        return [float(s) / math.sqrt(len(query)) for s in raw]


ORDER_SUFFIX = "+order"


class InOrderMatcher:
    """A fragment matcher that also uses the order of the citations: the Citations API emits
    them in the order of the text blocks they belong to, so the places of an answer's
    citations should not go backwards. Chooses, for all citations of an answer at once, the
    places with the highest total score such that each starts no earlier than the previous
    one's; a passage cited twice must go to two places, the second after the first.
    Named `<matcher>+order` (e.g. `token_overlap+order`)."""

    def __init__(self, base: FragmentMatcher) -> None:
        self.base = base
        self.name = f"{base.name}{ORDER_SUFFIX}"
        self.default_threshold = DEFAULT_THRESHOLDS.get(self.name, base.default_threshold)

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        fragments = split_fragments(answer_text, self.base.splitter)
        if not fragments or not citations:
            return [NOTHING for _ in citations]
        matrix = self.base.score_matrix(answer_text, fragments, citations)
        chosen = _monotone_choice(fragments, citations, matrix)
        return [
            NOTHING if j is None else Placement(fragments[j].span, round(float(matrix[i][j]), 6))
            for i, j in enumerate(chosen)
        ]


def _monotone_choice(
    fragments: Sequence[Fragment], citations: Sequence[QuoteCitation], matrix: Sequence[Sequence[float]]
) -> list[int | None]:
    """Dynamic programme over citations in order; the state is the last place taken (None
    before any). A citation may also be left without a place, at no score."""
    m = len(fragments)

    def allowed(prev: int | None, j: int, same_passage: bool) -> bool:
        if prev is None:
            return True
        if same_passage:  # the same passage again: strictly after its earlier place
            return fragments[j].start >= fragments[prev].end
        return fragments[j].start >= fragments[prev].start

    # best[state] = (total, choices so far); state m stands for "nothing placed yet"
    best: dict[int, tuple[float, list[int | None], str | None]] = {m: (0.0, [], None)}
    for i, citation in enumerate(citations):
        step: dict[int, tuple[float, list[int | None], str | None]] = {}
        for state, (total, choices, last_text) in best.items():
            prev = None if state == m else state
            keep = (total, [*choices, None], last_text)  # leave this citation unplaced
            if state not in step or keep[0] > step[state][0]:
                step[state] = keep
            for j in range(m):
                if not allowed(prev, j, last_text == citation.cited_text):
                    continue
                candidate = (total + float(matrix[i][j]), [*choices, j], citation.cited_text)
                if j not in step or candidate[0] > step[j][0] + 1e-12:
                    step[j] = candidate
        best = step
    return max(best.values(), key=lambda entry: entry[0])[1]


# --- embedding ------------------------------------------------------------------------

NAVEC_FILE = "data/emb/navec_news_v1_1B_250K_300d_100q.tar"


@lru_cache(maxsize=1)
def _navec() -> Any:
    """natasha's bundled navec news vectors (250k words, 300 dimensions), loaded once.
    natasha itself is not imported (its pymorphy2 does not import on Python ≥ 3.11): only
    the file it ships is read."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("natasha")
    try:
        from navec import Navec
    except ImportError:
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("the embedding matcher needs natasha's vectors: pip install 'citeval[embedding]'")
    path = Path(next(iter(spec.submodule_search_locations))) / NAVEC_FILE
    if not path.exists():
        raise UsageError(f"natasha is installed but its vectors are missing: {path}")
    return Navec.load(str(path))


class EmbeddingMatcher(FragmentMatcher):
    """Cosine of averaged navec word vectors (content words); catches synonyms that share no
    letters, misses numbers (a vector does not know 6 from 12)."""

    name = "embedding"

    def _vector(self, text: str) -> Any:
        import numpy as np

        navec = _navec()
        rows = [navec[w] for w in words(text) if not is_stopword(w) and w in navec]
        if not rows:
            return None
        mean = np.mean(rows, axis=0)
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm else None

    def prepare(self, answer_text: str, fragments: Sequence[Fragment]) -> Any:
        return [self._vector(answer_text[f.start : f.end]) for f in fragments]

    def scores(self, state: Any, citation: QuoteCitation) -> Sequence[float]:
        cited = self._vector(citation.cited_text)
        if cited is None:
            return [0.0] * len(state)
        return [float(v @ cited) if v is not None else 0.0 for v in state]


# --- a team's own ---------------------------------------------------------------------


class CallableMatcher:
    """A team's function `(answer_text, citation) -> (start, end, score) | None` as a matcher.
    Its threshold is the function's `default_threshold` attribute, else 0."""

    def __init__(self, name: str, function: Callable[[str, QuoteCitation], Any]) -> None:
        self.name = name
        self.function = function
        self.default_threshold = float(getattr(function, "default_threshold", 0.0))

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        out = []
        for citation in citations:
            try:
                result = self.function(answer_text, citation)
            except Exception as exc:  # noqa: BLE001 - the team's code failed, not citeval: say where
                raise UsageError(
                    f"matcher {self.name} raised {type(exc).__name__}: {exc} on citation {citation.citation_id!r}"
                ) from exc
            placement = self._placement(result)
            if placement.span is not None and not 0 <= placement.span[0] < placement.span[1] <= len(answer_text):
                raise UsageError(
                    f"matcher {self.name} returned span {list(placement.span)} for citation {citation.citation_id!r}, "
                    f"outside the answer's {len(answer_text)} characters (need 0 <= start < end <= length)"
                )
            out.append(placement)
        return out

    def _placement(self, result: Any) -> Placement:
        if result is None:
            return NOTHING
        if isinstance(result, Placement):
            return result
        if isinstance(result, dict) and "span" in result:  # Placement.to_json()'s shape
            result = (*result["span"], result.get("score")) if result["span"] is not None else None
            if result is None:
                return NOTHING
        try:
            start, end, score = result
            return Placement((int(start), int(end)), float(score))
        except (TypeError, ValueError) as exc:
            raise UsageError(
                f"matcher {self.name} returned {result!r}; expected (start, end, score) or None"
            ) from exc


BUILTIN: dict[str, Callable[[], Matcher]] = {
    "sequencematcher": SequenceMatcherMatcher,
    "token_overlap": TokenOverlapMatcher,
    "rapidfuzz": RapidfuzzMatcher,
    "tfidf": TfidfMatcher,
    "bm25": Bm25Matcher,
    "embedding": EmbeddingMatcher,
    "block": BlockMatcher,
    "default": DefaultMatcher,
}
BASELINE = "sequencematcher"
DEFAULT = "default"  # the recommended matcher: what quotes eval, quotes inject and label push use unless told
NOT_FRAGMENT = ("block", "default")  # matchers that place by other means than scoring fragments (no +order)


def _python_matcher(spec: str) -> Matcher:
    parts = spec.split(":")
    if len(parts) != 3 or not all(parts[1:]):
        raise UsageError(f"matcher {spec!r}: expected python:module:function")
    _, module_name, attr = parts
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"matcher {spec!r}: cannot import {module_name} ({exc})") from exc
    target = getattr(module, attr, None)
    if target is None:
        raise UsageError(f"matcher {spec!r}: {module_name} has no {attr}")
    if isinstance(target, type):
        target = target()
    if isinstance(target, Matcher):
        if not getattr(target, "name", None):
            target.name = spec
        return target
    if callable(target):
        return CallableMatcher(spec, target)
    raise UsageError(f"matcher {spec!r}: {attr} is neither a function nor a matcher")


class SettledMatcher:
    """Any matcher with its offers settled (evals.quotes.boundaries): each span ends at a
    clause boundary or is refused, and the spans of one answer never overlap unless identical.
    get_matcher returns every matcher this way, so no command injects a quote inside a phrase."""

    def __init__(self, inner: Matcher) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_threshold = float(inner.default_threshold)

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        snapped_already = bool(getattr(self.inner, "spans_snapped", False))
        return settle(answer_text, self.inner.place(answer_text, citations), snapped_already)


def get_matcher(name: str) -> Matcher:
    """A built-in matcher by name, or a team's as python:module:function, its offers settled
    to clause boundaries."""
    matcher = _unsettled_matcher(name)
    return matcher if isinstance(matcher, SettledMatcher) else SettledMatcher(matcher)


def _unsettled_matcher(name: str) -> Matcher:
    if name.startswith("python:"):
        return _python_matcher(name)
    if name.endswith(ORDER_SUFFIX):
        base = _unsettled_matcher(name[: -len(ORDER_SUFFIX)])
        if not isinstance(base, FragmentMatcher):
            raise UsageError(f"{name}: only fragment matchers can use the citation order (not {base.name})")
        return InOrderMatcher(base)
    factory = BUILTIN.get(name)
    if factory is None:
        raise UsageError(f"unknown matcher {name!r}; built-in: {', '.join(BUILTIN)} or python:module:function")
    matcher = factory()
    if name == "embedding":
        _navec()  # fail now, with the install hint, rather than on the first answer
    return matcher


def parse_matchers(spec: str) -> list[str]:
    """`a,b,c` → names; `all` → every built-in whose dependencies are installed."""
    names = list(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    if not names:
        raise UsageError("no matcher given")
    if names == ["all"]:
        base = [n for n in BUILTIN if n != "embedding" or embedding_available()]
        return base + [n + ORDER_SUFFIX for n in base if n not in NOT_FRAGMENT]
    return names


def embedding_available() -> bool:
    try:
        _navec()
    except UsageError:
        return False
    return True
