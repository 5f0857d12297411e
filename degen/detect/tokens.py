"""Token streams: a transcript's text as integer ids, with a way back to segments.

Three streams are built from normalised text (NFKC, case-folded):
    chars  every grapheme but punctuation, symbols and spaces: finds loops of any
           script and sub-word loops (``Hmmmm``); copies that differ only in case,
           width or punctuation (``Aye. aye,``) match.
    words  runs of letters, digits and marks: finds long units (sentences) in
           space-delimited text within the period limit.
    punct  punctuation and symbols, each stretch of other text a token that matches
           nothing: finds loops that stripping punctuation erases (``!!!!``).

Here: what a character is (flags through a lookup table), normalisation, and the Stream
values; ``streams.build_streams`` makes them from a transcript's texts.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import regex


SEP = "\x1f"  # joins segment texts; removed from the texts first
SEP_CODE = ord(SEP)
# Character classes, as bit flags in the lookup table.
WORD, PUNCT, SPACE, MARK, CLUSTER = 1, 2, 4, 8, 16
_FLAGS = {"L": WORD, "N": WORD, "M": WORD | MARK, "P": PUNCT, "S": PUNCT, "Z": SPACE, "C": SPACE}
# Code points that make real grapheme clusters beyond combining marks (variation selectors
# are marks already): the zero-width joiner (U+200D) and the regional indicators of flags
# (U+1F1E6-1F1FF) get the CLUSTER flag.


def _flag(code: int) -> int:
    extra = CLUSTER if code == 0x200D or 0x1F1E6 <= code <= 0x1F1FF else 0
    return _FLAGS[unicodedata.category(chr(code))[0]] | extra


def lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[index]`` for indices that lie in the table (an index past its end reads its
    last entry): np.take in "clip" mode skips numpy's bounds check and index conversion,
    which halves the time of a gather by uint32 code points or int32 positions."""
    return np.take(table, index, mode="clip")


@lru_cache(maxsize=1)
def _bmp_table() -> np.ndarray:
    return np.array([_flag(c) for c in range(0x10000)], dtype=np.uint8)


# Below this many code points, classifying each distinct one beats building the 65,536-entry
# table (about 40 ms, once per process): what keeps `degen scan small.json` quick.
SMALL_TEXT = 100_000


_small_seen = [0]  # code points classified without the table so far in this process


def classify(codes: np.ndarray) -> np.ndarray:
    """Flags for each code point (BMP by table, the rest one unique code at a time)."""
    if _small_seen[0] + codes.size < SMALL_TEXT and _bmp_table.cache_info().currsize == 0:
        _small_seen[0] += codes.size  # many short texts in one process: the table pays off
        distinct, index = np.unique(codes, return_inverse=True)
        flags = np.array([_flag(c) for c in distinct.tolist()], dtype=np.uint8)
        return flags[index].reshape(codes.shape)
    table = _bmp_table()
    if not codes.size or int(codes.max()) <= 0xFFFF:  # most text: no clipped copy, no astral pass
        return lookup(table, codes)
    flags = lookup(table, codes)  # an astral code reads the last BMP entry until set below
    astral = codes > 0xFFFF
    if astral.any():
        for code in np.unique(codes[astral]).tolist():
            flags[codes == code] = _flag(code)
    return flags


# Characters case-folded per call: str.casefold reserves 12 bytes a character for its
# result (a character can fold to three) before trimming, so a whole 100-hour transcript at
# once briefly took twice the file's size; folding is per character, so pieces join alike.
FOLD_BLOCK = 1 << 20


def normalize(text: str) -> str:
    """NFKC (full/half width alike) and case-folded."""
    if not unicodedata.is_normalized("NFKC", text):  # most text already is: a quick check
        text = unicodedata.normalize("NFKC", text)
    if len(text) <= FOLD_BLOCK:
        return text.casefold()
    return "".join(text[i:i + FOLD_BLOCK].casefold() for i in range(0, len(text), FOLD_BLOCK))


_DROP = regex.compile(r"[\p{P}\p{S}\p{Z}\p{C}]+")
DROP = _DROP  # what ``content`` leaves out, for a reader that maps content back to the text


def content(text: str) -> str:
    """Normalised text without punctuation, symbols, spaces or controls."""
    return _DROP.sub("", normalize(text))


@dataclass(frozen=True)
class Stream:
    """Token ids of a transcript's segments.

    Attributes:
        name: "chars", "words" or "punct".
        ids: integer token ids; equal ids are equal tokens.
        bounds: ``bounds[i]`` is the first token of the i-th text; one extra at the end.
        owners: the segment index of each text (a stream may cover some segments only).
        source, starts, ends: each token is ``source[starts[k]:ends[k]]``; ``ends`` is
            None where every token is one code point (``starts + 1``, not stored: the
            character stream of most text, 4 bytes a character saved).
        joiner: what goes between tokens when turning them back into text.
    """

    name: str
    ids: np.ndarray
    bounds: np.ndarray
    owners: np.ndarray
    source: str
    starts: np.ndarray
    ends: np.ndarray | None
    joiner: str

    def text(self, start: int, stop: int) -> str:
        if self.ends is None:
            return self.joiner.join(self.source[a] for a in self.starts[start:stop].tolist())
        return self.joiner.join(self.source[a:b] for a, b in zip(self.starts[start:stop].tolist(),
                                                                   self.ends[start:stop].tolist()))

    def end_at(self, index: np.ndarray) -> np.ndarray:
        """Where tokens ``index`` end in ``source``."""
        return self.starts[index] + 1 if self.ends is None else self.ends[index]

    def owner_index(self, positions: np.ndarray) -> np.ndarray:
        """Index into ``owners``/``bounds`` of the text holding each token position."""
        return np.searchsorted(self.bounds, positions, side="right") - 1

    def locate(self, position: int, k: int | None = None) -> tuple[int, float]:
        """(segment index, fraction of that segment's tokens before ``position``); ``k``:
        the stream's text holding ``position``, when known (``owner_index``)."""
        if k is None:
            k = int(self.bounds.searchsorted(position, side="right")) - 1  # owner_index, for one
        size = max(1, int(self.bounds[k + 1] - self.bounds[k]))
        return int(self.owners[k]), (position - int(self.bounds[k])) / size

    def subset(self, segments: np.ndarray) -> "Stream":
        """The stream of some segments only (sorted indices into ``owners``)."""
        lengths = np.diff(self.bounds)[segments]
        # The chosen texts' token ranges, laid end to end, without a pass over every token.
        offsets = np.repeat(self.bounds[segments] - (np.cumsum(lengths) - lengths), lengths)
        tokens = np.arange(offsets.size, dtype=np.int64) + offsets
        return Stream(self.name, self.ids[tokens], text_bounds(lengths), self.owners[segments], self.source,
                      self.starts[tokens], None if self.ends is None else self.ends[tokens], self.joiner)


def text_bounds(lengths) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))


@dataclass(frozen=True)
class Streams:
    """The three streams of a transcript, plus each segment's comparison key."""

    chars: Stream
    words: Stream
    punct: Stream
    keys: list[str]
    char_codes: np.ndarray  # the first code point of each ``chars`` token (uint16 or uint32)

    def all(self) -> list[Stream]:
        return [self.chars, self.words, self.punct]


# Characters looked at per block by the whole-text scans (lexicon heads, shredded
# segments): a block's code points and look-ups take about 12 bytes a character, so a
# block, not the whole text, bounds their memory.
SCAN_BLOCK = 1 << 20


def positions_by_block(text: str, find, overlap: int) -> np.ndarray:
    """Every position of ``text`` where ``find(codes)`` says so (``find`` takes a block's
    code points as uint32 and returns positions in it), block by block: each block
    reaches ``overlap`` characters into the next, so what starts near its end is seen
    whole, and a position past its end is left to the next block."""
    found, block = [], SCAN_BLOCK
    for start in range(0, len(text), block):
        codes = np.frombuffer(text[start:start + block + overlap].encode("utf-32-le"), dtype=np.uint32)
        here = find(codes)
        found.append(here[here < block] + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


# Positions found per block of this many elements: np.flatnonzero gives 8-byte positions,
# which for the character stream would be twice the int32 column kept (a peak of 8 bytes
# a character); per block only the block's share is ever 8 bytes wide.
POSITION_BLOCK = 1 << 24


def positions(mask: np.ndarray) -> np.ndarray:
    """``np.flatnonzero(mask)`` as int32 while the positions fit (int64 beyond). Pass a
    bool mask: on one, numpy counts and lists the positions several times faster than on
    uint8 flags."""
    if mask.size >= 2**31 - 1:
        return np.flatnonzero(mask)
    if mask.size <= POSITION_BLOCK:  # one block (every whole-text build): no shift, no concatenation
        return np.flatnonzero(mask).astype(np.int32)
    return np.concatenate([np.flatnonzero(mask[a:a + POSITION_BLOCK]).astype(np.int32) + np.int32(a)
                           for a in range(0, mask.size, POSITION_BLOCK)] or [np.zeros(0, dtype=np.int32)])


GRAPHEME = regex.compile(r"\X")


def grapheme_len(text: str) -> int:
    if text.isascii() and "\r" not in text:  # one grapheme a character (only CR LF is one of two)
        return len(text)
    return len(GRAPHEME.findall(text))
