"""A scripted answer service speaking citeval's http backend protocol, for the outside-call policy.

    service = start_answer_service({"q1": [Response(429, headers={"retry-after": "1"})]})
    ... service.url, service.arrivals["q1"] (server-side time.monotonic() of each request) ...
    service.stop()

Each question's script lists the replies to its first attempts; once it is spent, or for a
question without a script, the reply is a valid answer citing chunk a1-1. `default` replaces
that valid answer for every unscripted attempt (e.g. a service that always fails).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .http import Request, Response, RunningServer, start_http_server


def valid_answer(question_id: str) -> dict[str, Any]:
    return {"question_id": question_id, "status": "answered", "answer_text": f"Ответ на {question_id} [E1].",
            "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1",
                          "text": "Обучение проводится не реже одного раза в 12 месяцев."}],
            "claims": [], "links": []}


@dataclass
class AnswerService:
    script: dict[str, list[Response]]
    default: Response | None = None
    arrivals: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    server: RunningServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.base_url + "/answer"

    @property
    def hits(self) -> int:
        with self._lock:
            return sum(len(times) for times in self.arrivals.values())

    def handle(self, request: Request) -> Response:
        qid = str((request.json() or {}).get("question_id"))
        with self._lock:
            attempt = len(self.arrivals[qid])
            self.arrivals[qid].append(time.monotonic())
        plan = self.script.get(qid, [])
        if attempt < len(plan):
            return plan[attempt]
        if self.default is not None:
            return self.default
        return Response(200, valid_answer(qid))

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def start_answer_service(script: dict[str, list[Response]] | None = None, default: Response | None = None
                         ) -> AnswerService:
    service = AnswerService(script or {}, default)
    service.server = start_http_server(service.handle)
    return service
