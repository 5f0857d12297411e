"""The test server speaking a real server's dialect, as recorded from that server's code.

``fixtures/servers/*.json`` hold what real transcription servers' HTTP layers did with a
matrix of requests (scripts/record_servers.py: each server's own app, its engine stubbed).
A ``Dialect`` answers the way one of them did: the fields it parses and how it validates
them, which knobs reach the engine (and which are dropped, clamped or defaulted), its
errors and their shapes, its model listing and informational routes, and its response
shape per format. The decoding itself comes from the test server's decoder.

    TestServer(decoder, dialect="vllm-0.32")       # or python -m degen.testing serve --dialect vllm-0.32

Each engine call a request makes is described by ``Call`` (the normalized knobs that reach
the model); ``recorded_calls`` turns a recording's engine log into the same form, so a test
can hold the dialect to the recording. The servers' families live in
``dialect_servers.py``; the form parsing and answers they share are here.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import orjson

from ..errors import AudioError
from ..repair.audio import decode

CHUNK_SECONDS = 30.0  # Whisper's window: SGLang-Omni (Whisper) and vLLM split longer audio
FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "servers"
ROUTE = "/v1/audio/transcriptions"


@dataclass(frozen=True)
class Call:
    """One engine call: the knobs the model decodes with (None: the model's own default)."""

    call: str = "clip"  # clip, chunk N, language detection
    temperature: float | tuple | None = 0.0  # a tuple is a fallback ladder
    top_p: float | None = None
    top_k: int | None = None  # None: no top-k cut (or greedy)
    repetition_penalty: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    language: str | None = None
    prompt: str | None = None
    timestamps: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class Reply(tuple):
    """(status, content type, body bytes), as the test server's handler sends it."""

    def __new__(cls, status: int, ctype: str, body: bytes):
        return super().__new__(cls, (status, ctype, body))


def json_reply(status: int, body) -> Reply:
    return Reply(status, "application/json", orjson.dumps(body))


def text_reply(status: int, text: str, ctype: str = "text/plain; charset=utf-8") -> Reply:
    return Reply(status, ctype, text.encode())


@dataclass
class Engine:
    """What a dialect decodes with: the test server's decoder, and a log of every call."""

    decode: object  # (samples, rate, Call) -> markup or None
    calls: list = field(default_factory=list)

    def __call__(self, samples, rate: int, call: Call) -> str:
        self.calls.append(call)
        return self.decode(samples, rate, call) or ""


def load(name: str) -> dict:
    """A recording by name (``vllm-0.32``, ``vllm-0.32.0-whisper``) or path."""
    path = Path(name)
    if not path.exists():
        matches = sorted(FIXTURES.glob(f"{name}*.json"))
        if not matches:
            known = ", ".join(sorted(DIALECTS))
            raise ValueError(f"no recording for dialect {name!r}: choose one of {known}")
        path = matches[0]
    return json.loads(path.read_text())


# name -> (class in dialect_servers, recording file stem)
DIALECTS = {
    "sglang-omni-0.1.9-moss": ("SGLangOmni", "sglang-omni-0.1.9-moss-transcribe-diarize"),
    "sglang-omni-0.1.9-whisper": ("SGLangOmni", "sglang-omni-0.1.9-whisper"),
    "vllm-0.32": ("VLLM", "vllm-0.32.0-whisper"),
    "faster-whisper-server-0.0.3": ("FasterWhisperServer", "faster-whisper-server-0.0.3"),
    "whisper-cpp": ("WhisperCpp", "whisper-cpp-server-source"),
}


class BaseDialect:
    """What every recorded server shares: informational routes replayed from the recording."""

    route = ROUTE

    def __init__(self, recording: dict):
        self.recording = recording
        self.about = recording["about"]
        self.model_id = self.about.get("served_model", "")

    def get(self, path: str) -> Reply:
        gets = self.recording.get("gets", {})
        got = gets.get(path.split("?")[0].rstrip("/") or "/") or gets.get("/nope")
        if got is None:
            return json_reply(404, {"detail": "Not Found"})
        ctype = got["headers"].get("content-type", "")
        if "json" in got:
            return Reply(got["status"], ctype or "application/json", orjson.dumps(got["json"]))
        return Reply(got["status"], ctype, got.get("text", "").encode())

    def transcribe(self, form: dict, audio: bytes | None, engine: Engine) -> Reply:
        raise NotImplementedError

    def model_language(self, call: Call) -> str | None:
        """The language code the model decodes in for ``call`` (None: it detects)."""
        return {"english": "en", "auto": None}.get(call.language, call.language)


def usage(seconds: float) -> dict | None:
    return {"type": "duration", "seconds": math.ceil(seconds)} if seconds > 0 else None


def segments_of(markup: str) -> list[tuple[float, float, str, str]]:
    """(start, end, speaker, text) of each closed segment of the decoder's markup; text
    without markup (one untimed segment) when it has none."""
    from ..formats import moss
    try:
        segs, _ = moss.parse_segments(markup)
    except Exception:
        segs = []
    out = [(s.span.start, s.span.end, s.speaker or "S01", s.text) for s in segs if s.closed and s.span]
    if not out and markup.strip() and "[" not in markup:
        out = [(0.0, 0.0, "S01", markup.strip())]
    return out


def plain_text(markup: str, joiner: str = " ") -> str:
    """A Whisper server's text: the segments' words, no timestamps or speakers."""
    return joiner.join(text.strip() for _, _, _, text in segments_of(markup)).strip()


# --- form parsing as FastAPI/pydantic does it ------------------------------------------------

def number(value: str):
    try:
        return float(value)
    except ValueError:
        return None


def integer(value: str):
    text = value.strip()
    return int(text) if text.lstrip("+-").isdigit() else None


def pydantic_errors(form: dict, has_file: bool, spec: tuple) -> list[dict]:
    """FastAPI's 422 detail for ``form``: ``spec`` lists (field, kind, bound) in the order
    of the endpoint's parameters; kind is file, float, int, gt, le, ge."""
    errors = []
    for name, kind, bound in spec:
        if kind == "file":
            if not has_file:
                errors.append({"type": "missing", "loc": ["body", name], "msg": "Field required", "input": None})
            continue
        raw = form.get(name)
        if raw is None:
            continue
        loc = ["body", name]
        parsed = integer(raw) if kind == "int" else number(raw)
        if parsed is None:
            what = ("integer", "an integer") if kind == "int" else ("number", "a number")
            errors.append({"type": f"{'int' if kind == 'int' else 'float'}_parsing", "loc": loc,
                           "msg": f"Input should be a valid {what[0]}, unable to parse string as {what[1]}",
                           "input": raw})
            continue
        for test, low in ((kind == "gt0le2", True), (kind == "ge1", False)):
            if not test:
                continue
            if low and parsed <= 0:
                errors.append({"type": "greater_than", "loc": loc, "msg": "Input should be greater than 0",
                               "input": raw, "ctx": {"gt": 0.0}})
            elif low and parsed > 2:
                errors.append({"type": "less_than_equal", "loc": loc, "msg": "Input should be less than or equal to 2",
                               "input": raw, "ctx": {"le": 2.0}})
            elif not low and parsed < 1:
                errors.append({"type": "greater_than_equal", "loc": loc,
                               "msg": "Input should be greater than or equal to 1", "input": raw, "ctx": {"ge": 1}})
    return errors


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "t", "yes", "y", "on")


def detail(status: int, detail) -> Reply:
    return json_reply(status, {"detail": detail})


def decoded_audio(audio: bytes):
    """(samples, rate) or None for audio the server cannot decode."""
    try:
        return decode(audio)
    except AudioError:
        return None


def chunks(samples, rate: int) -> list[tuple[float, object]]:
    """(start seconds, samples) pieces of at most CHUNK_SECONDS."""
    step = int(CHUNK_SECONDS * rate)
    return [(i / rate, samples[i:i + step]) for i in range(0, max(samples.size, 1), step)]


def stamp(seconds: float, comma: bool) -> str:
    ms = int(round(seconds * 1000))
    h, rest = divmod(ms, 3600000)
    m, rest = divmod(rest, 60000)
    s, ms = divmod(rest, 1000)
    if comma:
        return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"
    return (f"{h:02d}:" if h else "") + f"{m:02d}:{s:02d}.{ms:03d}"


def subtitles(fmt: str, segs: list[dict]) -> str:
    if fmt == "srt":
        return "".join(f"{i + 1}\n{stamp(s['start'], True)} --> {stamp(s['end'], True)}\n{s['text']}\n\n"
                       for i, s in enumerate(segs))
    return "WEBVTT\n\n" + "".join(f"{stamp(s['start'], False)} --> {stamp(s['end'], False)}\n{s['text']}\n\n"
                                  for s in segs)
