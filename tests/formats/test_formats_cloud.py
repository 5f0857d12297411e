"""Amazon Transcribe and Microsoft (Azure) speech JSON: sniffed, read a segment a sentence
(Transcribe) or a result (Azure), written back as read, and re-read after a change."""

from __future__ import annotations

import json

import pytest

from degen import formats
from degen.errors import FormatError
from degen.model import Span


def _item(word, start=None, end=None, speaker=None):
    if start is None:
        return {"alternatives": [{"confidence": "0.0", "content": word}], "type": "punctuation"}
    item = {"start_time": start, "end_time": end, "alternatives": [{"confidence": "0.99", "content": word}],
            "type": "pronunciation"}
    if speaker:
        item["speaker_label"] = speaker
    return item


AWS = json.dumps({"jobName": "job-1", "accountId": "1", "status": "COMPLETED", "results": {
    "transcripts": [{"transcript": "Hello there. How are you?"}],
    "items": [_item("Hello", "0.54", "0.90"), _item("there", "0.90", "1.26"), _item("."),
              _item("How", "2.00", "2.20"), _item("are", "2.20", "2.40"), _item("you", "2.40", "2.75"), _item("?")]}},
    indent=4)
AWS_SPEAKERS = json.dumps({"jobName": "job-2", "results": {
    "transcripts": [{"transcript": "yes yes no"}],
    "items": [_item("yes", "0.0", "0.4", "spk_0"), _item("yes", "0.5", "0.9", "spk_0"), _item("no", "1.0", "1.3", "spk_1")]}})
AWS_AUDIO = json.dumps({"jobName": "job-3", "results": {
    "transcripts": [{"transcript": "Good morning. Thanks"}],
    "audio_segments": [{"id": 0, "transcript": "Good morning.", "start_time": "0.10", "end_time": "0.90", "items": [0, 1, 2]},
                       {"id": 1, "transcript": "Thanks", "start_time": "1.50", "end_time": "1.90", "items": [3]}],
    "items": [{"id": 0, **_item("Good", "0.10", "0.40")}, {"id": 1, **_item("morning", "0.40", "0.90")},
              {"id": 2, **_item(".")}, {"id": 3, **_item("Thanks", "1.50", "1.90")}]}})
AZURE_SDK = json.dumps([
    {"RecognitionStatus": "Success", "DisplayText": "Buongiorno a tutti.", "Duration": 97600000, "Offset": 1200000},
    {"RecognitionStatus": "InitialSilenceTimeout", "Offset": 100000000, "Duration": 0},
    {"RecognitionStatus": "Success", "DisplayText": "Seconda frase.", "Duration": 13010000, "Offset": 114400000}])
AZURE_BATCH = json.dumps({"source": "a.wav", "durationInTicks": 300000000, "recognizedPhrases": [
    {"recognitionStatus": "Success", "channel": 0, "speaker": 1, "offset": "PT0.5S", "duration": "PT2S",
     "offsetInTicks": 5000000.0, "durationInTicks": 20000000.0,
     "nBest": [{"confidence": 0.9, "lexical": "hello world", "display": "Hello world."}]},
    {"recognitionStatus": "Success", "channel": 0, "speaker": 2, "offset": "PT3S", "duration": "PT1.5S",
     "offsetInTicks": 30000000.0, "durationInTicks": 15000000.0,
     "nBest": [{"confidence": 0.8, "lexical": "bye", "display": "Bye."}]}]})

CASES = [  # (name, text, format, spans, texts, speakers)
    ("transcribe", AWS, "aws_transcribe", [Span(0.54, 1.26), Span(2.0, 2.75)], ["Hello there.", "How are you?"],
     [None, None]),
    ("transcribe speakers", AWS_SPEAKERS, "aws_transcribe", [Span(0.0, 0.9), Span(1.0, 1.3)], ["yes yes", "no"],
     ["spk_0", "spk_1"]),
    ("transcribe audio segments", AWS_AUDIO, "aws_transcribe", [Span(0.1, 0.9), Span(1.5, 1.9)],
     ["Good morning.", "Thanks"], [None, None]),
    ("azure sdk", AZURE_SDK, "azure_speech", [Span(0.12, 9.88), Span(11.44, 12.741)],
     ["Buongiorno a tutti.", "Seconda frase."], [None, None]),
    ("azure batch", AZURE_BATCH, "azure_speech", [Span(0.5, 2.5), Span(3.0, 4.5)], ["Hello world.", "Bye."], ["1", "2"]),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, text, fmt, spans, texts, speakers", CASES, ids=IDS)
def test_sniffed_read_and_written_back_as_read(name, text, fmt, spans, texts, speakers):
    t = formats.loads(text)
    assert t.format == fmt == formats.sniff(text, ".json")
    assert [s.text for s in t] == texts and [s.speaker for s in t] == speakers
    assert [s.span for s in t] == spans
    assert json.loads(formats.dumps(t)) == json.loads(text)  # nothing lost, the silent result included


@pytest.mark.parametrize("name, text, fmt, spans, texts, speakers", CASES, ids=IDS)
def test_a_changed_segment_is_written_anew_and_read_back(name, text, fmt, spans, texts, speakers):
    t = formats.loads(text)
    span = Span(t[0].span.start, t[0].span.start + 1.0)
    changed = t.with_segments([t[0].with_(text="repaired words here.", span=span), *t.segments[1:]])
    back = formats.loads(formats.dumps(changed), fmt)
    assert [s.text for s in back] == ["repaired words here.", *texts[1:]]
    assert abs(back[0].span.start - span.start) < 1e-3 and abs(back[0].span.end - span.end) < 1e-3
    assert [s.span for s in back][1:] == spans[1:] and [s.speaker for s in back] == speakers


def test_transcribe_text_follows_a_repair_when_it_was_the_items_joined():
    t = formats.loads(AWS)
    changed = t.with_segments([t[0].with_(text="Hi."), t[1]])
    assert json.loads(formats.dumps(changed))["results"]["transcripts"][0]["transcript"] == "Hi. How are you?"


def test_transcribe_without_items_is_one_untimed_segment():
    t = formats.loads(json.dumps({"jobName": "j", "results": {"transcripts": [{"transcript": "only text"}], "items": []}}))
    assert [(s.span, s.text) for s in t] == [(None, "only text")]


@pytest.mark.parametrize("doc, message", [
    ({"jobName": "j", "results": {"transcripts": [{"transcript": "a"}],
                                  "items": [{"start_time": "x", "end_time": "1", "type": "pronunciation",
                                             "alternatives": [{"content": "a"}]}]}}, "not a number"),
    ({"jobName": "j", "results": {"transcripts": [{"transcript": "a"}], "items": [{"type": "pronunciation"}]}},
     "alternatives"),
    ([{"RecognitionStatus": "Success", "DisplayText": "a", "Offset": "soon", "Duration": 1}], "not a number"),
])
def test_bad_results_name_the_item_and_the_field(doc, message):
    with pytest.raises(FormatError, match=message) as err:
        formats.loads(json.dumps(doc))
    assert "\n" not in str(err.value) and ("item 0" in str(err.value) or "result 0" in str(err.value))
