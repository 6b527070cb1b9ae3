"""`citeval init DIR`: a skeleton dataset a new team fills in instead of deleting the demo.

    DIR/sources/manifest.toml, sources/example-policy/v1.md   the Markdown the registry is built from
    DIR/registry/{documents,versions,chunks}.jsonl, texts/     built by `citeval data ingest`
    DIR/questions.jsonl                                        one answerable question with every gold
                                                               field, one the system should decline
    DIR/answers/example.jsonl                                  answers to replay (--backend replay:…)
    DIR/gates.toml                                             a commented gates file, baseline rules too
    DIR/README.md                                              what to edit, the commands to run

With `from_markdown=FOLDER` the registry is ingested from the team's own manifest and Markdown
editions, and the example question and answer cite the first chunk of an edition in force. The
folder is written in a staging folder beside DIR and moved into place whole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.contract.metrics import (
    CITATION_CORRECTNESS,
    CITATION_VALIDITY,
    ERROR_RATE,
    NUMBER_SUPPORT,
    VERSION_CORRECTNESS,
)
from evals.contract.models import Chunk, Version
from evals.data.registry import Registry
from evals.errors import DataError, UsageError
from evals.ingest.sources import ingest
from evals.store.atomic import staged_folder, write_text_atomic
from evals.text.normalize import split_sentences

EXAMPLE_DOCUMENT = "example-policy"
ASKED_AT = "2025-06-01T09:00:00+00:00"

EXAMPLE_MANIFEST = """\
# One [[document]] per document, one [[document.edition]] per edition (see `citeval data ingest`).
# acl = [] lets every user read it; acl = [{ group = "hr" }] only members of hr.
[[document]]
document_id = "example-policy"
title = "Example policy: keeping records"
owner = "Compliance"
acl = []

[[document.edition]]
version_id = "example-policy-v1"
revision = 1
file = "example-policy/v1.md"
effective_from = "2024-01-01"
viewer_url = "https://docs.example.com/d/example-policy/v/1"
"""

EXAMPLE_EDITION = """\
<!-- page 1 -->
# Keeping records

Signed contracts are kept for 5 years after the contract ends.
"""

# metric names from the metric table; a doubled brace is a TOML brace
GATES = f"""\
# citeval gates for this dataset: `citeval eval . --gates gates.toml`, `citeval gate RUN --gates gates.toml`.
# Every name is checked when the file loads: a typo is an error (exit 2), never a rule switched off.
#
# A rule: {{ min = X }} and/or {{ max = X }}; compare = "lower" judges the pessimistic end of the
# 95 % interval instead of the point value; allow_null = true skips a metric that has no value
# (e.g. {CITATION_CORRECTNESS} without a judge) instead of failing it.
compare = "point"

[overall]
{CITATION_VALIDITY} = {{ min = 0.95 }}
{VERSION_CORRECTNESS} = {{ min = 0.95 }}
{ERROR_RATE} = {{ max = 0.02 }}
{CITATION_CORRECTNESS} = {{ min = 0.80, allow_null = true }}
{NUMBER_SUPPORT} = {{ min = 0.95, allow_null = true }}
"findings.ACCESS_DENIED" = {{ max = 0 }}
"findings.LINK_UNSAFE_SCHEME" = {{ max = 0 }}

# amounts, deadlines, payment details: no wrong citation, judged on the interval's lower bound
[tier.critical]
compare = "lower"
{CITATION_VALIDITY} = {{ min = 1.0 }}
"findings.NUMBER_UNSUPPORTED" = {{ max = 0 }}

# Against a baseline run (`citeval gate RUN --baseline main-run.tar.gz`), over the questions both
# runs share. max_drop for metrics where higher is better, max_increase for {ERROR_RATE} and
# finding counts. significant = true fails a rule only when the paired test (exact McNemar for
# 0/1 values, else compare's paired permutation test) rejects "no change" at alpha; fewer than
# min_shared shared questions skips the rule with its reason. Without --baseline these rules
# are skipped.
[baseline]
alpha = 0.05
min_shared = 20
significant = true
{CITATION_VALIDITY} = {{ max_drop = 0.02 }}
pass_rate = {{ max_drop = 0.05 }}
"findings.NUMBER_UNSUPPORTED" = {{ max_increase = 0 }}

[baseline.tier.critical]
significant = false          # in the critical tier any lost citation fails
{CITATION_VALIDITY} = {{ max_drop = 0 }}
"""

README = """\
# {name}: a citeval dataset

Made by `citeval init`. Replace the examples with your own, keeping the formats
(DESIGN 2 of citeval's design notes):

- `sources/` — your documents as Markdown editions with `manifest.toml`; rebuild the
  registry after each change: `citeval data ingest sources --out registry`
  (or ingest your own folder: `citeval data ingest PATH --out registry`).
- `questions.jsonl` — one question a line; `gold` holds what a correct answer cites
  (`evidence`), states (`key_facts`, `answer`), or whether it should decline (`should_abstain`).
- `answers/example.jsonl` — recorded answers for `--backend replay:answers/example.jsonl`;
  a real system is reached with `--backend http://…`.
- `gates.toml` — the thresholds CI enforces, and rules against a baseline run.

```
citeval data validate .
citeval eval . --backend replay:answers/example.jsonl --gates gates.toml
```
"""


@dataclass
class InitResult:
    folder: Path
    files: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "files": list(self.files)}

    def to_text(self) -> str:
        lines = [f"{self.folder}: {len(self.files)} file(s) written", *(f"  {name}" for name in self.files)]
        lines += [
            "next:",
            f"  citeval data validate {self.folder}",
            f"  citeval eval {self.folder} --backend replay:{self.folder / 'answers' / 'example.jsonl'}"
            f" --gates {self.folder / 'gates.toml'}",
        ]
        return "\n".join(lines) + "\n"


# a legal item's own number before its text: "1.1.", "2)", "а)", "Статья 5.", "Article 3."
_ITEM_NUMBER = re.compile(r"^\s*(?:(?:стать[яи]|article|пункт|п\.)\s*)?(?:\d+(?:\.\d+)*\.?|[а-яa-z]\))\s+", re.I)


def _first_sentence(text: str) -> str:
    """The chunk's first sentence that says something (three words or more), its item number
    dropped: a numbered regulation's first "sentence" is often just "1.1."."""
    sentences = [" ".join(_ITEM_NUMBER.sub("", s.text).split()) for s in split_sentences(text)]
    saying = [s for s in sentences if len(re.findall(r"\w{2,}", s)) >= 3]
    return ((saying or sentences or [" ".join(text.split())])[0])[:300]


def _is_russian(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum("а" <= ch.lower() <= "я" or ch in "ёЁ" for ch in letters) / len(letters) > 0.5


def _example_chunk(registry: Registry) -> tuple[Chunk, Version]:
    """The first chunk of an edition in force now (else of the first edition)."""
    now = datetime.now(timezone.utc)
    chunks = sorted(registry.chunks.values(), key=lambda c: (c.version_id, c.char_start or 0, c.chunk_id))
    if not chunks:
        raise DataError(registry.texts_dir or "registry", None, "the registry has no chunk to cite in the example")
    in_force = [c for c in chunks if registry.versions[c.version_id].status_at(now).value == "active"]
    chunk = (in_force or chunks)[0]
    return chunk, registry.versions[chunk.version_id]


# the example questions in the language of the team's documents
_ASK = {
    "en": ("What does “{title}” say{topic}?", " about “{heading}”", "What is on the cafeteria menu today?"),
    "ru": ("Что говорится в документе «{title}»{topic}?", " в разделе «{heading}»", "Какое сегодня меню в столовой?"),
}
_DECLINE = {
    "en": ("The documents do not say; please ask the cafeteria.", "no document covers the question"),
    "ru": ("В документах об этом ничего нет; уточните в столовой.", "ни один документ не отвечает на вопрос"),
}


def _language(chunk: Chunk, example: bool) -> str:
    return "ru" if not example and _is_russian(chunk.text) else "en"


def _questions(registry: Registry, chunk: Chunk, version: Version, example: bool) -> list[dict[str, Any]]:
    sentence = _first_sentence(chunk.text)
    title = registry.documents[chunk.document_id].title
    ask, about, cafeteria = _ASK[_language(chunk, example)]
    topic = about.format(heading=chunk.heading_path[-1]) if chunk.heading_path else ""
    evidence: dict[str, Any] = {"document_id": chunk.document_id, "version_id": version.version_id}
    if chunk.page_start is not None:
        evidence["page"] = chunk.page_start
    if chunk.char_start is not None and chunk.char_end is not None:
        evidence.update(char_start=chunk.char_start, char_end=chunk.char_end)
    evidence["quote"] = sentence
    answerable = {
        "question_id": "q-example-1",
        "question": "How long are signed contracts kept?" if example else ask.format(title=title, topic=topic),
        "asked_at": ASKED_AT if example else None,
        "user": {"user_id": "example-user", "groups": []},
        "risk_tier": "policy",
        "tags": ["example", "single_fact"],
        "gold": {
            "should_abstain": False,
            "evidence": [evidence],
            "answer": sentence,
            "key_facts": ["5 years after the contract ends"] if example else [sentence],
        },
    }
    if not example:
        del answerable["asked_at"]  # ask it at the run's start: the edition in force now
    declined = {
        "question_id": "q-example-2",
        "question": cafeteria,
        "risk_tier": "policy",  # a reference-tier example alone would leave that tier's citation rules no value
        "tags": ["example", "should_abstain"],
        "gold": {"should_abstain": True},
    }
    return [answerable, declined]


def _answers(chunk: Chunk, version: Version, example: bool) -> list[dict[str, Any]]:
    sentence = _first_sentence(chunk.text)
    decline, reason = _DECLINE[_language(chunk, example)]
    evidence: dict[str, Any] = {"evidence_id": "E1", "chunk_id": chunk.chunk_id, "document_id": chunk.document_id,
                                "version_id": version.version_id, "text": chunk.text}
    if chunk.page_start is not None:
        evidence["page"] = chunk.page_start
    answered = {
        "question_id": "q-example-1",
        "status": "answered",
        "answer_text": f"{sentence} [E1]",
        "claims": [{"claim_id": "c1", "text": sentence, "evidence_ids": ["E1"], "quote": sentence}],
        "evidence": [evidence],
        "links": [{"evidence_id": "E1", "url": version.viewer_url}] if version.viewer_url else [],
        "stale_notice": False,
    }
    declined = {
        "question_id": "q-example-2",
        "status": "abstained",
        "answer_text": decline,
        "claims": [],
        "evidence": [],
        "links": [],
        "stale_notice": False,
        "abstain_reason": reason,
    }
    return [answered, declined]


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _build(stage: Path, name: str, from_markdown: Path | None) -> list[str]:
    """Write the whole skeleton of the dataset `name` into `stage`; return the files written (relative)."""
    sources = stage / "sources"
    if from_markdown is None:
        (sources / EXAMPLE_DOCUMENT).mkdir(parents=True)
        write_text_atomic(sources / "manifest.toml", EXAMPLE_MANIFEST)
        write_text_atomic(sources / EXAMPLE_DOCUMENT / "v1.md", EXAMPLE_EDITION)
    ingest(from_markdown if from_markdown is not None else sources, stage / "registry")
    registry = Registry.load(stage)
    chunk, version = _example_chunk(registry)
    write_text_atomic(stage / "questions.jsonl", _jsonl(_questions(registry, chunk, version, from_markdown is None)))
    (stage / "answers").mkdir()
    write_text_atomic(stage / "answers" / "example.jsonl", _jsonl(_answers(chunk, version, from_markdown is None)))
    write_text_atomic(stage / "gates.toml", GATES)
    write_text_atomic(stage / "README.md", README.format(name=name))
    return sorted(str(p.relative_to(stage)) for p in stage.rglob("*") if p.is_file())


def init_dataset(folder: Path | str, *, from_markdown: Path | str | None = None, force: bool = False) -> InitResult:
    """Create a skeleton dataset in `folder` (which must be absent or empty, unless `force`)."""
    folder = Path(folder)
    markdown = Path(from_markdown) if from_markdown is not None else None
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise UsageError(f"{folder} is not empty; choose a new folder or pass --force to write into it")
    if markdown is not None and not markdown.is_dir():
        raise DataError(markdown, None, "folder not found (a folder with manifest.toml and Markdown editions)")
    name = folder.resolve().name or "dataset"
    # into an existing folder (empty, or --force) the files are moved one by one, keeping the rest
    with staged_folder(folder.resolve(), existing="merge") as stage:
        files = _build(stage, name, markdown)
    return InitResult(folder=folder, files=files)
