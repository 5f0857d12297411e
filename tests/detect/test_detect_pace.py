"""Pace as evidence against a loop: a syllable said a few times in a cue or two held
long (a goodbye before the outro music) is speech; the same syllable one copy a window
over many windows of silence is a decoder's loop."""

from __future__ import annotations

from degen.detect import analyze
from degen.formats import loads


def _srt(cues):
    blocks = []
    for n, (start, end, text) in enumerate(cues, 1):
        stamp = lambda s: f"00:{int(s) // 60:02d}:{int(s) % 60:02d},{int(round(s % 1 * 1000)):03d}"
        blocks.append(f"{n}\n{stamp(start)} --> {stamp(end)}\n{text}\n")
    return "\n".join(blocks)


def _loops(text):
    return [f for f in analyze(loads(text, "srt")).findings if f.kind.is_loop and f.severity.rank >= 2]


def test_a_goodbye_held_over_a_long_last_cue_is_speech():
    text = _srt([(0.0, 4.0, "今天就聊到这里"), (4.0, 7.0, "OK好谢谢拜拜"), (7.0, 27.0, "拜拜")])
    assert _loops(text) == []


def test_one_syllable_a_window_over_silence_is_still_a_loop():
    text = _srt([(0.0, 4.0, "今天就聊到这里")] + [(4.0 + 30 * k, 34.0 + 30 * k, "嗯") for k in range(6)])
    assert _loops(text), "six 30 s windows of one syllable"
