"""The HTTP client against the real test server on loopback: fields, retries, errors."""

import socket

import pytest

from degen.errors import ServerError, ServerRejected, ServerTimeout, ServerUnreachable
from degen.model import Span
from degen.repair.audio import Audio
from degen.repair.client import HttpTranscriber, Request
from degen.testing import Faults


@pytest.fixture
def request_(seed_audio):
    return Request(Audio.open(seed_audio).clip(Span(10.0, 14.0)), temperature=0.1, max_new_tokens=64)


def client(server, **kw):
    return HttpTranscriber(server.url, backoff=0.01, **kw)


def test_form_fields_follow_the_contract(make_server, request_):
    server = make_server()
    reply = client(server).transcribe(request_)
    assert reply.response_format == "verbose_json" and reply.text.startswith("{")
    form = server.stats.forms[-1]
    assert form == {"response_format": "verbose_json", "temperature": "0.1", "max_new_tokens": "64"}
    client(server, model="moss-transcribe-diarize").transcribe(
        Request(request_.audio, 0.2, 64, repetition_penalty=1.1))
    form = server.stats.forms[-1]
    assert form["model"] == "moss-transcribe-diarize" and form["repetition_penalty"] == "1.1"
    assert "prompt" not in form


def test_falls_back_to_json_when_verbose_json_is_rejected(make_server, request_):
    server = make_server(formats=("json", "text"))
    transcriber = client(server)
    reply = transcriber.transcribe(request_)
    assert reply.response_format == "json" and transcriber.response_format == "json"


@pytest.mark.parametrize("faults", [Faults(unavailable=2), Faults(drop=2), Faults(unavailable=1, drop=1)])
def test_retries_transient_failures(make_server, request_, faults):
    server = make_server(faults=faults)
    assert client(server).transcribe(request_).text
    assert server.stats.transcriptions >= 1


def test_gives_up_after_retries(make_server, request_):
    server = make_server(faults=Faults(unavailable=10))
    with pytest.raises(ServerError, match="503"):
        client(server, retries=2).transcribe(request_)


def test_timeout(make_server, request_):
    server = make_server(faults=Faults(slow_seconds=1.0))
    with pytest.raises(ServerTimeout):
        client(server, timeout=0.2, retries=0).transcribe(request_)


def test_wrong_model_names_the_served_ones(make_server, request_):
    server = make_server()
    with pytest.raises(ServerRejected, match="moss-transcribe-diarize") as err:
        client(server, model="whisper-1").transcribe(request_)
    assert err.value.status == 404 and server.stats.transcriptions == 1  # no retry


def test_422_shows_the_detail(make_server, request_):
    server = make_server()
    with pytest.raises(ServerRejected, match="repetition_penalty"):
        client(server).transcribe(Request(request_.audio, 0.1, 64, repetition_penalty=5.0))


def test_unreachable_server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServerUnreachable):
        HttpTranscriber(f"http://127.0.0.1:{port}").check()


def test_api_key_is_never_in_repr():
    assert "sekrit" not in repr(HttpTranscriber("http://127.0.0.1:1", api_key="sekrit"))
