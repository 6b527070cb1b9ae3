"""A stdlib HTTP server in a thread on 127.0.0.1 and a free port, for fake services in tests.

    server = start_http_server(handler)   # handler(Request) -> Response
    ... server.base_url ...               # "http://127.0.0.1:PORT"
    server.stop()

Each request runs in its own daemon thread, so slow replies overlap; stop() wakes any reply
that is still sleeping, so a test never waits for one.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


@dataclass
class Response:
    status: int = 200
    body: bytes | str | dict[str, Any] | list[Any] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (a slow service)
    chunked: bool = False  # send the body with Transfer-Encoding: chunked (no Content-Length)
    chunk_size: int = 65536  # bytes a chunk, when chunked
    drip: float = 0.0  # seconds between chunks, when chunked (a server that keeps a reply alive)


Handler = Callable[[Request], Response]


@dataclass
class RunningServer:
    base_url: str
    stop: Callable[[], None]
    port: int


def start_http_server(handler: Handler) -> RunningServer:
    stopping = threading.Event()

    class _RequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            try:
                response = handler(request)
            except Exception as exc:  # a bug in a fake must show up as a 500, not a hung client
                response = Response(500, {"error": {"message": f"fake server error: {exc!r}"}})
            if response.delay and stopping.wait(response.delay):
                return
            payload = response.body
            content_type = "text/plain; charset=utf-8"
            if isinstance(payload, (dict, list)):
                payload = json.dumps(payload, ensure_ascii=False)
                content_type = "application/json"
            data = payload.encode("utf-8") if isinstance(payload, str) else payload
            try:
                self.send_response(response.status)
                self.send_header("content-type", response.headers.get("content-type", content_type))
                for name, value in response.headers.items():
                    if name.lower() != "content-type":
                        self.send_header(name, value)
                if response.chunked:
                    self.send_header("transfer-encoding", "chunked")
                    self.end_headers()
                    for at in range(0, len(data), response.chunk_size):
                        if at and response.drip and stopping.wait(response.drip):
                            return
                        piece = data[at : at + response.chunk_size]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout or size-cap test)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    class _Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            # a client that hangs up mid-reply (a size or time cap) is what these tests provoke
            if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                super().handle_error(request, client_address)

    server = _Server(("127.0.0.1", 0), _RequestHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-http-server",
                              daemon=True)
    thread.start()
    port = server.server_address[1]

    def stop() -> None:
        stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return RunningServer(f"http://127.0.0.1:{port}", stop, port)
