"""Readers and writers: table tests per format, round trips, and bad input."""

import json

import orjson
import pytest
from hypothesis import given, settings, strategies as st

import degen
from degen import formats
from degen.errors import FormatError
from degen.model import Segment, Span, Transcript

EXPECTED_FORMATS = {
    "loops/zh_char.json": "sglang_json", "loops/ja_char_sep.srt": "srt", "loops/zh_char_sep.vtt": "vtt",
    "loops/en_punct.txt": "text", "loops/en_subword.json": "segments_json", "loops/ja_short.moss.txt": "moss",
    "loops/zh_short.json": "segments_list", "loops/en_word.json": "segments_json", "loops/ru_word.json": "segments_list",
    "loops/fr_word.vtt": "vtt", "loops/en_phrase.srt": "srt", "loops/zh_phrase_unclosed.json": "sglang_verbose",
}


@pytest.mark.parametrize("name, fmt", sorted(EXPECTED_FORMATS.items()))
def test_fixture_formats_are_sniffed(fixtures, name, fmt):
    assert degen.read(fixtures / "shapes" / name).format == fmt


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_fixtures_write_back_what_they_read(fixtures, name):
    path = fixtures / "shapes" / name
    original = path.read_text(encoding="utf-8")
    transcript = degen.read(path)
    written = formats.dumps(transcript)
    if path.suffix == ".json":
        assert orjson.loads(written) == orjson.loads(original)  # every field kept
    else:
        assert written == original


def test_moss_markup_details():
    t = formats.loads("[0.48][S01]Welcome[1.66][12.26][S02]第[2024]年[13.81][14.00][S103]cut off here")
    assert [(s.span, s.speaker, s.text, s.closed) for s in t] == [
        (Span(0.48, 1.66), "S01", "Welcome", True),
        (Span(12.26, 13.81), "S02", "第[2024]年", True),
        (Span(14.0, 14.0), "S103", "cut off here", False),
    ]


def test_sglang_verbose_raw_text_wins_over_segments():
    doc = {"text": "[0.1][S01]a b c[1.0][1.2][S02]tail that never closed", "duration": 3.0,
           "segments": [{"id": 0, "start": 0.1, "end": 1.0, "text": "[S01]a b c"}]}
    t = formats.loads(json.dumps(doc))
    assert len(t) == 2 and not t[1].closed and t[1].speaker == "S02"
    back = orjson.loads(formats.dumps(t))
    assert back["text"] == doc["text"] and back["segments"] == doc["segments"]


def test_openai_verbose_and_millisecond_lists():
    ms = [{"start_ms": 1500, "end_ms": 2500, "speaker": "A", "text": "hi", "confidence": 0.9}]
    t = formats.loads(json.dumps(ms))
    assert t[0].span == Span(1.5, 2.5) and t[0].speaker == "A"
    assert orjson.loads(formats.dumps(t)) == ms


def test_srt_name_speakers_need_a_majority():
    srt = "1\n00:00:01,000 --> 00:00:02,000\nNote: this is a line\n\n2\n00:00:03,000 --> 00:00:04,000\nplain text\n"
    t = formats.loads(srt)
    assert [s.speaker for s in t] == [None, None] and t[0].text == "Note: this is a line"


@pytest.mark.parametrize("text, where", [
    ('{"segments": [{"start": 1', "line 1"),
    ('{"segments": [{"start": 2.0, "end": "soon", "text": "x"}]}', "segment 0"),
    ('[{"start": "abc", "end": 1.0, "text": "x"}]', "segment 0"),
    ('{"foo": 1}', None),
    ("", None),
    ("  \n", None),
    ('[{"start": 0, "end": 1, "text": "a"}, {"start": 1, "end": 2}, 5]', "segment 2"),
    ("1\n00:00:05,000 --> 00:00:61,000\nseconds\n", "line 2"),  # (an end before its start is a finding)
])
def test_malformed_input_names_the_place(text, where):
    with pytest.raises(FormatError) as err:
        formats.loads(text)
    if where:
        assert where in str(err.value)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"text": "\xff\xfe"}')
    with pytest.raises(FormatError, match=r"bad\.json: line 1: invalid UTF-8"):
        degen.read(bad)
    with pytest.raises(FormatError, match="no such file"):
        degen.read(tmp_path / "missing.json")
    (tmp_path / "empty.srt").write_text("")
    with pytest.raises(FormatError, match="empty"):
        degen.read(tmp_path / "empty.srt")


# ---- properties -------------------------------------------------------------------

SAFE_TEXT = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters=" ,.!?'，。"),
                    min_size=1, max_size=30).map(str.strip).filter(bool)
SPEAKER = st.sampled_from(["S01", "S02", "S13"])


@st.composite
def timed_segments(draw, decimals=2, speakers=SPEAKER):
    n = draw(st.integers(1, 8))
    t, segs = 0.0, []
    for _ in range(n):
        start = round(t + draw(st.integers(0, 300)) / 10 ** decimals, decimals)
        end = round(start + draw(st.integers(0, 900)) / 10 ** decimals, decimals)
        segs.append(Segment(Span(start, end), draw(speakers), draw(SAFE_TEXT)))
        t = end
    return segs


def roundtrip(t: Transcript) -> Transcript:
    return formats.loads(formats.dumps(t), t.format)


@settings(max_examples=60, deadline=None)
@given(timed_segments(), st.booleans())
def test_moss_roundtrip(segs, unclosed):
    if unclosed:
        last = segs[-1]
        segs[-1] = Segment(Span(last.span.start, last.span.start), last.speaker, last.text, closed=False)
    for fmt in ("moss", "sglang_json", "sglang_verbose"):
        t = Transcript(tuple(segs), fmt, {})
        assert roundtrip(t).segments == t.segments


@settings(max_examples=60, deadline=None)
@given(timed_segments(decimals=3, speakers=st.one_of(st.none(), SPEAKER)))
def test_subtitle_and_json_roundtrip(segs):
    for fmt in ("srt", "vtt", "segments_json", "segments_list"):
        t = Transcript(tuple(segs), fmt, {})
        assert roundtrip(t).segments == t.segments, fmt


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), SPEAKER), SAFE_TEXT), min_size=1, max_size=8))
def test_plain_text_roundtrip(rows):
    t = Transcript(tuple(Segment(None, spk, text) for spk, text in rows), "text", {})
    assert roundtrip(t).segments == t.segments


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_format_errors(data):
    try:
        formats.loads(formats.decode(data))
    except FormatError:
        pass


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["text", "segments", "start", "end", "speaker", "start_ms", "end_ms", "id", "x"]), inner,
        max_size=5),
    max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(JSON_VALUES)
def test_random_json_raises_only_format_errors(doc):
    try:
        t = formats.loads(json.dumps(doc))
        degen.scan(t)
    except FormatError:
        pass


@pytest.mark.parametrize("markup, closed", [
    ("[0.1][S01]a[0.5]  \n[0.6][S02]b[0.9]", [True, True]),
    ("[0.1][S01]cut here[0.6][S02]b[0.9]", [False, True]),  # a middle segment never closed
    ("[0.1][S01][0.6][S02]b[0.9][1.0][S01]  ", [False, True, False]),
    ("[0.1][S01]x [12] [0.6][S02]第[3]年[0.9]", [True, True]),
])
def test_moss_closings_with_spaces_and_unclosed_segments(markup, closed):
    t = formats.loads(markup)
    assert [s.closed for s in t] == closed
    assert formats.dumps(t) == markup
