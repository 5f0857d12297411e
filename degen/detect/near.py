"""Near copies of a clause on one line: a unit of several words that comes back with a
word changed, or punctuation and case that differ, and a sentence pasted twice with no
space between the copies.

The tandem repeats of ``periodic`` need exact copies. Here, for each unit length ``p``
from a clause's (``long_unit`` words, ``long_unit_cjk`` CJK graphemes) up to
``max_period``, the line's tokens are compared with themselves ``p`` tokens on (a
Hamming match per position, summed over a window of ``p`` by a cumulative sum): a window
where most tokens match the next ``p`` is a copy followed by a near copy. Copies are
chained (the next one starts where this one's match ends, one token earlier or later when
a word slipped in or dropped); ``min_repeats_long`` of them is a clause said three times
running, the verdict exact copies get (``loops``), here for near ones. Exactly two copies are a
loop only when they are glued: the second starts right after the first's closing mark
with no space (``...right.Sentence``), a paste no speaker and no recogniser writes.

Only lines long enough for three copies of the shortest clause are searched (15 words, or
21 characters of CJK text; most subtitle cues are shorter), and lines long enough for two
(10 words) that hold a closing mark with a word right after it.
"""

from __future__ import annotations

import numpy as np
import regex

from ..model import Transcript
from .config import DetectConfig
from .dedupe import overlaps
from .finding import Finding, Kind, Severity
from .places import clip, line_findings, span_of, text_lengths
from .script import WORD_PATTERN, cjk_count, kana_count, speech_units
from .table import SegmentTable
from .tokens import GRAPHEME, normalize

# A copy starting right after a closing mark, in a script written with spaces (CJK text
# runs on after 。 as it always does).
_GLUE = regex.compile(r"[.!?][\p{Latin}\p{Cyrillic}\p{Greek}\p{N}]")
# Words a line must hold before it is searched: three copies of the shortest clause.
FEWEST_COPIES = 2
# Tokens past which a line is not searched: the comparisons grow with the line times the
# periods, and a loop that long is exact somewhere (the tandem repeats find it).
LONGEST_LINE = 4000


def near_findings(transcript: Transcript, table: SegmentTable, config: DetectConfig,
                  found: list[Finding] = ()) -> list[Finding]:
    """Near repeats on single lines, where ``found`` (the exact loops) has no finding of
    medium or more: exact copies read better, as their own unit."""
    taken = [f.extent for f in found if f.severity.rank >= Severity.MEDIUM.rank]
    return [f for f in _near(transcript, table, config, _covered(taken, len(transcript)))
            if not any(overlaps(f.extent, e, config.same_place_overlap) for e in taken)]


def _covered(extents: list[tuple[float, float]], lines: int) -> np.ndarray:
    """Whether each line lies wholly inside one of ``extents``: a near copy found there
    would overlap it, and be dropped, so the line is not searched (a loop's own line is
    the longest there is to search)."""
    edges = np.zeros(lines + 1, dtype=np.int64)
    for first, last in extents:
        start, stop = int(np.ceil(first)), int(np.floor(last))  # the lines [start, stop) lie inside
        if start < stop:
            edges[start] += 1
            edges[min(stop, lines)] -= 1
    return np.cumsum(edges[:-1]) > 0


def _near(transcript: Transcript, table: SegmentTable, config: DetectConfig, covered: np.ndarray) -> list[Finding]:
    shortest = FEWEST_COPIES * min(config.long_unit, config.long_unit_cjk)
    lengths = text_lengths(transcript)
    three = (table.words >= config.min_repeats_long * config.long_unit) \
        | (table.cjk_chars >= config.min_repeats_long * config.long_unit_cjk)
    # Long enough for three copies of a clause, or for two glued ones (most cues are neither).
    candidates = np.flatnonzero((lengths >= shortest * 2) & ~covered
                                & (three | (table.words >= FEWEST_COPIES * config.long_unit)))
    return line_findings(transcript, candidates, lambda i, text: _repeats_enough(text, bool(three[i]), config),
                         lambda text: _line(text, config),
                         lambda i, text, *found: _finding(transcript, table, i, text, *found, config))


def _repeats_enough(text: str, three: bool, config: DetectConfig) -> bool:
    """A quick necessary test, in C: a near copy of the shortest clause repeats most of
    its tokens, so the line must hold that many repeated words (or, in CJK text written
    without spaces, characters). A line too short for three copies can hold only two
    glued ones."""
    if not three and not _GLUE.search(text):
        return False
    need = config.near_copy_share * min(config.long_unit, config.long_unit_cjk)
    words = text.lower().split()
    if len(words) - len(set(words)) >= need:
        return True
    return len(words) * 4 < len(text) and len(text) - len(set(text)) >= need  # long words: CJK, maybe


def _tokens(text: str, cjk: bool) -> tuple[list[str], list[int], list[int]]:
    """The line's tokens (normalised words, or CJK graphemes), with their start and end offsets."""
    tokens, starts, ends = [], [], []
    for m in WORD_PATTERN.finditer(text):
        word = m.group()
        if cjk and cjk_count(word):
            for g in GRAPHEME.finditer(word):
                tokens.append(normalize(g.group()))
                starts.append(m.start() + g.start())
                ends.append(m.start() + g.end())
        else:
            tokens.append(normalize(word))
            starts.append(m.start())
            ends.append(m.end())
    return tokens, starts, ends


def _line(text: str, config: DetectConfig):
    """(first token, period, copies, token offsets, glued) of the best near repeat on the
    line, or None."""
    cjk = cjk_count(text) * 2 > len(text.replace(" ", ""))
    tokens, starts, ends = _tokens(text, cjk)
    shortest = config.long_unit_cjk if cjk else config.long_unit
    if len(tokens) < FEWEST_COPIES * shortest:
        return None
    if len(tokens) > LONGEST_LINE:
        return None
    ids = np.unique(np.array(tokens, dtype=object), return_inverse=True)[1].astype(np.int64)
    periods = range(shortest, min(config.max_period, len(ids) // FEWEST_COPIES) + 1)
    shares = {p: _window_share(ids, p) for p in periods}
    similar = {p: set(np.flatnonzero(shares[p] >= config.near_copy_share).tolist()) for p in periods}
    best = None
    for p in periods:
        for first in sorted(similar[p]):
            unit = ids[first:first + p]
            if len(set(unit.tolist())) < config.near_distinct_share * p:
                continue  # a unit of few distinct tokens (digits, a word and its echo) matches by chance
            if cjk and not _clause(text[starts[first]:ends[first + p - 1]], config):
                continue
            copies, at = 2, first + p
            # the next copy: a word slipped in or dropped moves it by one
            while (step := next((q for q in (p, p - 1, p + 1) if at in similar.get(q, ())), None)) is not None:
                copies, at = copies + 1, at + step
            glued = copies == FEWEST_COPIES and _glued(text, starts[first + p], shares[p][first])
            if (copies >= config.min_repeats_long or glued) and (best is None or copies * p > best[2] * best[1]):
                best = (first, p, copies, (starts, ends), glued)
    return best


def _clause(unit: str, config: DetectConfig) -> bool:
    """A CJK unit long enough for a clause, a kana counting ``kana_weight`` (a polite
    formula in kana, ありがとうございます, is short), as exact copies are weighed."""
    units, _ = speech_units(unit)
    return units - (1 - config.kana_weight) * kana_count(unit) >= config.long_unit_cjk


def _window_share(ids: np.ndarray, p: int) -> np.ndarray:
    """For each start i, the share of tokens i..i+p-1 equal to the token p further on."""
    match = np.concatenate(([0], np.cumsum(ids[:-p] == ids[p:])))
    return (match[p:] - match[:-p]) / p


def _runs(mask: np.ndarray):
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.diff(padded)
    return zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist())


def _glued(text: str, second: int, share: float) -> bool:
    """Two exact copies, the second starting right after the first's closing mark, with
    no space, in a script that puts one there."""
    return share >= 1.0 and second > 0 and _GLUE.match(text, second - 1) is not None


def _finding(transcript, table, i, text, first, period, copies, offsets, glued, config) -> Finding:
    starts, ends = offsets
    stop = min(first + copies * period, len(starts)) - 1
    unit = text[starts[first]:ends[first + period - 1]]
    size = max(len(text), 1)
    return Finding(
        kind=Kind.PHRASE_LOOP, severity=Severity.MEDIUM, span=span_of(transcript, i, i), segments=(i, i),
        speaker=table.speaker_of(i, i), unit=unit, period=period, count=copies,
        excerpt=clip(text[starts[first]:]), score=copies / config.min_repeats_long,
        evidence=("glued_copies",) if glued else ("near_copies",), stream="words",
        extent=(i + starts[first] / size, i + ends[stop] / size), covered=ends[stop] - starts[first])
