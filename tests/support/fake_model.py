"""A scripted fake model on 127.0.0.1 that real agent hosts talk to in end-to-end tests.

One server speaks the four wire formats the hosts use: Anthropic Messages, OpenAI
Responses, OpenAI Chat completions and Gemini `generateContent`. A test scripts the
model as a list of turns; each request that offers tools takes the next turn, a request
without tools (a title, a summary) gets `side_reply`. Every request body is logged, so a
test asserts on what the model really received: the tool list, the system prompt and
every tool result.

    with FakeModel([call("Bash", command="curl http://x"), reply("done")]) as model:
        run the host against model.url ...
    assert "ctx_execute" in model.main_requests[1].tool_results()[-1]
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    namespace: str = ""  # OpenAI Responses: the namespace tool the function belongs to


@dataclass
class Reply:
    """What the model answers: some text, then zero or more tool calls; or, with `error`
    set, an HTTP 400 whose error message is `error` (e.g. a context-window overflow)."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str = ""
    # The prompt size the model reports (OpenAI Chat): a host compacts its session once
    # this nears the model's context limit.
    prompt_tokens: int = 100


def reply(text: str) -> Reply:
    return Reply(text=text)


def call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(name, arguments)])


# A turn is a fixed reply or a function of the request it answers (e.g. to call the tool
# named in the last tool result).
Turn = Reply | Callable[["Request"], Reply]


@dataclass
class Request:
    """One request a host sent, parsed just enough to assert on it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def api(self) -> str:
        if "generateContent" in self.path or "GenerateContent" in self.path:
            return "gemini"
        if self.path.rstrip("/").endswith("/responses"):
            return "responses"
        if "chat/completions" in self.path:
            return "chat"
        return "anthropic"

    @property
    def streaming(self) -> bool:
        return bool(self.body.get("stream")) or "stream" in self.path

    def text(self) -> str:
        """The whole body as text: `fact in request.text()` asks "did the model see it"."""
        return json.dumps(self.body, ensure_ascii=False)

    def tool_names(self) -> list[str]:
        """The names of the tools offered to the model, in order."""
        tools = self.body.get("tools") or []
        if self.api == "gemini":
            return [f["name"] for t in tools for f in t.get("functionDeclarations", [])]
        if self.api == "chat":
            return [t["function"]["name"] for t in tools if "function" in t]
        names = [t["name"] for t in tools if "name" in t]
        return names + [name for members in self.namespaces().values() for name in members]

    def namespaces(self) -> dict[str, list[str]]:
        """OpenAI Responses namespace tools (Codex groups an MCP server's tools so): members."""
        return {
            t["name"]: [member["name"] for member in t.get("tools", []) if "name" in member]
            for t in self.body.get("tools") or [] if t.get("type") == "namespace"
        }  # fmt: skip

    def system(self) -> str:
        """The system prompt (for Responses: the instructions plus developer messages)."""
        body = self.body
        if self.api == "anthropic":
            return _flatten(body.get("system", ""))
        if self.api == "gemini":
            return _flatten((body.get("systemInstruction") or {}).get("parts", []))
        if self.api == "chat":
            return "\n".join(
                _flatten(m.get("content", "")) for m in body.get("messages", [])
                if m.get("role") in ("system", "developer")
            )  # fmt: skip
        developer = [
            _flatten(i.get("content", "")) for i in body.get("input", [])
            if i.get("role") in ("system", "developer")
        ]  # fmt: skip
        return "\n".join([body.get("instructions") or "", *developer])

    def last_message_text(self) -> str:
        """The text of the newest message in the conversation (what the host just asked)."""
        body = self.body
        messages = body.get("messages") or body.get("contents") or body.get("input") or []
        if isinstance(messages, str):
            return messages
        return _flatten(messages[-1]) if messages else ""

    def tool_results(self) -> list[str]:
        """Every tool result in the conversation so far, as the text the model reads."""
        body = self.body
        if self.api == "anthropic":
            return [
                _flatten(block.get("content", "")) for m in body.get("messages", [])
                if isinstance(m.get("content"), list)
                for block in m["content"] if block.get("type") == "tool_result"
            ]  # fmt: skip
        if self.api == "chat":
            return [
                _flatten(m.get("content", "")) for m in body.get("messages", [])
                if m.get("role") == "tool"
            ]  # fmt: skip
        if self.api == "gemini":
            return [
                json.dumps(p["functionResponse"].get("response", {}), ensure_ascii=False)
                for c in body.get("contents", []) for p in c.get("parts", [])
                if "functionResponse" in p
            ]  # fmt: skip
        return [
            _flatten(i.get("output", "")) for i in body.get("input", [])
            if str(i.get("type", "")).endswith("call_output")
        ]  # fmt: skip


def _flatten(content: Any) -> str:
    """Text out of a string, a list of content blocks, or a dict carrying `text`."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_flatten(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "content", "output", "parts"):
            if key in content:
                return _flatten(content[key])
    return ""


def default_side_reply(request: Request) -> Reply:
    return reply("Fake session")


class FakeModel:
    """The server; a context manager that starts it on a free port in a daemon thread."""

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        final: Reply | None = None,
        side_reply: Callable[[Request], Reply] = default_side_reply,
        is_side: Callable[[Request], bool] | None = None,
        sock: socket.socket | None = None,
    ) -> None:
        self.turns = list(turns)
        self.final = final or reply("Done.")
        self.side_reply = side_reply
        self.is_side = is_side or (lambda request: not request.body.get("tools"))
        self.requests: list[Request] = []
        self.main_requests: list[Request] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        if sock is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        else:  # a socket opened elsewhere (inside the hosts' network namespace)
            self._server = ThreadingHTTPServer(
                sock.getsockname(), _handler_for(self), bind_and_activate=False
            )
            self._server.socket.close()
            self._server.socket = sock
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, request: Request) -> Reply:
        """Log the request and pick its reply: the next turn, or the side/final reply."""
        with self._lock:
            self.requests.append(request)
            if self.is_side(request):
                turn: Turn = self.side_reply
            else:
                self.main_requests.append(request)
                turn = self.turns.pop(0) if self.turns else self.final
        return turn(request) if callable(turn) else turn

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}"


def _handler_for(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):  # some hosts list models first
                self._send(200, "application/json", json.dumps({"data": [], "models": []}))
            else:
                self._send(404, "application/json", json.dumps({"error": "not found"}))

        def do_HEAD(self) -> None:
            self._send(200, "text/plain", "")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            request = Request(self.path, dict(self.headers.items()), body)
            if "count_tokens" in self.path or "countTokens" in self.path:
                self._send(200, "application/json",
                           json.dumps({"input_tokens": 100, "totalTokens": 100}))  # fmt: skip
                return
            answer = model.answer(request)
            if answer.error:
                error = {"type": "invalid_request_error", "message": answer.error}
                self._send(400, "application/json", json.dumps({"type": "error", "error": error}))
                return
            content_type, text = _RENDERERS[request.api](model, request, answer)
            self._send(200, content_type, text)

        def _send(self, status: int, content_type: str, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _sse(events: Iterable[tuple[str | None, Any]]) -> str:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out)


USAGE_ANTHROPIC = {"input_tokens": 100, "output_tokens": 10}


def _anthropic(model: FakeModel, request: Request, answer: Reply) -> tuple[str, str]:
    blocks: list[dict[str, Any]] = []
    if answer.text:
        blocks.append({"type": "text", "text": answer.text})
    for tool_call in answer.tool_calls:
        blocks.append({"type": "tool_use", "id": model.next_id("toolu"),
                       "name": tool_call.name, "input": tool_call.arguments})  # fmt: skip
    stop = "tool_use" if answer.tool_calls else "end_turn"
    message = {"id": model.next_id("msg"), "type": "message", "role": "assistant",
               "model": request.body.get("model", "fake"), "content": blocks,
               "stop_reason": stop, "stop_sequence": None, "usage": USAGE_ANTHROPIC}  # fmt: skip
    if not request.streaming:
        return "application/json", json.dumps(message)
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start",
                           "message": {**message, "content": [], "stop_reason": None}}),
    ]  # fmt: skip
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]  # fmt: skip
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 10}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return "text/event-stream", _sse(events)


def _responses(model: FakeModel, request: Request, answer: Reply) -> tuple[str, str]:
    items: list[dict[str, Any]] = []
    if answer.text:
        items.append({"type": "message", "role": "assistant", "id": model.next_id("msg"),
                      "status": "completed",
                      "content": [{"type": "output_text", "text": answer.text,
                                   "annotations": []}]})  # fmt: skip
    for tool_call in answer.tool_calls:
        item = {"type": "function_call", "id": model.next_id("fc"),
                "call_id": model.next_id("call"), "name": tool_call.name,
                "arguments": json.dumps(tool_call.arguments), "status": "completed"}  # fmt: skip
        if tool_call.namespace:
            item["namespace"] = tool_call.namespace
        items.append(item)
    response = {"id": model.next_id("resp"), "object": "response", "status": "completed",
                "model": request.body.get("model", "fake"), "output": items,
                "usage": {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}  # fmt: skip
    if not request.streaming:
        return "application/json", json.dumps(response)
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created",
                              "response": {**response, "status": "in_progress", "output": []}}),
    ]  # fmt: skip
    for index, item in enumerate(items):
        events += [
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": index, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": index, "item": item}),
        ]  # fmt: skip
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return "text/event-stream", _sse(events)


def _chat(model: FakeModel, request: Request, answer: Reply) -> tuple[str, str]:
    calls = [
        {"id": model.next_id("call"), "type": "function",
         "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in answer.tool_calls
    ]  # fmt: skip
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": answer.prompt_tokens, "completion_tokens": 10,
             "total_tokens": answer.prompt_tokens + 10}  # fmt: skip
    base = {"id": model.next_id("chatcmpl"), "created": 1700000000,
            "model": request.body.get("model", "fake")}  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
    if calls:
        message["tool_calls"] = calls
    if not request.streaming:
        return "application/json", json.dumps({
            **base, "object": "chat.completion", "usage": usage,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        })  # fmt: skip
    chunk = {**base, "object": "chat.completion.chunk"}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": answer.text or ""}]
    deltas += [{"tool_calls": [{"index": i, **c}]} for i, c in enumerate(calls)]
    events: list[tuple[str | None, Any]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]})
        for d in deltas
    ]
    events.append((None, {**chunk, "choices": [{"index": 0, "delta": {},
                                                "finish_reason": finish}], "usage": usage}))  # fmt: skip
    events.append((None, "[DONE]"))
    return "text/event-stream", _sse(events)


def _gemini(model: FakeModel, request: Request, answer: Reply) -> tuple[str, str]:
    parts: list[dict[str, Any]] = []
    if answer.text:
        parts.append({"text": answer.text})
    parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in answer.tool_calls]
    response = {
        "candidates": [{"content": {"role": "model", "parts": parts},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10,
                          "totalTokenCount": 110},
        "modelVersion": _GEMINI_MODEL.search(request.path).group(1)
        if _GEMINI_MODEL.search(request.path) else "fake",
    }  # fmt: skip
    if not request.streaming:
        return "application/json", json.dumps(response)
    return "text/event-stream", _sse([(None, response)])


_GEMINI_MODEL = re.compile(r"/models/([^/:]+):")

_RENDERERS: dict[str, Callable[[FakeModel, Request, Reply], tuple[str, str]]] = {
    "anthropic": _anthropic,
    "responses": _responses,
    "chat": _chat,
    "gemini": _gemini,
}
