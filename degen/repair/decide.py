"""Decide: whether the answers so far confirm a repair, from the evidence alone.

An answer is accepted when evidence confirms it, not when nothing contradicts it. Every
answer is first judged on its own (``evidence.judge``: no loop, no cut, not foreign,
keeps the original's clean text, fits the voiced time of the whole span). Where the span
holds a repetition (an answer says a short unit was said several times, or the audio
recurs), its count must be confirmed by two independent lines:

    the audio's recurrence                  each copy found again in every other (``recurrence``)
    its period                              the sound matching itself a copy later (``period``)
    the pieces                              every copy the recurrence cut, decoded alone: the
                                            times they say the word, all counted (``pieces``)
    answer A  (one step: temperature, penalty, context)
    answer B  (another step)                each its unit and count (``evidence.claims``)

Two lines agree when they name the same unit (answers) and counts within
``count_tolerance``; the count is confirmed when the lines that agree with it outnumber
those that disagree, and at least two agree: the recurrence and the pieces, or one
answer and the recurrence, or two answers. The pieces are cut by the recurrence; what they
add is the decoder's word on every copy: a cut that held two copies comes back as two
words, one that split a copy as half a word, and the pieces' count then disagrees.
Without a repetition anywhere, the judge's fit to the voiced time is the evidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import Segment
from .evidence import EvidenceConfig, Verdict, claims, counts_agree, spelled, unit_key, word_key
from .language import Language, unknown_words
from .result import Attempt
from .recurrence import Repetition
from .splice import Placed


@dataclass(frozen=True)
class Tried:
    """An attempt with its number in the schedule and its placement in the transcript."""

    number: int
    attempt: Attempt
    placed: Placed | None
    body: str | None

    @property
    def usable(self) -> bool:
        """Judged faithful on its own: clean (nothing lost, no loop, no cut, not foreign)
        and placed. Its amount may still be in doubt (``Verdict.fits``): that is for the
        other lines of evidence to settle."""
        v = self.attempt.verdict
        return v is not None and v.clean and self.placed is not None

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.placed.segments) if self.placed else ""


@dataclass(frozen=True)
class Count:
    """One line of evidence on a repetition: who says it, the unit (None for the
    audio, which hears a sound, not a word) and how many copies (0: none); for the pieces,
    how many pieces said it (``copies``) of how many were sent (``of``)."""

    source: str
    unit: str | None
    copies: int
    of: int | None = None

    def agrees(self, copies: int, evidence: EvidenceConfig) -> bool:
        """Whether this line confirms ``copies``. The pieces do where (nearly) every piece
        said the word once and the pieces were as many as the count: the text around the
        stretch may say the word once more ("wait" x11 where the pieces said it 9 times of
        10), which is no piece's doing."""
        if not self.copies:
            return False
        if self.of is not None:
            return counts_agree(self.copies, self.of, evidence) and counts_agree(self.of, copies, evidence)
        return counts_agree(self.copies, copies, evidence)


PIECES = "the pieces"  # the name of the pieces' line of evidence


@dataclass(frozen=True)
class Decision:
    """The answer taken (an index into the attempts) and why, in words."""

    index: int
    why: str


def claim(tried: Tried, evidence: EvidenceConfig, unit_hint: str | None = None) -> tuple[str, int] | None:
    """The repetition an answer asserts: its longest run of a short unit (the loop's own
    unit when the answer repeats that one), or None when it repeats nothing."""
    found = claims(tried.text, evidence)
    if not found:
        return None
    if unit_hint:
        hinted = [c for c in found if c[0] == unit_key(unit_hint)]
        if hinted:
            return max(hinted, key=lambda c: c[1])
    return max(found, key=lambda c: len(c[0]) * c[1])


@dataclass(frozen=True)
class Heard:
    """What the audio of a span says about a repetition, by two methods: the recurrence
    (each copy found again in every other; the pieces are cut between them) and the period
    (the sound matching itself one copy later). Either may be None."""

    recurrence: Repetition | None = None
    period: int | None = None

    @property
    def any(self) -> bool:
        return self.recurrence is not None or self.period is not None


def lines(tried: tuple[Tried, ...], heard: Heard, unit: str | None, evidence: EvidenceConfig) -> list[Count]:
    """Every line of evidence on the count of ``unit``: the recurrence's, the period's,
    and one per usable answer of its own settings (a second draw with the same settings is
    no second witness where the server has no seed: a confident loop repeats itself; with
    a seed of its own each draw is independent). A pieces answer's count is the times its
    pieces said the word, every piece counted (its text writes it once a piece)."""
    out = [Count("the audio's recurrence", None, heard.recurrence.copies)] if heard.recurrence is not None else []
    if heard.period is not None:
        out.append(Count("the audio's period", None, heard.period))
    for number, t in independent(tried):
        said = claim(t, evidence, unit)
        copies = said[1] if said and (unit is None or said[0] == unit_key(unit)) else 0
        pieces = t.attempt.pieces_said if t.attempt.step.pieces else None
        if pieces is not None:
            out.append(Count(f"{PIECES} ({pieces[0]} times in {pieces[1]})", said[0] if said else None,
                             pieces[0] if copies else 0, pieces[1]))
        elif not t.attempt.step.pieces:
            out.append(Count(f"attempt {number}", said[0] if said else None, copies))
    return out


def independent(tried: tuple[Tried, ...]):
    """(attempt number from 1, answer) of each usable answer of its own settings: a second
    draw with the same step and no seed of its own is no second witness."""
    seen = set()
    for number, t in enumerate(tried, 1):
        step = t.attempt.step, t.attempt.seed
        if t.usable and step not in seen:
            seen.add(step)
            yield number, t


def decide(tried: tuple[Tried, ...], heard: Heard, evidence: EvidenceConfig,
           language: Language | None = None, original: tuple[str, ...] = ()) -> Decision | None:
    """The accepted answer once the evidence confirms one, else None (ask again). A
    repeated unit that is no word of the transcript's language is never confirmed, and
    the word itself needs a second witness as its count does (``namers``): the audio's
    recurrence and period count copies of any sound, so "c" x15 for "sí" x15 matched both.
    ``original``: the units the input's own loops repeat."""
    last = tried[-1]
    if not last.usable:
        return None
    said = claim(last, evidence)
    v = last.attempt.verdict
    if said is not None and language is not None and unknown_words(said[0], language):
        return None
    if said is None and not heard.any:
        if not v.fits:
            return None
        return Decision(len(tried) - 1, f"accepted: no repetition to count, no loop, fits {_voiced(v)} and keeps "
                                        f"the original's clean text")
    unit = said[0] if said else _named_unit(tried)
    evidence_lines = lines(tried, heard, unit, evidence)
    copies = said[1] if said else 0
    agree = [c for c in evidence_lines if c.agrees(copies, evidence)]
    disagree = [c for c in evidence_lines if c not in agree]
    named = namers(tried, unit, original, evidence) if unit else []
    # The pieces read every copy the recurrence cut: where they count otherwise, the cuts
    # or the word the count stands on are in doubt, whatever else agrees with it (tiny.en's
    # pieces of "no" x15 said "go" 9 times and other words 6: the input's loop said "go").
    contested = any(c.source.startswith(PIECES) for c in disagree)
    if len(agree) >= 2 and len(agree) > len(disagree) and not contested and (not unit or len(named) >= 2):
        word = f", the word by {' and '.join(named)}" if unit else ""
        return Decision(len(tried) - 1, f"accepted: {unit or 'it'} x{copies}, confirmed by "
                                        f"{' and '.join(c.source for c in agree)}{word}; "
                                        f"fits {_voiced(last.attempt.verdict)}")
    return None


def namers(tried: tuple[Tried, ...], unit: str, original: tuple[str, ...], evidence: EvidenceConfig) -> list[str]:
    """Who names ``unit`` as the repeated word: the input's loop (a greedy decoding of the
    same audio), each usable answer of its own settings, the pieces. Copies turned round
    (后然 for 然后) and two spellings of one word ("Alright", "all right": ``spelled``)
    name the same word."""
    key = _turned(word_key(unit))
    out = ["the input's loop"] if any(_turned(word_key(u)) == key for u in original if u) else []
    for number, t in independent(tried):
        if any(_turned(spelled(c)) == key for c, _ in claims(t.text, evidence)):
            out.append("the pieces" if t.attempt.step.pieces else f"attempt {number}")
    return out


def _turned(key: str) -> str:
    """One spelling of a unit and all its rotations (the least), so where a loop was cut
    into copies does not matter."""
    parts = key.split(" ") if " " in key else list(key)
    return min(("" if " " not in key else " ").join(parts[i:] + parts[:i]) for i in range(len(parts))) if parts \
        else key


def _named_unit(tried: tuple[Tried, ...]) -> str | None:
    for t in reversed(tried):
        if t.usable and t.attempt.step.pieces:
            said = claims(t.text, EvidenceConfig())
            if said:
                return said[0][0]
    return None


def best(tried: tuple[Tried, ...], heard: Heard, evidence: EvidenceConfig) -> int | None:
    """Of the answers judged faithful on their own, the one the evidence leans to most
    (for the report, or ``--accept-best``): the most lines agreeing with its count, then
    the closest fit to the voiced time."""
    ranked = []
    for k, t in enumerate(tried):
        if not t.usable:
            continue
        said = claim(t, evidence)
        support = 0
        if said is not None:
            support = sum(c.agrees(said[1], evidence) for c in lines(tried, heard, said[0], evidence))
        fit = t.attempt.verdict.fit
        ranked.append((-support, abs(math.log(fit)) if fit else 0.0, k))
    return min(ranked)[2] if ranked else None


def _voiced(v: Verdict) -> str:
    return "the audio" if v.voiced is None else f"{v.voiced:.1f}s of voiced audio"


def text_of(segments: tuple[Segment, ...]) -> str:
    return " ".join(s.text for s in segments)
