"""The token streams, however their arrays are gathered, hold what their definition
says, one character at a time."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import streams, tokens
from degen.detect.tokens import SEP

TEXTS = st.lists(st.text(alphabet="aZé字ß'. !,\x1f\uff21😀-", max_size=10), min_size=1, max_size=10)


def _normalized(texts):
    return tokens.normalize(SEP.join(t.replace(SEP, " ") for t in texts))


def _flag(c: str) -> int:
    return 0 if c == SEP else tokens._flag(ord(c))


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_char_stream_is_every_word_character(texts):
    norm = _normalized(texts)
    chars = streams.build_streams(texts).chars
    want = [k for k, c in enumerate(norm) if _flag(c) & tokens.WORD]
    assert chars.starts.tolist() == want and chars.starts.dtype == np.int32
    assert chars.ids.tolist() == [ord(norm[k]) for k in want]
    per_text = [sum(1 for c in tokens.normalize(t.replace(SEP, " ")) if _flag(c) & tokens.WORD) for t in texts]
    assert np.diff(chars.bounds).tolist() == per_text


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_punct_stream_is_marks_and_stretches_of_other_text(texts):
    norm = _normalized(texts)
    punct = streams.build_streams(texts).punct
    want, k = [], 0  # (start, end, the mark's code point or None for a stretch)
    while k < len(norm):
        flag = _flag(norm[k])
        if flag & tokens.PUNCT:
            want.append((k, k + 1, ord(norm[k])))
            k += 1
        elif norm[k] != SEP and not flag & tokens.SPACE:
            end = k
            while end < len(norm) and norm[end] != SEP and not _flag(norm[end]) & (tokens.PUNCT | tokens.SPACE):
                end += 1
            want.append((k, end, None))
            k = end
        else:
            k += 1
    got = list(zip(punct.starts.tolist(), punct.ends.tolist(), punct.ids.tolist()))
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want]
    assert [i for _, _, i in got if i >= 0] == [c for _, _, c in want if c is not None]
    stretches = [i for _, _, i in got if i < 0]
    assert stretches == list(range(-1, -len(stretches) - 1, -1))  # each its own id


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), max_size=300))
def test_positions_of_one_block_are_int32_flatnonzero(mask):
    found = tokens.positions(np.array(mask, dtype=bool))
    assert found.dtype == np.int32 and found.tolist() == np.flatnonzero(mask).tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=1, max_size=50), st.lists(st.integers(0, 0x10FFFF), max_size=50),
       st.sampled_from([np.uint16, np.uint32, np.int32, np.int64]))
def test_lookup_is_indexing_clipped_to_the_table(table, index, dtype):
    table = np.array(table, dtype=np.uint8)
    index = np.array(index, dtype=np.int64) % (np.iinfo(dtype).max + 1 if dtype == np.uint16 else 0x110000)
    got = tokens.lookup(table, index.astype(dtype))
    assert got.dtype == table.dtype and got.tolist() == table[np.minimum(index, table.size - 1)].tolist()


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 3000), st.integers(2, 2**64 - 1))
def test_powers_by_doubling_are_cumprod(count, base):
    base = np.uint64(base)
    with np.errstate(over="ignore"):
        want = np.cumprod(np.full(count, base, dtype=np.uint64))
    assert np.array_equal(streams._powers(base, count), want)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="aZ字ß'. !,\uff21-", max_size=8), min_size=1, max_size=12))
def test_keys_from_the_char_stream_are_the_keys_from_code_points(texts):
    built = streams.build_streams(texts)
    # the path read from the char stream, wherever there is a word character at all
    assert built.chars.ends is None and (built.chars.ids.dtype == np.uint16 or built.chars.ids.size == 0)
    norm = _normalized(texts)
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == tokens.SEP_CODE
    flags = tokens.classify(codes)
    flags[is_sep] = 0
    assert built.keys == streams._keys(codes, flags, is_sep)
