"""Large inputs are read in pieces (MOSS markup split chunk by chunk) to bound memory: the
pieces must give exactly what one pass over the whole input gives."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.formats import moss

# Bodies that come close to stamps: bracketed numbers, digits and spaces next to a stamp.
BODIES = ["hello", "第[2024]年", "12", " ", "", "a.", "[3.5]", "的的的", "S01", "x [1.0] ", "[7]", "  9"]


def _markup(draw_bodies, gaps, head, tail_open):
    out, t = [head], 0.0
    for i, (body, gap) in enumerate(zip(draw_bodies, gaps)):
        out.append(f"[{t:.2f}][S0{1 + i % 3}]{body}")
        t += 1.25
        if not (tail_open and i == len(draw_bodies) - 1):
            out.append(f"[{t:.2f}]{gap}")
    return "".join(out)


def _parse(text, chunk, monkeypatch):
    monkeypatch.setattr(moss, "CHUNK", chunk)
    columns, build, prefix = moss.parse_columns(text, [{"id": i} for i in range(3)])
    return columns, [build(i) for i in range(len(columns.texts))], prefix


def _same(a, b):
    (ca, sa, pa), (cb, sb, pb) = a, b
    assert ca.texts == cb.texts and ca.speakers == cb.speakers and pa == pb
    assert np.array_equal(ca.starts, cb.starts) and np.array_equal(ca.ends, cb.ends)
    assert np.array_equal(ca.closed, cb.closed)
    assert sa == sb and [s.extra for s in sa] == [s.extra for s in sb]


@settings(max_examples=150, deadline=None)
@given(bodies=st.lists(st.sampled_from(BODIES), min_size=1, max_size=30),
       gaps=st.lists(st.sampled_from(["", " ", "\n", " \u3000"]), min_size=30, max_size=30),
       head=st.sampled_from(["", "note: ", "[S02]headless", "[S01]x[0.50] ", "[9]"]),
       tail_open=st.booleans(), chunk=st.integers(1, 40))
def test_chunked_split_equals_whole_split(bodies, gaps, head, tail_open, chunk):
    text = _markup(bodies, gaps, head, tail_open)
    mp = pytest.MonkeyPatch()
    try:
        _same(_parse(text, 1 << 30, mp), _parse(text, chunk, mp))
    finally:
        mp.undo()


def test_chunks_cut_only_where_no_stamp_crosses(monkeypatch):
    monkeypatch.setattr(moss, "CHUNK", 4)
    text = "[0.0][S01]ab[1.0] [2.0][S02]c[2024][3.0][S01]d[4.0]"
    cuts = [a for a, _ in moss._chunks(text)]
    assert cuts[0] == 0 and len(cuts) > 1
    for cut in cuts[1:]:
        assert moss._SPLIT.match(text, cut)  # a cut opens a match
    assert "".join(text[a:b] for a, b in moss._chunks(text)) == text


def test_no_opening_is_still_refused(monkeypatch):
    monkeypatch.setattr(moss, "CHUNK", 2)
    with pytest.raises(Exception, match="no MOSS segment"):
        moss.parse_columns("just some text without stamps at all")
