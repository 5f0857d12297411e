"""The token streams of a transcript's texts (``tokens`` says what each stream holds).

All segment texts are joined by a separator and handled as one array of code points,
classified through a lookup table: no Python loop runs per segment or per character,
which is what lets a 100k-segment transcript scan in well under a second.

That array, with its flags, masks and 8-byte positions, takes about 25 bytes a character
at its peak: four times a 300 MB file. So a text of ``SMALLEST`` characters or more is
built from blocks of whole segments (about ``BLOCK`` characters each), only one block's
code points and masks existing at a time; the streams, keys and normalised text that come
out are equal, array for array, to the whole-text build's
(``tests/detect/test_memory_streams.py`` holds them to it).

A block ends just after a separator, so no token crosses it: words and stretches of
punctuation or other text stop at separators, and an apostrophe joins a word only between
two word characters. Two things are global and carried over: the numbering of the punct
stream's stretches of other text, and the word hash's exponent (``_hash_runs`` aligns
every word to one exponent fixed by the whole text's hash blocks).
"""

from __future__ import annotations

import numpy as np
import regex

from ..model import give_back_free_memory, lengths as text_lengths
from .tokens import (CLUSTER, MARK, PUNCT, SEP, SEP_CODE, SPACE, WORD, Stream, Streams, classify, lookup,
                     normalize, positions, text_bounds)

APOSTROPHES = (ord("'"), ord("\u2019"))  # between two word characters, part of the word (let's, l'eau)


def build_streams(texts: list[str]) -> Streams:
    """The three streams of ``texts`` and each segment's comparison key; a text of
    ``SMALLEST`` characters or more is built a block of segments at a time (the same
    arrays, a fraction of the peak memory), unless it has grapheme clusters."""
    if sum(text_lengths(texts)) >= SMALLEST:
        blockwise = _by_blocks(texts)
        if blockwise is not None:
            return blockwise
    return _whole(texts)


def _join(texts: list[str]) -> str:
    """``texts`` joined by the separator (which no text then holds)."""
    joined = SEP.join(texts)
    if joined.count(SEP) != max(len(texts) - 1, 0):  # a text holds the separator itself
        joined = SEP.join(t.replace(SEP, " ") for t in texts)
    return joined


def _position(size: int):
    """Positions as int32 (half the memory) while the text fits, as it does below 2 G."""
    return np.int32 if size < 2**31 - 1 else np.int64


def _stream(name, ids, starts, ends, joiner, source: str, seps: np.ndarray, owners: np.ndarray,
            position) -> Stream:
    """A stream of the tokens ``ids`` at ``starts`` (``ends``) of ``source``, whose
    texts the separators at ``seps`` part."""
    starts = starts.astype(position, copy=False)
    ends = None if ends is None else ends.astype(position, copy=False)
    # Tokens per segment: where each segment's first token falls among the starts.
    cuts = np.searchsorted(starts, seps.astype(starts.dtype))  # one dtype: no copy of ``starts``
    lengths = np.diff(np.concatenate(([0], cuts, [starts.size])))
    return Stream(name, ids, text_bounds(lengths), owners, source, starts, ends, joiner)


def _whole(texts: list[str]) -> Streams:
    """The streams of ``texts`` joined and handled as one array of code points."""
    norm = normalize(_join(texts))
    # Code points as uint32, 4 bytes each: no per-character Python object, no int64 copy.
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == SEP_CODE
    seps = np.flatnonzero(is_sep)
    flags = classify(codes)
    flags[seps] = 0
    position = _position(codes.size)
    owners = np.arange(len(texts), dtype=np.int64)  # every segment, in order: one array for the three streams

    def stream(name, ids, starts, ends, joiner):
        return _stream(name, ids, starts, ends, joiner, norm, seps, owners, position)

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
    joined = np.insert(chars.ids, chars.bounds[1:-1], np.uint16(SEP_CODE))
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


def _text(codes: np.ndarray) -> str:
    """uint32 code points as a str, decoded from the array's own buffer (no bytes copy)."""
    return str(memoryview(codes), "utf-32-le")


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
    apostrophe = (codes == APOSTROPHES[0]) | (codes == APOSTROPHES[1])
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


BLOCK = 1 << 20  # characters a block; a block's arrays take about 25 bytes a character
SMALLEST = 8 * BLOCK  # characters below which the text is built whole: its peak is small anyway


def _by_blocks(texts: list[str]) -> Streams | None:
    """The streams of ``texts`` built block by block, or None when the text has grapheme
    clusters (the whole-text build handles those: their ids are numbered per build)."""
    norm, cuts = _normalized(texts)
    parts = [_block(norm[a:b], a, last=k + 2 == len(cuts)) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
    if any(p is None for p in parts):
        return None
    return _assemble(norm, parts, len(texts))


def _segment_blocks(texts: list[str]):
    """(first, stop) segment indices of blocks of about ``BLOCK`` characters (one empty
    block for no text: the streams still need their arrays)."""
    yield from tiles(texts, BLOCK, empty=True)


def tiles(texts: list[str], chars: int, empty: bool = False):
    """(first, stop) segment ranges of about ``chars`` characters (separators counted),
    tiling the transcript in order (``empty``: one empty range for no text)."""
    first, size = 0, 0
    for i, length in enumerate(text_lengths(texts)):
        size += length + 1
        if size >= chars:
            yield first, i + 1
            first, size = i + 1, 0
    if first < len(texts) or (empty and not texts):
        yield first, len(texts)


def _normalized(texts: list[str]) -> tuple[str, list[int]]:
    """The normalised joined text, and where each block starts in it (plus its end).
    Normalising block by block gives the whole text's normalisation: the separator is a
    starter that composes with nothing, so NFKC never reaches across it, and case folding
    is per character."""
    pieces, cuts = [], [0]
    blocks = list(_segment_blocks(texts))
    for k, (i, j) in enumerate(blocks):
        piece = normalize(_join(texts[i:j]) + (SEP if k + 1 < len(blocks) else ""))
        pieces.append(piece)
        cuts.append(cuts[-1] + len(piece))
    return "".join(pieces), cuts


def _collect(name, ids, starts, ends, joiner):
    return ids, starts, ends


def _block(norm: str, offset: int, last: bool) -> dict | None:
    """One block's tokens, keys and separators, positions still local to the block."""
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == SEP_CODE
    flags = classify(codes)
    flags[is_sep] = 0
    if ((flags & (MARK | CLUSTER)) != 0).any():
        return None
    chars = _chars(norm, codes, flags, _collect)
    punct = _punct(codes, flags, is_sep, _collect)
    words = _word_runs(codes, flags)  # hashed later, whole
    keys = _block_keys(codes, flags, is_sep, last)
    return {"offset": offset, "chars": chars, "punct": punct, "words": words, "keys": keys,
            "seps": np.flatnonzero(is_sep) + offset}


def _block_keys(codes, flags, is_sep, last: bool) -> list[str]:
    """The block's segment keys, as the whole-text build makes them."""
    if not last:  # the separator that ends the block starts no segment here
        codes, flags, is_sep = codes[:-1], flags[:-1], is_sep[:-1]
    return _keys(codes, flags, is_sep)


class _Codes:
    """Code points of ``norm`` by slice, made when a slice is asked for."""

    def __init__(self, norm: str):
        self.norm = norm

    def __getitem__(self, where: slice) -> np.ndarray:
        return np.frombuffer(self.norm[where].encode("utf-32-le"), dtype=np.uint32)


def _assemble(norm: str, parts: list[dict], n: int) -> Streams:
    """The blocks' pieces laid end to end, one field at a time, each block's share of it
    dropped as soon as it is copied (holding every block's arrays and the joined ones at
    once would double the streams' memory)."""
    position = _position(len(norm))
    seps = _joined(parts, "seps")
    owners = np.arange(n, dtype=np.int64)

    def stream(name, ids, starts, ends, joiner):
        return _stream(name, ids, starts, ends, joiner, norm, seps, owners, position)

    for p in parts:  # one field per key, positions made global
        offset = position(p["offset"])
        (p["chars_ids"], p["chars_starts"], _), p["chars"] = p["chars"], None
        (p["punct_ids"], p["punct_starts"], p["punct_ends"]), p["punct"] = p["punct"], None
        (p["word_starts"], p["word_ends"]), p["words"] = p["words"], None
        for key in ("chars_starts", "punct_starts", "punct_ends", "word_starts", "word_ends"):
            p[key] = (p[key] + offset).astype(position, copy=False)
    empty = parts[0]["chars_ids"]  # uint32 when no block has a character, as the whole build
    chars_ids = _joined([p for p in parts if p["chars_ids"].size], "chars_ids") if any(
        p["chars_ids"].size for p in parts) else empty
    chars = stream("chars", chars_ids, _joined(parts, "chars_starts"), None, "")
    word_starts, word_ends = _joined(parts, "word_starts"), _joined(parts, "word_ends")
    words = stream("words", _hash_runs(_Codes(norm), word_starts, word_ends), word_starts, word_ends, " ")
    punct_ids = _punct_ids(parts)
    punct = stream("punct", punct_ids, _joined(parts, "punct_starts"), _joined(parts, "punct_ends"), "")
    keys = [k for p in parts for k in p.pop("keys")]
    return Streams(chars, words, punct, keys, chars.ids)


def _joined(parts: list[dict], key: str) -> np.ndarray:
    """The blocks' arrays under ``key`` as one, each block's dropped from ``parts``. The
    blocks' arrays came from the heap (each is small), and their pages go back to the
    system now: left free in the middle of the heap they would stay resident."""
    joined = np.concatenate([p.pop(key) for p in parts])
    give_back_free_memory()
    return joined


def _punct_ids(parts: list[dict]) -> np.ndarray:
    """The punct ids, each block's stretches of other text numbered on from the last
    block's (ids -1, -2, ... in order over the whole text)."""
    out, before = [], 0
    for p in parts:
        ids = p.pop("punct_ids")
        out.append(np.where(ids < 0, ids - before, ids))
        before += int((ids < 0).sum())
    return np.concatenate(out)
