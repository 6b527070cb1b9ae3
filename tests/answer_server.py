"""A local answer service for tests and benches: speaks citeval's http backend protocol on 127.0.0.1.

Faults are scripted per (question_id, attempt): "500", "404", "timeout", "malformed", "drop"
or "ok"; every request is counted, and the Authorization header is echoed into the answer
text when asked, to prove a run never stores it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class AnswerServer:
    def __init__(self, script: dict[str, list[str]] | None = None, delay: float = 0.0, hang: float = 2.0,
                 echo_auth: bool = False) -> None:
        self.script = script or {}
        self.delay = delay
        self.hang = hang
        self.echo_auth = echo_auth
        self.hits: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes; without this, delayed ACKs add ~40 ms a reply
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                qid = body["question_id"]
                with server.lock:
                    attempt = server.hits[qid]
                    server.hits[qid] += 1
                plan = server.script.get(qid, [])
                fault = plan[attempt] if attempt < len(plan) else "ok"
                if server.delay:
                    time.sleep(server.delay)
                if fault == "drop":
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if fault == "timeout":
                    time.sleep(server.hang)
                if fault in ("500", "404"):
                    self._send(int(fault), b'{"error": "scripted"}')
                    return
                if fault == "malformed":
                    self._send(200, b'{"question_id": "' + qid.encode() + b'", "status": ')
                    return
                text = f"Ответ на {qid} [E1]."
                if server.echo_auth:
                    text += f" auth={self.headers.get('Authorization')}"
                answer = {"question_id": qid, "status": "answered", "answer_text": text,
                          "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}], "claims": [], "links": [],
                          "raw": {"headers_seen": dict(self.headers) if server.echo_auth else {}}}
                self._send(200, json.dumps(answer, ensure_ascii=False).encode())

            def _send(self, code: int, payload: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        ThreadingHTTPServer.request_queue_size = 128  # the default backlog of 5 stalls concurrent connects
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/answer"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> AnswerServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
