"""Servers: what each transcription server really does with the fields degen sends.

A ``Profile`` per server family says which form field carries each knob (temperature,
repetition penalty, token cap, seed, language, prompt, model), whether the server applies
it, drops it or has no such field, which response format gives timestamps, its error
shape and its own loop handling. The profiles were read from the servers' code: SGLang-Omni
0.1.9, vLLM 0.32 and faster-whisper-server 0.0.3 run with their engines stubbed
(fixtures/servers, with the 13 places where the code differs from the server contract);
whisper.cpp's server and speaches from their source; OpenAI's API from its reference.

    GET /v1/models, /openapi.json, /version ─▶ identify.identify ─▶ ServerState(profile)
                                                  │  what may be relied on, per knob
    a step needs a knob the profile cannot vouch for ─▶ probe (unknown servers) or skip

A server degen does not recognise gets the OpenAI fields, its token cap under both common
names (unknown fields are dropped by every server recorded), and a penalty only once a
probe showed it changes the answer. No HTTP here: ``client.HttpTranscriber`` sends.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

from ..errors import ConfigError

ROUTE = "/v1/audio/transcriptions"
WHISPER_CONTEXT = 448  # Whisper's decoder positions: no window's answer is longer

APPLIED = "applied"  # reaches the model
UNUSED = "unused"  # read, never used to decode (MOSS only echoes the language)
DROPPED = "dropped"  # accepted (often validated), then never passed on
ABSENT = "absent"  # not a field: dropped as unknown
NEVER = "never sent"  # degen does not send it on any server (a prompt replaces context)
VERIFY = "verify"  # not known: sent only once a probe shows it works
ASSUMED = "assumed"  # sent unverified, because sending it where it is dropped changes nothing
SENDS = (APPLIED, UNUSED, ASSUMED)

KNOBS = ("temperature", "repetition_penalty", "token_cap", "seed", "language", "prompt", "model")


@dataclass(frozen=True)
class Knob:
    """One setting on one server: the form fields that carry it, what the server does with
    it, and the evidence for that, in words."""

    fields: tuple[str, ...]
    status: str
    note: str = ""


@dataclass(frozen=True)
class Change:
    """A knob that differs from ``since`` on (a version not recorded is probed, not assumed)."""

    since: tuple[int, ...]
    knob: str
    to: Knob


@dataclass(frozen=True)
class Profile:
    """What one server family does, per knob and per answer.

    Attributes:
        kind: the name ``--server-kind`` takes.
        route: the transcription route under the server's root.
        formats: response formats asked for, in order (a format the server refuses moves
            to the next); the first gives timestamps.
        timed: which format gives timestamps, in words.
        timed_max_seconds: the timed format works only on clips up to this long; a longer
            clip is sent in pieces cut at its quietest moments (SGLang-Omni Whisper's srt).
        own_cap: tokens the server's decoder writes per 30 s window at most (None: no
            such bound is known); sizes the cap and the longest answer read.
        language_absent: sent when degen has no language (whisper.cpp's default is en).
        default_model: sent when the user gives none and the server needs one.
        extra: fields sent with every request (whisper.cpp: its own fallback off).
    """

    kind: str
    name: str
    knobs: Mapping[str, Knob]
    route: str = ROUTE
    formats: tuple[str, ...] = ("verbose_json", "json")
    timed: str = "verbose_json"
    timed_max_seconds: float | None = None
    own_cap: int | None = WHISPER_CONTEXT
    errors: str = '{"detail": ...}'
    loop_handling: str = "none"
    language_absent: str | None = None
    default_model: str | None = None
    model_required: bool = False
    extra: Mapping[str, str] = field(default_factory=dict)
    recorded: str = ""
    changes: tuple[Change, ...] = ()

    def knob(self, name: str) -> Knob:
        return self.knobs[name]

    def at_version(self, version: str | None) -> "Profile":
        """The profile as it holds for ``version`` (as recorded when unknown)."""
        numbers = version_tuple(version)
        if numbers is None:
            return self
        knobs = dict(self.knobs)
        for change in self.changes:
            if numbers >= change.since:
                knobs[change.knob] = change.to
        return replace(self, knobs=MappingProxyType(knobs))


def _profile(kind, name, *, temperature, penalty, cap, seed, language, prompt, model, **kw) -> Profile:
    knobs = dict(temperature=temperature, repetition_penalty=penalty, token_cap=cap, seed=seed, language=language,
                 prompt=prompt, model=model)
    return Profile(kind, name, MappingProxyType(knobs), **kw)


_FIXTURES = "run with its engine stubbed, fixtures/servers"
_SGLANG_COMMON = dict(
    temperature=Knob(("temperature",), APPLIED, "omitted = 0 (greedy); not range-checked"),
    seed=Knob((), ABSENT, "no seed reaches sglang: two draws with the same settings are one witness"),
    errors='FastAPI {"detail": ...}: 422 for the form, 400 otherwise',
)

PROFILES: dict[str, Profile] = {p.kind: p for p in (
    _profile("sglang-omni-moss", "SGLang-Omni, MOSS-Transcribe-Diarize",
             penalty=Knob(("repetition_penalty",), APPLIED, "(0, 2], else 422"),
             cap=Knob(("max_new_tokens",), APPLIED, "applied as sent; omitted: max(512, 10 per second)"),
             language=Knob(("language",), UNUSED, "only echoed: MOSS decodes what it hears"),
             prompt=Knob(("prompt",), NEVER, "replaces the diarization prompt"),
             model=Knob(("model",), UNUSED, "not checked in 0.1.9"),
             timed="verbose_json (markup in text)", own_cap=None,
             loop_handling="none beyond the duration-scaled token cap; top_p 0.95 and top_k 50 fixed",
             recorded=f"0.1.9, {_FIXTURES}", **_SGLANG_COMMON),
    _profile("sglang-omni-whisper", "SGLang-Omni, Whisper (and Qwen3-ASR)",
             penalty=Knob(("repetition_penalty",), DROPPED, "validated (0, 2], then dropped: the model gets 1.0"),
             cap=Knob(("max_new_tokens",), APPLIED, "min(sent, 448 - prompt prefix)"),
             language=Knob(("language",), APPLIED, "absent = English; an unknown code is a 400"),
             prompt=Knob(("prompt",), NEVER, "Whisper's previous-text context"),
             model=Knob(("model",), UNUSED, "not checked in 0.1.9"),
             formats=("srt", "verbose_json", "json"), timed_max_seconds=30.0,
             timed="srt, on clips up to 30 s (verbose_json holds one segment per 30 s chunk; srt on a "
                   "longer clip is a 400, so degen sends it in pieces)",
             loop_handling="none: no temperature fallback; 30 s chunks decoded apart, each without context",
             recorded=f"0.1.9, {_FIXTURES}",
             changes=(Change((0, 1, 10), "repetition_penalty", Knob(
                 ("repetition_penalty",), VERIFY, "dropped by 0.1.9; an open pull request applies it: probed")),),
             **_SGLANG_COMMON),
    _profile("vllm", "vLLM",
             temperature=Knob(("temperature",), APPLIED, "[0, 2], else 400"),
             penalty=Knob(("repetition_penalty",), APPLIED, "any value above 0"),
             cap=Knob(("max_completion_tokens",), APPLIED,
                      "min(sent, max_model_len); max_new_tokens is ignored, so without this a loop runs to 448"),
             seed=Knob(("seed",), APPLIED, "the same seed gives the same answer"),
             language=Knob(("language",), APPLIED, "absent: one extra decode detects it; unknown: 400"),
             prompt=Knob(("prompt",), NEVER, "read as text the model said (<|prev|> is no Whisper token)"),
             model=Knob(("model",), APPLIED, "checked: a wrong one is 404"),
             errors='{"error": {"message", "type", "param", "code"}}; form errors are 400',
             loop_handling="none: no temperature fallback; 30 s chunks decoded apart",
             recorded=f"0.32.0, {_FIXTURES}"),
    _profile("faster-whisper-server", "faster-whisper-server",
             temperature=Knob(("temperature",), APPLIED, "a sent temperature is the only one"),
             penalty=Knob((), ABSENT, "not a field"), cap=Knob((), ABSENT, "not a field"),
             seed=Knob((), ABSENT, "not a field"),
             language=Knob(("language",), APPLIED, "absent: detected"),
             prompt=Knob(("prompt",), NEVER, "faster-whisper's initial_prompt"),
             model=Knob(("model_name",), UNUSED, "its field is model_name; one model is served"),
             errors='{"detail": ...}; a bad format {"detail": {"error": {"message"}}}; unreadable audio 500',
             loop_handling="faster-whisper's fallback 0.0 .. 1.0 only when no temperature is sent (degen sends one)",
             recorded=f"0.0.3, {_FIXTURES}"),
    _profile("speaches", "speaches",
             temperature=Knob(("temperature",), APPLIED, "default 0.0; passed to faster-whisper as the only one"),
             penalty=Knob((), ABSENT, "not a field"), cap=Knob((), ABSENT, "not a field"),
             seed=Knob((), ABSENT, "not a field"), language=Knob(("language",), APPLIED, "passed on"),
             prompt=Knob(("prompt",), NEVER, "faster-whisper's initial_prompt"),
             model=Knob(("model",), APPLIED, "required; a model not installed is 404"), model_required=True,
             loop_handling="none of its own", recorded="v0.9.0-rc.3 source, not run (not on PyPI)"),
    _profile("whisper.cpp", "whisper.cpp server",
             temperature=Knob(("temperature",), APPLIED, "the first of a fallback ladder: degen sends "
                                                          "temperature_inc=0 so that it is the one that decodes"),
             penalty=Knob((), ABSENT, "not a field"), cap=Knob((), ABSENT, "not a field (max_len is characters)"),
             seed=Knob((), ABSENT, "not a field"),
             language=Knob(("language",), APPLIED, "default en (the server's -l); auto detects"),
             prompt=Knob(("prompt",), NEVER, "initial_prompt of every window"),
             model=Knob((), ABSENT, "only /load reads it"),
             route="/inference", language_absent="auto", extra={"temperature_inc": "0"},
             errors='{"error": "<string>"}; a non-number temperature: 500 text/plain',
             loop_handling="a temperature fallback (temperature_inc 0.2 on entropy and log-prob thresholds) unless "
                           "temperature_inc=0; --no-fallback is parsed, never applied",
             recorded="v1.9.3-50 examples/server source, not run"),
    _profile("openai", "OpenAI API",
             temperature=Knob(("temperature",), APPLIED, "0 to 1; 0 lets the model raise it itself"),
             penalty=Knob((), ABSENT, "not a field"), cap=Knob((), ABSENT, "not a field"),
             seed=Knob((), ABSENT, "not a field"), language=Knob(("language",), APPLIED, "ISO-639-1"),
             prompt=Knob(("prompt",), NEVER, "previous-text context"),
             model=Knob(("model",), APPLIED, "required; whisper-1 is the one with segment timestamps"),
             default_model="whisper-1", model_required=True,
             errors='{"error": {"message", "type", "param", "code"}}',
             loop_handling="at temperature 0 the model raises the temperature by log-probability thresholds",
             recorded="the API reference, not recorded"),
    _profile("unknown", "an OpenAI-compatible server degen does not recognise",
             temperature=Knob(("temperature",), ASSUMED, "the OpenAI field"),
             penalty=Knob(("repetition_penalty",), VERIFY, "sent only once a probe shows it changes the answer"),
             cap=Knob(("max_new_tokens", "max_completion_tokens"), ASSUMED,
                      "both common names; the answer read is bounded anyway"),
             seed=Knob((), ABSENT, "not sent: unverified"), language=Knob(("language",), ASSUMED, "the OpenAI field"),
             prompt=Knob(("prompt",), NEVER, "replaces or seeds the model's context"),
             model=Knob(("model",), ASSUMED, "sent only when given"), own_cap=None,
             errors='{"detail": ...} or {"error": {"message"}}',
             loop_handling="not known", recorded="the OpenAI fields, verified by a probe"),
)}
KINDS = tuple(PROFILES)


def profile_for(kind: str) -> Profile:
    try:
        return PROFILES[kind.strip().lower()]
    except KeyError:
        raise ConfigError(f"unknown server kind {kind!r}: choose one of {', '.join(KINDS)} "
                          f"(or leave it out to detect it)") from None


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    """``"0.1.9"`` and ``"v1.9.3-50-g233fe1fc9"`` as (0, 1, 9) and (1, 9, 3); None otherwise."""
    found = re.match(r"v?(\d+(?:\.\d+)*)", (version or "").strip())
    return tuple(int(n) for n in found.group(1).split(".")) if found else None


# --- one server, as found and as used ----------------------------------------------------------

class ServerState:
    """One server as degen found it, and what it learned about it while sending: which
    knobs may be relied on, what was sent, which steps were skipped (thread-safe)."""

    def __init__(self, url: str, profile: Profile, found_by: str, version: str | None = None, models=(),
                 model_len: int | None = None, notes=(), confident: bool = True):
        self.url, self.profile, self.found_by, self.version = url, profile, found_by, version
        self.confident = confident  # the server named itself (or --server-kind did): its profile is not second-guessed
        self.models = tuple(models)
        self.own_cap = model_len or profile.own_cap
        self.notes = list(notes)
        self._status = {k: profile.knobs[k].status for k in KNOBS}
        self._why = {k: profile.knobs[k].note for k in KNOBS}
        self._lock = threading.Lock()
        self.probe_lock = threading.Lock()  # one probe at a time; the others wait for its verdict
        self.sent: Counter = Counter()
        self.skipped: dict[str, str] = {}
        self.probe: dict | None = None

    @property
    def kind(self) -> str:
        return self.profile.kind

    def relies(self, knob: str) -> bool | None:
        """Whether a step may rely on ``knob``: True, False, or None until a probe says."""
        with self._lock:
            status = self._status[knob]
        return True if status == APPLIED else None if status == VERIFY else False

    def why(self, knob: str) -> str:
        with self._lock:
            return self._why[knob]

    def learn(self, knob: str, works: bool, why: str) -> None:
        with self._lock:
            if self._status[knob] in (APPLIED, VERIFY):
                self._status[knob], self._why[knob] = (APPLIED if works else DROPPED), why

    def skip(self, step: str, why: str) -> None:
        with self._lock:
            self.skipped.setdefault(step, why)

    def cap(self, budget: int) -> int:
        return min(budget, self.own_cap) if self.own_cap else budget

    def form(self, response_format: str, temperature: float, budget: int, penalty: float | None = None,
             seed: int | None = None, language: str | None = None, model: str | None = None,
             trial: bool = False) -> dict[str, str]:
        """The multipart fields of one request, in this server's names; a knob it drops or
        lacks is not sent (one still to verify only in a probe's ``trial``), and each one
        sent is counted for the report."""
        profile, out, used = self.profile, {"response_format": response_format, **self.profile.extra}, []
        values = {"temperature": f"{temperature:g}", "token_cap": str(self.cap(budget)),
                  "repetition_penalty": None if penalty is None else f"{penalty:g}",
                  "seed": None if seed is None else str(seed), "language": language or profile.language_absent,
                  "model": model or profile.default_model or (self.models[0] if profile.model_required and self.models
                                                              else None)}
        with self._lock:
            for knob, value in values.items():
                fields = profile.knobs[knob].fields
                if value is not None and fields and (self._status[knob] in SENDS or
                                                     trial and self._status[knob] == VERIFY):
                    out.update(dict.fromkeys(fields, value))
                    used.append(knob)
            self.sent.update(used)
            self.sent["requests"] += 1
        return out

    def to_dict(self) -> dict:
        """The report's entry: what the server is, how it was found, which knobs were
        applied, sent but unused, assumed, or not sent (and why), and the steps skipped."""
        p = self.profile
        with self._lock:
            status, why, sent = dict(self._status), dict(self._why), Counter(self.sent)
            skipped = [{"step": s, "why": w} for s, w in sorted(self.skipped.items())]
        name = lambda k: ", ".join(p.knobs[k].fields)  # noqa: E731
        groups: dict[str, dict] = {"applied": {}, "sent_unused": {}, "assumed": {}, "available": {}, "not_sent": {}}
        for knob in KNOBS:
            if sent[knob] and status[knob] == APPLIED:
                groups["applied"][knob] = name(knob)
            elif sent[knob]:  # read but not used, sent unverified, or found to change nothing
                groups["assumed" if status[knob] == ASSUMED else "sent_unused"][knob] = f"{name(knob)}: {why[knob]}"
            elif status[knob] == APPLIED:
                groups["available"][knob] = f"{name(knob)}: {why[knob]}"
            else:
                groups["not_sent"][knob] = f"{status[knob]}: {why[knob]}"
        return {"server": self.url, "kind": p.kind, "name": p.name, "version": self.version,
                "found_by": self.found_by, "profile_from": p.recorded, "route": p.route,
                "requests": sent["requests"], **groups, "steps_skipped": skipped, "timestamps": p.timed,
                "loop_handling": p.loop_handling, **({"probe": self.probe} if self.probe else {}),
                **({"notes": list(self.notes)} if self.notes else {})}


def penalty_verdict(plain: str, again: str, penalised: str | None) -> tuple[bool, str]:
    """What a probe's three greedy answers to one clip say of ``repetition_penalty``:
    two without it (is the server deterministic?) and one with it."""
    if plain != again:
        return False, "probe: two greedy answers to one clip differed, so none can show the penalty's effect"
    if penalised is None or penalised == plain:
        return False, "probe: the answer with repetition_penalty was byte-identical to the one without"
    return True, "probe: the answer with repetition_penalty differed from two identical ones without"


def tables() -> str:
    """The generated part of docs/servers.md, from the profiles (a test holds the page to
    it): what each knob is on each server, the answers, and the evidence per knob."""
    def cell(knob: Knob) -> str:
        fields = " / ".join(f"`{f}`" for f in knob.fields)
        return f"{fields}: {knob.status}" if fields and knob.status != ABSENT else "no field"
    md = lambda text: text.replace("|", "/").replace("<", "&lt;")  # noqa: E731
    out = ["| server | `--server-kind` | temperature | repetition penalty | token cap | seed | language | model |",
           "|---|---|---|---|---|---|---|---|"]
    out += [f"| {p.name} | `{p.kind}` | " + " | ".join(cell(p.knobs[k]) for k in KNOBS if k != "prompt") + " |"
            for p in PROFILES.values()]
    out += ["", "| server | route | timestamps | errors | its own loop handling | profile from |",
            "|---|---|---|---|---|---|"]
    out += [f"| {p.name} | `{p.route}` | {md(p.timed)} | {md(p.errors)} | {md(p.loop_handling)} | {p.recorded} |"
            for p in PROFILES.values()]
    for p in PROFILES.values():
        out += ["", f"**{p.name}** (`{p.kind}`):"]
        out += [f"- {k.replace('_', ' ')} ({p.knobs[k].status}): {md(p.knobs[k].note)}"
                for k in KNOBS if p.knobs[k].note]
        out += [f"- from version {'.'.join(map(str, c.since))}, {c.knob.replace('_', ' ')}: {md(c.to.note)}"
                for c in p.changes]
    return "\n".join(out) + "\n"
