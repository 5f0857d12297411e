"""Token streams: a transcript's text as integer ids, with a way back to segments.

Three streams are built from normalised text (NFKC, case-folded):
    chars  every grapheme but punctuation, symbols and spaces: finds loops of any
           script and sub-word loops (``Hmmmm``); copies that differ only in case,
           width or punctuation (``Aye. aye,``) match.
    words  letters/digits between separators: finds long units (sentences) in
           space-delimited text within the period limit.
    punct  punctuation and symbols only: finds loops that stripping punctuation erases
           (``!!!!``, ``,,,,``).
Each token knows its segment, and its position inside that segment as a fraction, so
hits from different streams can be compared on one axis.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np
import regex

_DROP = regex.compile(r"[\p{P}\p{S}\p{Z}\p{C}]+")
_PUNCT_OR_TEXT = regex.compile(r"[\p{P}\p{S}]|[^\p{P}\p{S}]+")
_IS_PUNCT = regex.compile(r"[\p{P}\p{S}]")
_SPACE = regex.compile(r"[\p{Z}\s\p{C}]+")
_WORD = regex.compile(r"[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*")
# Text needing real grapheme clusters: combining marks, joiners, flags, variation selectors.
_CLUSTERED = regex.compile(r"[\p{M}\u200d\U0001F1E6-\U0001F1FF\uFE00-\uFE0F]")
_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
# Ids of multi-codepoint graphemes start above the last code point.
_CLUSTER_BASE = 0x110000


def normalize(text: str) -> str:
    """NFKC (full/half width alike) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def content(text: str) -> str:
    """Normalised text without punctuation, symbols, spaces or controls."""
    return _DROP.sub("", normalize(text))


def segment_key(text: str) -> str:
    """What makes two segments 'the same': their content, or their punctuation when
    they have none (a segment of "!!!" repeats one of "!!!")."""
    norm = normalize(text)
    return _DROP.sub("", norm) or regex.sub(r"\s+", "", norm)


@dataclass(frozen=True)
class Stream:
    """Token ids of a list of segment texts.

    Attributes:
        name: "chars", "words" or "punct".
        ids: int32 token ids.
        bounds: ``bounds[i]`` is the first token of the i-th text; one extra at the end.
        owners: the segment index of each text (a stream may cover some segments only).
        pieces: token strings, for turning a run back into text.
    """

    name: str
    ids: np.ndarray
    bounds: np.ndarray
    owners: np.ndarray
    pieces: object
    joiner: str

    def text(self, start: int, stop: int) -> str:
        return self.joiner.join(self.pieces[start:stop])

    def owner_index(self, positions: np.ndarray) -> np.ndarray:
        """Index into ``owners``/``bounds`` of the text holding each token position."""
        return np.searchsorted(self.bounds, positions, side="right") - 1

    def locate(self, position: int) -> tuple[int, float]:
        """(segment index, fraction of that segment's tokens before ``position``)."""
        k = int(self.owner_index(np.asarray([position]))[0])
        size = max(1, int(self.bounds[k + 1] - self.bounds[k]))
        return int(self.owners[k]), (position - int(self.bounds[k])) / size


def _bounds(lengths: list[int]) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))


def char_stream(texts: list[str], owners: list[int], name: str = "chars") -> Stream:
    cleaned = [_DROP.sub("", normalize(t)) for t in texts]
    joined = "".join(cleaned)
    if not _CLUSTERED.search(joined):  # fast path: one code point per grapheme
        ids = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int32)
        return Stream(name, ids, _bounds([len(c) for c in cleaned]), np.asarray(owners, dtype=np.int64),
                      joined, "")
    vocab: dict[str, int] = {}
    pieces, lengths = [], []
    for c in cleaned:
        clusters = regex.findall(r"\X", c)
        pieces.extend(clusters)
        lengths.append(len(clusters))
    ids = np.fromiter((ord(g) if len(g) == 1 else _CLUSTER_BASE + vocab.setdefault(g, len(vocab))
                       for g in pieces), dtype=np.int32, count=len(pieces))
    return Stream(name, ids, _bounds(lengths), np.asarray(owners, dtype=np.int64), pieces, "")


def word_stream(texts: list[str], owners: list[int]) -> Stream:
    vocab: dict[str, int] = {}
    pieces, lengths = [], []
    for t in texts:
        words = _WORD.findall(normalize(t))
        pieces.extend(words)
        lengths.append(len(words))
    ids = np.fromiter((vocab.setdefault(w, len(vocab)) for w in pieces), dtype=np.int32, count=len(pieces))
    return Stream("words", ids, _bounds(lengths), np.asarray(owners, dtype=np.int64), pieces, " ")


def punct_stream(texts: list[str], owners: list[int]) -> Stream:
    """Punctuation and symbols; each stretch of other text becomes a token that matches
    nothing, so only marks that touch each other (``!!!!``, ``,,,,``) can repeat."""
    pieces, lengths, ids = [], [], []
    for t in texts:
        tokens = _PUNCT_OR_TEXT.findall(_SPACE.sub("", normalize(t)))
        pieces.extend(tokens)
        lengths.append(len(tokens))
        ids.extend(ord(tok) if len(tok) == 1 and _IS_PUNCT.match(tok) else -1 - len(ids) for tok in tokens)
    return Stream("punct", np.asarray(ids, dtype=np.int64), _bounds(lengths), np.asarray(owners, dtype=np.int64),
                  pieces, "")


def speech_units(text: str) -> tuple[int, bool]:
    """(units, is_cjk): CJK-like graphemes when they dominate, else words. One unit is
    roughly one syllable or mora for CJK, one word otherwise."""
    cjk = len(_CJK.findall(text))
    words = len(_WORD.findall(_CJK.sub(" ", text)))
    return (cjk + words, True) if cjk >= words else (cjk + words, False)


def grapheme_len(text: str) -> int:
    return len(regex.findall(r"\X", text)) if _CLUSTERED.search(text) else len(text)
