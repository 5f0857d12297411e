"""Lexicon phrases inside a line: found on word boundaries, with where they stand.

The lexicon search (``lexicon_blocks``) matches the segments' keys, text without spaces or
punctuation, which says which phrases a segment holds but not where: "thank you" is in
"thank your sister". For a segment whose phrases are only part of its text, ``places``
matches its key again with a map back to the text, keeps the matches that begin and end on
word boundaries, and says whether each opens or closes the segment (nothing but spaces and
punctuation before or after it): a hallucination over silence sits at an edge of the
speech, before or after what was said.
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

from .script import cjk_count
from .tokens import DROP, content, normalize


class Place(NamedTuple):
    """A phrase in a segment's text: the phrase (normalised), its first and last
    character's index in the text, and whether it opens or closes the text."""

    phrase: str
    first: int
    last: int
    opens: bool
    closes: bool


def places(text: str, lexicon) -> list[Place]:
    """Every lexicon phrase in ``text`` that stands on word boundaries, in order."""
    if lexicon.pattern is None:
        return []
    key, index = content_map(text)
    if key is None:
        return []
    out = []
    for m in lexicon.pattern.finditer(key):
        first, last = index[m.start()], index[m.end() - 1]
        if _bounded(text, first, last):
            out.append(Place(m.group(), first, last, not _has_text(text[:first]), not _has_text(text[last + 1:])))
    return out


# Marks that end a sentence, in the scripts the lexicon covers.
SENTENCE_END = frozenset(".!?。！？…")


def own_sentence(text: str, place: Place) -> bool:
    """The phrase is a sentence of its own: the text before it is empty or ends a
    sentence, and the text after it holds no words."""
    before = text[:place.first].rstrip(" \t\"'«»“”‘’(")
    return (not before or before[-1] in SENTENCE_END) and place.closes or place.opens and place.closes


def content_map(text: str) -> tuple[str | None, list[int]]:
    """``content(text)`` and, for each of its characters, the index of the character of
    ``text`` it comes from; None when normalising character by character differs from
    normalising the whole (a composed sequence): then no place is told."""
    chars, index = [], []
    for i, ch in enumerate(text):
        norm = normalize(ch)
        if DROP.fullmatch(norm):
            continue
        chars.append(norm)
        index.extend([i] * len(norm))
    key = "".join(chars)
    return (key, index) if key == content(text) else (None, index)


def _bounded(text: str, first: int, last: int) -> bool:
    """The phrase neither starts nor ends inside a word; CJK and kana need no spaces."""
    def inside(a: int, b: int) -> bool:
        if a < 0 or b >= len(text):
            return False
        if cjk_count(text[a]) or cjk_count(text[b]):
            return False
        return _wordy(text[a]) and _wordy(text[b])
    return not inside(first - 1, first) and not inside(last, last + 1)


def _wordy(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNM"


def _has_text(piece: str) -> bool:
    return any(_wordy(ch) for ch in piece)
