"""A large SRT, WebVTT, JSON Lines or manifest file is read piece by piece into columns
(formats.streamed): the transcript (segments, their extras, meta) and what it writes back
must be exactly what the whole reader gives, and so must any error."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from degen import io
from degen.errors import FormatError
from degen.formats import dumps, streamed, subtitle_columns
from degen.formats.lines import split_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SUBTITLES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".srt", ".vtt"))


def _read(path, streamed_too: bool, format=None, piece: int = 23):
    """The transcript of ``path`` (or its error as text), read whole or in pieces."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(streamed, "STREAMED_BYTES", 0 if streamed_too else 1 << 62)
        mp.setattr(streamed, "PIECE", piece)  # tiny pieces: cues and lines cross them
        mp.setattr(io, "STREAMED_JSON_BYTES", 1 << 62)
        return io.read_transcript(path, format)
    except FormatError as exc:
        return f"error: {exc}"
    finally:
        mp.undo()


def _same(path, format=None, piece: int = 23, columns: bool = True, error: bool | None = False):
    """Read whole and in pieces alike; ``error``: whether the whole read must fail (None: either)."""
    whole, pieces = _read(path, False, format), _read(path, True, format, piece)
    if error is not None:
        assert isinstance(whole, str) == error, whole
    if isinstance(whole, str) or isinstance(pieces, str):
        assert pieces == whole
        return
    assert (pieces._columns is not None) == columns  # read as columns, or fell back
    assert (pieces.format, pieces.meta, len(pieces)) == (whole.format, whole.meta, len(whole))
    assert list(pieces) == list(whole) and [s.extra for s in pieces] == [s.extra for s in whole]
    assert [pieces[i] for i in range(len(pieces))] == list(whole)
    assert dumps(pieces) == dumps(whole)


@pytest.mark.parametrize("path", SUBTITLES, ids=lambda p: p.name)
def test_subtitle_fixtures_read_the_same_in_pieces(path):
    _same(path)


def _srt(rng: random.Random, cues: int, vtt: bool = False) -> str:
    """Cues with what a writer may do: numbers that skip, settings, spacing, hours over
    99, short WebVTT stamps, speaker marks, several lines, blank-line runs."""
    sep = "." if vtt else ","
    out, t, style = ["WEBVTT\n\nNOTE a note\n"] if vtt else [], 0.0, rng.choice(["tag", "voice", "name", None])
    for i in range(cues):
        start, end = t, t + rng.uniform(0.5, 4)
        t = end + rng.choice([0, 0.3, 400000.0 if i == cues // 2 else 0])
        stamp = lambda s: f"{int(s // 3600):02d}:{int(s // 60 % 60):02d}:{int(s % 60):02d}{sep}{int(s * 1000) % 1000:03d}"
        timing = f"{stamp(start)} --> {stamp(end)}"
        if vtt and start < 3600 and rng.random() < 0.5:
            timing = f"{stamp(start)[3:]} --> {stamp(end)[3:]}"
        if rng.random() < 0.1:
            timing = rng.choice([timing + " align:start", " " + timing, timing.replace(" --> ", "-->")])
        body = rng.choice(["hello there", "的的的的", "again and again", "Note: not a speaker", "a\nsecond line"])
        if style == "tag" and rng.random() < 0.7:
            body = f"[S0{rng.randint(1, 3)}] {body}"
        elif style == "voice" and rng.random() < 0.7:
            body = f"<v Ann>{body}</v>"
        elif style == "name" and rng.random() < 0.8:
            body = f"Ann: {body}"
        ident = "" if vtt and rng.random() < 0.7 else str(i + 1 + (5 if i > cues // 3 else 0))
        out.append("\n".join(part for part in (ident, timing, body) if part) + "\n" + "\n" * rng.randint(1, 3))
    return "".join(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("vtt", [False, True])
@pytest.mark.parametrize("chunk", [7, subtitle_columns.CHUNK])  # texts packed 7 at a time: speakers split per chunk
def test_generated_subtitles_read_the_same_in_pieces(tmp_path, monkeypatch, seed, vtt, chunk):
    monkeypatch.setattr(subtitle_columns, "CHUNK", chunk)
    rng = random.Random(seed)
    text = _srt(rng, 60, vtt)
    if seed % 2:
        text = "\ufeff" + text.replace("\n", "\r\n")
    path = tmp_path / ("a.vtt" if vtt else "a.srt")
    path.write_bytes(text.encode())
    _same(path, piece=rng.choice([1, 17, 64, 1 << 20]))
    _same(path, format="vtt" if vtt else "srt")


def _manifest(rng: random.Random, lines: int, shape: str) -> str:
    out = []
    for i in range(lines):
        text = rng.choice(["hello there", "的的的的的", "again and again and again", "", "é ü \\u00e9"])
        if shape == "jsonl":
            item = {"id": i, "start": i * 2.0, "end": i * 2.0 + rng.choice([1, 1.5, 0.25]), "text": text}
            if rng.random() < 0.3:
                item["speaker"] = rng.choice(["A", "B"])
        else:
            item = {"audio_filepath": f"clips/{i:05d}.wav", "duration": rng.choice([1.5, 2, 0.25]),
                    rng.choice(["text", "pred_text"]): text}
            if rng.random() < 0.2:
                item["offset"] = rng.choice([0, 3.5])
            if rng.random() < 0.2:
                item["speaker"] = rng.choice(["A", 7, None])
            if rng.random() < 0.2:
                item["extra"] = {"nested": [1, 2.5, None, True], "tag": "x\ty\u3000"}
        spaced = rng.random() < 0.5
        out.append(json.dumps(item, ensure_ascii=rng.random() < 0.3, separators=(", ", ": ") if spaced else (",", ":")))
        out.append("\n" * rng.choice([1, 1, 1, 2]))
    return "".join(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", ["jsonl", "manifest"])
def test_generated_json_lines_read_the_same_in_pieces(tmp_path, seed, shape):
    rng = random.Random(seed)
    text = _manifest(rng, 600, shape)  # more lines than a compressed block
    if seed % 2:
        text = "\ufeff" + text.replace("\n", "\r\n")
    path = tmp_path / ("a.jsonl" if seed % 3 else "a.json")
    path.write_bytes(text.encode())
    _same(path, piece=rng.choice([1, 29, 1 << 20]))
    _same(path, format="nemo" if shape == "manifest" else "jsonl")


def test_an_untimed_manifest_line_makes_every_line_untimed(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"audio_filepath": "a.wav", "duration": 1.0, "text": "hi"}\n'
                    '{"audio_filepath": "b.wav", "text": "there"}\n')
    _same(path)
    assert _read(path, True).segments[0].span is None


@pytest.mark.parametrize("damage", [
    lambda t: t + '{"audio_filepath": "x.wav", "duration": 1, "text": 3}\n',  # a bad line at the end
    lambda t: t + '{"start": 0, "end": 1, "text": "a segment line"}\n',  # another shape
    lambda t: t.replace("\n", "\n{broken\n", 1),
    lambda t: t + '{"text": "a line\x0bwith a control character"}\n',
])
def test_json_lines_errors_are_the_whole_reader_s(tmp_path, damage):
    path = tmp_path / "m.jsonl"
    path.write_text(damage(_manifest(random.Random(1), 300, "manifest")), encoding="utf-8")
    _same(path, piece=41, error=True)


def test_lines_parted_by_a_lone_carriage_return_read_as_splitlines_parts_them(tmp_path):
    path = tmp_path / "m.jsonl"
    text = _manifest(random.Random(1), 300, "manifest") + "\n" * 3 + '{"text": "x"}\r{"text": "y"}\r\n'
    path.write_text(text, encoding="utf-8")
    _same(path, piece=41)


def test_invalid_utf8_further_on_is_the_whole_reader_s_error(tmp_path):
    path = tmp_path / "m.srt"
    path.write_bytes(_srt(random.Random(2), 200).encode() + b"\n999\n00:00:01,000 --> 00:00:02,000\n\xff\xfe\n")
    assert _read(path, True, piece=64).startswith("error: ")
    _same(path, piece=64, error=True)


@pytest.mark.parametrize("damage", [
    lambda t: t + "\n\n77\n00:00:01,000 -> 00:00:02,000\nbroken arrow\n",
    lambda t: t + "\n\n78\n00:61:01,000 --> 00:62:02,000\nminutes\n",
    lambda t: t + "\n\n79\n00:00:05,000 --> 00:00:02,000\nbackwards\n" + "\n\n80\n00:00:0x,000 --> 00:00:02,000\nbad\n",
])
def test_subtitle_errors_are_the_whole_reader_s(tmp_path, damage):
    path = tmp_path / "a.srt"
    path.write_text(damage(_srt(random.Random(3), 100)), encoding="utf-8")
    _same(path, error=True)


def test_other_formats_are_read_whole(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("just some text\n" * 50000)
    transcript = _read(path, True, piece=1 << 16)
    assert transcript.format == "text" and transcript._columns is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", "的", "\n", "\r\n", "\r", "\u2028", "\x0c", "\x85", " ", "{}"]),
                max_size=40), st.integers(1, 9))
def test_numbered_lines_split_as_splitlines(parts, piece):
    text = "".join(parts)
    data = text.encode()
    pieces, mp = [], pytest.MonkeyPatch()
    import io as stdio
    try:
        mp.setattr(streamed, "PIECE", piece)
        pieces = list(streamed._pieces(stdio.BytesIO(data)))
    finally:
        mp.undo()
    assert b"".join(pieces) == data
    assert all(p.endswith(b"\n") for p in pieces[:-1])
    got = [(n, line.decode()) for n, line in streamed.numbered_lines(pieces)]
    assert got == list(enumerate(split_lines(text), 1))


@pytest.mark.parametrize("depth,refused", [(253, False), (254, True), (300, True)])
def test_a_line_nested_too_deeply_to_write_back_is_refused(tmp_path, depth, refused):
    path = tmp_path / "m.jsonl"
    nested = "[" * depth + "]" * depth  # inside the line's object: one level more
    path.write_text('{"text": "a", "duration": 1}\n' + '{"text": "b", "duration": 1, "x": %s}\n' % nested)
    result = _read(path, False)
    assert isinstance(result, str) == refused
    if refused:
        assert "line 2" in result and "cannot be written back" in result
    _same(path, error=refused)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("windows", [False, True])
def test_subtitles_read_in_pieces_are_judged_as_read_whole(tmp_path, monkeypatch, seed, windows):
    """Texts packed (model.Packed) give the findings and metrics of texts in a list, on
    whole streams, on windows, and where grapheme clusters send windows back to the whole."""
    import degen
    from degen.detect import windows as windowed
    from degen.model import Packed
    rng = random.Random(seed)
    text = _srt(rng, 150)
    if seed % 2:  # grapheme clusters: the windowed build hands over to the whole-text one
        text = text.replace("hello there", "he\u0301llo the\u0301re")
    ending = ["Thank you.", "Thanks for", "watching!"]  # a known phrase cut between two cues at the end
    text += "".join(f"{900 + i}\n99:30:{i:02d},000 --> 99:30:{i:02d},900\n{t}\n\n" for i, t in enumerate(ending))
    path = tmp_path / "a.srt"
    path.write_bytes(text.encode())
    monkeypatch.setattr(subtitle_columns, "CHUNK", 11)
    if windows:
        monkeypatch.setattr(windowed, "SMALLEST", 0)
        monkeypatch.setattr(windowed, "WINDOW", 300)
    whole, pieces = _read(path, False), _read(path, True)
    assert isinstance(pieces.columns().texts, Packed)
    found = degen.analyze(pieces)
    assert found == degen.analyze(whole) and any(f.kind == "hallucination" for f in found.findings)
