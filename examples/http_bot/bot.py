"""A minimal bot speaking citeval's http backend protocol, stdlib only (see examples/README.md).

POST {question_id, question, asked_at, user} -> an Answer (DESIGN 3). It answers from the demo
registry: of the chunks of editions in force at asked_at that the user may read, the sentence
sharing the most words with the question, cited as [E1] by its chunk_id; no match: it abstains.

    python examples/http_bot/bot.py 8765
"""
import json
import re
import sys
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REGISTRY = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "registry"
ROWS = {name: [json.loads(line) for line in (REGISTRY / f"{name}.jsonl").open(encoding="utf-8")]
        for name in ("documents", "versions", "chunks")}
ACL = {d["document_id"]: {a["group"] for a in d["acl"]} for d in ROWS["documents"]}
VERSIONS = {v["version_id"]: v for v in ROWS["versions"]}


def when(text):  # ISO 8601; a date alone or a time without zone is UTC
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def usable(chunk, at, groups):  # the edition is in force at `at` and the user may read the document
    version, acl = VERSIONS[chunk["version_id"]], ACL[chunk["document_id"]]
    ends = [when(version[k]) for k in ("effective_to", "revoked_at", "deleted_at") if version.get(k)]
    return when(version["effective_from"]) <= at and all(at < end for end in ends) and (not acl or acl & groups)


def answer(question):
    stems = lambda text: {word[:5] for word in re.findall(r"\w{4,}", text.lower())}  # noqa: E731 - a crude stem
    at, asked = when(question["asked_at"]), stems(question["question"])
    groups = set((question.get("user") or {}).get("groups") or [])
    scored = [(len(asked & stems(sentence)), sentence, chunk) for chunk in ROWS["chunks"] if usable(chunk, at, groups)
              for sentence in re.split(r"(?<=[.!?])\s+", chunk["text"])]
    score, sentence, chunk = max(scored, key=lambda found: found[0], default=(0, "", None))
    if score < 2:
        return {"status": "abstained", "abstain_reason": "no fragment of the registry matches the question"}
    return {"status": "answered", "answer_text": f"{sentence} [E1]", "model": "demo-http-bot",
            "evidence": [{"evidence_id": "E1", "chunk_id": chunk["chunk_id"], "text": chunk["text"]}]}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        question = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"question_id": question["question_id"], **answer(question)}, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet: one line per request would drown citeval's output
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8765), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/answer", flush=True)
    server.serve_forever()
