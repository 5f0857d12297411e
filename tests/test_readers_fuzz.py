"""Each fast reader (pieces of a large file, columns, chunks, packed items) must give what
the simple whole reader gives: the same segments and extras, the same meta, the same bytes
written back, and the same one-line error. Here the size constants are made small so that
every seam (piece, batch, block, chunk) falls inside the cases."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from degen import io
from degen.errors import FormatError
from degen.formats import dumps, jsonstream, loads, sniff, streamed
from degen.formats.lines import split_lines


def read(path: Path, fast: bool, format=None):
    """The transcript of ``path`` (or its error as text), read whole or by the fast paths."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(streamed, "STREAMED_BYTES", 0 if fast else 1 << 62)
        mp.setattr(streamed, "PIECE", 13)
        mp.setattr(io, "STREAMED_JSON_BYTES", 0 if fast else 1 << 62)
        mp.setattr(jsonstream, "SCAN_BLOCK", 5)
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
