"""Turns whose start/end are milliseconds, told by the clock stamp beside them."""

from __future__ import annotations

import json

from degen import formats
from degen.model import Span

TURNS = {"episode": "e1", "utterances": [
    {"speaker": "A", "text": "では始めましょう。", "start": 1468580, "end": 1494227, "timestamp": "24:28"},
    {"speaker": "B", "text": "はい、お願いします。", "start": 1494227, "end": 1496000, "timestamp": "24:54"}]}


def test_starts_agreeing_with_their_stamps_as_milliseconds_are_read_as_such():
    t = formats.loads(json.dumps(TURNS))
    assert t.format == "turns_json" and [s.span for s in t] == [Span(1468.58, 1494.227), Span(1494.227, 1496.0)]
    assert json.loads(formats.dumps(t)) == TURNS
    changed = t.with_segments([t[0].with_(text="直した", span=Span(1468.0, 1470.5)), t[1]])
    written = json.loads(formats.dumps(changed))["utterances"][0]
    assert (written["start"], written["end"]) == (1468000, 1470500)
    assert formats.loads(json.dumps(json.loads(formats.dumps(changed))))[0].span == Span(1468.0, 1470.5)


def test_stamps_that_agree_with_seconds_keep_seconds():
    doc = {"utterances": [{**u, "start": u["start"] / 1000, "end": u["end"] / 1000} for u in TURNS["utterances"]]}
    assert [s.span.start for s in formats.loads(json.dumps(doc))] == [1468.58, 1494.227]
