"""Is a repaired transcript faithful to what was said? Scores for the real-model tests and
bench/repair_real.py, against a fixture's script (``fixtures/audio/NAME.txt``).

A repair is **faithful** when no loop is left (a flagged repetition more than 25% longer
than the one really said: speech said 12 times is flagged by scan too, and is no loop),
the repetition that was really spoken is
kept (its count within 25% of the script's) and the word error rate against the script is
at most 0.35, or no more than the input's with its loop cut to the count said and nothing
else changed (the input's own mishearings outside the flagged span are no repair's to
answer for; where the input's loop is another unit than the one said, 0.35 it is).
It is a **deletion** when it keeps fewer than 75% of the real repetitions, or
loses words that the input had right (a script word the input matched and the output no
longer has at all; a word heard differently is not a deletion).

Words are compared case- and punctuation-folded, "ok" as "okay", "alright" as "all right".
Per language (``language``, an ISO 639-1 code; None: guessed from the script's characters):
- Mandarin and Japanese are scored character by character (a character error rate):
  each Han, hiragana or katakana character is a word of its own. Traditional Chinese is
  folded to Simplified (Whisper writes either), Japanese katakana to hiragana (はい and
  ハイ are the same word said), and a single digit to its Han numeral (3 as 三).
- In the Latin-script languages diacritics are dropped (Whisper writes "si" for "sí",
  "voila" for "voilà" from one request to the next) and the number words from zero to
  twenty, and the tens, are written as digits ("twelve", "zwölf", "douze", "doce" as 12):
  a number said is the same whether it comes back spelled or in digits.
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
SPLIT = {"alright": ("all", "right")}  # one spelling of two words
CHARACTER_LANGUAGES = ("zh", "ja")  # scored a character at a time
_NUMBER_WORDS = {
    "en": "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen twenty",
    "de": "null eins zwei drei vier funf sechs sieben acht neun zehn elf zwolf dreizehn vierzehn funfzehn "
          "sechzehn siebzehn achtzehn neunzehn zwanzig",
    "fr": "zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize "
          "dix-sept dix-huit dix-neuf vingt",
    "es": "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince "
          "dieciseis diecisiete dieciocho diecinueve veinte",
}
_TENS = {"en": "thirty forty fifty sixty seventy eighty ninety", "de": "dreissig vierzig funfzig sechzig siebzig "
         "achtzig neunzig", "fr": "trente quarante cinquante soixante", "es": "treinta cuarenta cincuenta sesenta "
         "setenta ochenta noventa"}
NUMBERS = {language: {**{w: str(n) for n, w in enumerate(words.split())},
                      **{w: str(10 * n) for n, w in enumerate(_TENS[language].split(), start=3)}}
           for language, words in _NUMBER_WORDS.items()}
HAN_DIGITS = dict(zip("0123456789", "〇一二三四五六七八九"))


def guess_language(text: str) -> str | None:
    """"ja" for text with kana, "zh" for Han without kana, else None (a Latin script)."""
    if regex.search(r"[\p{Hiragana}\p{Katakana}]", text):
        return "ja"
    return "zh" if regex.search(r"\p{Han}", text) else None


def tokens(text: str, language: str | None = None) -> list[str]:
    """Folded words of ``text`` in ``language`` (None: guessed from its characters)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    language = language or guess_language(text)
    if language in CHARACTER_LANGUAGES:
        return _characters(text, language)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = text.replace("ß", "ss")
    numbers = NUMBERS.get(language, {})
    text = regex.sub(r"[^\p{L}\p{N}' -]+", " ", text)
    words = [w for part in text.split() for w in ([part] if part in numbers else part.split("-"))]
    words = [part for word in words for part in SPLIT.get(word, (word,))]
    return [numbers.get(word, ALIASES.get(word, word)) for word in words if word]


def _characters(text: str, language: str) -> list[str]:
    if regex.search(r"\p{Han}", text):  # the script is not what was said
        text = to_simplified().convert(text)
    if language == "ja":  # katakana to hiragana: one block apart in Unicode
        text = "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in text)
    text = regex.sub(r"(?<![0-9])([0-9])(?![0-9])", lambda m: HAN_DIGITS[m.group(1)], text)
    text = regex.sub(r"([\p{Han}\p{Hiragana}\p{Katakana}ー])", r" \1 ", text)
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
    if not unit:  # a script that repeats nothing (a clean recording): no run, and no endless one
        return 0
    count, size = 0, len(unit)
    while tuple(words[start + count * size:start + (count + 1) * size]) == unit:
        count += 1
    return count


def longest_run(unit: tuple[str, ...], words: list[str]) -> int:
    """Most copies of ``unit`` in a row anywhere in ``words``."""
    return _longest(unit, words)[1]


def _longest(unit: tuple[str, ...], words: list[str]) -> tuple[int, int]:
    """(where, copies) of the first longest run of ``unit`` in ``words``; (0, 0) for none."""
    best, where = 0, 0
    for i in range(len(words) if unit else 0):
        n = run_at(unit, words, i)
        if n > best:
            best, where = n, i
    return where, best


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
    # The WER the input would have with its loop cut to the count said, and nothing else
    # changed: what a perfect repair of the flagged span leaves of the input's own mishearings
    # elsewhere (Whisper base heard "Budget" as "Bruder" outside the loop of de_meeting).
    # 0.0 where the input's loop is not the unit said (then no repair of it alone is right).
    floor: float = 0.0

    @property
    def count_kept(self) -> bool:
        return abs(self.count - self.real) <= COUNT_TOLERANCE * self.real

    @property
    def faithful(self) -> bool:
        """No loop, the count kept, and the words right: a WER of at most ``MAX_WER``, or no
        more than a perfect repair of the loop alone leaves (``floor``): the exit code speaks
        for the flagged spans, not for what the input misheard outside them."""
        return not self.looped and self.count_kept and self.wer <= max(MAX_WER, self.floor)

    @property
    def deletion(self) -> bool:
        return self.count < (1 - COUNT_TOLERANCE) * self.real or bool(self.lost)


def judge(script: str, before: str, after: str, loop_counts: list[int], *, language: str | None = None,
          unit: str | None = None, count: int | None = None) -> Verdict:
    """``after`` (the repaired text) against ``script`` (what was said) and ``before`` (the
    input's text). ``loop_counts``: the count of each loop ``degen.scan`` flags in ``after``.
    ``unit`` and ``count``: the repetition really said, where the recipe knows it (else the
    script's longest tandem repeat of up to four words)."""
    language = language or guess_language(script)
    reference, was, now = (tokens(t, language) for t in (script, before, after))
    if unit is not None and count is not None:
        unit_words, real = tuple(tokens(unit, language)), count
    else:
        unit_words, real = repeated_unit(reference)
    unit = unit_words
    repeat = _repeat_positions(unit, reference)
    lost = sorted(_right(reference, was) - _kept(reference, now) - repeat)
    looped = any(count > (1 + COUNT_TOLERANCE) * real for count in loop_counts)
    ideal = repaired(was, unit, real)
    return Verdict(looped, real, longest_run(unit, now), wer(reference, now), tuple(reference[i] for i in lost),
                   0.0 if ideal is None else wer(reference, ideal))


def repaired(words: list[str], unit: tuple[str, ...], real: int) -> list[str] | None:
    """``words`` with their longest run of ``unit`` cut (or grown) to ``real`` copies; None
    where their longest repeat is another unit (a misheard loop: "Smokes" x9 for "zwölf"
    x8 is no right text to keep)."""
    if not unit or repeated_unit(words, len(unit))[0] != unit:  # (a unit said twice at least)
        return None
    start, count = _longest(unit, words)
    return words[:start] + list(unit) * real + words[start + count * len(unit):]


def _repeat_positions(unit: tuple[str, ...], reference: list[str]) -> set[int]:
    """Positions of the script's longest run of ``unit`` (judged by count, not word by word)."""
    where, best = _longest(unit, reference)
    return set(range(where, where + best * len(unit)))
