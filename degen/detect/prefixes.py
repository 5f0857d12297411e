"""Growing prefixes on one line: a sentence written again each time it grew, as a
dictation or streaming client does when it inserts every partial result instead of
replacing the last one (``Do Do yDo you Do you kDo you know``).

No two copies are equal, so neither the tandem repeats of ``periodic`` nor the near
copies of ``near`` see it: each copy is the one before it and a little more. On the
line's text without spaces or punctuation (``tokens.content``), a chain starts at a word
and goes on while the text right after the copy so far begins with it again and is longer
(a partial result grows; one that only begins the copy again, ``no no no``, is a tandem
repeat, which ``periodic`` finds).
``prefix_copies`` copies running, the longest of ``prefix_words`` words or more, is the
client's echo: people restart a sentence ("I, I think, I think that") once or twice, not
four times with a word more each time.
"""

from __future__ import annotations

import numpy as np
import regex

from ..model import Transcript
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .inline import content_map
from .places import clip, line_findings, span_of, text_lengths
from .script import WORD_PATTERN
from .table import SegmentTable
from .tokens import content

# Characters a copy may have at most: a partial result is a sentence, and longer
# prefixes would make the search grow with the square of the line.
LONGEST_COPY = 400
# ASCII text as ``content`` and ``WORD_PATTERN`` read it: every character but a letter or digit
# dropped (the key), or a space between words, the apostrophe kept to be judged (words).
_ASCII_DROP = bytes(c for c in range(128) if not chr(c).isalnum())
_ASCII_APART = bytes(c if chr(c).isalnum() or chr(c) == "'" else ord(" ") for c in range(256))
_APOSTROPHES = regex.compile(r"''+")
# Lines past this many characters are not searched (a partial-result echo is a short
# dictation; a megabyte-long line is a loop the exact search finds).
LONGEST_LINE = 20_000


def prefix_findings(transcript: Transcript, table: SegmentTable, config: DetectConfig) -> list[Finding]:
    lengths = text_lengths(transcript)
    # Enough words for the chain (its copies, the longest of ``prefix_words``), in a
    # script written with spaces, on a line short enough to be a dictation.
    candidates = np.flatnonzero((table.words >= config.prefix_copies + config.prefix_words - 1)
                                & (table.cjk_chars * 2 <= lengths) & (lengths <= LONGEST_LINE))
    return line_findings(transcript, candidates, lambda i, text: _may_hold(text, config),
                         lambda text: _chain_in(text, config),
                         lambda i, text, *found: _finding(transcript, table, i, text, *found, config))


def _may_hold(text: str, config: DetectConfig) -> bool:
    """A quick necessary test for ``_chain_in``: a chain of ``prefix_copies`` growing
    copies in the line's key, from some place where one of its words comes (every copy
    starts with the chain's first word, so the word comes that many times). The key and the
    words are ``_chain_in``'s (an apostrophe is no letter of either), read from ASCII text
    by two translations rather than a regex."""
    key, words = _key_and_words(text)
    least = config.prefix_copies
    for w in words:
        if not w or key.count(w) < least:
            continue
        places, at = [], key.find(w)
        while at >= 0:
            places.append(at)
            at = key.find(w, at + 1)
        # a chain from a place with fewer than ``least`` copies of the word ahead never grows so far
        if any(_chain(key, at)[0] >= least for at in places[:len(places) - least + 1]):
            return True
    return False


def _key_and_words(text: str) -> tuple[str, set[str]]:
    """``content(text)`` and the content of each of its words (``WORD_PATTERN``)."""
    if not text.isascii():
        return content(text), {content(w) for w in WORD_PATTERN.findall(text)}
    raw = text.encode("ascii").lower()
    words = set(raw.translate(_ASCII_APART).decode().split())
    if b"'" in raw:  # a word joins runs of letters by one apostrophe; two or more part words
        for token in [w for w in words if "'" in w]:
            words.discard(token)
            words.update(p.strip("'").replace("'", "") for p in _APOSTROPHES.split(token))
    return raw.translate(None, _ASCII_DROP).decode(), words


def _chain_in(text: str, config: DetectConfig):
    """(first character, stop character, copies, the longest copy) of the longest chain
    of growing copies on the line, in the text's own offsets, or None."""
    key, index = content_map(text)
    if not key:
        return None
    at_key = {}  # character of the text -> its place in the key
    for k, at in enumerate(index):
        at_key.setdefault(at, k)
    best = None
    for m in WORD_PATTERN.finditer(text):
        start = at_key.get(m.start())
        word = key[start:start + len(content_map(m.group())[0] or "")] if start is not None else ""
        if not word or key.count(word, start) < config.prefix_copies:
            continue  # every copy starts with the chain's first word
        copies, stop, last = _chain(key, start)
        if copies >= config.prefix_copies and (best is None or stop - start > best[1] - best[0]):
            best = (start, stop, copies, last)
    if best is None:
        return None
    start, stop, copies, last = best
    unit = text[index[last]:index[stop - 1] + 1]  # the longest copy: the sentence as it stood last
    if len({w.lower() for w in WORD_PATTERN.findall(unit)}) < config.prefix_words:
        return None
    return index[start], index[stop - 1] + 1, copies, unit


def _chain(key: str, start: int) -> tuple[int, int, int]:
    """The chain of growing copies from ``start`` in ``key``: (copies, where the last
    one ends, where the last and longest one starts). Each next copy begins with the one
    before and is longer; of the lengths that let the chain go on, the shortest is taken
    (the partial results as they came); the last copy is as long as the one before it,
    or the rest of the sentence that begins with it."""
    length = _square(key, start, 1)
    if length is None:
        return 1, start, start
    copies, at = 1, start
    while True:
        nxt = at + length  # the next copy starts with this one
        copies += 1
        grown = length
        while (grown := _square(key, nxt, grown + 1)) is not None and not _grows(key, at, length, nxt + length,
                                                                                 grown - length):
            pass
        if grown is None:
            return copies, nxt + length, nxt
        at, length = nxt, grown


def _square(key: str, at: int, shortest: int) -> int | None:
    """The shortest ``n >= shortest`` for which the ``n`` characters from ``at`` come
    again right after them, or None; the candidates are where ``key[at]`` comes again
    (found in C), not every length."""
    first = key[at:at + 1]
    p = key.find(first, at + shortest)
    while p >= 0 and (n := p - at) <= LONGEST_COPY and p + n <= len(key):
        if key.startswith(key[at:p], p):
            return n
        p = key.find(first, p + 1)
    return None


def _grows(key: str, at: int, length: int, extra: int, size: int) -> bool:
    """The ``size`` characters from ``extra`` are new words, not the copy at ``at``
    begun again: ``no no no`` is one word said three times (the tandem repeats' case),
    not ``no`` growing into ``no no``."""
    return not key.startswith(key[at:at + min(length, size)], extra)


def _finding(transcript, table, i, text, first, stop, copies, unit, config) -> Finding:
    size = max(len(text), 1)
    return Finding(
        kind=Kind.PHRASE_LOOP, severity=Severity.MEDIUM, span=span_of(transcript, i, i), segments=(i, i),
        speaker=table.speaker_of(i, i), unit=unit, period=len(unit.split()), count=copies,
        excerpt=clip(text[first:]), score=copies / config.prefix_copies, evidence=("growing_prefixes",),
        stream="words", extent=(i + first / size, i + stop / size), covered=stop - first)
