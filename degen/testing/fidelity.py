"""Is a repaired transcript faithful to what was said? Scores for the real-model tests and
bench/repair_real.py, against a fixture's script (``fixtures/audio/NAME.txt``).

A repair is **faithful** when no loop is left (a flagged repetition more than 25% longer
than the one really said: speech said 12 times is flagged by scan too, and is no loop),
the repetition that was really spoken is
kept (its count within 25% of the script's) and the word error rate against the script is
at most 0.35. It is a **deletion** when it keeps fewer than 75% of the real repetitions, or
loses words that the input had right (a script word the input matched and the output no
longer has at all; a word heard differently is not a deletion).

Words are compared case- and punctuation-folded, Han characters one by one (a character
error rate for Mandarin), traditional forms of the fixtures' characters folded to the
simplified ones (Whisper writes either), "ok" as "okay".
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex
from rapidfuzz.distance import Levenshtein

from ..repair.evidence import to_simplified

COUNT_TOLERANCE = 0.25  # the real repetition kept within 25%
MAX_WER = 0.35
ALIASES = {"ok": "okay"}


def tokens(text: str) -> list[str]:
    """Folded words; each Han character is a word of its own."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if regex.search(r"\p{Han}", text):  # the script is not what was said
        text = to_simplified().convert(text)
    text = regex.sub(r"(\p{Han})", r" \1 ", text)
    text = regex.sub(r"[^\p{L}\p{N}' ]+", " ", text)
    return [ALIASES.get(word, word) for word in text.split()]


def repeated_unit(words: list[str], longest_period: int = 4) -> tuple[tuple[str, ...], int]:
    """The unit said most times in a row in ``words`` and how many times (a tandem repeat
    of 1 to ``longest_period`` words; ties go to the shorter unit)."""
    best: tuple[tuple[str, ...], int] = ((), 0)
    for period in range(1, longest_period + 1):
        for start in range(len(words) - period + 1):
            unit = tuple(words[start:start + period])
            count = run_at(unit, words, start)
            if count > best[1] and count >= 2:
                best = (unit, count)
    return best


def run_at(unit: tuple[str, ...], words: list[str], start: int) -> int:
    count, size = 0, len(unit)
    while tuple(words[start + count * size:start + (count + 1) * size]) == unit:
        count += 1
    return count


def longest_run(unit: tuple[str, ...], words: list[str]) -> int:
    """Most copies of ``unit`` in a row anywhere in ``words``."""
    return max((run_at(unit, words, i) for i in range(len(words))), default=0) if unit else 0


def wer(reference: list[str], hypothesis: list[str]) -> float:
    return Levenshtein.distance(reference, hypothesis) / max(len(reference), 1)


def _kept(reference: list[str], hypothesis: list[str]) -> set[int]:
    """Positions of the script that the hypothesis has a word for (right or misheard)."""
    gone = {op.src_pos for op in Levenshtein.editops(reference, hypothesis) if op.tag == "delete"}
    return set(range(len(reference))) - gone


def _right(reference: list[str], hypothesis: list[str]) -> set[int]:
    changed = {op.src_pos for op in Levenshtein.editops(reference, hypothesis) if op.tag in ("delete", "replace")}
    return set(range(len(reference))) - changed


@dataclass(frozen=True)
class Verdict:
    """One repair judged against the script."""

    looped: bool  # the output still has a loop longer than the real repetition
    real: int  # copies of the repeated unit in the script
    count: int  # copies of it in a row in the output
    wer: float
    lost: tuple[str, ...]  # script words the input had right and the output dropped

    @property
    def count_kept(self) -> bool:
        return abs(self.count - self.real) <= COUNT_TOLERANCE * self.real

    @property
    def faithful(self) -> bool:
        return not self.looped and self.count_kept and self.wer <= MAX_WER

    @property
    def deletion(self) -> bool:
        return self.count < (1 - COUNT_TOLERANCE) * self.real or bool(self.lost)


def judge(script: str, before: str, after: str, loop_counts: list[int]) -> Verdict:
    """``after`` (the repaired text) against ``script`` (what was said) and ``before`` (the
    input's text). ``loop_counts``: the count of each loop ``degen.scan`` flags in ``after``."""
    reference, was, now = tokens(script), tokens(before), tokens(after)
    unit, real = repeated_unit(reference)
    repeat = _repeat_positions(unit, reference)
    lost = sorted(_right(reference, was) - _kept(reference, now) - repeat)
    looped = any(count > (1 + COUNT_TOLERANCE) * real for count in loop_counts)
    return Verdict(looped, real, longest_run(unit, now), wer(reference, now), tuple(reference[i] for i in lost))


def _repeat_positions(unit: tuple[str, ...], reference: list[str]) -> set[int]:
    """Positions of the script's longest run of ``unit`` (judged by count, not word by word)."""
    best, where = 0, 0
    for i in range(len(reference)):
        n = run_at(unit, reference, i)
        if n > best:
            best, where = n, i
    return set(range(where, where + best * len(unit)))
