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


@pytest.fixture(autouse=True)
def _whole_lines(monkeypatch):
    """The terminal's width is the tests' own choice: the report of a command whose stdout
    is not a terminal has whole lines unless COLUMNS says otherwise, and a COLUMNS set
    where the tests run must not narrow them."""
    monkeypatch.delenv("COLUMNS", raising=False)


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


# Tests that take ten seconds or more on two shared cores (measured with --durations), marked
# slow here beside the ones marked in their files: `make test` runs every test, and
# `pytest -m "not slow"` is the quick check while working. Whole modules, then single tests.
SLOW_MODULES = {"test_real_model.py", "test_loop_corpus.py"}
SLOW_TESTS = {
    "test_hugging_face_datasets_map", "test_ray_data_scan",
    "test_every_fixture_segment_as_an_utterance_is_judged_as_alone",
    "test_ctrl_c_stops_within_two_seconds_and_the_same_command_resumes", "test_killed_run_resumes_without_resending",
    "test_unresolved_spans_keep_the_journal_and_the_next_run_sends_nothing_again",
    "test_documents_read_the_same_in_pieces", "test_browser_test_fails_in_ci_without_a_browser",
    "test_windows_of_independent_utterances_find_what_the_whole_streams_find",
    "test_windows_find_what_the_whole_streams_find", "test_ten_hours_stay_small",
    "test_neighbours_made_of_the_same_unit_never_change_a_verdict",
    "test_sampled_answers_are_reproducible_under_concurrency", "test_the_same_findings_kept_in_the_same_order",
    "test_columns_are_the_line_by_line_reader_s",
}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in SLOW_MODULES or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
