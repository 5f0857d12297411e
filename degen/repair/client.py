"""Talking to the transcription server: SGLang-Omni's ``/v1/audio/transcriptions``
(any OpenAI-compatible server works too).

The only module that imports the HTTP library; its exceptions become ``ServerError``
subclasses here. Requests are multipart, exactly as the server's contract says:
``file``, ``response_format`` (``verbose_json``, falling back to ``json``), an explicit
``temperature``, ``max_new_tokens``, ``language`` when known, ``model`` only when given,
``repetition_penalty`` only when asked for, and never a ``prompt`` (a prompt replaces
MOSS's diarization prompt).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from ..errors import ConfigError, ServerError, ServerRejected, ServerTimeout, ServerUnreachable

ROUTE = "/v1/audio/transcriptions"
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
# Suffixes people paste after the server's root: OpenAI clients take ``.../v1`` as base_url.
_PASTED_SUFFIXES = (ROUTE, "/v1")


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
    """One decoding request for a clip."""

    audio: bytes
    temperature: float
    max_new_tokens: int
    repetition_penalty: float | None = None
    filename: str = "clip.wav"
    language: str | None = None  # sent with every request when known: a short clip is detected afresh


@dataclass(frozen=True)
class Response:
    """What the server said: the body as text and the format it is in."""

    text: str
    response_format: str
    server: str
    requests_sent: int = 1  # HTTP requests made for this answer, retries and fallbacks included


class Transcriber(Protocol):
    """Anything that turns a clip into a transcript response."""

    def transcribe(self, request: Request) -> Response: ...


class HttpTranscriber:
    """An OpenAI-style transcription endpoint over HTTP.

    Args:
        base_url: e.g. ``http://gpu-box:8000``; ``.../v1`` works too (the route is
            appended). ``user:pass@`` in it is sent as basic auth and never shown.
        model: sent only when given; newer SGLang-Omni builds 404 on a wrong one.
        api_key: bearer token; never printed or logged.
        timeout: seconds for one request (long spans take a while to decode).
        retries: further tries for connection errors, 408, 429 and 5xx.
        client: an ``httpx.Client`` to use (tests inject one).
    """

    def __init__(self, base_url: str, *, model: str | None = None, api_key: str | None = None,
                 timeout: float = 300.0, retries: int = 4, backoff: float = 0.5,
                 client: httpx.Client | None = None):
        url = ServerURL.parse(base_url)
        self.base_url = url.base  # credential-free: this is what reports and journals name
        self._auth = None if api_key else url.auth  # a key wins over URL credentials
        self.model, self.retries, self.backoff = model, retries, backoff
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = client or httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers)
        self.response_format = "verbose_json"

    def __repr__(self) -> str:  # never shows the key
        return f"HttpTranscriber({self.base_url!r})"

    def check(self) -> list[str]:
        """Reach the server once; returns the model ids it lists (may be empty)."""
        try:
            reply = self.client.get(self.base_url + "/v1/models", auth=self._auth or httpx.USE_CLIENT_DEFAULT)
        except httpx.HTTPError as exc:
            raise ServerUnreachable(f"cannot reach {self.base_url}: {_why(exc)}; is the server running?",
                                    url=self.base_url) from None
        if reply.status_code in (401, 403):
            raise self._rejected(reply)  # every request would fail the same way: say so now
        if reply.status_code != 200:
            return []
        try:
            return [m.get("id") for m in reply.json().get("data", []) if isinstance(m, dict)]
        except ValueError:
            return []

    def transcribe(self, request: Request) -> Response:
        """One answer for ``request``; its ``requests_sent`` counts every HTTP request
        made for it. A ``ServerError`` raised carries the same count as ``requests_sent``."""
        sent = [0]
        try:
            try:
                response = self._post(request, self.response_format, sent)
            except ServerRejected as exc:
                if not (self.response_format == "verbose_json" and exc.status in (400, 422)
                        and "format" in str(exc).lower()):
                    raise
                self.response_format = "json"  # an older build: ask for the raw markup only
                response = self._post(request, "json", sent)
        except ServerError as exc:
            exc.requests_sent = sent[0]
            raise
        return replace(response, requests_sent=sent[0])

    def _form(self, request: Request, response_format: str) -> dict:
        form = {"response_format": response_format, "temperature": f"{request.temperature:g}",
                "max_new_tokens": str(request.max_new_tokens)}
        if self.model:
            form["model"] = self.model
        if request.repetition_penalty is not None:
            form["repetition_penalty"] = f"{request.repetition_penalty:g}"
        if request.language:
            form["language"] = request.language
        return form

    def _post(self, request: Request, response_format: str, sent: list[int]) -> Response:
        url = self.base_url + ROUTE
        files = {"file": (request.filename, request.audio, "audio/wav")}
        auth = self._auth or httpx.USE_CLIENT_DEFAULT
        for attempt in range(self.retries + 1):
            reply, last = None, attempt == self.retries
            sent[0] += 1
            try:
                reply = self.client.post(url, data=self._form(request, response_format), files=files, auth=auth)
            except httpx.TimeoutException as exc:
                if last:
                    raise ServerTimeout(f"{self.base_url} did not answer in time ({_why(exc)})",
                                        url=self.base_url) from None
            except httpx.HTTPError as exc:
                if last:
                    raise ServerUnreachable(f"cannot reach {self.base_url}: {_why(exc)}", url=self.base_url) from None
            else:
                if reply.status_code == 200:
                    return Response(reply.text, response_format, self.base_url)
                if reply.status_code not in RETRY_STATUS:
                    raise self._rejected(reply)
                if last:
                    raise ServerError(f"{self.base_url} answered {reply.status_code} after {attempt + 1} tries: "
                                      f"{_detail(reply)}", url=self.base_url, status=reply.status_code)
            time.sleep(self._delay(attempt, reply))
        raise AssertionError("the loop above returns or raises")

    def _delay(self, attempt: int, reply) -> float:
        retry_after = reply.headers.get("retry-after") if reply is not None else None
        if retry_after and retry_after.replace(".", "", 1).isdigit():
            return min(float(retry_after), 30.0)
        # Exponential backoff with full jitter, so parallel spans do not retry in step.
        return random.uniform(0, self.backoff * 2 ** attempt)

    def _rejected(self, reply: httpx.Response) -> ServerRejected:
        detail = _detail(reply)
        if reply.status_code == 404 and "model" in detail.lower():
            listed = self.check()
            hint = (f"; the server lists: {', '.join(listed)}" if listed
                    else "; send no model to use the server's default")
            return ServerRejected(f"{self.base_url}: model {self.model!r} not found{hint}",
                                  url=self.base_url, status=404)
        if reply.status_code == 404:
            return ServerRejected(f"{self.base_url}{ROUTE} not found (404): {detail}; give the server's root URL "
                                  f"(http://host:port, or the same ending in /v1)", url=self.base_url, status=404)
        if reply.status_code in (401, 403):
            return ServerRejected(f"{self.base_url} refused the credentials ({reply.status_code}): {detail}; "
                                  f"check the API key", url=self.base_url, status=reply.status_code)
        return ServerRejected(f"{self.base_url} rejected the request ({reply.status_code}): {detail}",
                              url=self.base_url, status=reply.status_code)


def _detail(reply: httpx.Response) -> str:
    try:
        body = reply.json()
    except ValueError:
        return reply.text[:200].strip() or reply.reason_phrase
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, dict) and "message" in detail:
        detail = detail["message"]
    return str(detail)[:300]


def _why(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def max_new_tokens_for(seconds: float, tokens_per_second: float, floor: int) -> int:
    """A cap sized to the clip, so a retry that loops again is cut short instead of
    running to the server's own cap."""
    return max(floor, int(seconds * tokens_per_second + 0.999))
