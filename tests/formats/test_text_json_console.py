"""OpenAI-style JSON whose "text" holds whisper.cpp's console lines (whisper.cpp's server
and LlamaEdge's whisper-api-server answer so): read as timed segments, written back as it
was, so the timing is evidence as in any timed transcript."""

import orjson

import degen
from degen.formats import dumps, loads

from ..conftest import FIXTURES

LLAMAEDGE = FIXTURES / "wild" / "hallucination" / "en_llamaedge_whisperapi_4_iei.json"


def test_console_lines_inside_text_are_timed_segments():
    t = degen.read(LLAMAEDGE)
    assert t.format == "text_json"
    assert [s.text for s in t] == ["This is a test record for whisper.cpp", "了解更多,請搜尋:IEI 威強電"]
    assert [(s.span.start, s.span.end) for s in t] == [(0.0, 3.4), (3.4, 15.4)]


def test_written_back_byte_for_byte_and_after_an_edit_in_the_same_style():
    raw = LLAMAEDGE.read_text(encoding="utf-8")
    t = loads(raw)
    assert dumps(t) == raw
    edited = t.with_segments([t[0]])
    doc = orjson.loads(dumps(edited))
    assert doc["text"] == "[00:00:00.000 --> 00:00:03.400]  This is a test record for whisper.cpp"


def test_plain_text_json_is_unchanged():
    t = loads('{"text": "hello there, [not a stamp] friend"}')
    assert [s.text for s in t] == ["hello there, [not a stamp] friend"] and t[0].span is None


def test_a_twelve_second_credit_over_silence_is_judged_by_its_time():
    report = degen.scan(LLAMAEDGE)
    assert report.metrics.segments == 2 and report.metrics.duration == 15.4


def test_a_broken_stamp_in_text_is_plain_text_not_an_error():
    raw = '{"text": "[00:00:01 --> soon] we begin"}'
    t = loads(raw)
    assert t.format == "text_json" and [s.text for s in t] == ["[00:00:01 --> soon] we begin"]
    assert orjson.loads(dumps(t)) == orjson.loads(raw)
