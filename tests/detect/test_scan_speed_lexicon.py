"""The lexicon's prefilter and the shredded-segment prefilter find exactly what the
plain searches find."""

from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect.hallucination import default_lexicon, load_lexicon
from degen.detect.heads import Heads, finditer
from degen.detect import shreds
from degen.detect.shreds import match_keys, undouble

LEXICON = default_lexicon()
shreds.SMALL_TEXT = 0  # these tests check the prefilter, which short texts skip
PHRASES = sorted(LEXICON.phrases)


def _spans(matches):
    return [(m.start(), m.end(), m.group()) for m in matches]


pieces = st.one_of(st.sampled_from(PHRASES), st.sampled_from(PHRASES).map(lambda p: p[:-1]),
                   st.text(alphabet="abcdeyouthk谢字幕\x1f ", max_size=6))


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=12))
def test_prefiltered_matches_are_the_regex_matches(parts):
    text = "".join(parts)
    assert _spans(finditer(LEXICON.pattern, LEXICON.heads, text)) == _spans(LEXICON.pattern.finditer(text))


def test_prefilter_finds_overlapping_phrases_leftmost_first():
    # "byebye" holds "bye" twice; the regex takes the longest phrase at the first position.
    text = "xbyebyebyeyou\x1fyou"
    assert _spans(finditer(LEXICON.pattern, LEXICON.heads, text)) == _spans(LEXICON.pattern.finditer(text))
    assert len(finditer(LEXICON.pattern, LEXICON.heads, text)) >= 2


def test_short_phrases_use_shorter_heads(tmp_path):
    path = tmp_path / "lex.tsv"
    path.write_text("# [t] test\nen\ta\tt\nen\tab\tt\n", encoding="utf-8")
    lexicon = load_lexicon(path)
    assert lexicon.heads.size == 1
    text = "xaabab a"
    assert _spans(finditer(lexicon.pattern, lexicon.heads, text)) == _spans(lexicon.pattern.finditer(text))


def test_heads_of_one_phrase():
    heads = Heads.of(["thanks"])
    import numpy as np
    codes = np.frombuffer("okthanksthathanks".encode("utf-32-le"), dtype=np.uint32)
    # "tha" at 8 begins "thatha", not "thanks": the three characters after the head
    # rule it out before any regex attempt.
    assert heads.candidates(codes).tolist() == [2, 11]


def test_heads_keep_short_phrases_and_starts_near_the_end():
    import numpy as np

    def found(phrases, text):
        return Heads.of(phrases).candidates(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)).tolist()

    assert found(["thanks", "that"], "okthanksthathanks") == [2, 8, 11]  # "that" is shorter than two heads
    assert found(["thanks"], "xxthank") == [2]  # too near the end to read three more: kept for the regex


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="请不吝点赞 订阅abc\u3000\n", max_size=20), max_size=6))
def test_shredded_prefilter_misses_nothing(texts):
    keys = [t.replace(" ", "") for t in texts]
    assert match_keys(texts, keys) == [undouble(t) or k for t, k in zip(texts, keys)]


def test_shredded_segment_is_undoubled():
    texts = ["hello there", "请不 不吝点 点赞 赞 订阅 阅"]
    assert match_keys(texts, ["hellothere", "x"])[1] == undouble(texts[1]) == "请不吝点赞订阅"


@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, max_size=12), st.integers(1, 9))
def test_blocks_find_what_the_whole_text_finds(parts, block):
    from degen.detect import tokens
    text = "".join(parts)
    saved = tokens.SCAN_BLOCK
    tokens.SCAN_BLOCK = block
    try:
        found = _spans(finditer(LEXICON.pattern, LEXICON.heads, text))
    finally:
        tokens.SCAN_BLOCK = saved
    assert found == _spans(LEXICON.pattern.finditer(text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="请不吝点赞 订阅a\u3000\n", max_size=20), max_size=6), st.integers(1, 7))
def test_shredded_prefilter_in_blocks_misses_nothing(texts, block):
    from degen.detect import tokens
    keys = [t.replace(" ", "") for t in texts]
    saved = tokens.SCAN_BLOCK
    tokens.SCAN_BLOCK = block
    try:
        assert match_keys(texts, keys) == [undouble(t) or k for t, k in zip(texts, keys)]
    finally:
        tokens.SCAN_BLOCK = saved


def test_long_text_goes_through_the_prefilter():
    from degen.detect.hallucination import LONG_TEXT
    text = ("hello there " * (LONG_TEXT // 10)) + "thanksforwatching" + "x" * 10
    assert len(text) >= LONG_TEXT
    assert _spans(LEXICON.finditer(text)) == _spans(LEXICON.pattern.finditer(text))
    assert LEXICON.finditer(text)


def test_heads_read_short_phrases_whole():
    import numpy as np

    def found(phrases, text):
        return Heads.of(phrases).candidates(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)).tolist()

    # "mer" of "customer" begins no phrase here: the characters after it rule out "merci".
    assert found(["merci", "thanks"], "customerfriday") == []
    assert found(["merci", "thanks"], "customercimerci") == [5, 10]  # the last one too near the end: kept
    assert found(["merci", "ok!", "okay"], "ok!xokayokxxxx") == [0, 4]  # three, four, five characters
