import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _click_streams_apart() -> None:
    """The tests read a command's stdout and stderr apart and its output as both, as click
    8.2's CliRunner gives them. Click 8.1 (which degen supports) mixes stderr into stdout
    unless told not to and then leaves it out of ``output``: ask it to keep them apart and
    count both as the output."""
    import inspect

    import click.testing
    if "mix_stderr" not in inspect.signature(click.testing.CliRunner.__init__).parameters:
        return  # click 8.2 or newer: already so
    init = click.testing.CliRunner.__init__

    def apart(self, *args, mix_stderr=False, **kwargs):
        init(self, *args, mix_stderr=mix_stderr, **kwargs)
    click.testing.CliRunner.__init__ = apart
    click.testing.Result.output = property(lambda r: r.stdout + (r.stderr if r.stderr_bytes is not None else ""))


_click_streams_apart()

# CI runs every property test on the same examples (a failure there is the change's, not
# a new draw's); a developer's run explores fresh ones and keeps failures in .hypothesis/.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def seed_audio(tmp_path_factory):
    """The seed-like session's audio (deterministic noise), written once per test run."""
    import orjson

    from degen.testing import write_session_audio
    truth = orjson.loads((FIXTURES / "seed" / "truth.json").read_bytes())
    return write_session_audio(tmp_path_factory.mktemp("audio") / "seed.wav", truth["duration"])


@pytest.fixture(scope="session")
def seed_samples(seed_audio):
    import soundfile as sf
    samples, rate = sf.read(str(seed_audio), dtype="int16")
    return samples, rate


@pytest.fixture
def make_server(seed_samples):
    """Start a test server on the seed session; stopped after the test."""
    from degen.testing import Faults, Session, TestServer
    servers = []

    def start(**kw):
        faults = kw.pop("faults", None) or Faults()
        loop_probability = kw.pop("loop_probability", 0.0)
        session = Session.load(FIXTURES / "seed" / "truth.json", *seed_samples, loop_probability=loop_probability)
        server = TestServer(session, faults=faults, **kw).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
