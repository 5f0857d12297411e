"""Subtitles that show one line word by word (WhisperX --highlight_words, stable-ts): one
saying is not a loop, a decoder's copies still are, and impossible word timing still is."""

from hypothesis import given, settings, strategies as st

import degen
from degen.detect.highlight import sayings

from ..conftest import FIXTURES

LINE = "So, first, is there anything you want to know about me first?"


def stamp(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def highlighted(line: str, times: int = 1, word_seconds: float = 0.3, gap: float = 0.05,
                open_tag: str = "<u>", close_tag: str = "</u>") -> str:
    """An SRT of ``line`` said ``times`` times, as WhisperX writes it with highlighted
    words: a plain cue in each gap, then a cue per word with that word marked."""
    words, cues, t = line.split(), [], 1.0
    for _ in range(times):
        for k, word in enumerate(words):
            cues.append((t, t + gap, line))
            t += gap
            marked = " ".join(words[:k] + [open_tag + word + close_tag] + words[k + 1:])
            cues.append((t, t + word_seconds, marked))
            t += word_seconds
    return "".join(f"{i}\n{stamp(a)} --> {stamp(b)}\n{text}\n\n" for i, (a, b, text) in enumerate(cues, 1))


def kinds(text: str) -> list[str]:
    return [f.kind for f in degen.scan_text(text, format="srt").flagged]


def test_the_whisperx_bug_report_cues_are_clean():
    report = degen.scan(FIXTURES / "wild" / "clean" / "en_whisperx_539_highlight.srt")
    assert not report.findings


def test_a_line_said_once_word_by_word_is_no_loop_and_not_too_fast():
    assert kinds(highlighted(LINE)) == []
    font = highlighted(LINE, open_tag='<font color="#00ff00">', close_tag="</font>")  # stable-ts
    assert kinds(font) == []


def test_a_decoder_saying_the_line_again_and_again_is_still_a_loop():
    found = degen.scan_text(highlighted(LINE, times=6), format="srt").flagged
    assert "segment_loop" in [f.kind for f in found]


def test_words_timed_faster_than_speech_are_still_too_dense():
    assert "rate" in kinds(highlighted(LINE, word_seconds=0.01, gap=0.0))


def test_the_same_cues_without_highlighting_stay_a_loop():
    plain = highlighted(LINE).replace("<u>", "").replace("</u>", "")
    assert set(kinds(plain)) & {"segment_loop", "rate"}


def test_cues_that_differ_in_more_than_highlighting_are_not_one_line():
    assert sayings(["a <u>b</u> c", "a b d"]) is None
    assert sayings(["a b c", "a b c"]) is None  # nothing highlighted: not this presentation


@settings(max_examples=60, deadline=None, derandomize=True)
@given(words=st.integers(2, 9), times=st.integers(1, 5), gaps=st.booleans())
def test_sayings_counts_each_pass_of_the_highlight(words, times, gaps):
    line = [f"w{k}" for k in range(words)]
    cues = []
    for _ in range(times):
        for k in range(words):
            if gaps:
                cues.append(" ".join(line))
            cues.append(" ".join(line[:k] + [f"<u>{line[k]}</u>"] + line[k + 1:]))
    found = sayings(cues)
    assert found is not None and len(found) == times
    assert all(count == words for _, _, count in found)
    assert found[0][0] == 0 and found[-1][1] == len(cues) - 1
