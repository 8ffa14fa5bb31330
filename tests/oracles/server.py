"""A scripted model server on 127.0.0.1 that speaks each runtime's wire protocol.

The server is stateless: every request is read into a `Turn` (the tools it
offers, the user's own text, the tool results sent back so far), a `Script`
(a plain function of the Turn) says what the model answers, a tool call or a
text, and the server writes that answer in the request's protocol. Routing is
by path:

| path | protocol | runtime |
|---|---|---|
| `/v1/messages` (`/count_tokens`) | Anthropic Messages | claude |
| `/v1/chat/completions` | OpenAI Chat Completions | opencode, copilot |
| `/v1/responses` | OpenAI Responses | codex |
| `/v1beta/models/<m>:streamGenerateContent` | Gemini | gemini |

`GET .../models` lists one model. Requests no script is needed for are
answered at once: Claude's `count_tokens`, Gemini's `countTokens` and its
JSON-mode side calls (a JSON object), and any request that offers no tool
(OpenCode's title request; Claude's side queries): a short text.

Every exchange is logged (`ModelServer.exchanges()`), so a driver reads what
each conversation was offered and what the CLI sent back.
"""

from __future__ import annotations

import gzip
import http.server
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from tests.oracles import Attempt

Protocol = Literal["anthropic", "chat", "responses", "gemini"]
MODEL = "mock-model"

# What the runtimes' side calls expect: Gemini's routing classifier and its
# next-speaker check each read their own keys from one JSON object.
SIDE_JSON = {
    "complexity_reasoning": "a scripted turn",
    "complexity_score": 1,
    "reasoning": "a scripted turn",
    "next_speaker": "user",
}
SIDE_TEXT = "done"


@dataclass(frozen=True)
class Call:
    """A tool call the model makes: the attempt and the id the server gave it."""

    attempt: Attempt
    call_id: str


@dataclass(frozen=True)
class Result:
    """A tool result the CLI sent back: the id of the call, and its text."""

    call_id: str
    text: str


@dataclass(frozen=True)
class Turn:
    """One model request, as the server read it.

    `tools` are the names offered (Codex's namespaced tools by their own name);
    `user_text` joins the user's own messages (not the tool results); `side`
    marks a request no script needs to answer (no tools, or JSON mode).
    """

    protocol: Protocol
    path: str
    tools: tuple[str, ...]
    user_text: str
    results: tuple[Result, ...]
    side: bool
    body: Mapping[str, Any]
    headers: Mapping[str, str]


Reply = Call | str
Script = Callable[[Turn], Reply]
Reading = tuple[tuple[str, ...], str, tuple[Result, ...]]
"""What a request says: the tools offered, the user's own text, the results."""


@dataclass(frozen=True)
class Exchange:
    turn: Turn
    reply: Reply


def _text(content: Any) -> str:
    """The text of a message content: a string, or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content", "error"):
            if key in content:
                return _text(content[key])
        return json.dumps(content)
    return "" if content is None else str(content)


# --- Anthropic Messages ---------------------------------------------------


def _read_anthropic(body: Mapping[str, Any]) -> Reading:
    tools = tuple(t["name"] for t in body.get("tools", []) if "name" in t)
    said: list[str] = []
    results: list[Result] = []
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if block.get("type") == "tool_result":
                results.append(Result(block["tool_use_id"], _text(block.get("content"))))
            elif block.get("type") == "text":
                said.append(block["text"])
    return tools, "\n".join(said), tuple(results)


def _sse(events: Sequence[tuple[str | None, Mapping[str, Any]]]) -> bytes:
    lines = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        lines.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(lines).encode()


def _write_anthropic(turn: Turn, reply: Reply) -> tuple[str, bytes]:
    """A streamed reply opens the block empty and sends its content as one delta."""
    if isinstance(reply, Call):
        arguments = dict(reply.attempt.arguments)
        whole: dict[str, Any] = {
            "type": "tool_use",
            "id": reply.call_id,
            "name": reply.attempt.tool,
            "input": arguments,
        }
        start = dict(whole, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        stop = "tool_use"
    else:
        whole = {"type": "text", "text": reply}
        start = dict(whole, text="")
        delta = {"type": "text_delta", "text": reply}
        stop = "end_turn"
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {
        "id": "msg_oracle",
        "type": "message",
        "role": "assistant",
        "model": turn.body.get("model", MODEL),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    if not turn.body.get("stream"):
        done = dict(message, content=[whole], stop_reason=stop)
        return "application/json", json.dumps(done).encode()
    ended = {"stop_reason": stop, "stop_sequence": None}
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": start},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": ended, "usage": usage}),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


# --- OpenAI Chat Completions ----------------------------------------------


def _read_chat(body: Mapping[str, Any]) -> Reading:
    tools = tuple(t["function"]["name"] for t in body.get("tools", []) if "function" in t)
    said: list[str] = []
    results: list[Result] = []
    for message in body.get("messages", []):
        if message.get("role") == "user":
            said.append(_text(message.get("content")))
        elif message.get("role") == "tool":
            results.append(Result(message.get("tool_call_id", ""), _text(message.get("content"))))
    return tools, "\n".join(said), tuple(results)


def _write_chat(turn: Turn, reply: Reply) -> tuple[str, bytes]:
    if isinstance(reply, Call):
        function = {"name": reply.attempt.tool, "arguments": json.dumps(reply.attempt.arguments)}
        call = {"id": reply.call_id, "type": "function", "function": function}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        delta: dict[str, Any] = {"role": "assistant", "tool_calls": [dict(call, index=0)]}
        finish = "tool_calls"
    else:
        message = delta = {"role": "assistant", "content": reply}
        finish = "stop"
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    head = {"id": "chatcmpl-oracle", "created": 0, "model": turn.body.get("model", MODEL)}
    if not turn.body.get("stream"):
        choice = {"index": 0, "message": message, "finish_reason": finish}
        whole = dict(head, object="chat.completion", choices=[choice], usage=usage)
        return "application/json", json.dumps(whole).encode()
    chunk = dict(head, object="chat.completion.chunk")
    first = dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
    last = dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage)
    return "text/event-stream", _sse([(None, first), (None, last)]) + b"data: [DONE]\n\n"


# --- OpenAI Responses -----------------------------------------------------


def _codex_tools(body: Mapping[str, Any]) -> dict[str, tuple[str, str | None]]:
    """Each offered tool's name -> (its type, the namespace it sits in)."""
    found: dict[str, tuple[str, str | None]] = {}

    def walk(tools: Sequence[Mapping[str, Any]], namespace: str | None) -> None:
        for tool in tools:
            kind = tool.get("type", "function")
            if kind == "namespace":
                walk(tool.get("tools", []), tool.get("name"))
            else:
                found[tool.get("name", kind)] = (kind, namespace)

    walk(body.get("tools", []), None)
    # Tools a client-run tool_search loaded are offered from then on; the
    # "responses lite" request of some models lists its tools in the input.
    items = body.get("input", [])
    for item in items if isinstance(items, list) else []:
        if item.get("type") in ("tool_search_output", "additional_tools"):
            walk(item.get("tools", []), None)
    return found


def _read_responses(body: Mapping[str, Any]) -> Reading:
    said: list[str] = []
    results: list[Result] = []
    items = body.get("input", [])
    for item in items if isinstance(items, list) else []:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "user":
            said.append(_text(item.get("content")))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            results.append(Result(item.get("call_id", ""), _text(item.get("output"))))
        elif kind == "tool_search_output":
            found = [t.get("name", t.get("type")) for t in item.get("tools", [])]
            results.append(Result(item.get("call_id", ""), json.dumps(found)))
    return tuple(_codex_tools(body)), "\n".join(said), tuple(results)


def _write_responses(turn: Turn, reply: Reply) -> tuple[str, bytes]:
    if isinstance(reply, Call):
        kind, namespace = _codex_tools(turn.body).get(reply.attempt.tool, ("function", None))
        item: dict[str, Any]
        if kind == "tool_search":  # run by the client, answered with tool definitions
            item = {
                "type": "tool_search_call",
                "call_id": reply.call_id,
                "execution": "client",
                "status": "completed",
                "arguments": dict(reply.attempt.arguments),
            }
        elif kind == "custom":  # a freeform tool takes text, not JSON
            item = {
                "type": "custom_tool_call",
                "call_id": reply.call_id,
                "name": reply.attempt.tool,
                "input": reply.attempt.arguments.get("input", ""),
            }
        else:
            item = {
                "type": "function_call",
                "call_id": reply.call_id,
                "name": reply.attempt.tool,
                "arguments": json.dumps(reply.attempt.arguments),
            }
            if namespace:
                item["namespace"] = namespace
    else:
        text = {"type": "output_text", "text": reply, "annotations": []}
        item = {"type": "message", "role": "assistant", "status": "completed", "content": [text]}
    item["id"] = f"item_{reply.call_id if isinstance(reply, Call) else 'text'}"
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    return "text/event-stream", _sse(
        [
            (None, {"type": "response.created", "response": {"id": "resp_oracle"}}),
            (None, {"type": "response.output_item.added", "output_index": 0, "item": item}),
            (None, {"type": "response.output_item.done", "output_index": 0, "item": item}),
            (
                None,
                {"type": "response.completed", "response": {"id": "resp_oracle", "usage": usage}},
            ),
        ]
    )


# --- Gemini ---------------------------------------------------------------


def _read_gemini(body: Mapping[str, Any]) -> Reading:
    tools = tuple(
        declaration["name"]
        for tool in body.get("tools", [])
        for declaration in tool.get("functionDeclarations", [])
    )
    said: list[str] = []
    results: list[Result] = []
    calls: list[str] = []  # ids of the calls so far, for responses that carry none
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            if "functionCall" in part:
                calls.append(part["functionCall"].get("id", ""))
            elif "functionResponse" in part:
                response = part["functionResponse"]
                ident = response.get("id") or (
                    calls[len(results)] if len(results) < len(calls) else ""
                )
                results.append(Result(ident, _text(response.get("response"))))
            elif content.get("role") == "user" and "text" in part:
                said.append(part["text"])
    return tools, "\n".join(said), tuple(results)


def _write_gemini(turn: Turn, reply: Reply) -> tuple[str, bytes]:
    if isinstance(reply, Call):
        call = {
            "name": reply.attempt.tool,
            "args": dict(reply.attempt.arguments),
            "id": reply.call_id,
        }
        part: dict[str, Any] = {"functionCall": call}
    else:
        part = {"text": reply}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    data = {"candidates": [candidate], "usageMetadata": usage, "modelVersion": MODEL}
    if "alt=sse" in turn.path:
        return "text/event-stream", _sse([(None, data)])
    if ":streamGenerateContent" in turn.path:  # a JSON array of chunks
        return "application/json", json.dumps([data]).encode()
    return "application/json", json.dumps(data).encode()


_READERS: dict[Protocol, Callable[[Mapping[str, Any]], Reading]] = {
    "anthropic": _read_anthropic,
    "chat": _read_chat,
    "responses": _read_responses,
    "gemini": _read_gemini,
}
_WRITERS: dict[Protocol, Callable[[Turn, Reply], tuple[str, bytes]]] = {
    "anthropic": _write_anthropic,
    "chat": _write_chat,
    "responses": _write_responses,
    "gemini": _write_gemini,
}


def _protocol(path: str) -> Protocol | None:
    route = path.split("?", 1)[0]
    if route.endswith("/messages"):
        return "anthropic"
    if route.endswith("/chat/completions"):
        return "chat"
    if route.endswith("/responses"):
        return "responses"
    if route.endswith((":streamGenerateContent", ":generateContent")):
        return "gemini"
    return None


def read_turn(path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> Turn | None:
    """The request as a Turn, or None when the path is no model call."""
    protocol = _protocol(path)
    if protocol is None:
        return None
    tools, said, results = _READERS[protocol](body)
    wants_json = "json" in str(body.get("generationConfig", {}).get("responseMimeType", ""))
    return Turn(protocol, path, tools, said, results, not tools or wants_json, body, headers)


def side_reply(turn: Turn) -> str:
    """The answer to a request no script needs: JSON when JSON is asked for."""
    wants_json = "json" in str(turn.body.get("generationConfig", {}).get("responseMimeType", ""))
    return json.dumps(SIDE_JSON) if wants_json else SIDE_TEXT


def write_reply(turn: Turn, reply: Reply) -> tuple[str, bytes]:
    """(content type, body) of the reply in the turn's protocol."""
    return _WRITERS[turn.protocol](turn, reply)


_MODELS = {
    "object": "list",
    "data": [
        {
            "id": MODEL,
            "object": "model",
            "type": "model",
            "created": 0,
            "owned_by": "oracle",
            "display_name": MODEL,
        }
    ],
    "has_more": False,
    "models": [],
}


class ModelServer:
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) answering with `script`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._log: list[Exchange] = []
        self._unknown: list[str] = []
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT, with no path."""
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def exchanges(self) -> list[Exchange]:
        """Every model call answered so far, in the order they came."""
        with self._lock:
            return list(self._log)

    def unknown(self) -> list[str]:
        """Requests to paths no protocol answers (method and path)."""
        with self._lock:
            return list(self._unknown)

    def answer(self, turn: Turn) -> Reply:
        reply = side_reply(turn) if turn.side else self.script(turn)
        with self._lock:
            self._log.append(Exchange(turn, reply))
        return reply

    def note_unknown(self, request: str) -> None:
        with self._lock:
            self._unknown.append(request)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=10)


@contextmanager
def serve(script: Script) -> Iterator[ModelServer]:
    """A running ModelServer, shut down (its port closed) on leaving."""
    server = ModelServer(script)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _read_body(handler: http.server.BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("transfer-encoding", "").lower() == "chunked":
        data = b""
        while size := int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16):
            data += handler.rfile.read(size)
            handler.rfile.readline()
        handler.rfile.readline()
    else:
        data = handler.rfile.read(int(handler.headers.get("content-length") or 0))
    if handler.headers.get("content-encoding", "").lower() == "gzip":
        data = gzip.decompress(data)
    return data


def _handler(server: ModelServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        timeout = 120  # seconds a connection may sit idle: no thread waits forever

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, content_type: str, data: bytes) -> None:
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
                self._send("application/json", json.dumps(_MODELS).encode())
                return
            server.note_unknown(f"GET {self.path}")
            self.send_error(404)

        def do_POST(self) -> None:
            raw = _read_body(self)
            route = self.path.split("?", 1)[0]
            if route.endswith(("/count_tokens", ":countTokens")):
                self._send("application/json", b'{"input_tokens": 1, "totalTokens": 1}')
                return
            body = json.loads(raw or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            turn = read_turn(self.path, body, headers)
            if turn is None:
                server.note_unknown(f"POST {self.path}")
                self.send_error(404)
                return
            self._send(*write_reply(turn, server.answer(turn)))

    return Handler
