"""An SGLang-Omni-compatible transcription server for tests, on a loopback port.

Same route, form fields, validation, response shapes and errors as the real one
(see README, "The server contract"). The decoder behind it is either scripted
(``Session``) or a real speech model (``WhisperDecoder``): anything with
``decode(samples, rate, temperature, max_new_tokens, repetition_penalty) -> markup``.
It can inject faults and charge a simulated decode time, and it counts the requests
and the audio seconds it decoded.

    with TestServer(session) as server:
        degen.fix(..., transcriber=server.url)
"""

from __future__ import annotations

import math
import socket
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson

from ..errors import AudioError
from ..repair.audio import decode
from typing import Protocol

import numpy as np

FORMATS = ("json", "text", "verbose_json", "srt", "vtt")
MODEL_CAP = 32768  # the model's configured max_new_tokens


class Decoder(Protocol):
    """``language`` is the request's field (None when absent); a decoder may ignore it."""

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None, language: str | None = None) -> str | None: ...


@dataclass
class Faults:
    """Misbehaviour to inject, each for the first N transcription requests."""

    unavailable: int = 0  # 503 queue full
    drop: int = 0  # close the connection without an answer
    malformed: int = 0  # 200 with a body that is not JSON
    slow_seconds: float = 0.0  # added to every request
    always_worse: bool = False  # every answer loops (a server that never helps)
    empty: int = 0  # 200 with empty text (wrong or re-encoded audio, a proxy fault)
    every_other_empty: bool = False  # every second decoded answer is empty
    garbage: int = 0  # 200 with well-formed markup of nonsense words at a speech-like rate
    wrong: int = 0  # 200 with the transcript of other audio (unrelated, plausibly timed)
    short: int = 0  # 200 with only the first half of the clip transcribed


@dataclass
class Stats:
    requests: int = 0
    transcriptions: int = 0
    audio_seconds: float = 0.0
    answers: int = 0  # decoded answers (200s)
    forms: list = field(default_factory=list)
    calls: list = field(default_factory=list)  # a dialect's engine calls (dialects.Call)


class TestServer:
    """Serve ``decoder`` on 127.0.0.1 in a background thread."""

    __test__ = False  # not a pytest class

    def __init__(self, decoder: Decoder, *, port: int = 0, model_id: str = "moss-transcribe-diarize",
                 faults: Faults | None = None, decode_seconds_per_second: float = 0.0,
                 honours_repetition_penalty: bool = True, formats: tuple[str, ...] = FORMATS,
                 slots: int = 64, dialect: str | None = None):
        self.decoder, self.model_id = decoder, model_id
        # A recorded real server's dialect (degen.testing.dialects): its fields, knobs,
        # errors and shapes instead of the contract's.
        self.dialect = None
        if dialect:
            from .dialect_servers import make
            self.dialect = make(dialect)
            self.model_id = self.dialect.model_id
        self.faults = faults or Faults()
        self.decode_seconds_per_second = decode_seconds_per_second
        self.honours_repetition_penalty = honours_repetition_penalty
        self.formats = formats  # older builds know json/text/verbose_json only; tests narrow it
        self.stats = Stats()
        self._takes_language: bool | None = None
        self._lock = threading.Lock()
        # A GPU decodes a bounded number of requests at once; the rest queue.
        self._slots = threading.BoundedSemaphore(max(1, slots))
        self.httpd = _QuietServer(("127.0.0.1", port), _handler(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> "TestServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="degen-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "TestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _take_fault(self, name: str) -> bool:
        with self._lock:
            left = getattr(self.faults, name)
            if left > 0:
                setattr(self.faults, name, left - 1)
                return True
            return False

    def transcribe(self, form: dict, audio: bytes) -> tuple[int, str, bytes]:
        """(status, content type, body) for one transcription request."""
        with self._lock:
            self.stats.transcriptions += 1
            self.stats.forms.append(dict(form))  # as sent
        if self.dialect is not None:
            from .dialects import Engine
            return self.dialect.transcribe(form, audio, Engine(self._dialect_decode))
        if not self.honours_repetition_penalty:  # an older build: dropped silently
            form = {k: v for k, v in form.items() if k != "repetition_penalty"}
        error = _validate(form, audio, self.model_id, self.formats)
        if error:
            return error
        try:
            samples, rate = decode(audio)
        except AudioError as exc:
            return _error(400, f"Could not decode audio: {exc}")
        seconds = samples.size / rate
        with self._lock:
            self.stats.audio_seconds += seconds
        time.sleep(self.faults.slow_seconds)
        if self.decode_seconds_per_second:
            with self._slots:
                time.sleep(self.decode_seconds_per_second * seconds)
        temperature = float(form.get("temperature") or 0.0)
        if self.faults.always_worse:
            temperature = 0.0
        cap = int(form["max_new_tokens"]) if form.get("max_new_tokens") else max(min(MODEL_CAP, 512), math.ceil(10 * seconds))
        penalty = float(form["repetition_penalty"]) if form.get("repetition_penalty") else None
        try:
            text = self._decode(samples, rate, temperature, cap, penalty, form.get("language") or None)
        except Exception as exc:  # the decoder failed: a 500, as FastAPI answers
            return _error(500, f"decoding failed: {exc}")
        if self.faults.always_worse and text is not None:
            text = f"[0.00][S01]{'哈' * 5000}"  # worse than any loop in the session, cap or no cap
        text = self._faulty(text or "", samples, rate, temperature, cap, penalty)
        return _respond(form.get("response_format") or "json", text, seconds, form.get("language") or "auto")

    def _dialect_decode(self, samples, rate: int, call) -> str:
        """One engine call of a dialect: the knobs it says reach the model, decoded."""
        with self._lock:
            self.stats.calls.append(call)
            self.stats.audio_seconds += samples.size / rate
        time.sleep(self.faults.slow_seconds)
        temperature = call.temperature[0] if isinstance(call.temperature, tuple) else call.temperature
        cap = call.max_tokens or MODEL_CAP
        penalty = call.repetition_penalty if call.repetition_penalty != 1.0 else None
        language = self.dialect.model_language(call)
        text = self._decode(samples, rate, max(temperature, 0.0), cap, penalty, language)
        return self._faulty(text or "", samples, rate, temperature, cap, penalty)

    def _decode(self, samples, rate: int, temperature: float, cap: int, penalty, language: str | None):
        """The decoder's answer; ``language`` is passed to decoders that take it (one
        written before requests carried a language takes five arguments)."""
        if self._takes_language is None:
            import inspect
            parameters = inspect.signature(self.decoder.decode).parameters
            self._takes_language = "language" in parameters or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        if self._takes_language:
            return self.decoder.decode(samples, rate, temperature, cap, penalty, language=language)
        return self.decoder.decode(samples, rate, temperature, cap, penalty)

    def _faulty(self, text: str, samples, rate: int, temperature: float, cap: int, penalty) -> str:
        """The answer as a misbehaving server would give it (unchanged without faults)."""
        seconds = samples.size / rate
        with self._lock:
            self.stats.answers += 1
            second = self.stats.answers % 2 == 0
        if self._take_fault("empty") or (self.faults.every_other_empty and second):
            return ""
        if self._take_fault("garbage"):
            return _garbage(seconds, self.stats.answers)
        if self._take_fault("wrong"):
            elsewhere = getattr(self.decoder, "elsewhere", None)
            return elsewhere(samples, rate, temperature, cap, penalty) if elsewhere else _garbage(seconds, 7)
        if self._take_fault("short"):
            from ..formats import moss
            segs, _ = moss.parse_segments(text)
            half = [sg for sg in segs if sg.span is not None and sg.span.start < seconds / 2]
            return "".join(f"[{sg.span.start:.2f}][{sg.speaker}]{sg.text}[{sg.span.end:.2f}]" for sg in half if sg.closed)
        return text


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (Ctrl-C, a timeout) is no error worth a traceback."""

    def handle_error(self, request, client_address):
        import sys
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _error(status: int, detail) -> tuple[int, str, bytes]:
    return status, "application/json", orjson.dumps({"detail": detail})


def _validate(form: dict, audio: bytes, model_id: str, formats: tuple[str, ...] = FORMATS):
    if not audio:
        return _error(400, "Uploaded audio file is empty")
    model = form.get("model")
    if model and model != model_id:
        return _error(404, {"error": "model_not_found", "message": f"The model `{model}` does not exist."})
    if (form.get("response_format") or "json") not in formats:
        return _error(422, f"response_format must be one of {', '.join(formats)}")
    for key, low, high in (("temperature", 0.0, 2.0), ("repetition_penalty", 0.0, 2.0)):
        if form.get(key):
            try:
                value = float(form[key])
            except ValueError:
                return _error(422, [{"loc": ["body", key], "msg": "Input should be a valid number"}])
            if not (low <= value <= high) or (key == "repetition_penalty" and value == 0):
                return _error(422, [{"loc": ["body", key], "msg": f"must be in ({low}, {high}]"}])
    if form.get("max_new_tokens"):
        if not form["max_new_tokens"].isdigit() or int(form["max_new_tokens"]) < 1:
            return _error(422, [{"loc": ["body", "max_new_tokens"], "msg": "must be an integer >= 1"}])
    return None


def _garbage(seconds: float, salt: int) -> str:
    """Nonsense words, two a second, in well-formed markup: it parses, it does not loop,
    and its density is speech-like; only what it fails to say gives it away."""
    import random
    rng = random.Random(salt)
    parts, t = [], 0.0
    while t + 2.0 <= seconds:
        words = " ".join("".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(2))
                         for _ in range(4))
        parts.append(f"[{t:.2f}][S01]{words}[{t + 2.0:.2f}]")
        t += 2.0
    return "".join(parts)


def _segments(markup: str) -> list[dict]:
    from ..formats import moss
    try:
        segs, _ = moss.parse_segments(markup)
    except Exception:
        return []
    return [{"id": i, "start": s.span.start, "end": s.span.end, "text": f"[{s.speaker}]{s.text}"}
            for i, s in enumerate(x for x in segs if x.closed)]


def _respond(fmt: str, markup: str, seconds: float, language: str = "auto") -> tuple[int, str, bytes]:
    """The answer in ``fmt``; verbose_json echoes the request's language ("auto" without
    one), as SGLang-Omni does."""
    usage = {"type": "duration", "seconds": math.ceil(seconds)}
    if fmt == "text":
        return 200, "text/plain; charset=utf-8", markup.encode()
    if fmt in ("srt", "vtt"):
        from ..formats import loads, dumps
        body = dumps(loads(markup), fmt) if markup else ("WEBVTT\n" if fmt == "vtt" else "")
        return 200, "text/plain; charset=utf-8", body.encode()
    if fmt == "verbose_json":
        doc = {"task": "transcribe", "language": language, "duration": round(seconds, 2), "text": markup,
               "segments": _segments(markup), "usage": usage}
        return 200, "application/json", orjson.dumps(doc)
    return 200, "application/json", orjson.dumps({"text": markup, "usage": usage})


def _handler(server: TestServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def _send(self, status: int, ctype: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def version_string(self):  # the Server header a dialect's server sends
            return getattr(server.dialect, "server_header", "uvicorn") if server.dialect else super().version_string()

        def do_GET(self):
            server.stats.requests += 1
            if server.dialect is not None:
                return self._send(*server.dialect.get(self.path))
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, "application/json", orjson.dumps(
                    {"object": "list", "data": [{"id": server.model_id, "object": "model"}]}))
            elif self.path == "/health":
                self._send(200, "application/json", b'{"status":"ok"}')
            else:
                self._send(*_error(404, "Not Found"))

        def do_POST(self):
            server.stats.requests += 1
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            route = server.dialect.route if server.dialect else "/v1/audio/transcriptions"
            if self.path != route:
                return self._send(*(server.dialect.get(self.path) if server.dialect else _error(404, "Not Found")))
            if server._take_fault("drop"):
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if server._take_fault("unavailable"):
                return self._send(*_error(503, "Server is busy: request queue is full"))
            if server._take_fault("malformed"):
                return self._send(200, "application/json", b'{"text": "[0.00][S01]')
            form, audio = _parse_multipart(self.headers.get("Content-Type", ""), body)
            if server.dialect is not None:
                return self._send(*server.transcribe(form or {}, audio if form is not None else None))
            if form is None:
                return self._send(*_error(422, [{"loc": ["body", "file"], "msg": "Field required"}]))
            self._send(*server.transcribe(form, audio))

    return Handler


def _parse_multipart(content_type: str, body: bytes) -> tuple[dict | None, bytes]:
    """(form fields, file bytes) of a multipart/form-data body; (None, b"") if it is not one."""
    if "multipart/form-data" not in content_type:
        return None, b""
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    form, audio, has_file = {}, b"", False
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "file":
            audio, has_file = part.get_payload(decode=True) or b"", True
        elif name:
            form[name] = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
    return (form if has_file else None), audio
