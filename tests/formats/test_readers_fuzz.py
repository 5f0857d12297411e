"""Each fast reader (pieces of a large file, columns, chunks, packed items) must give what
the simple whole reader gives: the same segments and extras, the same meta, the same bytes
written back, and the same one-line error. Here the size constants are made small so that
every seam (piece, batch, block, chunk) falls inside the cases."""

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from degen import io
from degen.errors import FormatError
from degen.formats import dumps, jsonfmt, jsonl, jsonl_columns, jsonstream, loads, sniff, streamed, subtitle_columns
from degen.formats.lines import split_lines


def read(path: Path, fast: bool, format=None):
    """The transcript of ``path`` (or its error as text), read whole or by the fast paths."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(streamed, "STREAMED_BYTES", 0 if fast else 1 << 62)
        mp.setattr(streamed, "PIECE", 13)
        mp.setattr(io, "STREAMED_JSON_BYTES", 0 if fast else 1 << 62)
        return io.read_transcript(path, format)
    except FormatError as exc:
        return f"error: {exc}"
    finally:
        mp.undo()


def written(transcript) -> str:
    try:
        return dumps(transcript)
    except FormatError as exc:
        return f"error: {exc}"


def same(path: Path, format=None):
    """Read whole and fast alike, and written back alike."""
    whole, fast = read(path, False, format), read(path, True, format)
    if isinstance(whole, str) or isinstance(fast, str):
        assert fast == whole
        return whole
    assert (fast.format, fast.meta, len(fast)) == (whole.format, whole.meta, len(whole))
    assert list(fast) == list(whole) and [s.extra for s in fast] == [s.extra for s in whole]
    assert written(fast) == written(whole)
    return whole


@pytest.mark.parametrize("depth", [252, 253, 254])
def test_a_verbose_json_item_too_deep_to_write_back_is_refused_in_pieces_too(tmp_path, depth):
    """An item nested so that ``{"segments": [item]}`` passes orjson's writing limit only
    without its document around it: the streamed reader packed it one level too shallow,
    took it, and the writer then failed with a traceback after the repair."""
    inner = "[" * (depth - 1) + "]" * (depth - 1)
    path = tmp_path / "deep.json"
    path.write_text('{"text": "[0.0][S01]a[1.0]", "segments": [{"text": "[S01]a", "start": 0, "end": 1, '
                    f'"x": {inner}}}]}}')
    whole = same(path)
    assert isinstance(whole, str) == (depth >= 253), whole


def _long_manifest(lines: int = 3, words: int = 14000) -> str:
    """A manifest of hour-long recordings: each line's text over 64 KiB."""
    return "".join(json.dumps({"audio_filepath": f"a{i}.wav", "duration": 3600.0, "pred_text": "word " * words}) + "\n"
                   for i in range(lines))


@pytest.mark.parametrize("name", ["m.jsonl", "m.json", "m.txt"])
@pytest.mark.parametrize("lines", [1, 3])
def test_a_manifest_whose_first_line_is_over_64_kib_is_sniffed_as_a_manifest(tmp_path, name, lines):
    """Sniffing judged JSON Lines from the first 64 KiB only: a first line longer than
    that (the text of an hour of speech) was cut, did not parse, and the file was refused
    as 'invalid JSON: unexpected content after document'."""
    path = tmp_path / name
    path.write_text(_long_manifest(lines))
    if lines == 1 and name != "m.jsonl":
        return  # one line is a JSON document, unless the file is named JSON Lines
    whole = same(path)
    assert not isinstance(whole, str), whole
    assert whole.format == "manifest" and len(whole) == lines
    if lines > 1:  # formats.sniff has no one-line .jsonl rule (the reader has)
        assert sniff(path.read_text(), path.suffix) == "manifest"


@pytest.mark.parametrize("header", ["WEBVTT", "WEBVTT\n1", "WEBVTT - title\nKind: captions"])
@pytest.mark.parametrize("crlf", [False, True])
def test_a_first_cue_right_under_the_webvtt_header_is_written_once(tmp_path, header, crlf):
    """No blank line between the header and the first cue: the whole first block was kept
    as the header and read as a cue as well, so writing back gave the first cue twice (a
    second 'WEBVTT' in the middle, and the old text kept in the header after a repair).
    As the WebVTT parser does, the header ends where the timing line starts."""
    text = f"{header}\n00:00:01.000 --> 00:00:02.000\nhello\n\n00:00:02.000 --> 00:00:03.000\nthere\n"
    path = tmp_path / "a.vtt"
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode())
    whole = same(path)
    assert [s.text for s in whole] == ["hello", "there"]
    assert whole.meta["header"] == header and whole[0].extra["id"] == ""
    out = dumps(whole)
    assert out.count("hello") == 1 and out.count("WEBVTT") == 1
    assert [s.text for s in loads(out)] == ["hello", "there"]


VTT_BLOCKS = ("WEBVTT\n\nSTYLE\n::cue { color: yellow }\n\nREGION\nid:low\nwidth:40%\n\n"
              "NOTE made by hand\n\n1\n00:00:01.000 --> 00:00:02.000 region:low\nhello\n\n"
              "NOTE\na note of\nseveral lines\n\n00:00:02.000 --> 00:00:03.000\nthere\n\nNOTE the end\n")


@pytest.mark.parametrize("crlf", [False, True])
def test_webvtt_style_region_and_note_blocks_are_written_back(tmp_path, crlf):
    """STYLE, REGION and NOTE blocks were dropped on writing: a fixed file lost its
    styling, the regions its cues still name, and its comments."""
    path = tmp_path / "a.vtt"
    path.write_bytes((VTT_BLOCKS.replace("\n", "\r\n") if crlf else VTT_BLOCKS).encode())
    whole = same(path)
    assert [s.text for s in whole] == ["hello", "there"]
    assert dumps(whole) == (VTT_BLOCKS.replace("\n", "\r\n") if crlf else VTT_BLOCKS)


# Characters that str.splitlines ends a line at and JSON Lines do not: a JSON string may
# hold them raw (json.dumps(..., ensure_ascii=False) writes them so), U+0085 is what a
# Windows-1252 ellipsis becomes when decoded as Latin-1.
RAW_IN_JSON = ["\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("name", ["m.jsonl", "m.json"])
@pytest.mark.parametrize("shape", ["manifest", "jsonl"])
def test_json_lines_whose_strings_hold_unicode_line_separators_are_read(tmp_path, name, shape):
    """A JSON Lines file is split at line feeds (and CR): it was split as str.splitlines
    splits, at U+0085, U+2028 and U+2029 inside a line's strings too, and a valid file
    was refused as 'invalid JSON line'."""
    texts = [f"wait{c} what" for c in RAW_IN_JSON] + ["plain"]
    if shape == "manifest":
        rows = [{"audio_filepath": f"{i}.wav", "duration": 1.5, "text": t} for i, t in enumerate(texts)]
    else:
        rows = [{"start": float(i), "end": i + 0.5, "text": t} for i, t in enumerate(texts)]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    whole = same(path)
    assert not isinstance(whole, str), whole
    assert (whole.format, [s.text for s in whole]) == (shape, texts)
    assert dumps(whole) == text


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["a", "é", "\n", "\r\n", "\r", " ", *RAW_IN_JSON, "\x0b", "\x0c", "\x1c", "\x1e"]),
                max_size=30))
def test_split_lines_ends_lines_at_lf_crlf_and_cr_only(parts):
    text = "".join(parts)
    expected = re.split(r"\r\n|\r|\n", text)
    if expected[-1] == "":
        expected.pop()
    assert split_lines(text) == expected


@pytest.mark.parametrize("vtt", [False, True])
def test_subtitle_text_holding_unicode_line_separators_is_kept_whole(tmp_path, vtt):
    """SRT and WebVTT lines end at LF, CRLF and CR: split as str.splitlines splits, a
    cue's U+0085 or U+2028 was written back as a line feed, and two U+0085 in a row made
    a blank line that cut the cue (its rest dropped unread in WebVTT, refused in SRT)."""
    sep = "." if vtt else ","
    texts = ["wait\x85\x85what", "say\u2028more\u2029", "ok"]
    cues = [f"{i + 1}\n00:00:0{i}{sep}000 --> 00:00:0{i + 1}{sep}000\n{t}\n" for i, t in enumerate(texts)]
    text = ("WEBVTT\n\n" if vtt else "") + "\n".join(cues)
    path = tmp_path / ("a.vtt" if vtt else "a.srt")
    path.write_text(text, encoding="utf-8")
    whole = same(path)
    assert not isinstance(whole, str), whole
    assert [s.text for s in whole] == texts
    assert dumps(whole) == text


CRLF_FILES = {
    "a.srt": "1\n00:00:01,000 --> 00:00:02,000\nhello\nthere\n\n2\n00:00:02,000 --> 00:00:03,000\nagain\n",
    "a.vtt": "WEBVTT\n\nNOTE kept\n\n00:01.000 --> 00:02.000\nhello\nthere\n\n00:02.000 --> 00:03.000\nagain\n",
    "a.jsonl": '{"start": 0.0, "end": 1.0, "text": "hello"}\n{"start": 1.0, "end": 2.0, "text": "again"}\n',
    "m.jsonl": '{"audio_filepath": "a.wav", "duration": 1.5, "text": "hello"}\n'
               '{"audio_filepath": "b.wav", "duration": 2.0, "text": "again"}\n',
}


@pytest.mark.parametrize("name", list(CRLF_FILES))
def test_crlf_files_are_written_back_with_crlf(tmp_path, name):
    """SRT, WebVTT and JSON Lines were always written with LF line ends: a fix of a file
    made on Windows changed every line of it."""
    text = CRLF_FILES[name].replace("\n", "\r\n")
    path = tmp_path / name
    path.write_bytes(text.encode())
    whole = same(path)
    assert dumps(whole) == text
    lf = tmp_path / ("lf" + name)
    lf.write_bytes(CRLF_FILES[name].encode())
    assert dumps(same(lf)) == CRLF_FILES[name]


LINE_FILES = {  # (text, format read)
    "whisper_console": "[00:00.000 --> 00:02.000]  wait{c}what\n[00:02.000 --> 00:03.000]  ok\n",
    "speaker_text": "SPEAKER_00: wait{c}{c}what\nSPEAKER_01: ok\n",
    "lrc": "[00:01.00]wait{c}la\n[00:02.00]ok\n",
    "tsv": "start\tend\ttext\n0\t1000\twait{c}what\n1000\t2000\tok\n",
    "text": "wait{c}what\nok\n",
}


@pytest.mark.parametrize("char", RAW_IN_JSON)
@pytest.mark.parametrize("format", list(LINE_FILES))
def test_line_formats_keep_unicode_line_separators_inside_their_lines(format, char):
    """Console logs, speaker turns, LRC, tables and plain text were split as
    str.splitlines splits: a U+0085 (a Windows-1252 ellipsis read as Latin-1) or U+2028
    cut a line, its rest went unread (or the table was taken for plain text), and it was
    written back as a line feed."""
    text = LINE_FILES[format].format(c=char)
    transcript = loads(text)
    assert transcript.format == format
    assert dumps(transcript) == text
    assert any(char in s.text and s.text.endswith(("what", "la")) for s in transcript)


def _columns_agree(transcript) -> bool:
    """A transcript's columns (what detection reads) say what its segments say."""
    import numpy as np
    from degen.model import Transcript
    mine, theirs = transcript.columns(), Transcript(list(transcript), transcript.format, transcript.meta).columns()
    times = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
             for a, b in ((mine.starts, theirs.starts), (mine.ends, theirs.ends))]
    return (list(mine.texts), list(mine.speakers), list(map(bool, mine.closed))) == \
        (list(theirs.texts), list(theirs.speakers), list(map(bool, theirs.closed))) and \
        all(np.array_equal(a, b, equal_nan=True) for a, b in times)


def _alike(path: Path, format=None, patches=()):
    """``same`` with ``patches`` ((object, name, value): constants made small), and the
    fast transcript's columns agreeing with its segments."""
    with pytest.MonkeyPatch.context() as mp:
        for target, name, value in patches:
            mp.setattr(target, name, value)
        whole = same(path, format)
        fast = read(path, True, format)
        assert isinstance(fast, str) or _columns_agree(fast)
        return whole


MANIFEST_LINES = [  # lines that read
    '{"audio_filepath": "a.wav", "duration": 1.5, "text": "hi there"}',
    '{"audio_filepath":"b.wav","duration":2,"pred_text":"p","text":"t"}',
    '{"duration": null, "text": "no time"}', '{"text": "no duration"}', '{"duration": 1, "offset": 3.5, "text": "o"}',
    '{"duration": null, "offset": "3", "text": "offset unread"}', '{"duration": -2, "text": "negative"}',
    '{"duration": 1, "speaker": 7, "text": "s7"}', '{"duration": 1, "speaker": null, "spk": "B", "text": "spk"}',
    '{"duration": 1, "speaker": [1, "x"], "text": "l"}', '{"te\\u0078t": "escaped key", "duration": 1}',
    '{"text": "a", "text": "duplicate", "duration": 1}', '{"sentence": "se", "transcript": "tr", "duration": 1}',
    '{"meta": {"text": "inner", "start": 1, "end": 2}, "pred_text": "outer", "duration": 1}',
    '{"text": "\\ud83d\\ude00 \\u00e9 \\" \\\\", "duration": 1}',
    '{"text": "raw \u2028 \x85 separators", "duration": 1}',
    '  {"text": "spaced", "duration": 1}\t', '{"ключ": "значение", "text": "key", "duration": 0.5}',
    '{"text": "[S01]tagged", "duration": 0}', '{"text": "", "duration": 0}', '{"from": 0, "text": "from alone"}',
]
BAD_MANIFEST_LINES = [
    '{"duration": 1, "offset": "3", "text": "bad offset"}', '{"duration": "1.5", "text": "a string"}',
    '{"duration": true, "text": "a bool"}', '{"duration": 1e400, "text": "inf"}', '{"duration": 1, "text": null}',
    '{"start": 0, "end": 1, "text": "a segment line"}', '{"from": 0, "to": 1, "text": "from/to"}', '[1, 2]',
    '{"text": "broken"', '{"duration": 1, "text": "\x0b"}', '{"sentence": "se", "transcript": 3, "duration": 1}',
]
SEGMENT_LINES = [
    '{"start": 0, "end": 1, "text": "a"}', '{"start": 0.5, "end": 1.5, "text": "[S02]tag", "speaker": "X"}',
    '{"start_ms": 100, "end_ms": 2000, "text": "ms"}', '{"start": 0, "end": 1}',
    '{"id": 7, "start": 0, "end": 1, "text": "id", "speaker": 3}', '{"begin": 0, "end": 1, "transcript": "b"}',
    '{"start": 0, "end": 1, "text": "x", "words": [{"start": 0, "end": 1, "word": "x"}]}',
    '{"start": 0, "end": 1, "text": "raw \u2029 \x85"}',
]
BAD_SEGMENT_LINES = ['{"start": 2, "end": 1, "text": "backwards"}', '{"start": "0", "end": 1, "text": "a string"}',
                     '{"start": 0, "end": 1, "text": 3}', '{"text": "a manifest line", "duration": 1}']
LINE_ENDS = ["\n", "\r\n", "\r", "\n\n", " \n", "\n  \n", "\u2028\n"]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from(["manifest", "jsonl"]), st.data())
def test_json_lines_read_alike_at_every_seam(tmp_path_factory, shape, data):
    """Whole, in pieces, in batches and blocks of a few lines, and line by line (no
    column batch): the same transcript or the same error."""
    pool, bad = (MANIFEST_LINES, BAD_MANIFEST_LINES) if shape == "manifest" else (SEGMENT_LINES, BAD_SEGMENT_LINES)
    rows = pool[:1] * data.draw(st.integers(0, 4)) + data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=10))
    if data.draw(st.integers(0, 3)) == 0:  # a line that fails, anywhere
        rows.insert(data.draw(st.integers(0, len(rows))), data.draw(st.sampled_from(bad)))
    ends = data.draw(st.lists(st.sampled_from(LINE_ENDS), min_size=len(rows), max_size=len(rows)))
    text = "\ufeff" * data.draw(st.integers(0, 1)) + "".join(r + e for r, e in zip(rows, ends))
    path = tmp_path_factory.mktemp("jl") / data.draw(st.sampled_from(["a.jsonl", "a.json", "a.txt"]))
    path.write_text(text if data.draw(st.booleans()) else text.rstrip(), encoding="utf-8")
    block = data.draw(st.integers(1, 4))
    format = data.draw(st.sampled_from([None, shape]))
    whole = _alike(path, format, [(jsonfmt.PackedItems, "BLOCK", block), (jsonl_columns, "BLOCK", block),
                                  (jsonl_columns, "BATCH", 2 * block)])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonl, "manifest_rows", lambda lines: None)  # the simplest path: line by line
        assert _outcome(read(path, False, format)) == _outcome(whole)


def _outcome(transcript):
    if isinstance(transcript, str):
        return transcript
    return transcript.format, transcript.meta, list(transcript), [s.extra for s in transcript], written(transcript)


CUE_IDS = ["1", "2", "", "007", "cue-id", "١", "99999999999999999999"]
CUE_TIMES = ["00:00:01,000 --> 00:00:02,500", "00:00:01.000 --> 00:00:02.500", "00:01.000 --> 00:02.500",
             "100:00:01,000 --> 100:00:02,000", "0100:00:01,000 --> 0100:00:02,000", "1:02:03,4 --> 1:02:04,56",
             "00:00:01,000-->00:00:02,000", "00:00:01.000 --> 00:00:02.000 align:start position:10%",
             " 00:00:01,000 --> 00:00:02,000", "00:00:01,000 --> 00:00:02,000 ", "٠٠:٠٠:٠١,٠٠٠ --> ٠٠:٠٠:٠٢,٠٠٠",
             "59:59.000 --> 01:00:00.000", "00:00:03,000 --> 00:00:02,000", "00:61:00,000 --> 00:62:00,000"]
CUE_BODIES = ["hello", "[S01] tagged", "<v Ann>voice</v>", "<v.loud Bob Smith>v2", "Ann: named", "Note: x",
              "two\nlines", "a --> b", "<i>styled</i>", "的的的", "wait\x85what", "[S01]", "Ann: ", "1"]
OTHER_BLOCKS = ["NOTE a note", "NOTE\nmulti\nline", "STYLE\n::cue { color: red }", "REGION\nid:r", "stray text"]


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.booleans(), st.data())
def test_subtitles_read_alike_at_every_seam(tmp_path_factory, vtt, data):
    """SRT and WebVTT read whole and in pieces, texts packed a few at a time: the same
    transcript, columns, bytes written back, and error."""
    blocks = ["WEBVTT" + data.draw(st.sampled_from(["", " - title", "\nKind: captions"]))] if vtt else []
    for i in range(data.draw(st.integers(1, 8))):
        if data.draw(st.integers(0, 7)) == 0:
            blocks.append(data.draw(st.sampled_from(OTHER_BLOCKS)))
            continue
        ident = data.draw(st.sampled_from(CUE_IDS)) if data.draw(st.integers(0, 3)) == 0 else str(i + 1)
        timing = data.draw(st.sampled_from(CUE_TIMES[:3] * 6 + CUE_TIMES))
        blocks.append("\n".join(x for x in (ident, timing, data.draw(st.sampled_from(CUE_BODIES))) if x))
    end = data.draw(st.sampled_from(["\n"] * 4 + ["\r\n", "\r"]))
    text = "".join(b + "\n" * data.draw(st.integers(1, 3)) for b in blocks).replace("\n", end)
    path = tmp_path_factory.mktemp("sub") / data.draw(st.sampled_from(["a.vtt" if vtt else "a.srt", "a.txt"]))
    path.write_text(("\ufeff" if data.draw(st.integers(0, 4)) == 0 else "") + text, encoding="utf-8")
    _alike(path, data.draw(st.sampled_from([None, "vtt" if vtt else "srt"])),
           [(subtitle_columns, "CHUNK", data.draw(st.integers(1, 4)))])


_PIECES = ['a', '"', '\\', '\\\\', '\\"', '}', ']', ',', ':', '{', '[', ' ', '的', '\n', '\u2028', '[S01]', 'text']
_STRINGS = st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)
_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 10 ** 6), st.floats(-1, 1e6), _STRINGS),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_STRINGS, inner, max_size=3),
                       max_leaves=5)
SPACES = ["", " ", "\n", "\r\n", "\t"]


def _json_text(value, rng) -> str:
    """``value`` as JSON with whitespace chosen by ``rng`` between its tokens."""
    space = lambda: rng.choice(SPACES)  # noqa: E731
    if isinstance(value, dict):
        members = (json.dumps(k) + space() + ":" + space() + _json_text(v, rng) for k, v in value.items())
        return "{" + space() + ("," + space()).join(members) + space() + "}"
    if isinstance(value, list):
        return "[" + space() + ("," + space()).join(_json_text(v, rng) for v in value) + space() + "]"
    return json.dumps(value, ensure_ascii=False)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.data())
def test_verbose_json_reads_alike_in_pieces(tmp_path_factory, data):
    """A verbose_json document read whole and from its skeleton in blocks of a few bytes
    (escapes, strings and whitespace across them; items packed a few a block): the same
    transcript, columns, bytes written back and error."""
    texts = data.draw(st.lists(_STRINGS, max_size=7))
    items = [{"id": i, "start": float(i), "end": i + 0.5, "text": f"[S0{1 + i % 2}]{t}", "x": data.draw(_VALUES)}
             for i, t in enumerate(texts)]
    if items and data.draw(st.integers(0, 3)) == 0:
        items[data.draw(st.integers(0, len(items) - 1))] = data.draw(_VALUES)
    markup = "".join(f"[{i}.0]{t}[{i}.5]" for i, t in enumerate(f"[S01]{t}" for t in texts)) or "[0.0][S01]only"
    members = [("text", markup), ("segments", items)] + data.draw(st.lists(st.tuples(_STRINGS, _VALUES), max_size=3))
    members = data.draw(st.permutations(members))
    rng = random.Random(data.draw(st.integers(0, 1 << 16)))
    if len({k for k, _ in members}) == len(members):
        raw = _json_text(dict(members), rng)
    else:  # a key given twice: written twice
        raw = "{" + ",".join(json.dumps(k) + ":" + _json_text(v, rng) for k, v in members) + "}"
    path = tmp_path_factory.mktemp("vj") / "a.json"
    path.write_text(rng.choice(SPACES) + raw + rng.choice(SPACES), encoding="utf-8")
    _alike(path, None, [(jsonstream, "SCAN_BLOCK", data.draw(st.sampled_from([3, 7, 16, 64, 1 << 20]))),
                        (jsonfmt.PackedItems, "BLOCK", data.draw(st.integers(1, 4)))])


@pytest.mark.parametrize("first", [
    '{"audio_filepath": "C:\\\\data\\\\utt_1.wav", "duration": 1.5, "text": "第一"}',  # a Windows path: no \\u escape
    '{"audio_filepath": "a.wav", "duration": 1.5, "text": "第一 \\u00e9"}',  # raw characters beside an escape
])
def test_a_manifest_is_not_written_escaped_for_a_backslash_before_u(tmp_path, first):
    """``\\\\u`` (an escaped backslash, then u) or a raw non-ASCII character beside an
    escape made the writer escape every non-ASCII character of the file."""
    text = first + "\n" + '{"audio_filepath": "b.wav", "duration": 2.0, "text": "第二"}\n'
    path = tmp_path / "m.jsonl"
    path.write_text(text, encoding="utf-8")
    whole = same(path)
    assert dumps(whole).splitlines()[1] == text.splitlines()[1]


TEAMS_VTT = ("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v John Doe>Hello everyone.</v>\n\n"
             "00:00:02.000 --> 00:00:04.500\n<v Ann Lee>Thanks, John.</v>\n")


@pytest.mark.parametrize("crlf", [False, True])
def test_closed_voice_spans_are_written_back_closed(tmp_path, crlf):
    """WebVTT voice spans (<v Name>text</v>, as meeting tools write every cue) lost their
    closing tag on writing back: every cue of a fixed file changed."""
    text = TEAMS_VTT.replace("\n", "\r\n") if crlf else TEAMS_VTT
    path = tmp_path / "a.vtt"
    path.write_bytes(text.encode())
    whole = same(path)
    assert [(s.speaker, s.text) for s in whole] == [("John Doe", "Hello everyone."), ("Ann Lee", "Thanks, John.")]
    assert dumps(whole) == text
