"""degen filter on awkward inputs and paths: no input ever damaged, every non-blank line
in exactly one output, in input order, after interruptions too."""

import os
import signal
import subprocess
import sys
import time

import orjson
import pytest

from degen.errors import ConfigError
from degen.archive.filter import filter_manifest, progress_path

LINES = [b'{"text": "hello there", "duration": 2}\n', b'{"text": "' + b"okay " * 30 + b'", "duration": 3}\n',
         b"not json\n", b'{"duration": 1}\n', b"\n", b'{"text": "crlf line"}\r\n']


def partition_holds(manifest, keep, quarantine):
    """Every non-blank input line, in order, is either kept byte for byte or quarantined
    as its object (or raw text) with a degen field."""
    kept = keep.read_bytes().splitlines(keepends=True)
    quarantined = [orjson.loads(line) for line in quarantine.read_bytes().splitlines()]
    k = q = 0
    for raw in manifest.read_bytes().splitlines(keepends=True):
        if not raw.strip():
            continue
        if k < len(kept) and kept[k] == (raw if raw.endswith(b"\n") else raw + b"\n"):
            k += 1
            continue
        row = quarantined[q]
        degen = row.pop("degen")
        assert degen.get("raw", "").encode() == raw.rstrip(b"\r\n") or row == orjson.loads(raw)
        q += 1
    assert (k, q) == (len(kept), len(quarantined))


@pytest.mark.parametrize("names", [
    ("m.jsonl.partial", "m.jsonl", "q.jsonl"),           # the input is the keep output's partial file
    ("m.jsonl.partial", "k.jsonl", "m.jsonl"),           # ... or the quarantine's
    ("m.jsonl", "q.jsonl.partial", "q.jsonl"),           # one output is the other's partial file
    ("m.jsonl", "k.jsonl", "k.jsonl.partial"),
    ("k.jsonl.degen-progress.json", "k.jsonl", "q.jsonl"),  # the input is the progress file
    ("m.jsonl", "k.jsonl", "k.jsonl.degen-progress.json"),
])
def test_paths_that_collide_with_the_partial_or_progress_files_are_refused(tmp_path, names):
    manifest, keep, quarantine = (tmp_path / n for n in names)
    manifest.write_bytes(b"".join(LINES))
    with pytest.raises(ConfigError, match="different"):
        filter_manifest(manifest, keep, quarantine)
    assert manifest.read_bytes() == b"".join(LINES)  # the input untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == [manifest.name]  # nothing written


def test_the_usual_paths_still_work(tmp_path):
    manifest = tmp_path / "m.jsonl"
    manifest.write_bytes(b"".join(LINES))
    counts = filter_manifest(manifest, tmp_path / "k.jsonl", tmp_path / "q.jsonl")
    assert (counts.kept, counts.quarantined, counts.blank) == (2, 3, 1)
    partition_holds(manifest, tmp_path / "k.jsonl", tmp_path / "q.jsonl")


def test_a_byte_order_mark_before_the_first_line_is_no_reason_to_quarantine_it(tmp_path):
    # Windows tools write one; `degen scan` reads such a manifest, so must `degen filter`.
    manifest, keep, quarantine = tmp_path / "m.jsonl", tmp_path / "k.jsonl", tmp_path / "q.jsonl"
    manifest.write_bytes(b"\xef\xbb\xbf" + b'{"text": "hello there", "duration": 2}\n' +
                         b"\xef\xbb\xbf" + b'{"text": "a second mark is no mark"}\n' +
                         b'{"text": "' + b"okay " * 30 + b'", "duration": 3}\n')
    counts = filter_manifest(manifest, keep, quarantine)
    assert (counts.kept, counts.quarantined, counts.unreadable) == (1, 2, 1)
    assert keep.read_bytes() == manifest.read_bytes().splitlines(keepends=True)[0]  # byte for byte
    partition_holds(manifest, keep, quarantine)


def test_a_quarantined_line_keeps_integers_beyond_64_bits_exactly(tmp_path):
    # orjson reads them as floats: an id of 30 digits came back as 1.2345678901234568e+29.
    import json
    manifest, keep, quarantine = tmp_path / "m.jsonl", tmp_path / "k.jsonl", tmp_path / "q.jsonl"
    loop = "okay " * 30
    rows = [{"id": 123456789012345678901234567890, "text": loop, "duration": 3},
            {"id": -9223372036854775809, "offset": 18446744073709551615, "text": loop},
            {"id": 123456789012345678901234567890},  # no text: unreadable, its object still kept
            {"id": 1234567890123456789012, "text": "hello there", "duration": 2}]
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    filter_manifest(manifest, keep, quarantine)
    out = [json.loads(line) for line in quarantine.read_text(encoding="utf-8").splitlines()]
    assert [{k: v for k, v in r.items() if k != "degen"} for r in out] == rows[:3]
    assert [r["degen"]["degenerate"] for r in out] == [True, True, None]
    assert keep.read_text(encoding="utf-8") == json.dumps(rows[3]) + "\n"
