"""Loop detection over windows of segments (degen.detect.windows.stream_loops) gives
exactly the whole-stream analysis, loops across window edges included."""

import json
import random

import pytest

import degen
from degen.detect import windows
from degen.formats import loads

FIXTURES = sorted(p for p in (__import__("pathlib").Path(__file__).resolve().parents[2] / "fixtures" / "shapes").rglob("*.json") if p.name != "expect.json")


def _analyses(transcript, window: int, context: int):
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(windows, "SMALLEST", 1 << 40)
        whole = degen.analyze(transcript)
        mp.setattr(windows, "SMALLEST", 0)
        mp.setattr(windows, "WINDOW", window)
        mp.setattr(windows, "CONTEXT", context)
        mp.setattr(windows, "LARGEST", 1 << 40)
        texts = transcript.columns().texts
        assert windows.stream_loops(transcript, degen.DEFAULT).windows == len(list(windows.cores(texts)))  # windows were used
        return whole, degen.analyze(transcript)
    finally:
        mp.undo()


def _markup(seed: int) -> str:
    """Three speakers taking turns, with loops planted inside segments, across several
    segments (longer than a window) and in one speaker's turns only."""
    rng = random.Random(seed)
    words = "we should look at the numbers again before the release because latency matters".split()
    parts, t = [], 0.0
    for i in range(120):
        speaker = f"S0{1 + i % 3}"
        text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 8))) + "."
        if i % 37 == 5:
            text = "的" * rng.randint(20, 90)
        elif 40 <= i < 52:  # a clause cut across segments: one loop over many windows
            text = "the committee will now vote on the amended budget proposal "[(i * 11) % 23:] * 2
        elif i % 3 == 1 and 70 <= i < 100:  # one speaker's loop, interrupted by the others
            text = "let us plan the work."
        parts.append(f"[{t:.2f}][{speaker}]{text}[{t + 2.5:.2f}]")
        t += 3.0
    return "".join(parts)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window,context", [(40, 1), (150, 2), (600, 256)])
def test_windows_find_what_the_whole_streams_find(seed, window, context):
    transcript = loads(_markup(seed))
    whole, by_window = _analyses(transcript, window, context)
    assert any(f.is_loop for f in whole.findings)  # something planted was found
    assert by_window == whole


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_windows_match(path):
    transcript = degen.read(path)
    if not len(transcript):
        pytest.skip("no text to window")
    whole, by_window = _analyses(transcript, 30, 1)
    assert by_window == whole


def test_a_window_that_cannot_see_far_enough_misses_the_loop(monkeypatch):
    """Without widening, a clause cycled over many segments is lost: the test above can fail."""
    transcript = loads(_markup(1))
    monkeypatch.setattr(windows, "_periodic_tail", lambda tail, max_period: False)
    whole, by_window = _analyses(transcript, 40, 1)
    assert by_window != whole


def _manifest(seed: int) -> str:
    """NeMo-style utterances, some with a loop of their own, and neighbours that together
    look like a loop across utterances (which is none: each is judged alone)."""
    rng = random.Random(seed)
    words = "we should look at the numbers again before the release because latency matters".split()
    lines = []
    for i in range(150):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 9))) + "."
        if i % 29 == 3:
            text = "的" * rng.randint(20, 90)
        elif 60 <= i < 75:  # the same sentence line after line: no loop of any one utterance
            text = "let us plan the work."
        elif i % 41 == 7:
            text = "thank you for watching " * rng.randint(3, 12)
        speaker = {"speaker": rng.choice(["A", "B"])} if seed % 2 else {}
        lines.append(json.dumps({"audio_filepath": f"{i}.wav", "duration": 3.5, "text": text, **speaker}))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window,context", [(40, 1), (300, 4)])
def test_windows_of_independent_utterances_find_what_the_whole_streams_find(seed, window, context):
    transcript = loads(_manifest(seed))
    assert transcript.meta.get("independent")
    whole, by_window = _analyses(transcript, window, context)
    assert any(f.is_loop for f in whole.findings)
    assert by_window == whole
