"""Evidence: judge an answer against the audio and the original, not only against loops.

"No loop left" is not "good": an empty answer has no loop, and neither has one that
drops the repeated word and the sentence around it. Every answer is weighed against:

    voiced seconds (VAD)    text too thin for them      -> deletion
                            text too dense for them     -> loop (needs more time than was voiced)
    the original            its clean segments in the clip, missing from the answer -> lost text
    other answers           the same repetition count twice, fitting the voiced time -> speech

Only rates and counts live here; the loop detectors are the scan's own (DetectConfig).
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

import regex
from rapidfuzz import fuzz

from ..detect import DEFAULT, DetectConfig, analyze
from ..detect.tokens import content
from ..detect.script import cjk_count, kana_count, speech_units
from ..model import Span, Transcript
from .language import Language, foreign


@dataclass(frozen=True)
class EvidenceConfig:
    """Thresholds of the repair judge that are not detection thresholds.

    Attributes:
        min_word_rate: words per voiced second below which an answer cannot have filled
            the audio. Slow read speech runs 2 words/s and the energy VAD's hangover adds
            up to a fifth to the voiced time; 0.8 leaves room for long held words.
        min_cjk_rate: the same for CJK graphemes (slow Mandarin runs 3 syllables/s).
        min_voiced_seconds: below this much voiced audio an empty answer may be right
            (a cough, a breath, the hangover after the last word).
        max_unwritten: seconds of voiced audio in one stretch with no text stamped over
            it (the answer's own timestamps) from which the answer left speech out. Pauses
            inside speech are shorter than a second or two; 3 s is a sentence.
        stamp_slack: seconds a fresh decode's timestamps may drift from what they stamp.
        keep_ratio: rapidfuzz partial_ratio (0-100) from which a clean segment of the
            original counts as present in an answer; 80 forgives a word or two a fresh
            decode writes differently, not a sentence dropped.
        max_speech_repeats: the highest count two agreeing answers may confirm as speech.
            People repeat a word on purpose up to x16 ("wait" x10 to x16 in the
            real-model recordings, "no" x11 in real transcripts); loops that close on their
            own run from x12 to x500. Twice the highest natural count seen.
        witness_share: of the clean speech a clip holds around the span (a known
            neighbour, anchors), the share an answer must reproduce to count as a
            transcript of this audio at all. Half: a fresh decode may word a short
            neighbour differently, but an answer for other audio, or nonsense, keeps none.
        witness_ratio: the partial_ratio from which a neighbour counts as reproduced.
            Lower than ``keep_ratio``, because it asks "is this the same audio", not "was
            this text kept": fresh 0.1 decodes of a clean segment's clip by the model that
            wrote it score 67-100 (Whisper base on German it hears poorly: 67-91; tiny.en
            on English: 82-100), while other segments of the same recording, same
            language and speaker, score 35-45 (fixtures/audio, two seeds).
        speech_word_rate: words per voiced second of ordinary speech, from which an
            answer's expected length is read (150-190 words a minute is 2.5-3.2 words/s
            of talk; pauses are not voiced, so voiced time runs a little faster).
        speech_cjk_rate: the same for CJK graphemes (Mandarin runs 4-6 syllables/s).
        slow_word_rate: words per voiced second below which a repetition has lost copies:
            slow read speech runs 2 words/s, and a word said again and again is not said
            slower than read text. An answer that repeats a short unit more slowly is a
            deletion (the model wrote "wait" x5 for x10 in 3.2 s).
        slow_cjk_rate: the same for CJK graphemes (slow Mandarin runs 3 syllables/s).
        fit_band: an answer within this factor of the expected units fits the voiced
            time and is accepted at once; a clean one outside it is held back while the
            schedule runs on, until another clean answer agrees on the amount (a slow or
            fast speaker) or none is left, and the one that fits best is taken. 1.4
            spans 2.1-4.2 words/s. Not a deletion threshold: real conversation runs
            slower (the seed transcript's Mandarin writes 2.3 graphemes per second of
            its audio), so a thin answer costs requests, never the span.
        max_spoken_unit: the longest unit (words, or CJK graphemes) people repeat on
            purpose many times over: "no", "wait", "thank you", 然后, 对不起. A
            sentence said x15 is a loop whatever the time; so is one of 5 words.
        count_tolerance: two lines of evidence on a repetition (the audio's recurrence,
            an answer) agree when their counts differ by at most this share of the larger, or
            by one copy: the recurrence may miss the first or last copy (said louder, trailing
            off). A tenth, as two answers were held to before: wider, and two wrong answers
            of a long run (x18, x21) pass for one count.
        vad: "energy" (numpy, the default) or "silero" (faster-whisper's model).
    """

    min_word_rate: float = 0.8
    min_cjk_rate: float = 1.5
    min_voiced_seconds: float = 1.0
    max_unwritten: float = 3.0
    stamp_slack: float = 1.0
    keep_ratio: float = 80.0
    max_speech_repeats: int = 32
    witness_share: float = 0.5
    witness_ratio: float = 60.0
    speech_word_rate: float = 3.0
    speech_cjk_rate: float = 5.0
    slow_word_rate: float = 2.0
    slow_cjk_rate: float = 3.0
    fit_band: float = 1.4
    max_spoken_unit: int = 4
    count_tolerance: float = 0.1
    vad: str = "energy"


INF = float("inf")

# Problems that make an answer worthless whatever else it fixes: it drops speech, drops
# text the original had right, transcribes other audio, or writes another language.
class Problem(StrEnum):
    """What is wrong with an answer (``Verdict.problems``)."""

    LOOP = "loop"
    CUT = "cut"
    DENSE = "dense"
    DELETION = "deletion"
    LOST = "lost"
    UNRELATED = "unrelated"
    FOREIGN = "foreign"
    UNUSABLE = "unusable"


LOSES_TEXT = frozenset({Problem.DELETION, Problem.LOST, Problem.UNRELATED, Problem.FOREIGN, Problem.UNUSABLE})


@dataclass(frozen=True, slots=True)
class Verdict:
    """How an answer (or the original) reads.

    Attributes:
        clean: nothing wrong was found.
        badness: graphemes inside loops, cut at the cap or beyond what the time holds; 0
            is clean. Infinite for a deletion or lost text: never worth keeping.
        reason: one line.
        problems: kinds found: "loop", "cut", "dense", "deletion", "lost", "unrelated",
            "foreign", "unusable".
        repeats: (unit, count) of every loop found, to compare answers.
        voiced: voiced seconds of the audio the text stands for.
        fit: the answer's speech units over those ordinary speech would write in the
            voiced time (1.0 is a perfect fit); None without voiced time.
        fits: ``fit`` lies within ``fit_band`` (True without voiced time).
    """

    clean: bool
    badness: float
    reason: str
    problems: tuple[Problem, ...] = ()
    repeats: tuple[tuple[str, int], ...] = ()
    voiced: float | None = None
    fit: float | None = None
    fits: bool = True

    @property
    def loses_text(self) -> bool:
        return bool(LOSES_TEXT & set(self.problems))

    def to_dict(self) -> dict:
        return {"clean": self.clean, "badness": round(self.badness, 2) if self.badness != float("inf") else None,
                "reason": self.reason, "problems": list(self.problems),
                "repeats": [{"unit": u, "count": c} for u, c in self.repeats],
                "voiced_seconds": None if self.voiced is None else round(self.voiced, 2),
                "fit": None if self.fit is None else round(self.fit, 2)}


def density(text: str, config: DetectConfig, evidence: EvidenceConfig) -> tuple[int, float, float]:
    """(units, fastest rate, slowest rate): speech units as detection counts them (CJK
    graphemes when the text is CJK, else words), so repair and scan share one rule."""
    units, cjk = speech_units(text)
    if cjk:
        return units, config.max_cjk_rate, evidence.min_cjk_rate
    return units, config.max_word_rate, evidence.min_word_rate


def judge(transcript: Transcript, seconds: float, config: DetectConfig = DEFAULT,
          evidence: EvidenceConfig = EvidenceConfig(), voiced: float | None = None,
          required: tuple[str, ...] = (), witnesses: tuple[str, ...] = (), unwritten: float = 0.0,
          least_units: int = 0, language: "Language | None" = None, recurs: int = 0) -> Verdict:
    """Judge text that stands for ``seconds`` of audio, ``voiced`` of them voiced.

    ``required`` are texts the answer must keep, every one; ``witnesses`` clean speech
    around the span that the clip holds, of which it must reproduce ``witness_share``;
    ``unwritten`` the longest voiced stretch no segment of the answer is stamped over;
    ``least_units`` the copies of one word the audio repeats (``recurrence``): each is a word
    or a syllable at least, so fewer units written is a deletion whatever the rate says;
    ``language`` the run's pinned language, which the answer must be written in;
    ``recurs`` the copies of one unit the audio of the clip repeats (``spoken``).
    Without ``voiced`` only the loop detectors and the density over ``seconds`` speak
    (how the original is judged).
    """
    problems, reasons, badness = [], [], 0.0
    text = "".join(s.text for s in transcript) if transcript.segments else ""
    units, fastest, slowest = density(text, config, evidence)
    spoken_units, expected = amount(text, voiced, evidence)
    unclosed = [s for s in transcript if not s.closed]
    analysis = analyze(transcript, config)
    loops = [f for f in analysis.findings if f.is_loop and f.at_least(config.fail_on)]
    repeats = tuple((folded(f.unit or ""), int(f.count or 0)) for f in loops)
    if loops and not unclosed and spoken(loops, units, (slowest, fastest), voiced, evidence, config, recurs):
        reasons += [f"{f.unit} x{f.count} fits {voiced:.1f}s of voiced audio: speech" for f in loops[:2]]
    elif loops:
        problems.append(Problem.LOOP)
        badness += float(sum(f.covered for f in loops))
        reasons += [f"{f.kind} {f.unit} x{f.count}" for f in loops[:2]]
    if unclosed:
        problems.append(Problem.CUT)
        badness += sum(len(content(s.text)) for s in unclosed)
        reasons.append("cut at the token cap")
    room = max(seconds if voiced is None else voiced, config.rate_min_seconds)
    if units >= config.rate_min_units and units > fastest * room:
        problems.append(Problem.DENSE)
        badness += units - fastest * room
        reasons.append(f"needs more time than was voiced ({units} units in {room:.1f}s)")
    if voiced is not None and voiced >= evidence.min_voiced_seconds and (
            units < slowest * voiced):
        problems.append(Problem.DELETION)
        reasons.append(f"too little text for {voiced:.1f}s of voiced audio ({units} units, "
                       f"ordinary speech writes {expected:.0f})")
    copies = repeated(text, evidence)
    if expected and voiced >= evidence.min_voiced_seconds and copies and Problem.DELETION not in problems and \
            spoken_units < voiced * (evidence.slow_cjk_rate if speech_units(text)[1] else evidence.slow_word_rate):
        problems.append(Problem.DELETION)
        reasons.append(f"a repetition too thin for {voiced:.1f}s of voiced audio ({spoken_units} units "
                       f"written, slow speech writes more): copies dropped")
    if spoken_units < least_units and Problem.DELETION not in problems:
        problems.append(Problem.DELETION)
        reasons.append(f"{spoken_units} units written where the audio repeats a word {least_units} times")
    if unwritten >= evidence.max_unwritten and Problem.DELETION not in problems:
        problems.append(Problem.DELETION)
        reasons.append(f"{unwritten:.1f}s of voiced audio with no text")
    lost = missing(required, text, evidence)
    if lost:
        problems.append(Problem.LOST)
        reasons.append(f"drops {len(lost)} segment{'s' if len(lost) != 1 else ''} the original had right "
                       f"({lost[0][:30]!r})")
    absent = missing(witnesses, text, evidence, evidence.witness_ratio)
    if witnesses and len(absent) > (1 - evidence.witness_share) * len(witnesses):
        problems.append(Problem.UNRELATED)
        reasons.append(f"does not reproduce the clean speech around the span ({len(absent)} of "
                       f"{len(witnesses)} missing): not a transcript of this audio")
    other = foreign(text, language) if language is not None else None
    if other:
        problems.append(Problem.FOREIGN)
        reasons.append(f"not the transcript's language: {other}")
    if LOSES_TEXT & set(problems):
        badness = float("inf")
    fit = spoken_units / expected if expected and voiced >= evidence.min_voiced_seconds else None
    # Only where copies of a short unit were written is the amount in doubt (a dropped or
    # added copy); how fast other speech runs varies too much to hold an answer back for.
    fits = fit is None or not copies or 1 / evidence.fit_band <= fit <= evidence.fit_band
    return Verdict(not problems, badness, "; ".join(reasons) or "clean", tuple(problems), repeats, voiced,
                   fit, fits)


def amount(text: str, voiced: float | None, evidence: EvidenceConfig) -> tuple[int, float | None]:
    """(units written, units ordinary speech writes in ``voiced`` seconds): syllables
    (CJK graphemes) for CJK text, else words. Not detection's units, which add a word per
    CJK run: a repetition written with commas would count a third more than one without."""
    units, cjk = speech_units(text)
    if cjk:
        return cjk_count(text), None if voiced is None else voiced * evidence.speech_cjk_rate
    return units, None if voiced is None else voiced * evidence.speech_word_rate


def repeated(text: str, evidence: EvidenceConfig, least: int = 3) -> bool:
    """Whether ``text`` is mostly one short unit (up to ``max_spoken_unit`` words or CJK
    graphemes) said at least ``least`` times in a row: where the amount of text is the
    count of copies. A sentence with a word said three times in it is not."""
    units = speech_tokens(text)
    found = runs(units, evidence, least)
    longest = max((len(unit) * copies for _, unit, copies in found), default=0)
    return longest > 0 and 2 * longest >= len(units)


def claims(text: str, evidence: EvidenceConfig, least: int = 3) -> tuple[tuple[str, int], ...]:
    """What ``text`` says was repeated: (unit, copies) of each run of a short unit said
    ``least`` times or more, in order ("no no no no" -> (("no", 4),); 好的好的好的 ->
    (("好的", 3),)). The count a repair must get right, and must have confirmed."""
    tokens = speech_tokens(text)
    joiner = "" if speech_units(text)[1] else " "
    return tuple((joiner.join(unit), copies) for _, unit, copies in runs(tokens, evidence, least))


def unit_key(text: str) -> str:
    """A unit as ``claims`` writes it: folded words joined by spaces, or CJK graphemes."""
    return ("" if speech_units(text)[1] else " ").join(speech_tokens(text))


# One word, two spellings: a decoder writes either from one request to the next (tiny.en
# wrote "Alright" for 9 pieces of "all right" x15 and "All right" for 6). Keys of
# folded words.
SPELLINGS = {"alright": "all right", "ok": "okay"}
# A combining mark on a Latin letter: Whisper writes "voila" for "voilà" and "si" for "sí"
# from one request to the next. (Marks on kana are other letters: が is not か.)
_LATIN_MARK = regex.compile(r"(?<=\p{Latin})\p{Mn}+")
_KATAKANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)}  # ァ..ヶ -> ぁ..ゖ: one block apart


def spelled(key: str) -> str:
    """A unit key (``unit_key``) in one spelling of its words: Latin letters without their
    marks, katakana as hiragana (Whisper writes そう and ソウ for one word from one request to
    the next), and each of ``SPELLINGS`` as its other spelling. Two answers that name the
    same word in two spellings name one word."""
    if not key.isascii():
        key = unicodedata.normalize("NFC", _LATIN_MARK.sub("", unicodedata.normalize("NFD", key)))
        key = key.translate(_KATAKANA)
    return " ".join(SPELLINGS.get(word, word) for word in key.split(" "))


def word_key(text: str) -> str:
    """What a unit names, in one spelling: ``spelled(unit_key(text))``; two texts naming
    one word in two spellings, or turned to another case, have one key."""
    return spelled(unit_key(text))


def speech_tokens(text: str) -> list[str]:
    """Folded speech units: CJK graphemes for CJK text, else words, a word written as
    one short unit again and again taken as its copies (Whisper base wrote "Boubouboubou"
    for French "bon" x8: one word to the eye, "bou" x4 to the judge)."""
    if speech_units(text)[1]:
        return list(folded(text))
    return [copy for w in content_words(text) for copy in _copies(folded(w))]


def _copies(word: str) -> list[str]:
    """``word`` as copies of the shortest unit it repeats three times or more, else itself."""
    for size in range(1, len(word) // 3 + 1):
        if len(word) % size == 0 and word == word[:size] * (len(word) // size):
            return [word[:size]] * (len(word) // size)
    return [word]


def runs(tokens: list[str], evidence: EvidenceConfig, least: int) -> list[tuple[int, tuple[str, ...], int]]:
    """(first token, unit, copies) of the longest runs of units of 1 to
    ``max_spoken_unit`` tokens repeated ``least`` times or more, none overlapping
    another (the run covering more tokens wins; a unit that is itself a repeat, "no no",
    loses to the shorter one that covers as much)."""
    found = []
    # Kana weigh half (``unit_size``): a unit in kana may hold twice the tokens.
    longest = evidence.max_spoken_unit * (2 if any(kana_count(t) for t in tokens[:64]) else 1)
    for size in range(1, longest + 1):
        # One pass per unit size (a loop answer runs to thousands of units): ``run``
        # positions in a row equal to the one ``size`` later make (run + size) // size copies.
        run = 0
        for i in range(len(tokens) - size + 1):
            same = i + size < len(tokens) and tokens[i] == tokens[i + size]
            run = run + 1 if same else run
            if not same and run:
                copies = (run + size) // size
                first = i - run
                unit = tuple(tokens[first:first + size])
                if copies >= least and (size <= evidence.max_spoken_unit or
                                        unit_size("".join(unit)) <= evidence.max_spoken_unit):
                    found.append((first, unit, copies))
                run = 0
    kept: list[tuple[int, tuple[str, ...], int]] = []
    for first, unit, copies in sorted(found, key=lambda r: (-len(r[1]) * r[2], len(r[1]))):
        end = first + len(unit) * copies
        if all(end <= a or first >= a + len(u) * c for a, u, c in kept):
            kept.append((first, unit, copies))
    return sorted(kept)


def unit_size(unit: str) -> float:
    """A repeated unit's length in speech units (words, or CJK graphemes), a kana counting
    as detection's ``kana_weight``: a kana is a mora, about half a Mandarin syllable in what
    it carries, so ありがとう (five kana) weighs as much as a Mandarin word of two or three
    syllables, one people do repeat."""
    units = amount(unit, None, EvidenceConfig())[0]
    return units - (1 - DEFAULT.kana_weight) * kana_count(unit)


def content_words(text: str) -> list[str]:
    return [w for w in (content(w) for w in text.split()) if w]


def counts_agree(a: int, b: int, evidence: EvidenceConfig) -> bool:
    """Two counts of one repetition agree: within ``count_tolerance`` of the larger, or one."""
    return abs(a - b) <= max(1, evidence.count_tolerance * max(a, b))


def spoken(loops, units: int, band: tuple[float, float], voiced: float | None, evidence: EvidenceConfig,
           config: DetectConfig, recurs: int = 0) -> bool:
    """Whether the repetitions found in a closed answer are speech rather than a loop: with
    voiced time known, every count is one a person says on purpose and the answer's units
    (the copies among them) fit the voiced time at a rate a speaker holds. A loop the
    decoder ran into either runs to the cap or writes more than the time holds.
    A unit longer than people usually repeat is speech too where the audio itself says it
    ``recurs`` times and the answer's count agrees: then the count is the audio's, not the
    decoder's."""
    if voiced is None or voiced < evidence.min_voiced_seconds:
        return False
    slowest, fastest = band
    short = all(0 < unit_size(f.unit or "") <= evidence.max_spoken_unit
                or (recurs and counts_agree(int(f.count or 0), recurs, evidence)) for f in loops)
    return short and all(0 < int(f.count or 0) <= evidence.max_speech_repeats for f in loops) and \
        slowest * voiced <= units <= fastest * voiced


def missing(required: tuple[str, ...], text: str, evidence: EvidenceConfig,
            ratio: float | None = None) -> list[str]:
    """The required texts not found in ``text`` (partial alignment, normalised), from
    ``ratio`` (default ``keep_ratio``)."""
    haystack = folded(text)
    out = []
    for want in required:
        needle = folded(want)
        if needle and fuzz.partial_ratio(needle, haystack, score_cutoff=ratio or evidence.keep_ratio) == 0:
            out.append(want)
    return out


_HAN = regex.compile(r"\p{Han}")


@functools.cache
def to_simplified():
    import opencc  # loaded only for text with Han characters
    return opencc.OpenCC("t2s")


def folded(text: str) -> str:
    """``content(text)``, with Traditional Chinese written as Simplified. Whisper writes
    either script for the same audio from one request to the next (base wrote 請財務部 in
    the whole file and 请财务部 for the repair's clip of it); the script is not what was
    said, and comparing across scripts would call a faithful answer a deletion."""
    key = content(text)
    return to_simplified().convert(key) if _HAN.search(key) else key


def clean_texts(segments, within: Span, skip: frozenset[int] = frozenset(),
                outside: Span | None = None) -> tuple[str, ...]:
    """Texts of the segments no finding flagged (indices not in ``skip``) that lie wholly
    inside ``within`` (a segment the clip cuts into may be heard only in part), and,
    with ``outside``, not inside that. The looping segments' own text is never asked
    for: a decoder that loops often hallucinates the words before the loop too (the
    seed's char loop starts with a sentence nobody said)."""
    out = []
    for i, s in enumerate(segments):
        if i in skip or s.span is None or not s.closed or not content(s.text):
            continue
        if within.start <= s.span.start and s.span.end <= within.end and not (
                outside is not None and outside.start <= s.span.start and s.span.end <= outside.end):
            out.append(s.text)
    return tuple(out)


def longest_unwritten(voiced: list[tuple[float, float]], written: list[Span], slack: float) -> float:
    """The longest stretch of ``voiced`` time that no ``written`` span (widened by
    ``slack`` on each side) covers, in seconds."""
    cover = sorted((w.start - slack, w.end + slack) for w in written)
    longest = 0.0
    for start, end in voiced:
        t = start
        for a, b in cover:
            if b <= t or a >= end:
                continue
            longest = max(longest, min(a, end) - t)
            t = max(t, b)
            if t >= end:
                break
        longest = max(longest, end - t)
    return longest


def agreeing(a: Verdict, b: Verdict, evidence: EvidenceConfig) -> bool:
    """Two answers that both loop only in the same way, with counts that agree and fit
    the voiced time: the repetition is speech."""
    plausible = lambda v: (set(v.problems) <= {Problem.LOOP} and v.repeats
                           and all(c <= evidence.max_speech_repeats for _, c in v.repeats))
    if not (plausible(a) and plausible(b)) or len(a.repeats) != len(b.repeats):
        return False
    return all(ua == ub and abs(ca - cb) <= max(1, 0.1 * max(ca, cb))
               for (ua, ca), (ub, cb) in zip(sorted(a.repeats), sorted(b.repeats)))


