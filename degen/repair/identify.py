"""Identify: which server this is, from what it says about itself.

    GET /v1/models   owned_by (vllm, sglang-omni), max_model_len, the model served
    Server header    whisper.cpp
    /openapi.json    its title (sglang-omni, faster-whisper-server, Speaches), version, form
    GET /version     vLLM's
    the URL          api.openai.com

The rules are read off the recordings of the servers' own HTTP layers (fixtures/servers,
"What tells them apart"). A server none of them names is "unknown"; where its OpenAPI form
is declared, only the fields it declares are sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable, Mapping

from .servers import ABSENT, ASSUMED, PROFILES, ROUTE, Knob, Profile, ServerState


@dataclass(frozen=True)
class Seen:
    """One GET's answer as detection reads it: status, headers (lower-case names), the body
    parsed as JSON (None when it is not) and as text."""

    status: int
    headers: Mapping[str, str]
    body: object = None
    text: str = ""


@dataclass(frozen=True)
class Spec:
    """What ``/openapi.json`` says: the app's title and version, its routes, and the fields
    of its transcription form (None when it does not say)."""

    title: str = ""
    version: str | None = None
    paths: frozenset[str] = frozenset()
    form: frozenset[str] | None = None


OPENAI_HEADERS = ("openai-version", "openai-organization", "openai-processing-ms")


def identify(base_url: str, get: Callable[[str], Seen | None], model: str | None = None) -> ServerState:
    """The server at ``base_url`` from what it says about itself: its model listing
    (``owned_by``, ``max_model_len``), ``Server`` header, OpenAPI title and form, and
    ``/version``. ``get(path)`` answers a GET (None when it got no answer)."""
    listing = get("/v1/models")
    entries = listed(listing)
    ids = tuple(e["id"] for e in entries)
    served = model or (ids[0] if ids else "")
    kind, found_by, version, spec = _recognise(base_url, get, listing, entries, ids)
    if kind == "sglang-omni":  # one app, two request builders: the model decides
        kind = "sglang-omni-moss" if "moss" in served.lower() else "sglang-omni-whisper"
    profile = PROFILES[kind].at_version(version)
    if kind == "unknown" and spec.form is not None:
        profile = _from_form(profile, spec.form)
    length = next((e.get("max_model_len") for e in entries if e.get("id") == served), None)
    notes = []
    if kind == "vllm" and re.search(r"\.en$", served):
        notes.append(f"{served} is an English-only checkpoint: vLLM's prompt always names a language, so it "
                     f"answers nothing")
    return ServerState(base_url, profile, found_by, version, ids, length if isinstance(length, int) else None,
                       tuple(notes), confident=kind != "unknown" and "a guess" not in found_by)


def _recognise(base_url, get, listing: Seen | None, entries: list[dict], ids) -> tuple[str, str, str | None, Spec]:
    from urllib.parse import urlsplit
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "api.openai.com" or host.endswith(".openai.azure.com"):
        return "openai", f"the URL is OpenAI's API ({host})", None, Spec()
    headers = listing.headers if listing is not None else {}
    if "whisper.cpp" in headers.get("server", "").lower():
        return "whisper.cpp", f"Server: {headers['server']}", None, Spec()
    owners = {e.get("owned_by") for e in entries}
    if "vllm" in owners:
        return "vllm", "GET /v1/models: owned_by vllm", _version(get("/version")), Spec()
    moss = next((i for i in ids if "moss-transcribe" in i.lower()), None)
    if moss and "sglang-omni" not in owners:  # asked before any other GET: a server that lists only it
        return "sglang-omni", f"GET /v1/models lists {moss} (a guess: SGLang-Omni serves it)", None, Spec()
    spec = _spec(get("/openapi.json"))
    if "sglang-omni" in owners or spec.title == "sglang-omni":
        how = "owned_by sglang-omni in GET /v1/models" if "sglang-omni" in owners else "OpenAPI title sglang-omni"
        return "sglang-omni", how, spec.version if spec.title == "sglang-omni" else None, spec
    for title, kind in (("faster-whisper-server", "faster-whisper-server"), ("speaches", "speaches")):
        if spec.title.lower() == title:
            return kind, f"OpenAPI title {spec.title} {spec.version or ''}".rstrip(), spec.version, spec
    version = _version(get("/version"))
    if version and (not spec.paths or {"/tokenize", "/detokenize"} & spec.paths):
        return "vllm", f"GET /version answered {version}, as vLLM's does", version, spec
    if any(name in headers for name in OPENAI_HEADERS):
        return "openai", "OpenAI's response headers", None, spec
    return "unknown", "nothing it said matched a known server", None, spec


def listed(seen: Seen | None) -> list[dict]:
    """The models a ``GET /v1/models`` answer lists (entries with an id)."""
    body = seen.body if seen is not None and seen.status == 200 else None
    data = body.get("data") if isinstance(body, dict) else None
    return [e for e in data if isinstance(e, dict) and isinstance(e.get("id"), str)] if isinstance(data, list) else []


def _version(seen: Seen | None) -> str | None:
    body = seen.body if seen is not None and seen.status == 200 else None
    version = body.get("version") if isinstance(body, dict) else None
    return version if isinstance(version, str) else None


def _spec(seen: Seen | None) -> Spec:
    """The OpenAPI document, in full (``info``, ``paths`` with the transcription route's
    form schema) or as the recordings abbreviate it (``title``, a list of ``paths``,
    ``transcription_form``)."""
    doc = seen.body if seen is not None and seen.status == 200 else None
    if not isinstance(doc, dict):
        return Spec()
    info = doc.get("info") if isinstance(doc.get("info"), dict) else doc
    paths = doc.get("paths") or {}
    fields = None
    if isinstance(doc.get("transcription_form"), dict):
        fields = doc["transcription_form"].get("fields")
    elif isinstance(paths, dict):
        fields = _form_fields(doc, paths.get(ROUTE))
    return Spec(str(info.get("title") or ""), info.get("version") if isinstance(info.get("version"), str) else None,
                frozenset(p for p in paths if isinstance(p, str)),
                frozenset(fields) if isinstance(fields, dict) else None)


def _form_fields(doc: dict, route) -> dict | None:
    try:
        content = route["post"]["requestBody"]["content"]
        schema = next(iter(content.values()))["schema"]
        if "$ref" in schema:
            schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        return schema["properties"]
    except (KeyError, TypeError, StopIteration, AttributeError):
        return None


def _from_form(profile: Profile, form: frozenset[str]) -> Profile:
    """An unknown server whose form is declared: only the fields it declares are sent, and
    a knob without a field is known to be dropped."""
    knobs = dict(profile.knobs)
    cap = tuple(f for f in ("max_new_tokens", "max_completion_tokens") if f in form)
    knobs["token_cap"] = Knob(cap, ASSUMED, "declared by its form") if cap else Knob((), ABSENT, "not in its form")
    if "repetition_penalty" not in form:
        knobs["repetition_penalty"] = Knob((), ABSENT, "not in its form")
    if "model" not in form:
        knobs["model"] = Knob((), ABSENT, "not in its form")
    return replace(profile, knobs=MappingProxyType(knobs))
