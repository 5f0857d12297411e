"""Readers for STM, CTM, logs interleaving results, lists of strings and dashed seconds
stamps: each sniffed, read, written back as read, and re-read after a change."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import degen
from degen import formats
from degen.errors import FormatError
from degen.formats import streamlog
from degen.model import Span

from ..fuzzing import bounded

WILD = Path(__file__).resolve().parents[2] / "fixtures" / "wild"

STM = """;; CATEGORY "0" "" ""
;; LABEL "O" "Overall" "Overall"
rec-1 1 spk-a 0.00 13.04 <o,Q5,B2,P1> as i said before i am from a little village
rec-1 1 spk-a 13.04 20.00 <o,Q5,B2,P1> and i think that global heat is a
rec-2 A spk-b 0.5 5.81 what we enjoy the most is playing video games
"""
CTM = """utt-1 1 0.00 1.05 spring 0.98
utt-1 1 1.05 0.72 singapore 0.91
utt-2 1 0.51 0.75 compassvale
utt-2 1 1.26 0.39 drive
"""
LOG = """INFO    Connected to client on ('83.135.241.177', 20058)
DEBUG   transcribing 2.12 seconds from 0.00
DEBUG   >>>>COMPLETE NOW: (0.0, 1.26, ' Test test')
0 1260  Test test
DEBUG   INCOMPLETE: (None, None, '')
12.3456 2380 2400  test
DEBUG   len of buffer now: 5.12
"""
PY_LIST = "['Hello there.', \"It's me.\"]\n"
JSON_LIST = '["first text", "second text"]\n'
DASHED = "[289.36s - 292.36s]  Hello there.\n[292.36s - 295.00s]  Second line.\n"

CASES = [  # (name, text, format, spans, texts)
    ("stm", STM, "stm", [Span(0.0, 13.04), Span(13.04, 20.0), Span(0.5, 5.81)],
     ["as i said before i am from a little village", "and i think that global heat is a",
      "what we enjoy the most is playing video games"]),
    ("ctm", CTM, "ctm", [Span(0.0, 1.77), Span(0.51, 1.65)], ["spring singapore", "compassvale drive"]),
    ("log", LOG, "streaming_log", [Span(0.0, 1.26), Span(2.38, 2.4)], ["Test test", "test"]),
    ("python list", PY_LIST, "text_list", [None, None], ["Hello there.", "It's me."]),
    ("json list", JSON_LIST, "text_list", [None, None], ["first text", "second text"]),
    ("dashed seconds", DASHED, "whisper_console", [Span(289.36, 292.36), Span(292.36, 295.0)],
     ["Hello there.", "Second line."]),
]
IDS = [c[0] for c in CASES]


def _close(a, b):
    return (a is None and b is None) or (abs(a.start - b.start) < 1e-9 and abs(a.end - b.end) < 1e-9)


@pytest.mark.parametrize("name, text, fmt, spans, texts", CASES, ids=IDS)
def test_sniffed_read_and_written_back_as_read(name, text, fmt, spans, texts):
    t = formats.loads(text)
    assert t.format == fmt == formats.sniff(text)
    assert [s.text for s in t] == texts
    assert all(_close(s.span, want) for s, want in zip(t, spans))
    assert formats.loads(formats.dumps(t), fmt).segments == t.segments
    assert formats.dumps(t) == text or fmt == "text_list"  # a list is written as pprint/orjson write it


@pytest.mark.parametrize("name, text, fmt, spans, texts", CASES, ids=IDS)
def test_a_changed_segment_is_written_anew_and_read_back(name, text, fmt, spans, texts):
    t = formats.loads(text)
    span = None if t[0].span is None else Span(t[0].span.start, t[0].span.start + 1.0)
    changed = t.with_segments([t[0].with_(text="repaired words here", span=span), *t.segments[1:]])
    back = formats.loads(formats.dumps(changed), fmt)
    assert [s.text for s in back] == ["repaired words here", *texts[1:]]
    assert _close(back[0].span, span)


def test_ctm_utterances_each_timed_from_zero_are_judged_alone():
    assert formats.loads(CTM).meta.get("independent") is True
    one = "rec 1 0.0 0.5 hello\nrec 1 0.5 0.5 there\n"
    assert not formats.loads(one).meta.get("independent")


def test_text_list_is_a_batch_of_utterances():
    assert formats.loads(PY_LIST).meta.get("independent") is True
    assert formats.dumps(formats.loads(PY_LIST)).startswith("['Hello there.'")  # still a Python literal


@pytest.mark.parametrize("fmt, bad, where", [("stm", "rec 1 spk zero 2.0 text\n", "line 1"),
                                              ("ctm", "utt 1 0.0 0.5 word\nutt 1 x 0.5 word\n", "line 2")])
def test_a_bad_line_names_its_place(fmt, bad, where):
    with pytest.raises(FormatError, match=where):
        formats.loads(bad, fmt)


def test_vibevoice_ranges_without_units_stay_speaker_text():
    assert formats.sniff("[208.27 - 219.67] Speaker 0: Prije, što hoćemo\n") == "speaker_text"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 10 ** 4),
                          st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=8)),
                min_size=1, max_size=6))
def test_streaming_log_round_trip(rows):
    body = "".join(f"DEBUG   step {i}\n{beg} {beg + dur}  {word} x\n" for i, (beg, dur, word) in enumerate(rows))
    t = formats.loads(body)
    assert t.format == "streaming_log" and formats.dumps(t) == body
    assert [s.span for s in t] == [Span(b * 0.001, (b + d) * 0.001) for b, d, _ in rows]


@pytest.mark.skipif(not (WILD / "index.jsonl").exists(), reason="the public corpus is not in this checkout")
@pytest.mark.parametrize("path, fmt", [("clean/en_nsc_kaldi_master.ctm", "ctm"),
                                       ("clean/en_sandi2025_dev_subset_asr.stm", "stm"),
                                       ("hallucination/en_whisperstreaming_114.log", "streaming_log"),
                                       ("clean/en_fasterwhisper_19_seconds.txt", "whisper_console")])
def test_corpus_files_of_these_formats(path, fmt):
    t = degen.read(WILD / path)
    raw = (WILD / path).read_text(encoding="utf-8")
    assert t.format == fmt and t.timed and formats.dumps(t) == raw


def test_a_long_line_of_digits_is_read_at_once():
    """A loop of one digit written on one line (70,000 characters) once made the log
    sniffer's pattern backtrack for a minute and a half: only a record's first characters
    can hold its level word."""
    text = "0" * 70_000 + "So I'm just going to go back to the next one.\n"
    with bounded(5.0):
        transcript = formats.loads(text)
    assert transcript.format != "streaming_log"
    assert not streamlog.looks_like(text)
