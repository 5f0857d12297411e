"""Token streams: a transcript's text as integer ids, with a way back to segments.

Three streams are built from normalised text (NFKC, case-folded):
    chars  every grapheme but punctuation, symbols and spaces: finds loops of any
           script and sub-word loops (``Hmmmm``); copies that differ only in case,
           width or punctuation (``Aye. aye,``) match.
    words  runs of letters, digits and marks: finds long units (sentences) in
           space-delimited text within the period limit.
    punct  punctuation and symbols, each stretch of other text a token that matches
           nothing: finds loops that stripping punctuation erases (``!!!!``).

All segment texts are joined by a separator and handled as one array of code points,
classified through a lookup table: no Python loop runs per segment or per character,
which is what lets a 100k-segment transcript scan in well under a second.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import regex


SEP = "\x1f"  # joins segment texts; removed from the texts first
_SEP = ord(SEP)
# Character classes, as bit flags in the lookup table.
WORD, PUNCT, SPACE, MARK, CLUSTER = 1, 2, 4, 8, 16
_FLAGS = {"L": WORD, "N": WORD, "M": WORD | MARK, "P": PUNCT, "S": PUNCT, "Z": SPACE, "C": SPACE}
_APOSTROPHES = (ord("'"), ord("\u2019"))
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
        return Stream(self.name, self.ids[tokens], _bounds(lengths), self.owners[segments], self.source,
                      self.starts[tokens], None if self.ends is None else self.ends[tokens], self.joiner)


def _bounds(lengths) -> np.ndarray:
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


def build_streams(texts: list[str]) -> Streams:
    from . import windowed
    blockwise = windowed.build_streams(texts)  # a large text: the same streams, a block at a time
    if blockwise is not None:
        return blockwise
    joined = SEP.join(texts)
    if joined.count(SEP) != max(len(texts) - 1, 0):  # a text holds the separator itself
        joined = SEP.join(t.replace(SEP, " ") for t in texts)
    norm = normalize(joined)
    del joined
    # Code points as uint32, 4 bytes each: no per-character Python object, no int64 copy.
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == _SEP
    seps = np.flatnonzero(is_sep)
    flags = classify(codes)
    flags[seps] = 0
    n = len(texts)
    position = np.int32 if codes.size < 2**31 - 1 else np.int64
    owners = np.arange(n, dtype=np.int64)  # every segment, in order: one array for the three streams

    def stream(name, ids, starts, ends, joiner):
        # Positions as int32 (half the memory) while the text fits, as it does below 2 G.
        starts = starts.astype(position, copy=False)
        ends = None if ends is None else ends.astype(position, copy=False)
        # Tokens per segment: where each segment's first token falls among the starts.
        cuts = np.searchsorted(starts, seps.astype(starts.dtype))  # one dtype: no copy of ``starts``
        lengths = np.diff(np.concatenate(([0], cuts, [starts.size])))
        return Stream(name, ids, _bounds(lengths), owners, norm, starts, ends, joiner)

    chars = _chars(norm, codes, flags, stream)
    # One code point a token: the ids are the code points already, shared, not copied.
    char_codes = chars.ids if chars.ends is None else codes[chars.starts]
    words = _words(codes, flags, stream)
    punct = _punct(codes, flags, is_sep, stream)
    return Streams(chars, words, punct, _keys_of(chars, codes, flags, is_sep), char_codes)


def _keys_of(chars: Stream, codes: np.ndarray, flags: np.ndarray, is_sep: np.ndarray) -> list[str]:
    """``_keys``, read from the char stream where its ids are the word characters' code
    points as uint16 (no clusters, all in the BMP): separators inserted at its bounds
    and decoded as UTF-16 take about half the time of picking them out of ``codes``."""
    if chars.ends is not None or chars.ids.dtype != np.uint16:
        return _keys(codes, flags, is_sep)
    joined = np.insert(chars.ids, chars.bounds[1:-1], np.uint16(_SEP))
    keys = str(memoryview(joined), "utf-16-le").split(SEP)  # BMP code points, never surrogates: one unit each
    if "" in keys:  # segments without content compare by their punctuation
        marks = _text(codes[((flags & PUNCT) != 0) | is_sep]).split(SEP)
        keys = [k or m for k, m in zip(keys, marks)]
    return keys


def _keys(codes: np.ndarray, flags: np.ndarray, is_sep: np.ndarray) -> list[str]:
    """Each segment's comparison key: its word characters, or its punctuation when it has
    none (segments are parted by the separators in ``is_sep``)."""
    keys = _text(codes[((flags & WORD) != 0) | is_sep]).split(SEP)
    if "" in keys:  # segments without content compare by their punctuation
        marks = _text(codes[((flags & PUNCT) != 0) | is_sep]).split(SEP)
        keys = [k or m for k, m in zip(keys, marks)]
    return keys


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


def _text(codes: np.ndarray) -> str:
    """uint32 code points as a str, decoded from the array's own buffer (no bytes copy)."""
    return str(memoryview(codes), "utf-32-le")


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


def _chars(norm, codes, flags, stream) -> Stream:
    clustered = ((flags & (MARK | CLUSTER)) != 0).any()
    if not clustered:  # one code point per grapheme
        starts = positions((flags & WORD) != 0)  # a bool mask: numpy finds those three times as fast
        ids = lookup(codes, starts)
        if ids.size and int(ids.max()) < 0x10000:
            # Two bytes a character where every one is in the BMP (most text): half the
            # memory, and the tandem search, which reads every id once per period, runs
            # about twice as fast. The values are the code points all the same.
            ids = ids.astype(np.uint16)
        return stream("chars", ids, starts, None, "")
    # Real grapheme clusters (Thai, Devanagari, emoji sequences ...): the slow path.
    spans = [(m.start(), m.end()) for m in regex.finditer(r"\X", norm)]
    starts = np.fromiter((a for a, _ in spans), dtype=np.int64, count=len(spans))
    ends = np.fromiter((b for _, b in spans), dtype=np.int64, count=len(spans))
    keep = (flags[starts] & WORD) != 0
    starts, ends = starts[keep], ends[keep]
    vocab: dict[str, int] = {}
    ids = np.fromiter((vocab.setdefault(norm[a:b], len(vocab)) for a, b in zip(starts.tolist(), ends.tolist())),
                      dtype=np.int64, count=starts.size)
    return stream("chars", ids, starts, ends, "")


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the runs of True in ``mask`` (int32 while positions fit): the
    changes of a False-padded copy alternate start, end."""
    padded = np.concatenate(([False], mask, [False]))
    changes = positions(padded[1:] != padded[:-1])
    return changes[0::2], changes[1::2]


# Code points hashed per block: bounds the 64-bit temporaries to a few times 8 MB
# whatever the transcript's size.
HASH_BLOCK = 1 << 20


def _hash_runs(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit polynomial hash of each run of code points, vectorised block by block
    (collisions between distinct words are about 2**-64 likely)."""
    blocks, i = [], 0
    while i < starts.size:  # runs of whole words, each block at most HASH_BLOCK long (or one word)
        j = max(int(np.searchsorted(ends, int(starts[i]) + HASH_BLOCK, side="right")), i + 1)
        blocks.append((i, j))
        i = j
    top = max((int(ends[j - 1]) - int(starts[i]) for i, j in blocks), default=0)
    base = np.uint64(1_000_003)
    out = np.empty(starts.size, dtype=np.int64)
    with np.errstate(over="ignore"):
        powers = _powers(base, top + 1)  # powers[k] = base ** (k + 1)
        for i, j in blocks:
            lo, hi = int(starts[i]), int(ends[j - 1])
            # prefix[k] = sum of codes[lo + i] * base^(i + 1) for i < k, built in place
            prefix = np.empty(hi - lo + 1, dtype=np.uint64)
            prefix[0] = 0
            np.multiply(codes[lo:hi], powers[:hi - lo], out=prefix[1:])
            np.cumsum(prefix[1:], out=prefix[1:])
            s, e = starts[i:j] - lo, ends[i:j] - lo
            # Align every run to one exponent, the same in every block, by multiplying up
            # instead of dividing: h = (P[e] - P[s]) * base^(top - s).
            out[i:j] = ((lookup(prefix, e) - lookup(prefix, s)) * lookup(powers, top - s)).astype(np.int64)
    return out


def _powers(base: np.uint64, count: int) -> np.ndarray:
    """``base ** (k + 1)`` mod 2**64 for k < count, by doubling: each step multiplies the
    powers so far by the last of them, one vectorised product where np.cumprod runs one
    element at a time (3 ms for a million). Products mod 2**64 are exact, so the values
    are cumprod's."""
    powers = np.empty(count, dtype=np.uint64)
    if count:
        powers[0] = base
    done = min(count, 1)
    with np.errstate(over="ignore"):
        while done < count:
            step = min(done, count - done)
            np.multiply(powers[:step], powers[done - 1], out=powers[done:done + step])
            done += step
    return powers


def _words(codes, flags, stream) -> Stream:
    starts, ends = _word_runs(codes, flags)
    return stream("words", _hash_runs(codes, starts, ends), starts, ends, " ")


def _word_runs(codes: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the words: runs of word characters."""
    word = (flags & WORD) != 0
    # An apostrophe between two word characters belongs to the word (let's, l'eau).
    apostrophe = (codes == _APOSTROPHES[0]) | (codes == _APOSTROPHES[1])
    inner = np.zeros_like(word)
    inner[1:-1] = apostrophe[1:-1] & word[:-2] & word[2:]
    return _runs(word | inner)


def _punct(codes, flags, is_sep, stream) -> Stream:
    punct = (flags & PUNCT) != 0
    other = ~punct & ((flags & SPACE) == 0) & ~is_sep
    o_starts, o_ends = _runs(other)
    first = punct.copy()
    first[o_starts] = True
    del other
    starts = positions(first)  # in order already: no sort
    del first
    is_punct = lookup(punct, starts)
    # Stretches of other text get ids that match nothing (negative and distinct). Code
    # points (below 2**21), stretch counts and positions fit int32 while the text does.
    wide = starts.dtype
    stretch = np.cumsum(~is_punct, dtype=wide) - 1
    ids = np.where(is_punct, lookup(codes, starts).astype(wide), -1 - stretch)
    ends = np.where(is_punct, starts + 1, lookup(o_ends, np.maximum(stretch, 0)) if o_ends.size else starts + 1)
    return stream("punct", ids, starts, ends, "")


_GRAPHEME = regex.compile(r"\X")


def grapheme_len(text: str) -> int:
    if text.isascii() and "\r" not in text:  # one grapheme a character (only CR LF is one of two)
        return len(text)
    return len(_GRAPHEME.findall(text))
