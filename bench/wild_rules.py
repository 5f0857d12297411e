"""The published loop and hallucination rules that bench/wild_eval.py measures degen against,
each re-implemented from its documented thresholds (see the docstring of wild_eval.py for
where each comes from). A rule sees a Doc: the segment texts, and start times when the
transcript has them.

The rules normalise text on their own (NFKC, case-folded, punctuation and spaces dropped,
CJK graphemes one token each) rather than through degen's detection code, so that a change
in degen's detection never changes what a peer rule is credited with.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter
from pathlib import Path

import regex

WINDOW_SECONDS = 30.0
WINDOW_CHARS = 400  # about 30 s of speech when a file has no timing

# Scripts written without spaces, one grapheme about one syllable (CJK, kana, Hangul, Thai,
# Lao, Khmer, Myanmar): the ranges degen counts rates by, copied so the rules stand alone.
CJK_RANGES = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x4DBF),
              (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
_CJK = regex.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES) + "]")
_DROP = regex.compile(r"[\p{P}\p{S}\p{Z}\p{C}]+")


def content(text: str) -> str:
    """Normalised text without punctuation, symbols, spaces or controls."""
    return _DROP.sub("", unicodedata.normalize("NFKC", text).casefold())


class Doc:
    """One corpus file as the rules see it: segment texts, times when known."""

    def __init__(self, texts: list[str], starts: list[float] | None):
        self.texts = list(texts)
        self.starts = starts

    def windows(self) -> list[str]:
        """Text of each 30 s decoding window (character chunks without timing)."""
        if self.starts is not None:
            out: dict[int, list[str]] = {}
            for t, s in zip(self.texts, self.starts):
                out.setdefault(int(s // WINDOW_SECONDS), []).append(t)
            return [" ".join(v) for _, v in sorted(out.items())]
        out2, current = [], ""
        for t in self.texts:
            if current and len(current) + len(t) > WINDOW_CHARS:
                out2.append(current)
                current = ""
            current = (current + " " + t).strip()
        return out2 + ([current] if current else [])


def whisper(doc: Doc) -> bool:
    for w in doc.windows():
        data = w.encode("utf-8")
        if data and len(data) / len(zlib.compress(data)) > 2.4:
            return True
    return False


_SGLANG = re.compile(r"(.{8,128}?)\1\1", re.S)


def sglang_omni(doc: Doc) -> bool:
    return any(_SGLANG.search(content(w)) for w in doc.windows())


_VIBEVOICE = re.compile(r"(.{10,166}?)\1\1", re.S)  # three copies inside 500 characters


def vibevoice(doc: Doc) -> bool:
    return bool(_VIBEVOICE.search(" ".join(doc.texts)))


_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]", re.U)


def _tokens(text: str) -> list[str]:
    out = []
    for tok in _TOKEN.findall(text):
        out.extend(list(tok) if _CJK.search(tok) else [tok])
    return out


def vllm(doc: Doc, max_pattern: int = 20, min_count: int = 3) -> bool:
    for w in doc.windows():
        toks = _tokens(w)
        for size in range(1, max_pattern + 1):
            tail = toks[-size * min_count:]
            if len(tail) == size * min_count and all(tail[i] == tail[i % size] for i in range(len(tail))):
                return True
    return False


def nemo_sdp(doc: Doc) -> bool:
    for t in doc.texts:
        words = t.split()
        if not words:
            continue
        if len(set(words)) / len(words) <= 0.4 or max(map(len, words)) >= 25:
            return True
    return False


def load_sdp_phrases(folder: Path) -> set[str]:
    """The phrases of NeMo SDP's per-language files (granary partials/common_phrases/*.txt):
    each line is a phrase and its count in the source data; the count is dropped. SDP's own
    loader keeps whole lines, count included, so as shipped its exact match can only fire on
    a line without a count; the phrase itself is what its documentation says it matches."""
    phrases = set()
    for path in sorted(Path(folder).glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            phrase = re.sub(r"\s+-?\d+$", "", line.strip())
            if phrase:
                phrases.add(phrase)
    return phrases


def nemo_sdp_phrases(phrases: set[str]):
    """nemo-sdp with its third feature: a segment that, stripped and without '.', '?' and '!',
    is exactly one of the phrase files' phrases (DetectWhisperHallucinationFeatures)."""
    def rule(doc: Doc) -> bool:
        if nemo_sdp(doc):
            return True
        return any(t.strip().replace(".", "").replace("?", "").replace("!", "") in phrases for t in doc.texts)
    return rule


def _duplicates(items: list[str]) -> tuple[int, int]:
    seen, elements, chars = set(), 0, 0
    for x in items:
        if x in seen:
            elements, chars = elements + 1, chars + len(x)
        else:
            seen.add(x)
    return elements, chars


def _all_duplicate_chars(ngrams: list[str], n: int) -> int:
    seen, chars, i = set(), 0, 0
    while i < len(ngrams):
        if ngrams[i] in seen:
            chars += len(ngrams[i])
            i += n
        else:
            seen.add(ngrams[i])
            i += 1
    return chars


def gopher(doc: Doc) -> bool:
    text = "\n".join(doc.texts)
    if not text.strip():
        return False
    paragraphs = re.split(r"\n{2,}", text.strip())
    dup, chars = _duplicates(paragraphs)
    if dup / len(paragraphs) > 0.3 or chars / len(text) > 0.2:
        return True
    lines = text.splitlines()
    dup, chars = _duplicates(lines)
    if dup / len(lines) > 0.3 or chars / len(text) > 0.2:
        return True
    words = _tokens(text)  # datatrove uses nltk's English word_tokenize
    for n, frac in ((2, 0.20), (3, 0.18), (4, 0.16)):
        grams = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
        if grams:
            top, count = Counter(grams).most_common(1)[0]
            if len(top) * count / len(text) > frac:
                return True
    for n, frac in ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10)):
        grams = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
        if grams and _all_duplicate_chars(grams, n) / len(text) > frac:
            return True
    return False


RULES = {"whisper": whisper, "sglang-omni": sglang_omni, "vibevoice": vibevoice, "vllm": vllm,
         "nemo-sdp": nemo_sdp, "gopher": gopher}
