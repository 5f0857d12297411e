"""Repeated speech in the audio, and the pieces step that keeps its count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.model import Span
from degen.repair.audio import Audio, encode
from degen.repair.pieces import Part, joined, name, parts
from degen.repair.rhythm import Repetition, find_repetition
from degen.repair.journal import JournalEntry
from degen.repair.send import Sent

from ..conftest import FIXTURES

RATE = 16000
AUDIO = FIXTURES / "audio"


def syllable(seconds: float, pitch: float, formant: float, rng) -> np.ndarray:
    """A voiced syllable: a harmonic tone shaped by one formant, rising and falling."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = sum(np.sin(2 * np.pi * pitch * k * t) / k * np.exp(-((pitch * k - formant) / 600.0) ** 2)
               for k in range(1, 30))
    shape = np.sin(np.pi * np.linspace(0, 1, t.size)) ** 0.6
    return wave * shape + rng.normal(0, 0.002, t.size)


def render(pieces) -> np.ndarray:
    audio = np.concatenate([np.zeros(int(0.3 * RATE)), *pieces, np.zeros(int(0.3 * RATE))])
    return (audio / np.abs(audio).max() * 12000).astype(np.int16)


def said(copies: int, seconds: float = 0.25, seed: int = 0) -> np.ndarray:
    """One syllable said ``copies`` times, with the small variation of a real speaker."""
    rng = np.random.default_rng(seed)
    return render(syllable(seconds * rng.uniform(0.9, 1.1), 140 * rng.uniform(0.97, 1.03), 900, rng)
                  for _ in range(copies))


def sentence(syllables: int, seed: int = 0) -> np.ndarray:
    """Ordinary speech: every syllable another vowel than the one before, another pitch
    and length."""
    rng = np.random.default_rng(seed)
    vowels, out, last = [300, 1200, 2800], [], None
    for _ in range(syllables):
        last = rng.choice([v for v in vowels if v != last])
        out.append(syllable(rng.uniform(0.12, 0.4), rng.uniform(100, 220), last, rng))
    return render(out)


@settings(max_examples=25, deadline=None)
@given(copies=st.integers(4, 16), seconds=st.floats(0.18, 0.45), seed=st.integers(0, 1000))
def test_a_word_said_again_and_again_is_counted(copies, seconds, seed):
    found = find_repetition(said(copies, seconds, seed), RATE)
    assert found is not None and found.syllables == 1
    assert abs(found.copies - copies) <= 1
    assert len(found.cuts) == found.copies - 1 and list(found.cuts) == sorted(found.cuts)


@settings(max_examples=25, deadline=None)
@given(syllables=st.integers(6, 40), seed=st.integers(0, 1000))
def test_ordinary_speech_is_not_a_repetition(syllables, seed):
    assert find_repetition(sentence(syllables, seed), RATE) is None


def test_silence_and_noise_are_not_a_repetition():
    assert find_repetition(np.zeros(RATE * 3, dtype=np.int16), RATE) is None
    noise = np.random.default_rng(1).integers(-3000, 3000, RATE * 3).astype(np.int16)
    assert find_repetition(noise, RATE) is None


@pytest.mark.parametrize("name_, said_", [("wait_x10", 10), ("right_x12", 12), ("no_x15", 15), ("de_ja", 12)])
def test_recorded_repetitions_are_found_with_about_their_count(name_, said_):
    audio = Audio.open(AUDIO / f"{name_}.wav")
    found = find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate)
    assert found is not None and 0.75 * said_ <= found.copies <= said_


@pytest.mark.parametrize("name_, said_", [("zh_jiushi", 10), ("zh_ranhou", 10), ("zh_meeting", 10)])
def test_recorded_two_syllable_words_are_found_whole(name_, said_):
    # 就是 x10 ends on a drawn-out 是 with no dip after it, only the file's end: the clip's
    # edge closes it. In zh_meeting a run of 然后 paired from its second syllable ties with
    # the word's own pairing until both are grown. Copies are counted in whole words
    # however the syllables were grouped.
    audio = Audio.open(AUDIO / f"{name_}.wav")
    found = find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate)
    assert found is not None and 0.85 * said_ <= found.copies * found.syllables / 2 <= said_


@pytest.mark.parametrize("name_", ["clean_a", "clean_b"])
def test_recorded_sentences_are_not_a_repetition(name_):
    audio = Audio.open(AUDIO / f"{name_}.wav")
    assert find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate) is None


def test_pieces_cover_the_stretch_one_copy_each():
    rep = Repetition(1.0, 3.0, 4, 1, (1.5, 2.0, 2.5))
    assert rep.pieces() == [(1.0, 1.5), (1.5, 2.0), (2.0, 2.5), (2.5, 3.0)]
    got = parts(Span(0.0, 4.0), rep)
    assert [p.piece for p in got] == [False, True, True, True, True, False]
    assert got[0].span == Span(0.0, 1.0) and got[-1].span == Span(3.0, 4.0)


def test_a_name_needs_the_pieces_agreement():
    assert name(["way.", "way.", "way.", "way.", "way.", "way."], ("Wait,",))[0] == "Wait"  # a clipped stop
    assert name(["No.", "Go.", "No.", "No.", "No.", "No.", "No.", "No.", "No."], ("Go,",))[0] == "No"
    assert name(["好人", "后阳", "后面", "好人", "库人"], ("然后",)) == (None, None)
    assert name(["然後", "然後", "然后", "然後"], ("然后",))[0] == "然后"  # either script says it


def _sent(text: str, span: Span) -> Sent:
    return Sent(JournalEntry("0.000-1.000", 0, (span.start, span.end), {}, "http://server",
                             body=f"[0.00][S01]{text}[{span.duration:.2f}]", format="json"))


def test_joined_answer_keeps_one_copy_per_piece_and_the_text_around():
    clip = Span(10.0, 14.0)
    rep = Repetition(11.0, 13.0, 4, 1, (11.5, 12.0, 12.5))
    texts = ["Before it.", "No.", "No.", "No.", "No, no, no, no.", "After it."]
    sents = [(p, _sent(t, p.span)) for p, t in zip(parts(clip, rep), texts)]
    body, named = joined(clip, sents, ("Go,",))
    answer = degen.read_text(body)
    assert [s.text for s in answer][0] == "Before it." and [s.text for s in answer][-1] == "After it."
    middle = answer[1]
    assert middle.text.lower().count("no") == 4 and "go" not in middle.text.lower()  # the count is the audio's
    assert abs(middle.span.start - 1.0) < 0.01 and abs(middle.span.end - 3.0) < 0.01  # relative to the clip
    assert "4 pieces" in named or "of 4" in named


class _Decoder:
    """Loops on any clip longer than a second (as Whisper did on real repeated speech);
    says the word once for a short clip."""

    def __init__(self):
        self.clips = []

    def transcribe(self, request):
        from types import SimpleNamespace
        from degen.repair.audio import decode
        samples, rate = decode(request.audio)
        seconds = samples.size / rate
        self.clips.append(seconds)
        if np.sqrt(np.mean(samples.astype(float) ** 2)) < 1000:
            text = ""  # silence
        else:
            text = "Wait. " if seconds < 1.0 else "Wait, " * 60
        return SimpleNamespace(text=f"[0.00][S01]{text.strip()}[{seconds:.2f}]", response_format="json",
                               requests_sent=1)


def _wait_file(tmp_path):
    samples = said(10, 0.28, seed=3)
    wav = tmp_path / "wait.wav"
    wav.write_bytes(encode(samples, RATE))
    looping = tmp_path / "wait.json"
    looping.write_text('{"text": "[0.00][S01]' + "Wait, " * 112 + f'[{samples.size / RATE:.2f}]"}}')
    return wav, looping, samples.size / RATE


def test_pieces_alone_do_not_confirm_their_own_count(tmp_path):
    """The pieces say the word once per copy the rhythm cut: their count is the rhythm's,
    one line of evidence. Where every whole answer loops, nothing confirms it: the span
    is unresolved, the input kept, and the pieces' answer named as the best."""
    wav, looping, seconds = _wait_file(tmp_path)
    decoder = _Decoder()
    result = degen.fix(looping, audio=wav, transcriber=decoder, concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "unresolved" and outcome.placed is None
    assert " ".join(s.text for s in result.transcript).lower().count("wait") == 112  # kept as it was
    first = outcome.attempts[0].to_dict()
    assert first["pieces"] and "said by 10 of 10 pieces" in first["pieces_named"] and not first["accepted"]
    best = result.to_dict()["evidence"][0]
    assert best["best_attempt"] == 1 and 9 <= best["best_text"].lower().count("wait") <= 11
    assert result.seconds_decoded <= result.audio_seconds + 1e-6  # the decode budget holds


class _Counting(_Decoder):
    """Says the word once for a short clip, and ten times for a whole one."""

    def transcribe(self, request):
        from types import SimpleNamespace
        from degen.repair.audio import decode
        samples, rate = decode(request.audio)
        seconds = samples.size / rate
        self.clips.append(seconds)
        text = "Wait. " if seconds < 1.0 else "Wait, " * 10
        return SimpleNamespace(text=f"[0.00][S01]{text.strip()}[{seconds:.2f}]", response_format="json",
                               requests_sent=1)


def test_a_whole_answer_that_agrees_with_the_rhythm_is_confirmed(tmp_path):
    wav, looping, seconds = _wait_file(tmp_path)
    from degen.repair.policy import Policy, parse_schedule
    decoder = _Counting()
    result = degen.fix(looping, audio=wav, transcriber=decoder, concurrency=1,
                       policy=Policy(steps=parse_schedule("0.1/p1.1,0.1+pieces")))
    (outcome,) = result.outcomes
    assert outcome.status == "repaired" and "confirmed by the audio's rhythm and attempt 1" in outcome.reason
    assert 9 <= " ".join(s.text for s in result.transcript).lower().count("wait") <= 11
    assert len(decoder.clips) == 1  # one whole request: the rhythm was the second line


def test_the_command_line_default_is_the_library_escalation():
    from degen.cli.repairing import fix as fix_command
    from degen.options import SCHEDULE
    from degen.repair.policy import ESCALATION, Policy, Step, format_schedule
    shown = next(p.default for p in fix_command.params if p.name == "schedule")
    assert shown == SCHEDULE == format_schedule(ESCALATION) and Policy().steps == ESCALATION
    # The escalation the comment above policy.ESCALATION reasons for: pieces first, the penalty, then higher
    # temperatures, then audio before the span.
    assert ESCALATION == (Step(0.1, pieces=True), Step(0.1, 1.1), Step(0.7), Step(0.4, 1.1), Step(0.1),
                          Step(0.7, context=4.0))


def test_dry_run_says_where_the_audio_repeats_a_word():
    from click.testing import CliRunner
    from degen.cli import main
    out = CliRunner().invoke(main, ["fix", str(AUDIO / "wait_x10.tiny_en.greedy.json"), "--audio",
                                    str(AUDIO / "wait_x10.wav"), "--dry-run"])
    assert out.exit_code == 0 and "the audio repeats one word" in out.output
    plain = CliRunner().invoke(main, ["fix", str(AUDIO / "wait_x10.tiny_en.greedy.json"), "--audio",
                                      str(AUDIO / "wait_x10.wav"), "--dry-run", "--temperatures", "0.1,0.7"])
    assert plain.exit_code == 0 and "repeats one word" not in plain.output


class _Failing(_Decoder):
    """Answers like ``_Decoder`` but fails once, on its ``fail_at``-th request."""

    def __init__(self, fail_at: int):
        super().__init__()
        self.fail_at = fail_at

    def transcribe(self, request):
        from degen.errors import ServerError
        if len(self.clips) + 1 == self.fail_at:
            self.clips.append(None)
            raise ServerError("503 from the test", status=503)
        return super().transcribe(request)


def test_an_interrupted_pieces_step_resumes_part_by_part(tmp_path):
    from degen.repair.journal import Journal
    samples = said(10, 0.28, seed=3)
    wav = tmp_path / "wait.wav"
    wav.write_bytes(encode(samples, RATE))
    looping = tmp_path / "wait.json"
    looping.write_text('{"text": "[0.00][S01]' + "Wait, " * 112 + f'[{samples.size / RATE:.2f}]"}}')
    from degen.repair.policy import Policy, Step
    pieces = Policy(steps=(Step(0.1, pieces=True),), accept_best=True)  # its answer kept, to read its count
    journal = Journal(tmp_path / "j.jsonl", "test")
    first = _Failing(fail_at=5)
    broken = degen.fix(looping, audio=wav, transcriber=first, concurrency=1, journal=journal, policy=pieces)
    assert broken.outcomes[0].status == "unresolved" and "server error" in broken.outcomes[0].reason
    done = len([c for c in first.clips if c is not None])
    second = _Decoder()
    resumed = degen.fix(looping, audio=wav, transcriber=second, concurrency=1,
                        journal=Journal(tmp_path / "j.jsonl", "test"), policy=pieces)
    assert resumed.outcomes[0].status == "unconfirmed"  # the pieces' count is the rhythm's alone
    assert len(second.clips) == len(first.clips) - done  # only the part that failed is sent again
    assert 9 <= " ".join(s.text for s in resumed.transcript).lower().count("wait") <= 11


def test_a_cjk_word_is_counted_by_its_syllables():
    from degen.repair.pieces import copies_of
    assert copies_of("就是", 12, 1) == 6 and copies_of("就是", 6, 2) == 6 and copies_of("然后", 5, 4) == 10
    assert copies_of("wait", 10, 1) == 10 and copies_of("okay", 9, 2) == 9  # no syllables from Latin text


def test_cjk_copies_are_regrouped_into_whole_words():
    from degen.repair.pieces import by_words
    rep = Repetition(0.0, 1.3, 13, 1, tuple(k / 10 for k in range(1, 13)))
    words = by_words(rep, "就是")
    assert words.copies == 6 and words.syllables == 2 and words.start == 0.0 and abs(words.end - 1.2) < 1e-9
    assert [round(c, 2) for c in words.cuts] == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert by_words(rep, "wait") is rep and by_words(Repetition(0, 1, 4, 2, (0.25, 0.5, 0.75)), "然后") .copies == 4
