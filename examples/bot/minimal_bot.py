"""A minimal bot to plug into citeval: word-overlap retrieval over a registry's chunks, one cited sentence.

As a python backend (from the repository root):
    citeval eval datasets/demo --backend python:examples.bot.minimal_bot:answer
The same, over the editions in force at the question's asked_at that its user may read:
    citeval eval datasets/demo --backend python:examples.bot.minimal_bot:answer_in_force
As an http backend (answer_in_force):
    python examples/bot/minimal_bot.py 8000 &
    citeval eval datasets/demo --backend http:http://127.0.0.1:8000/answer

The request and the answer it returns are described in docs/tutorials/your-own-bot.md and
docs/reference/answer.md. It uses only the standard library; BOT_DATASET picks another dataset.
"""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATASET = Path(os.environ.get("BOT_DATASET", Path(__file__).resolve().parents[2] / "datasets" / "demo"))


def _lines(name: str) -> list[dict]:
    with open(DATASET / "registry" / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


CHUNKS = _lines("chunks.jsonl")  # a real bot has its own index; its chunk ids must be the registry's
VERSIONS = {v["version_id"]: v for v in _lines("versions.jsonl")}
GROUPS = {d["document_id"]: {entry["group"] for entry in d["acl"]} for d in _lines("documents.jsonl")}


def stems(text: str) -> set[str]:
    """Crude stems: the first five letters of each word longer than three."""
    return {w[:5] for w in re.findall(r"\w+", text.lower()) if len(w) > 3}


def answer(request: dict, chunks: list[dict] | None = None) -> dict:
    """citeval's request {question_id, question, asked_at, user} in, one answer out."""
    asked = stems(request["question"])
    chunks = CHUNKS if chunks is None else chunks
    if not chunks:
        return {"status": "abstained", "abstain_reason": "no passage this user may read is in force"}
    best = max(chunks, key=lambda c: len(asked & stems(c["text"])))
    sentences = re.split(r"(?<=[.!?])\s+", best["text"])
    sentence = max(sentences, key=lambda s: len(asked & stems(s)))
    if len(asked & stems(sentence)) < 2:
        return {"status": "abstained", "abstain_reason": "no passage shares two words with the question"}
    evidence = {"evidence_id": "E1", "chunk_id": best["chunk_id"], "document_id": best["document_id"],
                "version_id": best["version_id"], "page": best.get("page_start"), "text": best["text"]}
    url = VERSIONS[best["version_id"]].get("viewer_url")
    return {
        "status": "answered",
        "answer_text": f"{sentence} [E1]",
        "claims": [{"claim_id": "c1", "text": sentence, "evidence_ids": ["E1"], "quote": sentence}],
        "evidence": [evidence],
        "links": [{"evidence_id": "E1", "url": url}] if url else [],
        "model": "minimal-bot",
    }


def _time(text: str | None) -> datetime | None:
    if text is None:
        return None
    t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def in_force(version: dict, t: datetime) -> bool:
    """Neither deleted nor revoked by t, and t inside [effective_from, effective_to)."""
    ends = [_time(version.get(k)) for k in ("deleted_at", "revoked_at", "effective_to")]
    return _time(version["effective_from"]) <= t and all(end is None or t < end for end in ends)


def answer_in_force(request: dict) -> dict:
    """answer() over the chunks of editions in force at asked_at whose document the user may read
    (an empty ACL: everyone; ACL time windows are left out here)."""
    t = _time(request["asked_at"])
    groups = set((request.get("user") or {}).get("groups", []))
    allowed = [c for c in CHUNKS if in_force(VERSIONS[c["version_id"]], t)
               and (not GROUPS[c["document_id"]] or GROUPS[c["document_id"]] & groups)]
    return answer(request, allowed)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps(answer_in_force(request), ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
