"""Server URLs as people write them: OpenAI-style /v1 bases, no scheme, credentials
inside the URL (used, never shown), a 401 with the server's own words, requests counted."""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from degen.cli import main
from degen.errors import ConfigError, ServerRejected
from degen.model import Span
from degen.repair.audio import Audio
from degen.repair.client import HttpTranscriber, Request, ServerURL, redact
from degen.testing import Faults

from ..conftest import FIXTURES

SECRET = "s3cr3t-pass"


class AuthHandler(BaseHTTPRequestHandler):
    """Answers only requests with basic auth user:s3cr3t-pass; records every path."""

    seen: list = []

    def log_message(self, *args):
        pass

    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self):
        wanted = "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()
        return self.headers.get("Authorization") == wanted

    def do_GET(self):
        self.seen.append(("GET", self.path))
        if not self._authorised():
            return self._reply(401, {"detail": "token expired for project alpha"})
        self._reply(200, {"data": [{"id": "m"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append(("POST", self.path))
        if not self._authorised():
            return self._reply(401, {"detail": "token expired for project alpha"})
        self._reply(200, {"text": "hello", "segments": []})


@pytest.fixture
def auth_server():
    AuthHandler.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), AuthHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def request_(seed_audio):
    return Request(Audio.open(seed_audio).clip(Span(10.0, 14.0)), temperature=0.1, max_new_tokens=64)


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/", "/v1/audio/transcriptions"])
def test_openai_style_base_urls_reach_the_route(make_server, request_, suffix):
    server = make_server()
    transcriber = HttpTranscriber(server.url + suffix, backoff=0.01)
    assert transcriber.base_url == server.url.rstrip("/")
    assert transcriber.transcribe(request_).text.startswith("{")


@pytest.mark.parametrize("url", ["gpu-box:8000", "127.0.0.1:8000", "ftp://host/x", "http://"])
def test_a_url_without_scheme_is_a_config_error(url):
    with pytest.raises(ConfigError, match="http://"):
        HttpTranscriber(url)


def test_no_scheme_on_the_command_line_exits_2_with_a_hint(seed_audio):
    result = CliRunner().invoke(main, ["fix", str(FIXTURES / "seed" / "degenerate.json"), "--audio",
                                       str(seed_audio), "--server", "gpu-box:8000"])
    assert result.exit_code == 2 and "http://gpu-box:8000" in result.output


def test_credentials_are_used_but_never_shown(auth_server, request_):
    url = f"http://user:{SECRET}@127.0.0.1:{auth_server}/v1"
    transcriber = HttpTranscriber(url, backoff=0.01)
    assert SECRET not in transcriber.base_url and SECRET not in repr(transcriber)
    assert transcriber.check() == ["m"]
    assert transcriber.transcribe(request_).text
    assert ("POST", "/v1/audio/transcriptions") in AuthHandler.seen
    assert redact(url) == f"http://***@127.0.0.1:{auth_server}/v1"
    with pytest.raises(ConfigError) as err:
        ServerURL.parse(f"user:{SECRET}@gpu-box:8000")
    assert SECRET not in str(err.value)


def test_401_shows_the_servers_message(auth_server, request_):
    transcriber = HttpTranscriber(f"http://127.0.0.1:{auth_server}", backoff=0.01)
    with pytest.raises(ServerRejected, match="token expired for project alpha") as err:
        transcriber.transcribe(request_)
    assert err.value.status == 401 and "--api-key" not in str(err.value)  # library terms only
    with pytest.raises(ServerRejected, match="token expired"):
        transcriber.check()  # found before any span is sent


def test_401_on_the_command_line_names_the_flag(auth_server, seed_audio, tmp_path):
    result = CliRunner().invoke(main, ["fix", str(FIXTURES / "seed" / "degenerate.json"), "--audio",
                                       str(seed_audio), "--out", str(tmp_path / "o.json"),
                                       "--server", f"http://127.0.0.1:{auth_server}"])
    assert result.exit_code == 2
    assert "token expired for project alpha" in result.output and "--api-key" in result.output


def test_requests_sent_counts_retries(make_server, request_):
    assert HttpTranscriber(make_server().url).transcribe(request_).requests_sent == 1
    server = make_server(faults=Faults(unavailable=2))
    assert HttpTranscriber(server.url, backoff=0.01).transcribe(request_).requests_sent == 3
    server = make_server(formats=("json", "text"))  # verbose_json refused, then json
    assert HttpTranscriber(server.url, backoff=0.01).transcribe(request_).requests_sent == 2


def test_credentials_never_reach_output_or_files(make_server, seed_audio, tmp_path):
    server = make_server()
    url = server.url.replace("http://", f"http://user:{SECRET}@") + "/v1"
    out = tmp_path / "fixed.json"
    html = tmp_path / "fix.html"
    result = CliRunner().invoke(main, ["fix", str(FIXTURES / "seed" / "degenerate.json"), "--audio",
                                       str(seed_audio), "--server", url, "--out", str(out), "--html", str(html)])
    assert result.exit_code in (0, 1), result.output
    assert SECRET not in result.output
    written = [out, html, tmp_path / "fixed.json.degen.json", tmp_path / "fixed.json.degen-journal.jsonl"]
    for path in written:
        if path.exists():
            assert SECRET not in path.read_text(encoding="utf-8"), path
    report = json.loads((tmp_path / "fixed.json.degen.json").read_text(encoding="utf-8"))
    assert "127.0.0.1" in json.dumps(report)  # the server is named, without its password


def test_a_wrong_path_says_which_url_to_give(make_server, request_):
    server = make_server()
    with pytest.raises(ServerRejected, match="root URL") as err:
        HttpTranscriber(server.url + "/asr", backoff=0.01).transcribe(request_)
    assert err.value.status == 404 and "/asr/v1/audio/transcriptions" in str(err.value)
