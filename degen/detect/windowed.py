"""Token streams of a large transcript, built block by block of segments.

``tokens.build_streams`` turns the whole text into one array of uint32 code points plus
flags, masks and 8-byte positions: about 25 bytes a character at its peak, four times a
300 MB file. Here the same streams are built from blocks of whole segments (about
``BLOCK`` characters each), so only one block's code points and masks exist at a time;
the streams, keys and normalised text that come out are equal, array for array, to what
``tokens.build_streams`` gives (``tests/test_memory_streams.py`` holds them to it).

A block ends just after a separator, so no token crosses it: words and stretches of
punctuation or other text stop at separators, and an apostrophe joins a word only between
two word characters. Two things are global and carried over: the numbering of the punct
stream's stretches of other text, and the word hash's exponent (``tokens._hash_runs``
aligns every word to one exponent fixed by the whole text's hash blocks).
"""

from __future__ import annotations

import numpy as np

from ..model import give_back_free_memory
from . import tokens
from .tokens import SEP, WORD, Stream, Streams

BLOCK = 1 << 20  # characters a block; a block's arrays take about 25 bytes a character
SMALLEST = 8 * BLOCK  # below this the whole-text build is used: its peak is small anyway


def build_streams(texts: list[str]) -> Streams | None:
    """The streams of ``texts`` built block by block, or None when the text is small or
    has grapheme clusters (the whole-text build handles those)."""
    if sum(map(len, texts)) < SMALLEST:
        return None
    norm, cuts = _normalized(texts)
    parts = [_block(norm[a:b], a, last=k + 2 == len(cuts)) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
    if any(p is None for p in parts):
        return None
    return _assemble(norm, parts, len(texts))


def _segment_blocks(texts: list[str]):
    """(first, stop) segment indices of blocks of about ``BLOCK`` characters."""
    first, size = 0, 0
    for i, text in enumerate(texts):
        size += len(text) + 1
        if size >= BLOCK:
            yield first, i + 1
            first, size = i + 1, 0
    if first < len(texts) or not texts:
        yield first, len(texts)


def _normalized(texts: list[str]) -> tuple[str, list[int]]:
    """The normalised joined text, and where each block starts in it (plus its end).
    Normalising block by block gives the whole text's normalisation: the separator is a
    starter that composes with nothing, so NFKC never reaches across it, and case folding
    is per character."""
    pieces, cuts = [], [0]
    blocks = list(_segment_blocks(texts))
    for k, (i, j) in enumerate(blocks):
        block = SEP.join(texts[i:j])
        if block.count(SEP) != max(j - i - 1, 0):  # a text holds the separator itself
            block = SEP.join(t.replace(SEP, " ") for t in texts[i:j])
        piece = tokens.normalize(block + (SEP if k + 1 < len(blocks) else ""))
        pieces.append(piece)
        cuts.append(cuts[-1] + len(piece))
    return "".join(pieces), cuts


def _collect(name, ids, starts, ends, joiner):
    return ids, starts, ends


def _block(norm: str, offset: int, last: bool) -> dict | None:
    """One block's tokens, keys and separators, positions still local to the block."""
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == tokens._SEP
    flags = tokens.classify(codes)
    flags[is_sep] = 0
    if ((flags & (tokens.MARK | tokens.CLUSTER)) != 0).any():
        return None
    chars = tokens._chars(norm, codes, flags, _collect)
    punct = tokens._punct(codes, flags, is_sep, _collect)
    words = _word_runs(codes, flags)
    keys = _keys(codes, flags, is_sep, last)
    return {"offset": offset, "chars": chars, "punct": punct, "words": words, "keys": keys,
            "seps": np.flatnonzero(is_sep) + offset}


def _word_runs(codes: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the words, as ``tokens._words`` finds them (hashed later, whole)."""
    word = (flags & WORD) != 0
    # An apostrophe between two word characters belongs to the word (let's, l'eau).
    apostrophe = (codes == tokens._APOSTROPHES[0]) | (codes == tokens._APOSTROPHES[1])
    inner = np.zeros_like(word)
    inner[1:-1] = apostrophe[1:-1] & word[:-2] & word[2:]
    return tokens._runs(word | inner)


def _keys(codes, flags, is_sep, last: bool) -> list[str]:
    """The block's segment keys, as ``tokens.build_streams`` makes them."""
    if not last:  # the separator that ends the block starts no segment here
        codes, flags, is_sep = codes[:-1], flags[:-1], is_sep[:-1]
    keys = tokens._text(codes[((flags & WORD) != 0) | is_sep]).split(SEP)
    if "" in keys:  # segments without content compare by their punctuation
        marks = tokens._text(codes[((flags & tokens.PUNCT) != 0) | is_sep]).split(SEP)
        keys = [k or m for k, m in zip(keys, marks)]
    return keys


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
    position = np.int32 if len(norm) < 2**31 - 1 else np.int64
    seps = _joined(parts, "seps")
    owners = np.arange(n, dtype=np.int64)

    def stream(name, ids, starts, ends, joiner):
        cuts = np.searchsorted(starts, seps.astype(starts.dtype))
        lengths = np.diff(np.concatenate(([0], cuts, [starts.size])))
        return Stream(name, ids, tokens._bounds(lengths), owners, norm, starts, ends, joiner)

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
    words = stream("words", tokens._hash_runs(_Codes(norm), word_starts, word_ends), word_starts, word_ends, " ")
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
