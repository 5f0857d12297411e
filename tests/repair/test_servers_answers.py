"""What degen reads of a real server's answer: no more than the clip could hold, times
inside the clip, each server's error shape, text answered as JSON, timestamps from
SGLang-Omni Whisper beyond 30 s; and the profiles for servers no recording holds."""

import io
import threading
import time
import tracemalloc
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import orjson
import pytest

import degen
from degen.errors import ServerError, ServerRejected
from degen.repair.client import HttpTranscriber, Request
from degen.repair.identify import Seen, identify
from degen.testing import TestServer

from ..conftest import FIXTURES

FLOOD_BYTES = 20 * 1024 * 1024


def wav(seconds: float, rate: int = 16000) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    loud = (np.sin(2 * np.pi * 0.5 * t) > -0.9)  # a quiet moment every two seconds
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((0.3 * loud * np.sin(2 * np.pi * 220 * t) * 32767).astype("<i2").tobytes())
    return out.getvalue()


class Fixed:
    """Answers ``markup`` to every clip; keeps the length of each clip it was asked."""

    def __init__(self, markup):
        self.markup, self.seconds = markup, []

    def decode(self, samples, rate, temperature, cap, penalty=None, language=None):
        self.seconds.append(samples.size / rate)
        return self.markup


class Flood(BaseHTTPRequestHandler):
    """A server that caps nothing, answering every clip with 20 MB of one loop."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = b'{"detail": "Not Found"}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")  # no length: read until the server closes
        self.end_headers()
        chunk = "哈".encode() * 21846
        try:
            self.wfile.write(b'{"text": "[0.00][S01]')
            for _ in range(FLOOD_BYTES // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.write(b'"}')
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def flood():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Flood)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_answer_longer_than_the_clip_can_hold_is_not_read(flood, seed_audio):
    transcriber = HttpTranscriber(flood)
    transcriber.check()
    request = Request(wav(10.0), 0.1, 120)
    tracemalloc.start()
    started = time.monotonic()
    response = transcriber.transcribe(request)
    elapsed, (_, peak) = time.monotonic() - started, tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert response.text == "" and "not read further" in response.unusable
    assert elapsed < 5 and peak < 4 * 1024 * 1024, (elapsed, peak)  # 20 MB answered; a fraction read
    started = time.monotonic()
    result = degen.fix(FIXTURES / "seed" / "degenerate.json", audio=seed_audio, transcriber=flood)
    assert not result.edits and len(result.unresolved) == len(result.plan.spans)
    assert all("unusable answer" in a.verdict.reason for o in result.outcomes for a in o.attempts if a.verdict)
    assert time.monotonic() - started < 60


def test_times_past_the_clip_are_clamped():
    with TestServer(Fixed("[0.00][S01]Hello there.[9.50]"), dialect="vllm-0.32") as server:
        reply = HttpTranscriber(server.url).transcribe(Request(wav(4.0), 0.1, 64, language="en"))
    (segment,) = orjson.loads(reply.text)["segments"]
    assert segment["end"] == 4.0 and degen.formats.loads(reply.text).end == 4.0


def test_text_answered_as_json_is_read_as_json():
    with TestServer(Fixed("[0.00][S01]Hello there.[2.00]"), dialect="vllm-0.32") as server:
        transcriber = HttpTranscriber(server.url)
        transcriber.check()
        transcriber._formats = ("text",)  # as if the profile asked for text
        reply = transcriber.transcribe(Request(wav(4.0), 0.1, 64, language="en"))
    assert reply.response_format == "json" and orjson.loads(reply.text)["text"].strip() == "Hello there."


@pytest.mark.parametrize("dialect, request_, message", [
    ("vllm-0.32", Request(wav(2.0), 2.5, 64), "temperature must be in [0, 2]"),  # {"error": {"message"}}
    ("vllm-0.32", Request(wav(2.0), 0.1, 64, language="xx"), "Unsupported language"),
    ("sglang-omni-0.1.9-whisper", Request(b"", 0.1, 64), "Uploaded audio file is empty"),  # {"detail": "..."}
    ("whisper-cpp", Request(b"", 0.1, 64), "failed to read audio data"),  # {"error": "..."}
])
def test_each_servers_error_shape_shows_its_message(dialect, request_, message):
    with TestServer(Fixed(""), dialect=dialect) as server:
        with pytest.raises(ServerRejected, match=message.replace("[", r"\[").replace("]", r"\]")) as err:
            HttpTranscriber(server.url, backoff=0.01).transcribe(request_)
    assert err.value.status == 400


def test_a_nested_error_detail_is_unwrapped():
    with TestServer(Fixed(""), dialect="faster-whisper-server-0.0.3") as server:
        transcriber = HttpTranscriber(server.url, backoff=0.01, retries=0)
        transcriber.check()
        transcriber._formats = ("srt",)  # {"detail": {"error": {"message": ...}}}
        with pytest.raises(ServerRejected, match="Unsupported response_format: srt"):
            transcriber.transcribe(Request(wav(2.0), 0.1, 64))
        with pytest.raises(ServerError, match="Internal Server Error"):  # an unreadable upload: 500, text
            HttpTranscriber(server.url, backoff=0.01, retries=0).transcribe(Request(b"junk", 0.1, 64))


def test_sglang_whisper_clips_past_30_s_are_sent_in_timed_pieces():
    decoder = Fixed("[0.50][S01]Hello there.[2.00]")
    with TestServer(decoder, dialect="sglang-omni-0.1.9-whisper") as server:
        reply = HttpTranscriber(server.url).transcribe(Request(wav(45.0), 0.1, 540, language="en"))
        forms = server.stats.forms
    assert reply.response_format == "srt" and len(forms) == reply.requests_sent == 2
    assert all(form["response_format"] == "srt" for form in forms)
    assert all(s <= 30.0 for s in decoder.seconds) and abs(sum(decoder.seconds) - 45.0) < 0.01
    starts = [s.span.start for s in degen.formats.loads(reply.text)]
    assert len(starts) == 2 and starts[0] == 0.5 and 15.0 < starts[1] < 30.5  # the second piece's offset added
    assert sum(int(f["max_new_tokens"]) for f in forms) >= 540


# --- servers no recording holds: identified from what they say --------------------------------

def answers(**by_path):
    def get(path):
        status, headers, body = by_path.get(path, (404, {}, {"detail": "Not Found"}))
        return Seen(status, headers, body, "")
    return get


def test_openai_speaches_and_an_unknown_openapi_form_are_profiled():
    openai = identify("https://api.openai.com", answers())
    assert openai.kind == "openai" and openai.form("verbose_json", 0.1, 64)["model"] == "whisper-1"
    assert "max_new_tokens" not in openai.form("verbose_json", 0.1, 64)
    speaches = identify("http://box:8000", answers(**{"/openapi.json": (200, {}, {"info": {"title": "Speaches",
                                                                                           "version": "0.8.3"}})}))
    assert (speaches.kind, speaches.version) == ("speaches", "0.8.3")
    form = {"file": {}, "model": {}, "temperature": {}, "max_tokens": {}}
    doc = {"info": {"title": "my-asr"}, "paths": {"/v1/audio/transcriptions": {"post": {"requestBody": {
        "content": {"multipart/form-data": {"schema": {"$ref": "#/components/schemas/Body"}}}}}}},
        "components": {"schemas": {"Body": {"properties": form}}}}
    unknown = identify("http://box:8000", answers(**{"/openapi.json": (200, {}, doc)}))
    assert unknown.kind == "unknown" and unknown.relies("repetition_penalty") is False  # not in its form
    assert set(unknown.form("json", 0.1, 64, penalty=1.1)) == {"response_format", "temperature"}


def test_versions_that_changed_are_probed_and_checkpoints_that_cannot_work_are_named():
    listing = {"data": [{"id": "openai/whisper-base", "owned_by": "sglang-omni"}]}
    newer = answers(**{"/v1/models": (200, {}, listing),
                       "/openapi.json": (200, {}, {"info": {"title": "sglang-omni", "version": "0.2.0"}})})
    assert identify("http://box:8000", newer).relies("repetition_penalty") is None  # 0.1.9 dropped it
    recorded = answers(**{"/v1/models": (200, {}, listing),
                          "/openapi.json": (200, {}, {"info": {"title": "sglang-omni", "version": "0.1.9"}})})
    assert identify("http://box:8000", recorded).relies("repetition_penalty") is False
    english = answers(**{"/v1/models": (200, {}, {"data": [{"id": "openai/whisper-tiny.en", "owned_by": "vllm",
                                                            "max_model_len": 448}]})})
    vllm = identify("http://box:8000", english)
    assert vllm.kind == "vllm" and vllm.own_cap == 448 and "English-only" in vllm.to_dict()["notes"][0]
    assert vllm.form("json", 0.1, 5000)["max_completion_tokens"] == "448"


def test_a_server_that_needs_a_model_gets_the_first_it_lists():
    listing = {"data": [{"id": "Systran/faster-whisper-small"}]}
    speaches = identify("http://box:8000", answers(**{"/v1/models": (200, {}, listing),
                                                      "/openapi.json": (200, {}, {"info": {"title": "Speaches"}})}))
    assert speaches.form("json", 0.1, 64)["model"] == "Systran/faster-whisper-small"
    assert speaches.form("json", 0.1, 64, model="other")["model"] == "other"
