"""A result whose transcript sits under "transcription" (Replicate's whisper, the GitHub
Action that commits its results): sniffed, read from plain text, SRT, WebVTT, console
lines or nested segments, the translation beside it never scanned, written back byte for
byte in the file's own layout, re-read after a change, and a malformed one refused with one
line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import degen
from degen import formats
from degen.cli import main
from degen.errors import FormatError
from degen.model import Span

WILD = Path(__file__).resolve().parents[2] / "fixtures" / "wild" / "clean"
ACTION_FILES = ["en_actiontranscription_9.json", "ru_actiontranscription_23.json", "ru_actiontranscription_3.json"]

SRT = "1\n00:00:00,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:02,500 --> 00:00:05,000\nHow are you?\n\n"
VTT_CUES = "00:00.000 --> 00:02.500\nHello there.\n\n00:02.500 --> 00:05.000\nHow are you?\n\n"
CONSOLE = "[00:00.000 --> 00:02.500]  Hello there.\n[00:02.500 --> 00:05.000]  How are you?\n"
TIMED = [Span(0.0, 2.5), Span(2.5, 5.0)]
TEXTS = ["Hello there.", "How are you?"]


def _replicate(transcription, translation="Hola. ¿Cómo estás?"):
    return {"detected_language": "english", "transcription": transcription, "translation": translation}


CASES = [  # (name, document, spans, texts)
    ("plain", _replicate(" Hello there. How are you?"), [None], [" Hello there. How are you?"]),
    ("srt", _replicate(SRT), TIMED, TEXTS),
    ("vtt", _replicate("WEBVTT\n\n" + VTT_CUES), TIMED, TEXTS),
    ("vtt without its header", _replicate(VTT_CUES, None), TIMED, TEXTS),
    ("console lines", _replicate(CONSOLE), TIMED, TEXTS),
    ("nested segments", {"transcription": {"text": "Hello there. How are you?", "segments": [
        {"start": 0.0, "end": 2.5, "text": "Hello there."}, {"start": 2.5, "end": 5.0, "text": "How are you?"}]},
        "translation": {"text": "Hola."}}, TIMED, TEXTS),
    ("whisper.cpp items beside a translation", {"transcription": [
        {"offsets": {"from": 0, "to": 2500}, "text": "Hello there."},
        {"offsets": {"from": 2500, "to": 5000}, "text": "How are you?"}],
        "translation": [{"offsets": {"from": 0, "to": 5000}, "text": "Hola."}]}, TIMED, TEXTS),
    ("transcript key", {"transcript": "Hello there.", "translation": "Hola."}, [None], ["Hello there."]),
    ("a translation alone", {"translation": "Hello there."}, [None], ["Hello there."]),
]
IDS = [c[0] for c in CASES]
LAYOUTS = {  # how Python's json module writes a result, as the Action does
    "indent 2, escaped": lambda doc: json.dumps(doc, indent=2) + "\n",
    "indent 4, raw UTF-8": lambda doc: json.dumps(doc, indent=4, ensure_ascii=False),
    "one line": lambda doc: json.dumps(doc),
    "compact": lambda doc: json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n",
}


@pytest.mark.parametrize("file", ACTION_FILES)
def test_the_actions_results_are_read_and_written_back_byte_for_byte(file):
    path = WILD / file
    raw = path.read_bytes()
    doc = json.loads(raw)
    for t in (degen.read(path), formats.loads(raw.decode())):
        assert t.format == "transcription_json" == formats.sniff(raw.decode(), ".json")
        assert [(s.span, s.text) for s in t] == [(None, doc["transcription"])]  # the translation is not speech
        assert formats.dumps(t).encode() == raw


@pytest.mark.parametrize("name, doc, spans, texts", CASES, ids=IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_read_and_written_back_byte_for_byte(name, doc, spans, texts, layout):
    text = LAYOUTS[layout](doc)
    t = formats.loads(text)
    assert t.format == formats.sniff(text, ".json") == "transcription_json"
    assert [s.span for s in t] == spans and [s.text for s in t] == texts
    assert formats.dumps(t) == text


@pytest.mark.parametrize("name, doc, spans, texts", CASES, ids=IDS)
def test_a_changed_segment_is_written_anew_and_read_back(name, doc, spans, texts):
    t = formats.loads(json.dumps(doc, indent=2) + "\n")
    changed = t.with_segments([t[0].with_(text="Repaired words."), *t.segments[1:]])
    written = formats.dumps(changed)
    back = formats.loads(written, "transcription_json")
    assert [s.text for s in back] == ["Repaired words.", *texts[1:]] and [s.span for s in back] == spans
    kept = {k: v for k, v in json.loads(written).items() if k != t.meta["key"]}
    assert kept == {k: v for k, v in doc.items() if k != t.meta["key"]}  # the translation as read
    assert written.startswith('{\n  "') and written.endswith("}\n")  # in the file's layout


def test_another_layout_is_written_back_as_the_same_json():
    text = '{"transcription":  "Hello there.",\r\n "translation": "Hola."}'
    t = formats.loads(text)
    assert [s.text for s in t] == ["Hello there."] and "style" not in t.meta
    assert json.loads(formats.dumps(t)) == json.loads(text)


def test_a_text_key_or_a_segment_list_is_still_its_own_shape():
    assert formats.loads(json.dumps({"text": "Hi.", "transcription": "Hi."})).format == "text_json"
    replicate = {"segments": [{"start": 0.0, "end": 1.0, "text": "Hi."}], "transcription": "Hi.", "translation": None}
    assert formats.loads(json.dumps(replicate)).format == "segments_json"


@pytest.mark.parametrize("doc, message", [
    ({"translation": "Hello.", "transcription": 42}, r"field 'transcription': 'transcription' is a number \(42\)"),
    ({"transcription": None, "translation": None}, r"'transcription' is null"),
    ({"transcription": {"segments": [{"start": "soon", "end": 1.0, "text": "x"}]}, "translation": "y"},
     r"in 'transcription', segment 0, field 'start'"),
])
def test_a_malformed_result_is_one_line_naming_the_file(tmp_path, doc, message):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=message) as err:
        degen.read(path)
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)
    result = CliRunner().invoke(main, ["scan", str(path)])
    assert result.exit_code == 2 and isinstance(result.exception, (SystemExit, type(None)))  # no traceback
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"degen: error: {path}: ") and "Traceback" not in result.output
