"""Subtitles that show one line word by word.

Subtitle writers can time each word: WhisperX's ``--highlight_words`` writes a cue per word,
each holding the whole line with the word being said underlined (``So, <u>first,</u> is
...``), with plain cues of the same line in the gaps; stable-ts colours the word with
``<font color=...>``. Read as segments, that is one line said many times, each copy far too
fast for its cue: a segment loop and impossible timing, though the speaker said the line
once. The evidence that tells them apart is in the cues themselves: within one saying the
highlight only moves on through the line, and a cue's time holds the highlighted word, not
the line. A decoder that loops gives each copy its own pass, so the highlight starts over.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

# Inline styling put on the word being said: underline, bold, italics, a font colour, a
# WebVTT class.
_HIGHLIGHT = re.compile(r"</?(?:u|b|i|font|c)(?:[ .][^>]*)?>", re.IGNORECASE)
_WORD = re.compile(r"\w+")


def sayings(texts: Sequence[str]) -> list[tuple[int, int, int]] | None:
    """For consecutive cues that all show one line (equal once the highlighting is taken
    out), of which some highlight a word: (first, last, words highlighted) of each saying,
    indexes into ``texts``. A saying ends where the highlight goes back to, or before, the
    word highlighted last. None when the cues differ in more than their highlighting, or
    none highlights anything."""
    out, line, start, at, words = [], None, 0, -1, 0
    for i, text in enumerate(texts):
        plain = _HIGHLIGHT.sub("", text) if "<" in text else text
        if line is not None and plain != line:
            return None
        line = plain
        mark = _HIGHLIGHT.search(text) if "<" in text else None
        if mark is None:
            continue
        if mark.start() <= at:  # the highlight starts over: the cues before were one saying
            out.append((start, i - 1, words))
            start, words = i, 0
        at = mark.start()
        words += _words_highlighted(text, mark)
    if at < 0:
        return None
    return out + [(start, len(texts) - 1, words)]


def _words_highlighted(text: str, mark: re.Match) -> int:
    """Words inside the highlight that begins at ``mark`` (up to its closing tag), at
    least one: a cue highlights the word it times."""
    closing = _HIGHLIGHT.search(text, mark.end())
    inside = text[mark.end():closing.start() if closing else len(text)]
    return max(1, len(_WORD.findall(inside)))


def word_timed(texts: Sequence[str], table, limits: np.ndarray, min_seconds: float,
               candidates: np.ndarray) -> np.ndarray:
    """Which of the ``candidates`` (segment indexes, sorted; too dense for their own time)
    are cues of a line shown word by word whose sayings are each plausible: the words
    highlighted over the time from a saying's first cue to its last, within ``limits``
    (units per second, per segment)."""
    plausible = np.zeros(len(texts), dtype=bool)
    done = -1
    for i in candidates.tolist():
        if i <= done or "<" not in texts[i] and not _neighbour_marked(texts, i):
            continue
        first, last = _same_line(texts, i)
        done = last
        for a, b, words in sayings([texts[k] for k in range(first, last + 1)]) or ():
            a, b = first + a, first + b
            seconds = max(float(table.end[b] - table.start[a]), min_seconds)
            if a < b and words / seconds <= float(limits[a]):
                plausible[a:b + 1] = True
    return plausible[candidates]


def _neighbour_marked(texts: Sequence[str], i: int) -> bool:
    return any("<" in texts[k] for k in (i - 1, i + 1) if 0 <= k < len(texts))


def _same_line(texts: Sequence[str], i: int) -> tuple[int, int]:
    """The run of consecutive cues around ``i`` that show the same line as it."""
    def plain(k):
        return _HIGHLIGHT.sub("", texts[k])
    line, first, last = plain(i), i, i
    while first > 0 and plain(first - 1) == line:
        first -= 1
    while last + 1 < len(texts) and plain(last + 1) == line:
        last += 1
    return first, last
