"""degen.fix in a pipeline: a server that is not there is an error (as `degen fix` exits 3),
not a result with every span unresolved; a clean transcript contacts no server."""

import pytest

import degen
from degen.errors import ServerUnreachable

from .conftest import FIXTURES

DOWN = "http://127.0.0.1:9"  # the discard port: nothing listens there


def test_a_server_that_is_down_raises(seed_audio):
    with pytest.raises(ServerUnreachable, match="cannot reach"):
        degen.fix(FIXTURES / "seed" / "degenerate.json", audio=seed_audio, transcriber=DOWN)


def test_a_clean_transcript_sends_nothing(seed_audio):
    result = degen.fix(FIXTURES / "seed" / "clean.json", audio=seed_audio, transcriber=DOWN)
    assert result.outcomes == () and result.edits == () and len(result.transcript) == 623


def test_the_library_reads_the_api_key_from_the_environment_as_the_command_does(monkeypatch):
    monkeypatch.setenv("DEGEN_API_KEY", "k-123")
    (from_env,) = degen.transcribers_for(["http://127.0.0.1:9"])
    assert from_env.client.headers["Authorization"] == "Bearer k-123"
    (given,) = degen.transcribers_for(["http://127.0.0.1:9"], api_key="k-456", model="m", timeout=5)
    assert given.client.headers["Authorization"] == "Bearer k-456" and given.model == "m"
    monkeypatch.delenv("DEGEN_API_KEY")
    (none,) = degen.transcribers_for(["http://127.0.0.1:9"])
    assert "Authorization" not in none.client.headers


def test_one_server_down_of_two_sends_every_span_to_the_live_one(make_server, seed_audio):
    live = make_server()
    with pytest.warns(RuntimeWarning, match=r"cannot reach http://127\.0\.0\.1:9.*the 1 other server"):
        result = degen.fix(FIXTURES / "seed" / "degenerate.json", audio=seed_audio, transcriber=[DOWN, live.url])
    assert not result.after.degenerate and live.stats.transcriptions > 0


def test_every_server_down_still_raises(seed_audio):
    with pytest.raises(ServerUnreachable, match="cannot reach"):
        degen.fix(FIXTURES / "seed" / "degenerate.json", audio=seed_audio, transcriber=[DOWN, "http://127.0.0.1:7"])
