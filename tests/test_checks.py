"""Every finding code and per-answer metric on hand-built answers, with values worked out by hand.

The registry is tests/factories.py: train-v1 (2023-01-01 → 2025-02-01) and train-v2 (from
2025-02-01) of an open document, pay-v1 readable by group hr only, plus the extra editions
below. Chunk a1-1 = "Обучение проводится не реже одного раза в 12 месяцев." (page 1).
"""

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from factories import TEXT_A1, dataset_rows, sha, write_dataset

from evals.contract.models import Answer, Chunk, Question, Version
from evals.data.registry import Registry
from evals.score.checks import check_answer, derive_claims
from evals.score.metrics import score_answer

V1 = "https://docs.example/d/train/v/1"
V2 = "https://docs.example/d/train/v/2"


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    root = write_dataset(tmp_path_factory.mktemp("ds"))
    reg = Registry.load(root)
    # three more editions of a third document, each with one chunk, for the status codes
    extra = [
        ("old-revoked", {"effective_from": "2023-01-01", "revoked_at": "2024-01-01"}),
        ("old-deleted", {"effective_from": "2023-01-01", "deleted_at": "2024-01-01"}),
        ("future", {"effective_from": "2027-01-01"}),
    ]
    from evals.contract.models import Document

    reg.documents["misc"] = Document(document_id="misc", title="Прочее", acl=[])
    for vid, window in extra:
        reg.versions[vid] = Version.model_validate(
            {"version_id": vid, "document_id": "misc", "revision": 1, "content_sha256": sha(vid), **window,
             "viewer_url": f"https://docs.example/d/misc/{vid}"})
        chunk = Chunk(chunk_id=f"{vid}-1", version_id=vid, document_id="misc", text="Срок хранения 5 лет.",
                      heading_path=[], page_start=1, page_end=1)
        reg.chunks[chunk.chunk_id] = chunk
        reg._by_version[vid].append(chunk)
    return reg


QUESTIONS = {q["question_id"]: Question.model_validate(q) for q in dataset_rows()["questions"]}
Q1_AT = datetime(2024, 5, 1, tzinfo=timezone.utc)  # train-v1 in force
Q2_AT = datetime(2025, 6, 1, tzinfo=timezone.utc)  # train-v2 in force


def good(**over):
    """A correct answer to q1: cites a1-1 with a registry link, a verbatim quote and its number."""
    base = {
        "question_id": "q1", "status": "answered",
        "answer_text": "Обучение проводится не реже одного раза в 12 месяцев. [E1]",
        "claims": [{"claim_id": "c1", "text": "Обучение проводится не реже одного раза в 12 месяцев.",
                    "evidence_ids": ["E1"], "quote": "не реже одного раза в 12 месяцев"}],
        "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1", "document_id": "train", "version_id": "train-v1",
                      "page": 1, "text": TEXT_A1[:53]}],
        "links": [{"evidence_id": "E1", "url": V1 + "#page=1"}],
    }
    base.update(over)
    return Answer.model_validate(base)


def run(registry, answer, qid="q1", at=Q1_AT):
    """The registry checks' findings (those against gold key facts, evidence and anchors are
    tested in test_gold_checks.py)."""
    check = check_answer(QUESTIONS[qid], answer, registry, at)
    return check, sorted((f.code, f.claim_id, f.evidence_id) for f in check.integrity_findings)


def codes(registry, answer, qid="q1", at=Q1_AT):
    return sorted({f.code for f in run(registry, answer, qid, at)[0].integrity_findings})


def test_a_good_answer_has_no_finding_and_perfect_metrics(registry):
    check, found = run(registry, good())
    assert found == []
    v = score_answer(check, {}, registry).values
    assert (v["citation_validity"], v["quote_exactness"], v["number_support"], v["version_correctness"]) == (1, 1, 1, 1)
    assert v["anchor_accuracy"] == 1.0  # gold quote of q1 lies in a1-1 of the gold edition
    assert v["citation_correctness"] is None and v["citation_completeness"] is None  # no labels yet


def with_evidence(**fields):
    ev = {"evidence_id": "E1", "chunk_id": "a1-1", "document_id": "train", "version_id": "train-v1", "page": 1,
          "text": TEXT_A1[:53], **fields}
    return good(evidence=[{k: v for k, v in ev.items() if v is not None}])


def test_unknown_marker(registry):
    answer = good(claims=[{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E99"]}], links=[])
    assert run(registry, answer)[1] == [("NUMBER_UNSUPPORTED", "c1", None), ("UNKNOWN_EVIDENCE_ID", "c1", "E99")]


def test_unresolved_chunk_and_text_mismatch(registry):
    assert "UNRESOLVED_CHUNK" in codes(registry, with_evidence(chunk_id="nope"))
    assert codes(registry, with_evidence(text="Обучение проводится раз в год.")) == ["CHUNK_TEXT_MISMATCH"]
    # a shorter excerpt of the registry chunk is what the model saw too: not a mismatch
    assert codes(registry, with_evidence(text="не реже одного раза")) == []


def test_access_denied(registry):
    answer = good(claims=[{"claim_id": "c1", "text": "Надбавка 50 %.", "evidence_ids": ["E1"]}],
                  evidence=[{"evidence_id": "E1", "chunk_id": "b1-1"}], links=[])
    assert codes(registry, answer) == ["ACCESS_DENIED"]  # q1's user is in group clinical, not hr


@pytest.mark.parametrize("chunk,code", [("old-revoked-1", "VERSION_REVOKED"), ("old-deleted-1", "VERSION_DELETED"),
                                        ("future-1", "VERSION_NOT_YET_EFFECTIVE")])
def test_edition_status(registry, chunk, code):
    answer = good(claims=[{"claim_id": "c1", "text": "Срок хранения 5 лет.", "evidence_ids": ["E1"]}],
                  evidence=[{"evidence_id": "E1", "chunk_id": chunk}], links=[])
    check, found = run(registry, answer)
    assert found == [(code, "c1", "E1")]
    assert score_answer(check, {}, registry).values["version_correctness"] == 0.0
    # only a deleted edition makes the marker invalid (DESIGN 6)
    assert score_answer(check, {}, registry).values["citation_validity"] == (0.0 if code == "VERSION_DELETED" else 1.0)


def test_superseded_unless_the_answer_says_so(registry):
    check, found = run(registry, good(question_id="q2"), qid="q2", at=Q2_AT)
    assert found == [("VERSION_SUPERSEDED", "c1", "E1")]
    assert score_answer(check, {}, registry).values["version_correctness"] == 0.0
    check, found = run(registry, good(question_id="q2", stale_notice=True), qid="q2", at=Q2_AT)
    assert found == []
    assert score_answer(check, {}, registry).values["version_correctness"] == 1.0


@pytest.mark.parametrize("url,code", [
    ("https://evil.example/train", "LINK_NOT_FROM_REGISTRY"),
    (V1 + "0", "LINK_NOT_FROM_REGISTRY"),  # prefix must end at /, ?, # or the end
    (V2 + "?page=1", "LINK_VERSION_REDIRECT"),
    ("javascript:alert(1)", "LINK_UNSAFE_SCHEME"),
    ("ftp://docs.example/d/train/v/1", "LINK_UNSAFE_SCHEME"),
    (V1 + "#:~:text=x", "LINK_LEAKS_TEXT"),
    (V1 + "?q=" + quote_plus("Обучение  проводится не р"), "LINK_LEAKS_TEXT"),  # 24 chars after folding
])
def test_links(registry, url, code):
    check, found = run(registry, good(links=[{"evidence_id": "E1", "url": url}]))
    assert found == [(code, "c1", "E1")]
    assert score_answer(check, {}, registry).values["citation_validity"] == 0.0


def test_link_leak_needs_24_characters(registry):
    # "бучение проводится не р" is 23 characters of the chunk: one below the threshold
    url = V1 + "?q=" + quote("бучение проводится не р")
    assert codes(registry, good(links=[{"evidence_id": "E1", "url": url}])) == []


def test_quotes(registry):
    answer = good(claims=[{"claim_id": "c1", "text": "Обучение каждые 12 месяцев.", "evidence_ids": ["E1"],
                           "quote": "раз в 10 лет"}])
    check, found = run(registry, answer)
    assert found == [("QUOTE_NOT_FOUND", "c1", None)]
    assert score_answer(check, {}, registry).values["quote_exactness"] == 0.0
    # typography differs, the normalized quote is found
    answer = good(claims=[{"claim_id": "c1", "text": "Обучение каждые 12 месяцев.", "evidence_ids": ["E1"],
                           "quote": "НЕ\u00a0РЕЖЕ одного раза в 12\u00a0месяцев"}])
    assert codes(registry, answer) == []


def test_quote_outside_anchor(registry):
    # evidence by version and span: [0, 20) = "Обучение проводится " resolves to chunk a1-1,
    # the quote is in that chunk but not in the cited span
    answer = good(evidence=[{"evidence_id": "E1", "version_id": "train-v1", "char_start": 0, "char_end": 20,
                             "text": "Обучение проводится "}], links=[])
    assert run(registry, answer)[1] == [("QUOTE_OUTSIDE_ANCHOR", "c1", "E1")]


def test_number_unsupported(registry):
    answer = good(claims=[{"claim_id": "c1", "text": "Обучение проводится раз в 10 месяцев.", "evidence_ids": ["E1"]}])
    check, found = run(registry, answer)
    assert found == [("NUMBER_UNSUPPORTED", "c1", None)]
    assert score_answer(check, {}, registry).values["number_support"] == 0.0


def test_derived_claims_and_uncited(registry):
    text = "Обучение проводится не реже одного раза в 12 месяцев. [E1] Порог теста равен 70 %. Итак."
    claims = derive_claims(text)
    assert [(c.claim_id, c.text, c.evidence_ids) for c in claims] == [
        ("s1", "Обучение проводится не реже одного раза в 12 месяцев.", ["E1"]),
        ("s2", "Порог теста равен 70 %.", []),
        ("s3", "Итак.", []),
    ]
    answer = good(answer_text=text, claims=[])
    check, found = run(registry, answer)
    # s3 has no content worth citing; s2 is uncited and its number has no evidence
    assert found == [("CLAIM_UNCITED", "s2", None), ("NUMBER_UNSUPPORTED", "s2", None)]
    assert score_answer(check, {}, registry).values["number_support"] == 0.5


def test_marker_forms(registry):
    claims = derive_claims("Первое утверждение [1, 2]. Второе [E3; E4].")
    assert [c.evidence_ids for c in claims] == [["1", "2"], ["E3", "E4"]]
    # "[1]" stands for E1
    answer = good(answer_text="Обучение проводится не реже одного раза в 12 месяцев [1].", claims=[])
    assert codes(registry, answer) == []


def test_anchor_mismatch(registry):
    check, found = run(registry, with_evidence(page=2))
    assert found == [("ANCHOR_MISMATCH", "c1", "E1")]
    assert score_answer(check, {}, registry).values["anchor_accuracy"] == 0.0
    assert codes(registry, good(links=[{"evidence_id": "E1", "url": V1 + "#page=2"}])) == ["ANCHOR_MISMATCH"]


def test_abstention_and_errors(registry):
    assert codes(registry, Answer(question_id="q1", status="abstained")) == ["UNNEEDED_ABSTENTION"]
    assert codes(registry, good(question_id="q3"), qid="q3", at=Q1_AT) == ["SHOULD_HAVE_ABSTAINED"]
    assert codes(registry, Answer(question_id="q3", status="abstained"), qid="q3", at=Q2_AT) == []
    err = Answer.model_validate({"question_id": "q1", "status": "error", "error": {"type": "timeout", "message": "x"}})
    check, found = run(registry, err)
    assert found == [("BACKEND_ERROR", None, None)]
    s = score_answer(check, {}, registry)
    assert s.values["error_rate"] == 1.0 and s.abstained is None  # an error is never an abstention


def test_quote_not_found_names_the_closest_fragment(registry):
    # one character differs: "13" for "12" in a 32-character quote; the best window of the chunk is
    # the quote's own length, one deletion and one insertion apart: 1 - 2 / (32 + 32) = 0.96875
    answer = good(claims=[{"claim_id": "c1", "text": "Обучение каждые 12 месяцев.", "evidence_ids": ["E1"],
                           "quote": "не реже одного раза в 13 месяцев"}])
    check, found = run(registry, answer)
    assert found == [("QUOTE_NOT_FOUND", "c1", None)]
    assert check.findings[0].detail.endswith("; closest: «не реже одного раза в 12 месяцев» (similarity 0.97)")
    # nothing half as similar: no closest fragment is named
    answer = good(claims=[{"claim_id": "c1", "text": "Обучение каждые 12 месяцев.", "evidence_ids": ["E1"],
                           "quote": "Ночная надбавка"}])
    assert "closest" not in run(registry, answer)[0].findings[0].detail


@pytest.mark.parametrize("raw", [
    {"stop_reason": "max_tokens"},  # what the Anthropic converter keeps
    {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Обучение"}],
     "stop_reason": "max_tokens", "usage": {"input_tokens": 10, "output_tokens": 400}},  # the whole response
    {"choices": [{"index": 0, "message": {"content": "Обучение"}, "finish_reason": "length"}]},  # OpenAI
    {"finish_reason": "length"},
    {"stop_reason": "model_context_window_exceeded"},  # cut by the context window, not max_tokens
    {"stop_reason": "pause_turn"},  # a paused server-tool turn: what was shown is unfinished
])
def test_a_cut_answer_is_truncated_and_not_accepted(registry, raw):
    check, found = run(registry, good(raw=raw))
    assert found == [("ANSWER_TRUNCATED", None, None)]
    assert score_answer(check, {}, registry).accepted is False


@pytest.mark.parametrize("raw", [
    None, "max_tokens", {"stop_reason": "end_turn"}, {"choices": [{"finish_reason": "stop"}]},
    {"stop_reason": "refusal"},
])
def test_a_complete_answer_is_not_truncated(registry, raw):
    assert codes(registry, good(raw=raw)) == []


def test_only_an_answered_answer_is_truncated(registry):
    abstained = Answer(question_id="q3", status="abstained", raw={"stop_reason": "max_tokens"})
    assert codes(registry, abstained, qid="q3", at=Q2_AT) == []


# --- the checks are deterministic: no judge stack behind them ---------------------------

ROOT = Path(__file__).resolve().parents[1]
# an LLM judge's HTTP client, the Anthropic SDK and the network gate (top-level packages and modules)
JUDGE_STACK = ("httpx", "anthropic", "evals.outside", "evals.score.judges.llm")


def _loaded_after_import(module: str) -> list[str]:
    """The modules of the judge stack a fresh interpreter holds after importing `module`."""
    code = (f"import json, sys, {module}; stack = {JUDGE_STACK!r}; "
            "print(json.dumps(sorted(m for m in sys.modules if any(m == s or m.startswith(s + '.') for s in stack))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_importing_the_checks_loads_no_http_client_or_llm_judge():
    assert _loaded_after_import("evals.score.checks") == []
    # the probe is not blind: the shard, which calls the judges, does load that stack
    loaded = _loaded_after_import("evals.score.shard")
    assert {"httpx", "evals.outside", "evals.score.judges.llm"} <= set(loaded)
