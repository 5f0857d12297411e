"""Repeated speech in the audio, and the pieces step that keeps its count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.model import Segment, Span
from degen.repair.audio import Audio, encode
from degen.repair.pieces import Part, joined, name, parts, whole_copies
from degen.repair.recurrence import Repetition, find_repetition
from degen.repair.journal import JournalEntry
from degen.repair.send import Sent

from ..conftest import FIXTURES

RATE = 16000
AUDIO = FIXTURES / "audio"


# (F1, F2) of i, e, ae, a, o, u, schwa, y: a language's usual vowels
VOWELS = [(280, 2250), (450, 1950), (680, 1750), (750, 1250), (480, 850), (320, 800), (500, 1450), (300, 1700)]
CONSONANTS = [600, 1800, 3500, 5000]  # where a consonant's noise burst is loudest (b, k, sh, s)


def syllable(seconds: float, pitch: float, vowel: tuple[int, int], consonant: int, rng) -> np.ndarray:
    """A consonant and a vowel: a short noise burst around ``consonant`` Hz, then a voiced
    harmonic tone whose two formants glide from near the burst to the vowel's own, rising
    and falling in level (speech's spectrum changes within a syllable)."""
    burst = rng.normal(0, 1, int(0.04 * RATE))
    spectrum = np.fft.rfft(burst)
    freqs = np.fft.rfftfreq(burst.size, 1 / RATE)
    burst = np.fft.irfft(spectrum * np.exp(-((freqs - consonant) / 700.0) ** 2), burst.size) * 0.4
    t = np.arange(int(seconds * RATE)) / RATE
    glide = np.minimum(1.0, t / (0.4 * seconds))
    f1 = 250 + (vowel[0] - 250) * glide
    f2 = consonant + (vowel[1] - consonant) * glide
    wave = sum(np.sin(2 * np.pi * pitch * k * t) / k * (np.exp(-((pitch * k - f1) / 150.0) ** 2)
                                                      + 0.6 * np.exp(-((pitch * k - f2) / 200.0) ** 2))
               for k in range(1, 40))
    shape = np.sin(np.pi * np.linspace(0, 1, t.size)) ** 0.6
    return np.concatenate([burst * np.abs(wave).max(), wave * shape]) + rng.normal(0, 0.002, burst.size + t.size)


def render(pieces) -> np.ndarray:
    audio = np.concatenate([np.zeros(int(0.3 * RATE)), *pieces, np.zeros(int(0.3 * RATE))])
    return (audio / np.abs(audio).max() * 12000).astype(np.int16)


def said(copies: int, seconds: float = 0.25, seed: int = 0) -> np.ndarray:
    """One syllable said ``copies`` times, with the small variation of a real speaker."""
    rng = np.random.default_rng(seed)
    vowel, consonant = VOWELS[seed % len(VOWELS)], CONSONANTS[seed % len(CONSONANTS)]
    return render(syllable(seconds * rng.uniform(0.9, 1.1), 140 * rng.uniform(0.97, 1.03), vowel, consonant, rng)
                  for _ in range(copies))


def sentence(syllables: int, seed: int = 0) -> np.ndarray:
    """Ordinary speech: every syllable another consonant and vowel than the one before,
    another pitch and length."""
    rng = np.random.default_rng(seed)
    out, last = [], None
    for _ in range(syllables):
        last = rng.choice([k for k in range(len(VOWELS)) if k != last])
        out.append(syllable(rng.uniform(0.12, 0.4), rng.uniform(100, 220), VOWELS[last],
                            CONSONANTS[rng.integers(len(CONSONANTS))], rng))
    return render(out)


@settings(max_examples=25, deadline=None)
@given(copies=st.integers(5, 16), seconds=st.floats(0.18, 0.45), seed=st.integers(0, 1000))
def test_a_word_said_again_and_again_is_counted(copies, seconds, seed):
    found = find_repetition(said(copies, seconds, seed), RATE)
    assert found is not None
    assert abs(found.copies - copies) <= 1
    assert len(found.cuts) == found.copies - 1 and list(found.cuts) == sorted(found.cuts)


@pytest.mark.slow
def test_ordinary_speech_is_rarely_a_repetition():
    # A sentence whose same vowel and a like consonant come back every other syllable at
    # an even pace can chain as a word said again (1 of 792 seeds of 6 to 40 syllables):
    # bounded as a rate, not asserted never. A false find costs one pass of pieces whose
    # answers do not agree on a word, never text.
    found = [(n, seed) for n in range(6, 41, 4) for seed in range(0, 400, 20)
             if find_repetition(sentence(n, seed), RATE) is not None]
    assert len(found) <= 2, found


def test_silence_and_noise_are_not_a_repetition():
    assert find_repetition(np.zeros(RATE * 3, dtype=np.int16), RATE) is None
    noise = np.random.default_rng(1).integers(-3000, 3000, RATE * 3).astype(np.int16)
    assert find_repetition(noise, RATE) is None


@pytest.mark.parametrize("name_, said_", [("wait_x10", 10), ("right_x12", 12), ("no_x15", 15), ("de_ja", 12)])
def test_recorded_repetitions_are_found_with_about_their_count(name_, said_):
    audio = Audio.open(AUDIO / f"{name_}.wav")
    found = find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate)
    assert found is not None and 0.75 * said_ <= found.copies <= said_


@pytest.mark.parametrize("name_, said_", [("zh_jiushi", 10), ("zh_ranhou", 10), ("zh_meeting", 12)])
def test_recorded_two_syllable_words_are_found_whole(name_, said_):
    # A copy is the whole word: 就 and 是 are different sounds, and a frame of 就 recurs
    # only in the next 就.
    audio = Audio.open(AUDIO / f"{name_}.wav")
    found = find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate)
    assert found is not None and 0.85 * said_ <= found.copies <= 1.1 * said_


@pytest.mark.parametrize("name_", ["clean_a", "clean_b"])
def test_recorded_sentences_are_not_a_repetition(name_):
    audio = Audio.open(AUDIO / f"{name_}.wav")
    assert find_repetition(audio.read(Span(0, audio.duration)), audio.sample_rate) is None


def test_pieces_cover_the_stretch_one_copy_each():
    rep = Repetition(1.0, 3.0, 4, (1.5, 2.0, 2.5))
    assert rep.pieces() == [(1.0, 1.5), (1.5, 2.0), (2.0, 2.5), (2.5, 3.0)]
    got = parts(Span(0.0, 4.0), rep)
    assert [p.piece for p in got] == [False, True, True, True, True, False]
    assert got[0].span == Span(0.0, 1.0) and got[-1].span == Span(3.0, 4.0)


def test_a_name_needs_the_pieces_agreement():
    assert name(["way.", "way.", "way.", "way.", "way.", "way."], ("Wait,",)).word == "Wait"  # a clipped stop
    named = name(["No.", "Go.", "No.", "No.", "No.", "No.", "No.", "No.", "No."], ("Go,",))
    assert named.word == "No" and (named.said, named.of) == (8, 9)
    assert name(["好人", "后阳", "后面", "好人", "库人"], ("然后",)) is None
    assert name(["然後", "然後", "然后", "然後"], ("然后",)).word == "然后"  # either script says it
    # a clipped copy loses the end of its last word, never a whole word: "you go" is another answer
    assert name(["you go.", "you go.", "You know.", "you go."], ("you know",)).word == "you go"
    assert name(["You kn", "You know.", "You know.", "you go."], ("you know",)).said == 3


def test_a_cjk_piece_is_named_by_what_it_says_not_by_the_loop():
    # One character is a syllable of its own, never the loop's word with its end clipped:
    # pieces that each say 谢 are one 谢 each (谢谢 x6 said as twelve pieces), never 谢谢.
    named = name(["谢"] * 12, ("谢谢",))
    assert named.word == "谢" and named.said == 12


def test_two_spellings_of_one_word_are_one_vote():
    # tiny.en wrote "Alright" for 9 pieces of "all right" x15 and "All right" for 6: one
    # word said, which no single spelling held a majority of
    named = name(["Alright."] * 9 + ["All right."] * 6, ("All right,",))
    assert named is not None and named.word == "All right" and named.said == 15
    named = name(["Voila."] * 5 + ["Voilà."] * 4, ())
    assert named is not None and named.said == 9
    # a mark is a letter of its own outside Latin script: が is not か
    assert name(["が"] * 3 + ["か"] * 3, ()) is None
    # one Japanese word in either kana
    named = name(["ソウ"] * 3 + ["そう"] * 4, ("ソウ",))
    assert named is not None and named.word == "ソウ" and named.said == 7


def _sent(text: str, span: Span) -> Sent:
    return Sent(JournalEntry("0.000-1.000", 0, (span.start, span.end), {}, "http://server",
                             body=f"[0.00][S01]{text}[{span.duration:.2f}]", format="json"))


def test_joined_answer_keeps_one_copy_per_piece_and_the_text_around():
    clip = Span(10.0, 14.0)
    rep = Repetition(11.0, 13.0, 4, (11.5, 12.0, 12.5))
    texts = ["Before it.", "No.", "No.", "No.", "No, no, no, no.", "After it."]
    sents = [(p, _sent(t, p.span)) for p, t in zip(parts(clip, rep), texts)]
    body, named = joined(clip, sents, ("Go,",))
    answer = degen.read_text(body)
    assert [s.text for s in answer][0] == "Before it." and [s.text for s in answer][-1] == "After it."
    middle = answer[1]
    assert middle.text.lower().count("no") == 4 and "go" not in middle.text.lower()  # the count is the audio's
    assert abs(middle.span.start - 1.0) < 0.01 and abs(middle.span.end - 3.0) < 0.01  # relative to the clip
    assert (named.said, named.of, named.copies) == (3, 4, 7) and "of 4 pieces" in named.why  # the last said it 4 times


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


def test_pieces_that_each_say_the_word_once_confirm_the_count(tmp_path):
    """The recurrence counts the copies and cuts between them; every piece, decoded alone,
    saying the word exactly once is the decoder's word on every cut: two lines, though
    every whole answer would loop."""
    wav, looping, seconds = _wait_file(tmp_path)
    decoder = _Decoder()
    result = degen.fix(looping, audio=wav, transcriber=decoder, concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "repaired", outcome.reason
    assert "the audio's recurrence" in outcome.reason and "the pieces (10 times in 10)" in outcome.reason
    assert " ".join(s.text for s in result.transcript).lower().count("wait") == 10
    assert all(c < 1.0 for c in decoder.clips)  # no whole request: it would have looped
    assert result.seconds_decoded <= result.audio_seconds + 1e-6  # the decode budget holds


class _Saying(_Decoder):
    """Says ``words`` for every piece (a short clip), loops on anything longer."""

    def __init__(self, words: str):
        super().__init__()
        self.words = words

    def transcribe(self, request):
        answer = super().transcribe(request)
        answer.text = answer.text.replace("Wait. ", f"{self.words} ").replace("Wait.", self.words)
        return answer


def test_a_loop_of_two_words_is_repaired_with_its_words(tmp_path):
    """The input's loop names the unit as written, "you know", never as a folded key
    ("youknow", no word of any language), both when it witnesses the pieces' word and when
    the pieces are written with its name."""
    wav, looping, seconds = _wait_file(tmp_path)
    looping.write_text('{"text": "[0.00][S01]' + "You know " * 112 + f'[{seconds:.2f}]"}}')
    result = degen.fix(looping, audio=wav, transcriber=_Saying("You know."), concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "repaired", outcome.reason
    assert "the input's loop" in outcome.reason
    text = " ".join(s.text for s in result.transcript).lower()
    assert text.count("you know") == 10 and "youknow" not in text


class _Mishearing(_Decoder):
    """Says ``instead`` for every ``every``-th piece: "Wait, wait." as a decoder does for
    a piece that holds two copies, or another word, as tiny.en said "go" for 9 of 15
    pieces of "no" (and the input's own loop said "go")."""

    def __init__(self, every: int, instead: str):
        super().__init__()
        self.every, self.instead = every, instead

    def transcribe(self, request):
        answer = super().transcribe(request)
        if len(self.clips) % self.every == 0 and "Wait." in answer.text:
            answer.text = answer.text.replace("Wait.", self.instead)
        return answer


def test_pieces_that_do_not_each_say_the_word_once_are_no_line(tmp_path):
    """Half the pieces said the word twice: the decoder counts half as many again as the
    recurrence cut, a line against the count, and where every whole answer loops the span
    is unresolved, the input kept."""
    wav, looping, seconds = _wait_file(tmp_path)
    result = degen.fix(looping, audio=wav, transcriber=_Mishearing(2, "Wait, wait."), concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "unresolved" and outcome.placed is None
    assert " ".join(s.text for s in result.transcript).lower().count("wait") == 112  # kept as it was
    first = outcome.attempts[0].to_dict()
    assert first["pieces"] and not first["accepted"]
    assert result.seconds_decoded <= result.audio_seconds + 1e-6


def test_pieces_that_name_the_word_in_only_some_copies_contest_the_count(tmp_path):
    """Pieces that say the word fewer times than the recurrence cut it: the others said
    something else, maybe the word really said. The count is in doubt, never confirmed."""
    wav, looping, seconds = _wait_file(tmp_path)
    result = degen.fix(looping, audio=wav, transcriber=_Mishearing(3, "Weight."), concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "unresolved" and outcome.placed is None
    assert " ".join(s.text for s in result.transcript).lower().count("wait") == 112  # kept as it was


def test_a_sentence_written_over_a_sliver_of_sound_is_left_out():
    """The part after the stretch holds 0.2 s of sound (the last copy's tail): an answer of
    five words there is made up (Whisper base wrote "Ich bin jetzt bei der" after German
    "ja" x12), while a sentence over the time it needs is kept."""
    clip = Span(10.0, 14.0)
    rep = Repetition(11.0, 13.0, 4, (11.5, 12.0, 12.5))
    texts = ["Before it.", "Ja.", "Ja.", "Ja.", "Ja.", "Ich bin jetzt bei der."]
    sents = [(p, _sent(t, p.span)) for p, t in zip(parts(clip, rep), texts)]
    sliver = lambda span: 0.2 if span.start >= 13.0 else span.duration  # noqa: E731
    body, _ = joined(clip, sents, ("ja",), sliver)
    text = " ".join(s.text for s in degen.read_text(body))
    assert "Ich bin" not in text and text.lower().count("ja") == 4
    assert text.startswith("Before it.")  # the part before holds the time its words need
    body, _ = joined(clip, sents, ("ja",), lambda span: span.duration)
    assert "Ich bin jetzt bei der" in body


def test_edge_pieces_cut_into_a_copy_have_no_vote():
    """The outer bounds can cut into a copy (a first piece of 0.16 s where the copies last
    0.35 s, Whisper base said "Ja." for half a "danke"; a last one that runs into the next
    sentence): such a piece is no hearing of one copy. It neither names the word nor
    counts against it; the recurrence's copy stands there."""
    assert whole_copies([0.16, 0.35, 0.34, 0.36, 0.56]) == [False, True, True, True, False]
    assert whole_copies([0.30, 0.35, 0.34, 0.36, 0.40]) == [True] * 5  # a copy's own spread
    assert whole_copies([0.16, 0.35]) == [True, True]  # no inner piece to measure by
    clip = Span(0.0, 2.5)
    rep = Repetition(0.2, 2.35, 6, (0.36, 0.71, 1.05, 1.40, 1.75))
    texts = ["Ja.", "Danke.", "Danke.", "Danke.", "Danke.", "und dann können wir das mal sehen."]
    sents = [(p, _sent(t, p.span)) for p, t in zip(parts(clip, rep), texts)]
    body, named = joined(clip, sents, ("danke",))
    assert named.word == "danke" and (named.said, named.of, named.copies) == (4, 6, 6)
    assert "2 at the edges" in named.why
    assert " ".join(s.text for s in degen.read_text(body)).lower().count("danke") == 6
    # without that rule the same answers contest the count: 4 of 6
    assert name(texts, ("danke",)).copies == 4


def test_a_piece_cut_right_that_says_something_else_is_doubt_not_silence():
    """Whisper base wrote "un poco de agua y no..." for 0.3 s of "bueno": the piece held a
    whole copy and the decoder did not hear it as the word. That is doubt about the word
    the count stands on (the pieces' line contests it), not a piece without a say."""
    clip = Span(0.0, 2.0)
    rep = Repetition(0.0, 2.0, 6, (0.33, 0.67, 1.0, 1.33, 1.67))
    texts = ["Bueno.", "un poco de agua y no...", "Bueno.", "Bueno.", "Bueno.", "Bueno."]
    sents = [(p, _sent(t, p.span)) for p, t in zip(parts(clip, rep), texts)]
    body, named = joined(clip, sents, ("bueno",), lambda span: span.duration)
    assert named.word == "bueno" and (named.said, named.of, named.copies) == (5, 6, 5)
    assert "agua" not in body


def test_pieces_mostly_unheard_name_nothing():
    texts = ["Ja.", "Danke.", "Danke.", "Danke."]
    assert name(texts, ("danke",), [False, True, False, False]) is None
    assert name(texts, ("danke",), [False, True, True, True]).word == "danke"


def test_a_kana_word_is_a_unit_people_repeat():
    """A kana is a mora, about half a Mandarin syllable: ありがとう (five kana) said twelve
    times is a word said again, claimed and judged by its count, as 然后 x10 is; a clause
    of ten kana is not a unit people repeat."""
    from degen.repair.evidence import EvidenceConfig, claims, unit_size
    evidence = EvidenceConfig()
    assert claims("ありがとう" * 12 + " おはようございます", evidence) == (("ありがとう", 12),)
    assert claims("然后" * 10, evidence) == (("然后", 10),)
    assert unit_size("ありがとう") < unit_size("ありがとうございます") and \
        not claims("ありがとうございます" * 3, evidence)


def test_a_word_written_as_one_unit_again_and_again_is_a_repetition():
    """Whisper base wrote "Boubouboubouboubou" for French "bon" x8: one word to the eye, a
    unit said six times to the judge, whose count needs confirming like any other (it was
    accepted as "no repetition to count", exit 0)."""
    from degen.repair.evidence import EvidenceConfig, claims, unit_key
    evidence = EvidenceConfig()
    assert claims("Le client. Boubouboubouboubou, le client.", evidence) == (("bou", 6),)
    assert unit_key("waitwaitwait") == "wait wait wait"
    assert not claims("Mississippi et bonbon", evidence)  # no unit three times over


def test_a_repetition_the_audio_counts_is_speech_whatever_its_length():
    """A unit longer than people usually repeat, written as often as the audio's recurrence
    counts it and at a rate a speaker holds, is speech; the same text is a loop without the
    audio's count, or with another."""
    from degen.model import Segment, Transcript
    from degen.repair.evidence import Problem, judge
    answer = Transcript((Segment(Span(0.0, 9.0), "S01", "ありがとうございます" * 8),), "moss")
    assert Problem.LOOP in judge(answer, 9.0, voiced=8.5).problems
    assert Problem.LOOP in judge(answer, 9.0, voiced=8.5, recurs=16).problems
    assert Problem.LOOP not in judge(answer, 9.0, voiced=8.5, recurs=8).problems


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


def test_a_whole_answer_that_agrees_with_the_recurrence_is_confirmed(tmp_path):
    wav, looping, seconds = _wait_file(tmp_path)
    from degen.repair.policy import Policy, parse_schedule
    decoder = _Counting()
    result = degen.fix(looping, audio=wav, transcriber=decoder, concurrency=1,
                       policy=Policy(steps=parse_schedule("0.1/p1.1,0.1+pieces")))
    (outcome,) = result.outcomes
    assert outcome.status == "repaired" and "the audio's recurrence" in outcome.reason
    assert "and attempt 1," in outcome.reason
    assert 9 <= " ".join(s.text for s in result.transcript).lower().count("wait") <= 11
    assert len(decoder.clips) == 1  # one whole request: the recurrence was the second line


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
    assert resumed.outcomes[0].status == "repaired"  # every piece said the word once
    assert len(second.clips) == len(first.clips) - done  # only the part that failed is sent again
    assert 9 <= " ".join(s.text for s in resumed.transcript).lower().count("wait") <= 11



def test_the_input_loop_names_the_word_in_another_spelling():
    from degen.repair.decide import Tried, namers
    from degen.repair.evidence import EvidenceConfig, Verdict
    from degen.repair.policy import Step
    from degen.repair.result import Attempt
    from degen.repair.splice import Placed
    said = Placed((Segment(Span(0, 6), "S01", ", ".join(["Alright"] * 12)),), ())
    attempt = Attempt(Step(0.1), Span(0, 6), "http://s", 64, Verdict(True, 0.0, "clean"))
    tried = (Tried(1, attempt, said, ""),)
    assert namers(tried, "alright", ("All right",), EvidenceConfig()) == ["the input's loop", "attempt 1"]
    assert namers(tried, "alright", ("All night",), EvidenceConfig()) == ["attempt 1"]
    assert namers(tried, "voilà", ("Voila",), EvidenceConfig()) == ["the input's loop"]
    assert namers(tried, "そう", ("ソウ",), EvidenceConfig()) == ["the input's loop"]


# ---- the phase at which the copies are cut ----------------------------------------------

def test_a_second_dip_inside_the_copies_is_their_other_phase():
    from degen.repair.recurrence import other_phase
    frames = np.arange(200)
    copy = 20  # frames a copy; the deepest dip at the bounds, a shallower one half way
    two_syllables = -10 * np.cos(2 * np.pi * frames / copy) ** 2 - 20 * (frames % copy == 0)
    assert abs(other_phase(list(range(0, 201, copy)), two_syllables) - 0.5) <= 0.05
    one_syllable = -30 * np.cos(np.pi * (frames % copy) / copy) ** 2  # only falls towards the bounds
    assert other_phase(list(range(0, 201, copy)), one_syllable) is None


def test_copies_cut_at_their_other_phase_keep_their_count_and_stay_in_the_clip():
    rep = Repetition(1.0, 3.0, 4, (1.5, 2.0, 2.5), other_phase=0.5)
    moved = rep.rephased(0.0, 3.1)
    assert moved.copies == 4 and moved.start == pytest.approx(1.25) and moved.cuts == pytest.approx((1.75, 2.25, 2.75))
    assert moved.end == pytest.approx(3.1)  # the last copy runs on to the clip's end, no further
    back = Repetition(1.0, 3.0, 4, (1.5, 2.0, 2.5), other_phase=0.8).rephased(0.0, 4.0)
    assert back.start == pytest.approx(0.9) and back.end == pytest.approx(2.9)  # the shorter way: back a fifth
    assert Repetition(1.0, 3.0, 4, (1.5, 2.0, 2.5)).rephased(0.0, 4.0) is None


def _probing(answers: dict[str, str]):
    """``one`` for ``pieces._phase``: the answer by key tag ("" the cuts found, "r" the
    other phase), and the requests made."""
    asked = []

    def one(tag, k, part):
        asked.append((tag, k))
        return _sent(answers[tag], part.span)
    return one, asked


def test_pieces_cut_inside_the_word_are_cut_again_at_its_other_phase():
    from degen.repair.pieces import _phase
    clip, rep = Span(0.0, 4.0), Repetition(0.5, 3.5, 6, (1.0, 1.5, 2.0, 2.5, 3.0), other_phase=0.5)
    one, asked = _probing({"": "6, 2, 1", "r": "20."})  # German "zwanzig" cut between its syllables
    tag, todo, done, spare = _phase(clip, rep, ("20,",), None, one)
    assert tag == "r" and [p.span.start for p in todo if p.piece][0] == pytest.approx(0.75)
    assert list(done) == [asked[1][1]] and len(spare) == 1  # the middle piece cut again is kept, one request spare
    assert len(asked) == 2


def test_pieces_that_say_the_unit_keep_their_cuts_and_cost_nothing_more():
    from degen.repair.pieces import _phase
    clip, rep = Span(0.0, 4.0), Repetition(0.5, 3.5, 6, (1.0, 1.5, 2.0, 2.5, 3.0), other_phase=0.5)
    one, asked = _probing({"": "20.", "r": "20."})
    tag, todo, done, spare = _phase(clip, rep, ("20,",), None, one)
    assert (tag, spare, len(asked)) == ("", [], 1) and todo == parts(clip, rep)
    # neither phase says the unit: the cuts found stand, one request spare
    one, asked = _probing({"": "6, 2, 1", "r": "Sich zu man"})
    tag, todo, done, spare = _phase(clip, rep, ("20,",), None, one)
    assert tag == "" and todo == parts(clip, rep) and len(spare) == 1 and list(done) == [asked[0][1]]
    # without the input's unit, or another phase, nothing is probed
    for units, r in (((), rep), (("20,",), Repetition(0.5, 3.5, 6, (1.0, 1.5, 2.0, 2.5, 3.0)))):
        one, asked = _probing({"": "6, 2, 1", "r": "20."})
        assert _phase(clip, r, units, None, one) == ("", parts(clip, r), {}, []) and not asked


def test_a_syllable_of_the_copy_before_does_not_hide_the_unit():
    # cut before the t of "right", every piece after the first hears it as a word before the unit
    texts = ["All right."] + ["It's all right.", "So alright."] * 7
    named = name(texts, ("all right",))
    assert named is not None and (named.word, named.said, named.copies) == ("all right", 15, 15)


def test_a_lead_in_every_piece_is_part_of_what_was_said():
    # the first piece has no copy before it: said there too, "It's" is a word of the phrase
    named = name(["It's all right."] * 15, ("all right",))
    assert named is not None and named.word == "It's all right"
    # and a lead as long as the unit is no syllable of the copy before
    assert name(["All right."] + ["Very well, all right."] * 9, ("all right",)).word == "Very well, all right"
