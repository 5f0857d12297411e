"""Talking to the transcription server, in its own dialect.

The only module that imports the HTTP library; its exceptions become ``ServerError``
subclasses here. Requests are multipart, with the fields of the server's profile
(``servers``): SGLang-Omni's ``max_new_tokens`` or vLLM's ``max_completion_tokens``,
faster-whisper-server's ``model_name``, whisper.cpp's ``/inference`` route; a knob the
server drops or lacks is not sent, and a prompt never is (it replaces MOSS's diarization
prompt, and is Whisper's context). Answers are read only as far as the clip could hold
(a looping server answered 20 MB), their times are clamped to the clip, and errors show
the server's own message in whichever shape it sends it.
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx
import orjson

from ..errors import ConfigError, FormatError, ServerError, ServerRejected, ServerTimeout, ServerUnreachable
from .answers import ERROR_BYTES, answer_limit, clamped, quiet_cuts, wav_seconds
from .identify import Seen, identify, listed
from .servers import PROFILES, ROUTE, ServerState, penalty_verdict, profile_for

RETRY_STATUS = {408, 429, 500, 502, 503, 504}
# Suffixes people paste after the server's root: OpenAI clients take ``.../v1`` as base_url.
_PASTED_SUFFIXES = (ROUTE, "/inference", "/v1")  # /inference: whisper.cpp's route
PROBE_PENALTY = 2.0  # the strongest penalty every server takes ((0, 2] on SGLang-Omni): the likeliest to show


@dataclass(frozen=True)
class ServerURL:
    """A server address split into what may be shown and what may not.

    Attributes:
        base: scheme, host, port and path prefix, without credentials or ``/v1``; safe
            to print, log and write to reports and journals.
        auth: ``(user, password)`` taken from a ``user:pass@`` URL, or None. Never shown.
    """

    base: str
    auth: tuple[str, str] | None = None

    @classmethod
    def parse(cls, url: str) -> "ServerURL":
        """Accept ``http://host:8000``, ``.../v1``, ``.../v1/`` and the full route;
        refuse a URL without an http(s) scheme (naming it with its credentials hidden)."""
        text = url.strip()
        parts = urlsplit(text)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            shown = redact(text)
            raise ConfigError(f"server URL {shown!r} needs a scheme and host: write 'http://{_bare(shown)}' "
                              f"(or https://)")
        path = parts.path.rstrip("/")
        for suffix in _PASTED_SUFFIXES:
            if path.endswith(suffix):
                path = path[: -len(suffix)]
                break
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        netloc = host + (f":{parts.port}" if parts.port else "")
        auth = (unquote(parts.username or ""), unquote(parts.password or "")) if parts.username else None
        return cls(urlunsplit((parts.scheme.lower(), netloc, path, "", "")), auth)


def redact(url: str) -> str:
    """``url`` with any ``user:pass@`` replaced by ``***@``: the only form ever shown."""
    head, sep, rest = url.partition("://")
    if not sep:
        head, rest = "", url
    netloc, slash, tail = rest.partition("/")
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    return f"{head}{sep}{netloc}{slash}{tail}"


def _bare(shown: str) -> str:
    return shown.partition("://")[2] or shown


@dataclass(frozen=True)
class Request:
    """One decoding request for a clip.

    Attributes:
        seed: sent where the server applies one (vLLM), so that the attempt can be
            repeated exactly and two attempts at one temperature are independent draws.
        seconds: the clip's length (read from the WAV header when not given): bounds the
            answer read and clamps its times.
    """

    audio: bytes
    temperature: float
    max_new_tokens: int
    repetition_penalty: float | None = None
    filename: str = "clip.wav"
    language: str | None = None  # sent with every request when known: a short clip is detected afresh
    seed: int | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class Response:
    """What the server said: the body as text and the format it is in. ``unusable`` says
    why an answer cannot be a transcript of the clip (it was longer than the clip could
    hold, so it was not read to its end)."""

    text: str
    response_format: str
    server: str
    requests_sent: int = 1  # HTTP requests made for this answer, retries and fallbacks included
    unusable: str | None = None


class Transcriber(Protocol):
    """Anything that turns a clip into a transcript response."""

    def transcribe(self, request: Request) -> Response: ...


@dataclass(frozen=True)
class _Reply:
    """An HTTP answer read at most to a limit (``over``: it was longer)."""

    status_code: int
    headers: httpx.Headers
    body: bytes
    over: bool = False
    reason_phrase: str = ""

    @property
    def text(self) -> str:
        charset = httpx.Response(200, headers=self.headers).charset_encoding or "utf-8"
        return self.body.decode(charset, "replace")

    def json(self):
        return orjson.loads(self.body)


class HttpTranscriber:
    """An OpenAI-style transcription endpoint over HTTP, in its own dialect
    (``servers.Profile``: field names, route, formats, knobs it applies).

    Args:
        base_url: e.g. ``http://gpu-box:8000``; ``.../v1`` works too (the route is
            appended). ``user:pass@`` in it is sent as basic auth and never shown.
        model: sent only when given (or when the server needs one: OpenAI's whisper-1).
        api_key: bearer token; never printed or logged.
        timeout: seconds for one request (long spans take a while to decode).
        retries: further tries for connection errors, 408, 429 and 5xx.
        client: an ``httpx.Client`` to use (tests inject one).
        server_kind: one of ``servers.KINDS``; None finds it from what the server says
            about itself (``servers.identify``) on the first request or ``check``.
    """

    def __init__(self, base_url: str, *, model: str | None = None, api_key: str | None = None,
                 timeout: float = 300.0, retries: int = 4, backoff: float = 0.5,
                 client: httpx.Client | None = None, server_kind: str | None = None):
        url = ServerURL.parse(base_url)
        self.base_url = url.base  # credential-free: this is what reports and journals name
        self._auth = None if api_key else url.auth  # a key wins over URL credentials
        self.model, self.retries, self.backoff = model, retries, backoff
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = client or httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers)
        self._kind = profile_for(server_kind).kind if server_kind and server_kind != "auto" else None
        self._server: ServerState | None = None
        self._lock = threading.Lock()
        self._formats: tuple[str, ...] = ()

    def __repr__(self) -> str:  # never shows the key
        return f"HttpTranscriber({self.base_url!r})"

    @property
    def server(self) -> ServerState:
        """The server's profile and what degen learned about it (found on first use)."""
        with self._lock:
            if self._server is None:
                self._server = self._identify()
                self._formats = self._server.profile.formats
            return self._server

    @property
    def response_format(self) -> str:
        self.server  # noqa: B018  (the formats come with the profile)
        return self._formats[0]

    def describe(self) -> dict | None:
        """The report's entry for this server (None when it was never reached)."""
        with self._lock:
            return self._server.to_dict() if self._server is not None else None

    def check(self) -> list[str]:
        """Reach the server once and find its profile; returns the model ids it lists
        (may be empty)."""
        return list(self.server.models)

    def _identify(self) -> ServerState:
        seen: dict[str, Seen | None] = {}

        def get(path: str) -> Seen | None:
            if path not in seen:
                seen[path] = self._get(path, required=path == "/v1/models")
            return seen[path]
        if self._kind is None:
            return identify(self.base_url, get, self.model)
        models = listed(get("/v1/models"))  # reached, and its models listed, as without a kind
        served = self.model or (models[0]["id"] if models else None)
        length = next((m.get("max_model_len") for m in models if m["id"] == served), None)
        return ServerState(self.base_url, PROFILES[self._kind], "--server-kind", None, [m["id"] for m in models],
                           length if isinstance(length, int) else None)

    def _get(self, path: str, required: bool) -> Seen | None:
        try:
            with self.client.stream("GET", self.base_url + path, auth=self._auth or httpx.USE_CLIENT_DEFAULT) as r:
                reply = _read(r, ERROR_BYTES * 16)
        except httpx.HTTPError as exc:
            if required:
                raise ServerUnreachable(f"cannot reach {self.base_url}: {_why(exc)}; is the server running?",
                                        url=self.base_url) from None
            return None
        if required and reply.status_code in (401, 403):
            raise self._rejected(reply)  # every request would fail the same way: say so now
        try:
            body = reply.json() if not reply.over else None
        except ValueError:
            body = None
        return Seen(reply.status_code, {k.lower(): v for k, v in reply.headers.items()}, body,
                    "" if reply.over else reply.text)

    def transcribe(self, request: Request) -> Response:
        """One answer for ``request``; its ``requests_sent`` counts every HTTP request
        made for it. A ``ServerError`` raised carries the same count as ``requests_sent``."""
        server, sent = self.server, [0]
        request = request if request.seconds is not None else replace(request, seconds=wav_seconds(request.audio))
        try:
            while True:
                fmt = self._formats[0]
                try:
                    longest = server.profile.timed_max_seconds
                    if longest and fmt == server.profile.formats[0] and (request.seconds or 0) > longest:
                        response = self._in_pieces(request, fmt, longest, sent)
                    else:
                        response = self._post(request, fmt, sent)
                    break
                except ServerRejected as exc:
                    if not (exc.status in (400, 422) and "format" in str(exc).lower() and len(self._formats) > 1):
                        raise
                    with self._lock:  # an older build: the next format, for every later request too
                        if self._formats[0] == fmt:
                            self._formats = self._formats[1:]
        except ServerError as exc:
            exc.requests_sent = sent[0]
            raise
        return replace(response, requests_sent=sent[0])

    def probe_penalty(self, request: Request) -> bool:
        """Whether ``repetition_penalty`` changes this server's answers, found once with
        three greedy requests for ``request``'s clip (two without it, one with it);
        a server whose profile already says is not asked."""
        server = self.server
        with server.probe_lock:
            known = server.relies("repetition_penalty")
            if known is not None:
                return known
            plain, sent = replace(request, temperature=0.0, repetition_penalty=None, seed=None), [0]
            try:
                first, again = (self._post(plain, self._formats[0], sent).text for _ in range(2))
                try:
                    penalised = self._post(replace(plain, repetition_penalty=PROBE_PENALTY), self._formats[0], sent,
                                           trial=True).text
                    works, why = penalty_verdict(first, again, penalised)
                except ServerRejected as exc:
                    works, why = False, f"probe: the server refused repetition_penalty ({exc})"
            except ServerError as exc:
                works, why = False, f"probe failed, so it is not relied on: {exc}"
            server.probe = {"requests": sent[0], "seconds": round(sent[0] * (plain.seconds or 0.0), 3),
                            "repetition_penalty": why}
            server.learn("repetition_penalty", works, why)
            return works

    def _form(self, request: Request, response_format: str, trial: bool = False) -> dict:
        return self.server.form(response_format, request.temperature, request.max_new_tokens,
                                request.repetition_penalty, request.seed, request.language, self.model, trial)

    def _in_pieces(self, request: Request, fmt: str, longest: float, sent: list[int]) -> Response:
        """A clip longer than the timed format allows, sent in pieces cut at its quietest
        moments, each answer's times moved to the clip's and joined in one subtitle file."""
        from .. import formats
        from ..model import Segment, Span, Transcript
        from .audio import decode, encode
        samples, rate = decode(request.audio)
        bounds = [0.0, *quiet_cuts(samples, rate, longest), samples.size / rate]
        segments = []
        for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
            share = (b - a) / bounds[-1]
            piece = replace(request, audio=encode(samples[int(a * rate):int(b * rate)], rate), seconds=b - a,
                            max_new_tokens=max(1, math.ceil(request.max_new_tokens * share)),
                            seed=None if request.seed is None else request.seed + i)
            answer = self._post(piece, fmt, sent)
            if answer.unusable or not answer.text.strip():
                if answer.unusable:
                    return answer
                continue
            try:
                found = formats.loads(answer.text)
            except FormatError as exc:
                return Response("", fmt, self.base_url, unusable=f"piece {i + 1}: {exc.detail}")
            segments += [Segment(Span(s.span.start + a, s.span.end + a), s.speaker, s.text)
                         for s in found if s.span is not None]
        body = formats.dumps(Transcript(segments), fmt) if segments else ""
        return Response(body, fmt, self.base_url)

    def _post(self, request: Request, response_format: str, sent: list[int], trial: bool = False) -> Response:
        server = self.server
        url = self.base_url + server.profile.route
        files = {"file": (request.filename, request.audio, "audio/wav")}
        auth = self._auth or httpx.USE_CLIENT_DEFAULT
        limit = answer_limit(request.seconds or 0.0, server.cap(request.max_new_tokens), server.own_cap)
        for attempt in range(self.retries + 1):
            reply, last = None, attempt == self.retries
            sent[0] += 1
            try:
                with self.client.stream("POST", url, data=self._form(request, response_format, trial), files=files,
                                        auth=auth) as streamed:
                    reply = _read(streamed, limit if streamed.status_code == 200 else ERROR_BYTES)
            except httpx.TimeoutException as exc:
                if last:
                    raise ServerTimeout(f"{self.base_url} did not answer in time ({_why(exc)})",
                                        url=self.base_url) from None
            except httpx.HTTPError as exc:
                if last:
                    raise ServerUnreachable(f"cannot reach {self.base_url}: {_why(exc)}", url=self.base_url) from None
            else:
                if reply.status_code == 200:
                    return self._answer(reply, response_format, request, limit)
                if reply.status_code not in RETRY_STATUS:
                    raise self._rejected(reply)
                if last:
                    raise ServerError(f"{self.base_url} answered {reply.status_code} after {attempt + 1} tries: "
                                      f"{_detail(reply)}", url=self.base_url, status=reply.status_code)
            time.sleep(self._delay(attempt, reply))
        raise AssertionError("the loop above returns or raises")

    def _answer(self, reply: _Reply, response_format: str, request: Request, limit: int) -> Response:
        if reply.over:
            return Response("", response_format, self.base_url,
                            unusable=f"the answer ran past {limit} bytes, more than {request.seconds or 0:.1f}s of "
                                     f"audio can hold in {request.max_new_tokens} tokens; not read further")
        text, fmt = reply.text, response_format
        if fmt in ("text", "srt", "vtt") and text.lstrip().startswith("{"):
            fmt = "json"  # vLLM answers text as JSON
        if fmt in ("json", "verbose_json") and request.seconds:
            text = clamped(text, request.seconds)
        return Response(text, fmt, self.base_url)

    def _delay(self, attempt: int, reply) -> float:
        retry_after = reply.headers.get("retry-after") if reply is not None else None
        if retry_after and retry_after.replace(".", "", 1).isdigit():
            return min(float(retry_after), 30.0)
        # Exponential backoff with full jitter, so parallel spans do not retry in step.
        return random.uniform(0, self.backoff * 2 ** attempt)

    def _rejected(self, reply) -> ServerRejected:
        detail = _detail(reply)
        route = self._server.profile.route if self._server is not None else ROUTE
        if reply.status_code == 404 and "model" in detail.lower():
            listed = self.check()
            hint = (f"; the server lists: {', '.join(listed)}" if listed
                    else "; send no model to use the server's default")
            return ServerRejected(f"{self.base_url}: model {self.model!r} not found{hint}",
                                  url=self.base_url, status=404)
        if reply.status_code == 404:
            return ServerRejected(f"{self.base_url}{route} not found (404): {detail}; give the server's root URL "
                                  f"(http://host:port, or the same ending in /v1), and its kind if it is not "
                                  f"detected (server_kind)", url=self.base_url, status=404)
        if reply.status_code in (401, 403):
            return ServerRejected(f"{self.base_url} refused the credentials ({reply.status_code}): {detail}; "
                                  f"check the API key", url=self.base_url, status=reply.status_code)
        return ServerRejected(f"{self.base_url} rejected the request ({reply.status_code}): {detail}",
                              url=self.base_url, status=reply.status_code)


def _read(reply: httpx.Response, limit: int) -> _Reply:
    """The body, read to at most ``limit`` bytes (decompressed): a longer one is left
    unread and the connection closed."""
    declared = reply.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return _Reply(reply.status_code, reply.headers, b"", True, reply.reason_phrase)
    chunks, size = [], 0
    for chunk in reply.iter_bytes():
        size += len(chunk)
        if size > limit:
            return _Reply(reply.status_code, reply.headers, b"", True, reply.reason_phrase)
        chunks.append(chunk)
    return _Reply(reply.status_code, reply.headers, b"".join(chunks), False, reply.reason_phrase)


def _detail(reply) -> str:
    """The server's own message, from every error shape the servers use: FastAPI's
    ``{"detail": ...}`` (a string, pydantic's list, or faster-whisper-server's
    ``{"error": {"message"}}`` inside it), OpenAI's and vLLM's ``{"error": {"message"}}``,
    whisper.cpp's ``{"error": "..."}``, or plain text."""
    try:
        body = reply.json()
    except ValueError:
        return reply.text[:200].strip() or reply.reason_phrase
    detail = body.get("detail", body.get("error", body)) if isinstance(body, dict) else body
    while isinstance(detail, dict) and ("error" in detail or "message" in detail):
        detail = detail.get("message", detail.get("error"))
    return str(detail)[:300]


def _why(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def max_new_tokens_for(seconds: float, tokens_per_second: float, floor: int) -> int:
    """A cap sized to the clip, so a retry that loops again is cut short instead of
    running to the server's own cap."""
    return max(floor, int(seconds * tokens_per_second + 0.999))
