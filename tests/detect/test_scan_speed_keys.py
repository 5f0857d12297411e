"""One search for where lexicon phrases can start serves the keys joined by the
separator and joined by nothing: both find exactly what the plain regex finds."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import hallucination
from degen.detect.hallucination import default_lexicon
from degen.detect.tokens import SEP

LEXICON = default_lexicon()
PHRASES = sorted(LEXICON.phrases)


def _spans(matches):
    return [(m.start(), m.end(), m.group()) for m in matches]


# Whole phrases, phrases cut anywhere (so that a key ends or starts mid-phrase), and
# filler, including empty keys.
halves = st.sampled_from(PHRASES).flatmap(lambda p: st.integers(0, len(p)).map(lambda k: (p[:k], p[k:])))
keys_lists = st.lists(st.one_of(st.sampled_from(PHRASES), halves.map(lambda h: h[0]), halves.map(lambda h: h[1]),
                                st.text(alphabet="abyouthk谢字幕", max_size=5)), max_size=14)


@settings(max_examples=300, deadline=None)
@given(keys_lists)
def test_one_search_serves_both_joins(keys):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hallucination, "LONG_TEXT", 0)  # the prefiltered path, whatever the length
        separated, joined = LEXICON.finditer_keys(keys)
    assert _spans(separated) == _spans(LEXICON.pattern.finditer(SEP.join(keys)))
    assert _spans(joined) == _spans(LEXICON.pattern.finditer("".join(keys)))


def test_a_phrase_cut_between_keys_is_found_only_joined():
    phrase = max(PHRASES, key=len)
    keys = ["x" + phrase[:3], phrase[3:] + "y", phrase]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hallucination, "LONG_TEXT", 0)
        separated, joined = LEXICON.finditer_keys(keys)
    assert [m.group() for m in separated] == [phrase]
    assert [m.group() for m in joined] == [phrase, phrase]


def _key_by_definition(text: str) -> str:
    """A segment's key one character at a time: its word characters, else its punctuation."""
    from degen.detect import tokens
    norm = tokens.normalize(text.replace(SEP, " "))
    words = "".join(c for c in norm if tokens._flag(ord(c)) & tokens.WORD)
    return words or "".join(c for c in norm if tokens._flag(ord(c)) & tokens.PUNCT)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="aZé字ßİ'. !\x1f\u0301😀\uff21", max_size=8), min_size=1, max_size=10))
def test_stream_keys_are_the_definition(texts):
    # BMP and astral code points, clusters (U+0301), full width, the separator itself.
    from degen.detect.streams import build_streams
    assert build_streams(texts).keys == [_key_by_definition(t) for t in texts]
