"""Which text is written without spaces: the one place that decides "is this CJK".

Rates are counted in speech units: words for space-delimited scripts, graphemes for
scripts where one grapheme is about one syllable or mora (CJK ideographs, kana, Hangul,
Thai, Lao, Khmer, Myanmar). Detection, repair and the benchmark all ask here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import regex

from .tokens import lookup

# Code point ranges of scripts written without spaces, one grapheme about one syllable.
CJK_RANGES = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x4DBF),
              (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
CJK_CLASS = "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES)  # the ranges as a regex character class body
_CJK = regex.compile(f"[{CJK_CLASS}]")
# A word: letters, digits and marks, runs of them joined by one apostrophe ("don't", "l’eau").
WORD_PATTERN = regex.compile(r"[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*")


def cjk_mask(codes: np.ndarray) -> np.ndarray:
    """True for each code point of a script written without spaces."""
    if codes.dtype == np.uint16:  # every code in the BMP (most text): one look-up each
        return lookup(_bmp_cjk(), codes)
    return _in_ranges(codes)


def _in_ranges(codes: np.ndarray) -> np.ndarray:
    mask = np.zeros(codes.shape, dtype=bool)
    for low, high in CJK_RANGES:
        mask |= (codes >= low) & (codes <= high)
    return mask


@lru_cache(maxsize=1)
def _bmp_cjk() -> np.ndarray:
    """``cjk_mask`` over the BMP, as a table: one gather instead of two compares a range."""
    return _in_ranges(np.arange(0x10000, dtype=np.uint32))


def cjk_count(text: str) -> int:
    """Graphemes of ``text`` in scripts written without spaces."""
    return len(_CJK.findall(text))


_KANA = regex.compile(r"[\u3040-\u30ff]")


# The units of a loop come back run after run (the same phrase in each stream, and in
# each speaker's): what they weigh is kept for that many of them.
UNIT_CACHE = 4096


@lru_cache(maxsize=UNIT_CACHE)
def kana_count(text: str) -> int:
    """Hiragana and katakana graphemes of ``text`` (one mora each)."""
    return len(_KANA.findall(text))


def is_cjk(cjk_graphemes, words):
    """The one rule: text is CJK when it has at least as many CJK graphemes as words
    (a run of CJK characters counts as one word, so mixed text leans to its majority).
    Works on numbers or on numpy arrays of per-segment counts."""
    return cjk_graphemes >= words


@lru_cache(maxsize=UNIT_CACHE)
def speech_units(text: str) -> tuple[int, bool]:
    """(speech units, is CJK) of ``text``: CJK graphemes plus words when CJK, else words.

    >>> speech_units("we should ship it")
    (4, False)
    >>> speech_units("我们先看一下")
    (7, True)
    """
    cjk, words = cjk_count(text), len(WORD_PATTERN.findall(text))
    cjk_text = bool(is_cjk(cjk, words)) and cjk > 0
    return (cjk + words if cjk_text else words), cjk_text
