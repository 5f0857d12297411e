"""The test server's dialects reproduce the recordings of real servers' HTTP layers
(fixtures/servers, made by scripts/record_servers.py): every recorded request, replayed,
gets the recorded status, content type and body shape, the recorded error bodies, and the
same engine calls with the same knobs."""

import io
import json
import re
import wave

import httpx
import numpy as np
import pytest

from degen.testing import TestServer
from degen.testing.dialects import DIALECTS, FIXTURES, ROUTE, Call, load, recorded_calls

MARKUP = "[0.26][S01]Hello there, this is a test.[2.80][3.10][S02]And an answer.[4.20]"
RECORDED = [name for name, (_, stem) in DIALECTS.items() if "transcriptions" in load(stem)]


class FixedDecoder:
    """Answers the same markup to every clip; keeps what it was asked."""

    def __init__(self):
        self.asked = []

    def decode(self, samples, rate, temperature, max_new_tokens, repetition_penalty, language=None):
        self.asked.append((samples.size / rate, temperature, max_new_tokens, repetition_penalty, language))
        return MARKUP


def wav(seconds: float, rate: int = 16000) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((0.3 * np.sin(2 * np.pi * 220 * t) * 32767).astype("<i2").tobytes())
    return out.getvalue()


def upload(request: dict):
    file = request["file"]
    if file is None:
        return None
    data = {"empty": b"", "junk": b"this is not audio" * 8}.get(file["kind"])
    return {"file": ("clip.wav", wav(file["seconds"]) if data is None else data, "audio/wav")}


def shape(value):
    """A body's structure: keys and value kinds, the first item of a list of objects."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value and isinstance(value[0], dict) else "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return None if value is None else type(value).__name__


def text_kind(text: str) -> str:
    if text.startswith("data: "):
        return "sse"
    if text.startswith("WEBVTT"):
        return "vtt"
    return "srt" if re.match(r"1\n\d\d:\d\d:\d\d,\d\d\d --> ", text) else "plain"


def sse_events(text: str) -> list:
    return [shape(json.loads(line[6:])) if line[6:] != "[DONE]" else "[DONE]"
            for line in text.split("\n\n") if line.startswith("data: ")]


def masked(body):
    """An error body without what changes from run to run (vLLM prints the form's size)."""
    return json.loads(re.sub(r"<dict of \d+ items>", "<dict>", json.dumps(body)))


def cases():
    for name in RECORDED:
        recording = load(DIALECTS[name][1])
        for case in recording["transcriptions"]:
            yield pytest.param(name, recording, case, id=f"{name}:{case['name']}")


@pytest.fixture(scope="module")
def servers():
    started = {}

    def get(name):
        if name not in started:
            started[name] = TestServer(FixedDecoder(), dialect=name).start()
        return started[name]
    yield get
    for server in started.values():
        server.stop()


@pytest.mark.parametrize("name, recording, case", list(cases()))
def test_replay_matches_recording(servers, name, recording, case):
    server = servers(name)
    server.stats.calls.clear()
    reply = httpx.post(server.url + ROUTE, data=case["request"]["fields"], files=upload(case["request"]), timeout=30)
    assert reply.status_code == case["status"], reply.text[:300]
    want_type = case["headers"].get("content-type", "").split(";")[0]
    assert reply.headers["content-type"].split(";")[0] == want_type
    if "json" in case:
        body = reply.json()
        if case["status"] >= 400:
            assert masked(body) == masked(case["json"])  # the server's own words
        else:
            assert shape(body) == shape(case["json"])
    else:
        assert text_kind(reply.text) == text_kind(case["text"])
        if text_kind(case["text"]) == "sse":
            assert sse_events(reply.text) == sse_events(case["text"])
        elif case["status"] >= 400:
            assert reply.text == case["text"]
    by_call = lambda c: c.call  # noqa: E731 - the recordings list calls by name (chunks run concurrently)
    assert sorted(server.stats.calls, key=by_call) == recorded_calls(recording, case)  # what reached the model


@pytest.mark.parametrize("name", RECORDED)
def test_informational_routes_replay(servers, name):
    server, recording = servers(name), load(DIALECTS[name][1])
    for path, got in recording["gets"].items():
        reply = httpx.get(server.url + path, timeout=10)
        assert reply.status_code == got["status"], path
        assert ("json" in got) == ("json" in reply.headers.get("content-type", "")), path
        if "json" in got:
            assert reply.json() == got["json"], path
    assert httpx.get(server.url + "/v1/models").headers["server"] == "uvicorn"


def test_recordings_cover_the_matrix():
    """Each recording holds every request of the matrix, ran for real, with its versions."""
    names = None
    for name in RECORDED:
        recording = load(DIALECTS[name][1])
        assert recording["about"]["ran"].startswith("for real") and recording["about"]["packages"]
        got = [case["name"] for case in recording["transcriptions"]]
        assert len(got) == len(set(got)) >= 30
        names = names or got
        assert got == names


def test_what_reaches_each_engine(servers):
    """The per-server facts the profiles will rely on, as the recordings hold them."""
    def calls(name, case_name):
        recording = load(DIALECTS[name][1])
        case = next(c for c in recording["transcriptions"] if c["name"] == case_name)
        return [c for c in recorded_calls(recording, case) if c.call != "language detection"]

    assert calls("sglang-omni-0.1.9-whisper", "penalty_1.1")[0].repetition_penalty == 1.0  # dropped
    assert calls("sglang-omni-0.1.9-moss", "penalty_1.1")[0].repetition_penalty == 1.1
    assert calls("sglang-omni-0.1.9-whisper", "plain")[0].language == "english"  # forced when absent
    assert calls("sglang-omni-0.1.9-whisper", "max_new_tokens_5000")[0].max_tokens == 444
    assert calls("sglang-omni-0.1.9-moss", "plain")[0].max_tokens == 512  # sized from a 4 s clip
    assert calls("vllm-0.32", "max_new_tokens_32")[0].max_tokens == 448  # ignored
    assert calls("vllm-0.32", "max_completion_tokens_32")[0].max_tokens == 32
    assert calls("vllm-0.32", "seed_7")[0].seed == 7
    assert calls("vllm-0.32", "penalty_1.1")[0].repetition_penalty == 1.1
    assert calls("faster-whisper-server-0.0.3", "penalty_1.1")[0].repetition_penalty == 1.0
    assert calls("faster-whisper-server-0.0.3", "plain")[0].temperature == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert calls("faster-whisper-server-0.0.3", "plain")[0].temperature != calls(
        "faster-whisper-server-0.0.3", "degen_default")[0].temperature  # a sent temperature ends the fallback


def test_degen_client_against_dialects(servers):
    """degen's client against two dialects: it speaks each one's, so what it sends lands
    (vLLM's cap is max_completion_tokens; SGLang-Omni Whisper's timestamps come with srt)."""
    from degen.repair.client import HttpTranscriber, Request
    audio = wav(3.0)
    vllm = servers("vllm-0.32")
    vllm.stats.calls.clear()
    reply = HttpTranscriber(vllm.url, backoff=0.01).transcribe(Request(audio, 0.4, 64, repetition_penalty=1.1))
    assert reply.response_format == "verbose_json" and json.loads(reply.text)["segments"]
    clip = [c for c in vllm.stats.calls if c.call == "clip"][0]
    assert (clip.max_tokens, clip.repetition_penalty, clip.temperature) == (64, 1.1, 0.4)
    whisper = servers("sglang-omni-0.1.9-whisper")
    whisper.stats.calls.clear()
    HttpTranscriber(whisper.url, backoff=0.01).transcribe(Request(audio, 0.4, 64, repetition_penalty=1.1))
    assert whisper.stats.calls[-1] == Call("clip", 0.4, 1.0, None, 1.0, 64, None, "english", None, True)
    assert "repetition_penalty" not in whisper.stats.forms[-1]  # validated, then dropped: not sent


def test_whisper_cpp_from_source():
    recording = load("whisper-cpp-server-source")
    assert recording["about"]["ran"].startswith("read from source")
    with TestServer(FixedDecoder(), dialect="whisper-cpp") as server:
        assert httpx.post(server.url + ROUTE, files={"file": ("a.wav", wav(1.0))}).status_code == 404
        assert httpx.post(server.url + "/inference", data={}).json() == {"error": "no 'file' field in the request"}
        reply = httpx.post(server.url + "/inference", data={"response_format": "xml", "repetition_penalty": "1.2"},
                           files={"file": ("a.wav", wav(1.0))})
        assert reply.status_code == 200 and set(reply.json()) == {"text"}  # unknown format: json
        assert reply.headers["server"] == "whisper.cpp"
        call = server.stats.calls[-1]
        assert call.temperature == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) and call.language == "en"
        hot = httpx.post(server.url + "/inference", data={"temperature": "hot"}, files={"file": ("a.wav", wav(1.0))})
        assert hot.status_code == 500 and hot.headers["content-type"].startswith("text/plain")
        httpx.post(server.url + "/inference", data={"temperature": "0.4", "temperature_inc": "0"},
                   files={"file": ("a.wav", wav(1.0))})
        assert server.stats.calls[-1].temperature == 0.4


def test_unknown_dialect_is_refused():
    with pytest.raises(ValueError, match="choose one of"):
        TestServer(FixedDecoder(), dialect="nosuch")
    assert FIXTURES.is_dir()


@pytest.mark.parametrize("name, fields, language", [
    ("sglang-omni-0.1.9-whisper", {}, "en"),  # forced to English when absent
    ("sglang-omni-0.1.9-whisper", {"language": "de"}, "de"),
    ("sglang-omni-0.1.9-moss", {"language": "de"}, None),  # only echoed: the model never sees it
    ("vllm-0.32", {}, "en"),  # what the detection step answered
    ("vllm-0.32", {"language": "de"}, "de"),
    ("faster-whisper-server-0.0.3", {}, None),  # faster-whisper detects
])
def test_language_reaching_the_decoder(name, fields, language):
    decoder = FixedDecoder()
    with TestServer(decoder, dialect=name) as server:
        reply = httpx.post(server.url + ROUTE, data={"temperature": "0", **fields}, files={"file": ("a.wav", wav(2.0))})
    assert reply.status_code == 200
    assert decoder.asked[-1][-1] == language
