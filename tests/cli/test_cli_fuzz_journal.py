"""Resuming `degen fix` from a journal that a crash or a disk left damaged: no work lost
after a torn line, and a line that is JSON but not an attempt is skipped, not a crash."""

import orjson
import pytest

from degen.repair.journal import VERSION, Journal, JournalEntry


def entry(span, attempt):
    return JournalEntry(span, attempt, (0.0, 1.0), {"temperature": 0.1}, "http://server", body="{}")


def test_an_attempt_written_after_a_torn_line_survives_the_next_resume(tmp_path):
    path = tmp_path / "j.jsonl"
    whole = orjson.dumps(entry("1.000-2.000", 1).to_json())
    # kill -9 in the middle of a write: the file ends without its newline
    path.write_bytes(orjson.dumps({"journal": VERSION, "identity": "id"}) + b"\n" + whole[:25])
    resumed = Journal(path, "id")
    resumed.record(entry("3.000-4.000", 1))
    again = Journal(path, "id")
    assert again.attempts("3.000-4.000"), "the first attempt after a torn line was glued to it and lost"


@pytest.mark.parametrize("line", [b"[1, 2]", b"null", b'"text"', b"5", b'{"kind": "attempt"}'])
def test_a_line_that_is_not_an_attempt_is_skipped(tmp_path, line):
    path = tmp_path / "j.jsonl"
    good = orjson.dumps(entry("1.000-2.000", 1).to_json())
    path.write_bytes(orjson.dumps({"journal": VERSION, "identity": "id"}) + b"\n" + line + b"\n" + good + b"\n")
    journal = Journal(path, "id")
    assert [e.attempt for e in journal.attempts("1.000-2.000")] == [1]


@pytest.mark.parametrize("header", [b"[1]", b"null", b"5"])
def test_a_header_that_is_not_an_object_sets_the_journal_aside(tmp_path, header):
    path = tmp_path / "j.jsonl"
    path.write_bytes(header + b"\n")
    journal = Journal(path, "id")
    assert journal.done == {} and path.with_name("j.jsonl.stale").exists()
