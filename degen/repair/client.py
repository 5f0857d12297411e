"""Talking to the transcription server: SGLang-Omni's ``/v1/audio/transcriptions``
(any OpenAI-compatible server works too).

The only module that imports the HTTP library; its exceptions become ``ServerError``
subclasses here. Requests are multipart, exactly as the server's contract says:
``file``, ``response_format`` (``verbose_json``, falling back to ``json``), an explicit
``temperature``, ``max_new_tokens``, ``model`` only when given, ``repetition_penalty``
only when asked for, and never a ``prompt`` (a prompt replaces MOSS's diarization prompt).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Protocol

import httpx

from ..errors import ServerError, ServerRejected, ServerTimeout, ServerUnreachable

ROUTE = "/v1/audio/transcriptions"
RETRY_STATUS = {408, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Request:
    """One decoding request for a clip."""

    audio: bytes
    temperature: float
    max_new_tokens: int
    repetition_penalty: float | None = None
    filename: str = "clip.wav"


@dataclass(frozen=True)
class Response:
    """What the server said: the body as text and the format it is in."""

    text: str
    response_format: str
    server: str


class Transcriber(Protocol):
    """Anything that turns a clip into a transcript response."""

    def transcribe(self, request: Request) -> Response: ...


class HttpTranscriber:
    """An OpenAI-style transcription endpoint over HTTP.

    Args:
        base_url: e.g. ``http://gpu-box:8000`` (the route is appended).
        model: sent only when given; newer SGLang-Omni builds 404 on a wrong one.
        api_key: bearer token; never printed or logged.
        timeout: seconds for one request (long spans take a while to decode).
        retries: further tries for connection errors, 408, 429 and 5xx.
        client: an ``httpx.Client`` to use (tests inject one).
    """

    def __init__(self, base_url: str, *, model: str | None = None, api_key: str | None = None,
                 timeout: float = 300.0, retries: int = 4, backoff: float = 0.5,
                 client: httpx.Client | None = None):
        self.base_url = base_url.rstrip("/")
        self.model, self.retries, self.backoff = model, retries, backoff
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = client or httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers)
        self.response_format = "verbose_json"

    def __repr__(self) -> str:  # never shows the key
        return f"HttpTranscriber({self.base_url!r})"

    def check(self) -> list[str]:
        """Reach the server once; returns the model ids it lists (may be empty)."""
        try:
            reply = self.client.get(self.base_url + "/v1/models")
        except httpx.HTTPError as exc:
            raise ServerUnreachable(f"cannot reach {self.base_url}: {_why(exc)}; is the server running?",
                                    url=self.base_url) from None
        if reply.status_code != 200:
            return []
        try:
            return [m.get("id") for m in reply.json().get("data", []) if isinstance(m, dict)]
        except ValueError:
            return []

    def transcribe(self, request: Request) -> Response:
        try:
            return self._post(request, self.response_format)
        except ServerRejected as exc:
            if self.response_format == "verbose_json" and exc.status in (400, 422) and "format" in str(exc).lower():
                self.response_format = "json"  # an older build: ask for the raw markup only
                return self._post(request, "json")
            raise

    def _form(self, request: Request, response_format: str) -> dict:
        form = {"response_format": response_format, "temperature": f"{request.temperature:g}",
                "max_new_tokens": str(request.max_new_tokens)}
        if self.model:
            form["model"] = self.model
        if request.repetition_penalty is not None:
            form["repetition_penalty"] = f"{request.repetition_penalty:g}"
        return form

    def _post(self, request: Request, response_format: str) -> Response:
        url = self.base_url + ROUTE
        files = {"file": (request.filename, request.audio, "audio/wav")}
        for attempt in range(self.retries + 1):
            reply, last = None, attempt == self.retries
            try:
                reply = self.client.post(url, data=self._form(request, response_format), files=files)
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
            hint = f"; the server lists: {', '.join(listed)}" if listed else "; omit --model to use the server's default"
            return ServerRejected(f"{self.base_url}: model {self.model!r} not found{hint}",
                                  url=self.base_url, status=404)
        if reply.status_code == 401:
            return ServerRejected(f"{self.base_url}: unauthorised (401); give --api-key or DEGEN_API_KEY",
                                  url=self.base_url, status=401)
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
