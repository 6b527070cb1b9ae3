"""Fake LLM services speaking OpenAI's Chat Completions and Anthropic's Messages wire formats.

    llm = start_fake_llm("openai")      # base_url "http://127.0.0.1:PORT/v1" (as AsyncOpenAI wants)
    llm = start_fake_llm("anthropic")   # base_url "http://127.0.0.1:PORT"    (as AsyncAnthropic wants)
    ... llm.requests, llm.max_in_flight ...
    llm.stop()

Answers are deterministic, computed from the prompt:
- ragas' statement prompt (input has "answer"): one statement per sentence of the answer;
- ragas' verdict prompt (input has "context" and "statements"): verdict 1 when the statement,
  casefolded and without its final punctuation, occurs in the context, else 0;
- citeval's support prompt (a "### Task" JSON with "claim" and "evidence"): the claim's label
  from `labels` (claim → label: an LLM that answers correctly) when given, else supported when
  the claim occurs in the evidence that way, else unsupported;
- anything else: the `default` callable, or an empty JSON object.
The reply goes where the client asked for it: a tool call when the request carries tools
(instructor's TOOLS modes: a tool_use block on Anthropic, tool_calls on OpenAI), else JSON
text in the message (instructor's JSON mode, citeval's judge).

Faults, for retry and failure paths:
- a marker in the prompt, every time: FAULT:500, FAULT:429, FAULT:400, FAULT:malformed, FAULT:slow;
- the next n requests, whatever they say: llm.fail_next("500" | "429" | "400" | "malformed" | "slow", n).
A 429 carries `Retry-After: llm.retry_after` when that is set. Each recorded request has "at", the
server's time.monotonic() when it arrived (to measure waits between attempts on the server's side).
Like the real Claude API, the Anthropic fake rejects a request that sets both temperature and
top_p (HTTP 400). With api_key set, a request without that key gets HTTP 401.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .http import Request, Response, start_http_server

FaultKind = Literal["500", "429", "400", "malformed", "slow"]
FAULT_KINDS: tuple[FaultKind, ...] = ("500", "429", "400", "malformed", "slow")
_FAULT_MARKER = re.compile(r"FAULT:(500|429|400|malformed|slow)")


def _norm(text: str) -> str:
    text = text.casefold().replace("ё", "е")
    return " ".join(text.split()).rstrip(" .!?;:")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def _last_json_after(marker: str, text: str) -> Any:
    """The JSON value that follows the last occurrence of marker in text (None if none parses)."""
    at = text.rfind(marker)
    if at < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[at + len(marker):].lstrip())
    except json.JSONDecodeError:
        return None
    return value


def deterministic_answer(prompt: str) -> dict[str, Any] | None:
    """The structured answer to a ragas or citeval prompt, or None when the prompt is neither."""
    data = _last_json_after("input:", prompt)
    if isinstance(data, dict) and "answer" in data:  # ragas StatementGeneratorPrompt
        return {"statements": _sentences(str(data["answer"]))}
    if isinstance(data, dict) and "context" in data and "statements" in data:  # ragas NLIStatementPrompt
        context = _norm(str(data["context"]))
        return {"statements": [
            {"statement": s, "reason": "found in the context" if _norm(s) in context else "not in the context",
             "verdict": int(_norm(s) in context)}
            for s in data["statements"]
        ]}
    task = _last_json_after("### Task", prompt)
    if isinstance(task, dict) and "claim" in task:  # citeval's support prompt
        found = _norm(str(task["claim"])) in _norm(" ".join(task.get("evidence") or []))
        return {"label": "supported" if found else "unsupported", "score": 0.9 if found else 0.1,
                "reason": "claim found in the evidence" if found else "claim not found in the evidence"}
    return None


def _prompt_text(provider: str, body: dict[str, Any]) -> str:
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts += [b.get("text", "") for b in system if isinstance(b, dict)]
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(parts)


@dataclass
class FakeLLM:
    provider: Literal["openai", "anthropic"]
    base_url: str = ""
    api_key: str | None = None
    slow_seconds: float = 3.0
    input_tokens: int = 100
    output_tokens: int = 20
    default: Callable[[str], dict[str, Any]] | None = None
    retry_after: str | None = None
    labels: dict[str, str] | None = None  # claim → label: citeval's support prompt answered with it (a correct LLM)
    requests: list[dict[str, Any]] = field(default_factory=list)
    max_in_flight: int = 0
    _stop: Callable[[], None] | None = None
    _queue: list[FaultKind] = field(default_factory=list)
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)

    def fail_next(self, kind: FaultKind, times: int = 1) -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}")
        with self._lock:
            self._queue += [kind] * times

    def stop(self) -> None:
        self._stopping.set()  # wake replies that are still sleeping
        if self._stop is not None:
            self._stop()
            self._stop = None

    # --- HTTP -------------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            response = self._handle(request)
            if response.delay:  # sleep here, so a slow reply counts as in flight
                self._stopping.wait(response.delay)
                response.delay = 0.0
            return response
        finally:
            with self._lock:
                self._in_flight -= 1

    def _handle(self, request: Request) -> Response:
        path = request.path.split("?")[0]
        want = "/chat/completions" if self.provider == "openai" else "/v1/messages"
        if request.method != "POST" or not path.endswith(want):
            return self._error(404, f"no route {request.method} {path}")
        try:
            body = request.json()
        except ValueError:
            return self._error(400, "body is not JSON")
        with self._lock:
            self.requests.append({"path": path, "headers": request.headers, "json": body, "at": time.monotonic()})
            queued = self._queue.pop(0) if self._queue else None
        if self.api_key is not None:
            sent = (request.headers.get("authorization", "").removeprefix("Bearer ")
                    if self.provider == "openai" else request.headers.get("x-api-key", ""))
            if sent != self.api_key:
                return self._error(401, "invalid api key")
        if self.provider == "anthropic" and "temperature" in body and "top_p" in body:
            return self._error(400, "`temperature` and `top_p` cannot both be specified for this model")
        prompt = _prompt_text(self.provider, body)
        marker = _FAULT_MARKER.search(prompt)
        fault = queued or (marker.group(1) if marker else None)
        if fault in ("500", "429", "400"):
            error = self._error(int(fault), "injected fault")
            if fault == "429" and self.retry_after is not None:
                error.headers["retry-after"] = self.retry_after
            return error
        delay = self.slow_seconds if fault == "slow" else 0.0
        if fault == "malformed":
            return self._reply(body, None, malformed=True)
        answer = self._labelled(prompt) if self.labels is not None else None
        answer = answer or deterministic_answer(prompt)
        if answer is None:
            answer = self.default(prompt) if self.default else {}
        response = self._reply(body, answer)
        response.delay = delay
        return response

    def _labelled(self, prompt: str) -> dict[str, Any] | None:
        task = _last_json_after("### Task", prompt)
        label = (self.labels or {}).get(str(task.get("claim"))) if isinstance(task, dict) else None
        if label is None:
            return None
        return {"label": label, "score": 0.9 if label == "supported" else 0.1, "reason": f"labelled {label}"}

    def _error(self, status: int, message: str) -> Response:
        if self.provider == "anthropic":
            kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                    429: "rate_limit_error"}.get(status, "api_error")
            return Response(status, {"type": "error", "error": {"type": kind, "message": message}})
        return Response(status, {"error": {"message": message, "type": "server_error" if status >= 500 else
                                           "invalid_request_error", "code": None}})

    def _reply(self, body: dict[str, Any], answer: dict[str, Any] | None, malformed: bool = False) -> Response:
        model = body.get("model", "fake")
        tools = body.get("tools") or []
        usage_in, usage_out = self.input_tokens, self.output_tokens
        if self.provider == "anthropic":
            if tools:
                choice = body.get("tool_choice") or {}
                name = choice.get("name") or tools[0].get("name", "tool")
                tool_input = {"unexpected": "field"} if malformed else answer
                content: list[dict[str, Any]] = [{"type": "tool_use", "id": "toolu_fake1", "name": name,
                                                  "input": tool_input}]
                stop = "tool_use"
            else:
                text = '{"label": "supported", "reason": ' if malformed else json.dumps(answer, ensure_ascii=False)
                content = [{"type": "text", "text": text}]
                stop = "end_turn"
            return Response(200, {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                                  "content": content, "stop_reason": stop, "stop_sequence": None,
                                  "usage": {"input_tokens": usage_in, "output_tokens": usage_out}})
        message: dict[str, Any] = {"role": "assistant"}
        finish = "stop"
        if tools:
            name = ((body.get("tool_choice") or {}).get("function") or {}).get("name") or \
                tools[0]["function"]["name"]
            arguments = "{not json" if malformed else json.dumps(answer, ensure_ascii=False)
            message.update(content=None, tool_calls=[{"id": "call_fake1", "type": "function",
                                                      "function": {"name": name, "arguments": arguments}}])
            finish = "tool_calls"
        else:
            message["content"] = "{not json" if malformed else json.dumps(answer, ensure_ascii=False)
        return Response(200, {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
                              "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                              "usage": {"prompt_tokens": usage_in, "completion_tokens": usage_out,
                                        "total_tokens": usage_in + usage_out}})


def start_fake_llm(provider: Literal["openai", "anthropic"], **options: Any) -> FakeLLM:
    """Start a fake provider on 127.0.0.1 and a free port; call .stop() when done."""
    fake = FakeLLM(provider, **options)
    server = start_http_server(fake.handle)
    fake.base_url = server.base_url + ("/v1" if provider == "openai" else "")
    fake._stop = server.stop
    return fake
