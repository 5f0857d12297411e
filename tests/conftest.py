from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


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
