"""A small OpenAI- and Anthropic-compatible HTTP server on 127.0.0.1 for tests, with scripted faults.

Each request takes the next step of `script` (shared by all clients, first come
first served); when the script is used up, `default` answers. Steps:
  ("ok", text)            200 with `text`, finish_reason "stop"
  ("length", text)        200 with `text`, finish_reason "length" (truncated)
  ("empty",)              200 with an empty answer
  ("429", retry_after)    429 with a Retry-After header (None: no header)
  ("500",)                500 with a JSON error
  ("401",)                401 with a JSON error that echoes the key sent
  ("timeout", seconds)    sleep, then answer ok (the client should have given up)
  ("malformed",)          200 with a body that is not JSON
  ("slow", seconds, text) sleep, then 200 with `text`
  ("hold", event, text)   wait until the threading.Event is set, then 200 with `text`
Every request is logged with its arrival time and JSON body.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple


class FakeLLMServer:
    def __init__(
        self, script: list[Step] | None = None, default: Callable[[int], Step] | None = None
    ) -> None:
        self.script = list(script or [])
        self.default = default or (
            lambda number: ("ok", f"```python\ndef f(x):\n    return x + {number % 2}\n```")
        )
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.served = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    number = len(server.requests)
                    server.requests.append(
                        {
                            "time": time.monotonic(),
                            "path": self.path,
                            "body": body,
                            "authorization": self.headers.get("Authorization"),
                            "x-api-key": self.headers.get("x-api-key"),
                        }
                    )
                    step = server.script.pop(0) if server.script else server.default(number)
                server.respond(self, step, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def respond(self, handler: BaseHTTPRequestHandler, step: Step, body: dict[str, Any]) -> None:
        kind = step[0]
        anthropic = handler.path.endswith("/messages")
        if kind == "429":
            headers = {"Retry-After": str(step[1])} if step[1] is not None else {}
            return self._send(
                handler,
                429,
                {"error": {"message": "rate limited", "type": "rate_limit_error"}},
                headers,
            )
        if kind == "500":
            return self._send(
                handler, 500, {"error": {"message": "internal error", "type": "api_error"}}
            )
        if kind == "401":
            # echoes the credentials, as some servers do, so tests can check they are masked
            sent = handler.headers.get("Authorization") or handler.headers.get("x-api-key") or ""
            return self._send(
                handler,
                401,
                {"error": {"message": f"invalid api key {sent}", "type": "authentication_error"}},
            )
        if kind == "malformed":
            return self._send_raw(handler, 200, b'{"choices": [ {"message": ', "application/json")
        if kind == "timeout":
            time.sleep(step[1])
            kind, step = "ok", ("ok", "def f(x):\n    return x\n")
        if kind == "slow":
            time.sleep(step[1])
            kind, step = "ok", ("ok", step[2])
        if kind == "hold":
            step[1].wait(60)
            kind, step = "ok", ("ok", step[2])
        text = "" if kind == "empty" else step[1]
        finish = "length" if kind == "length" else "stop"
        if anthropic:
            payload = {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": f"served-{body.get('model')}",
                "content": [{"type": "text", "text": text}] if text else [],
                "stop_reason": "max_tokens" if finish == "length" else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 11, "output_tokens": 7},
            }
        else:
            payload = {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 0,
                "model": f"served-{body.get('model')}",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                    }
                ],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
            }
        self._send(handler, 200, payload)

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_raw(handler, status, json.dumps(payload).encode(), "application/json", headers)

    def _send_raw(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        data: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
            with self.lock:
                self.served += 1
        except (BrokenPipeError, ConnectionResetError):
            pass
