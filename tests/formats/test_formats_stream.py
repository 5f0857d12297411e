"""A large verbose_json file is read piece by piece (formats.jsonstream): the transcript,
or the error, must be exactly what reading the whole document gives."""

from pathlib import Path

import orjson
import pytest

from degen import io
from degen.errors import FormatError
from degen.formats import dumps, jsonstream

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
JSON_FIXTURES = sorted(p for p in FIXTURES.rglob("*.json"))


def _read(path, streamed: bool, block: int = 7):
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(io, "STREAMED_JSON_BYTES", 0 if streamed else 1 << 62)
        mp.setattr(jsonstream, "SCAN_BLOCK", block)  # tiny blocks: strings and escapes cross them
        return io.read_transcript(path)
    except FormatError as exc:
        return f"error: {exc}"
    finally:
        mp.undo()


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert (a.format, a.meta, len(a)) == (b.format, b.meta, len(b))
    assert list(a) == list(b) and [s.extra for s in a] == [s.extra for s in b]
    assert dumps(a) == dumps(b)


@pytest.mark.parametrize("path", JSON_FIXTURES, ids=lambda p: p.name)
def test_fixture_reads_the_same_in_pieces(path):
    _same(_read(path, False), _read(path, True))


def test_verbose_fixtures_are_read_in_pieces():
    read = [p for p in JSON_FIXTURES if jsonstream.read_file(p, p.stat().st_size) is not None]
    assert len(read) >= 3, read


def _verbose(n: int, text=lambda i: f"word {i}") -> dict:
    items = [{"id": i, "start": float(i), "end": i + 0.5, "text": f"[S0{1 + i % 2}]{text(i)}",
              "tokens": [1, 2, {"x": [i]}]} for i in range(n)]
    markup = "".join(f"[{i}.0]{it['text']}[{i}.5]" for i, it in enumerate(items))
    return {"task": "transcribe", "usage": {"a": [1, {"b": "}]"}]}, "text": markup, "segments": items,
            "duration": float(n)}


ESCAPES = ['one " quote, then: [x] {', 'say "hi"', "back\\slash", "end\\\\", "\\\"q\\\"", "tab\there", "brace } ] , : {", "中文\n行", "\\" * 7]


@pytest.mark.parametrize("doc", [
    _verbose(600),
    _verbose(300, lambda i: ESCAPES[i % len(ESCAPES)]),
    {**_verbose(3), "segments": []},
    dict(reversed(list(_verbose(5).items()))),  # segments before text
])
@pytest.mark.parametrize("block", [1, 3, 7, 64, 1 << 20])
def test_documents_read_the_same_in_pieces(tmp_path, doc, block):
    path = tmp_path / "doc.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 if block == 3 else 0))
    streamed = _read(path, True, block)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonstream, "SCAN_BLOCK", block)
        assert jsonstream.read_file(path, path.stat().st_size) is not None  # read in pieces indeed
    _same(_read(path, False), streamed)


@pytest.mark.parametrize("raw", [
    b'{"text": "[0.0][S01]a[1.0]", "segments": [{"text": "[S01]a", "start": 0, "end": 1},]}',  # trailing comma
    b'{"text": "[0.0][S01]a[1.0]", "segments": [], "text": "[0.0][S01]b[1.0]"}',  # duplicate key
    b'{"text": "[0.0][S01]a[1.0]", "segments": []} {}',  # a second document
    b'{"text": "[0.0][S01]a[1.0]", "segments": [] ',  # cut short
    b'{"text": "[0.0][S01]a[1.0]", "segments": {"a": 1}}',  # not a list
    b'{"text": "[0.0][S01]a[99e999]", "segments": []}',  # a stamp out of range
    b'{"text": "plain words", "segments": []}',  # another shape
    b'{"text": "[0.0][S01]a[1.0]", "segments": [[[[' + b"[" * 300 + b"]" * 304 + b"]}",  # too deep to write
    b'{"text": "[0.0][S01]a\\"[1.0]", "segments": [], "x": "\\\\"}',
    b'{"text": "[0.0][S01]a\xff[1.0]", "segments": []}',  # not UTF-8
])
def test_odd_documents_read_or_fail_the_same(tmp_path, raw):
    path = tmp_path / "odd.json"
    path.write_bytes(raw)
    for block in (1, 5, 1 << 20):
        _same(_read(path, False), _read(path, True, block))


def test_small_files_are_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "doc.json"
    path.write_bytes(orjson.dumps(_verbose(10)))
    monkeypatch.setattr(jsonstream, "read_file", lambda *a: pytest.fail("read in pieces"))
    assert len(io.read_transcript(path)) == 10
