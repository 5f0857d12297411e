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
