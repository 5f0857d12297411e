"""MOSS markup: each segment's end time is the value of its own closing stamp."""

from hypothesis import given, settings, strategies as st

from degen.formats import moss

_BODY = st.sampled_from(["hello", "第[2024]年", "的的的", " x ", "[7]", ""])
_STAMP = st.sampled_from(["0", "1.5", "2.25", "10.00", "3"])


@st.composite
def _markup(draw) -> str:
    out = []
    if draw(st.booleans()):  # a first segment without its start stamp
        out.append(f"[S01]{draw(_BODY)}")
        out.append(f"[{draw(_STAMP)}]" if draw(st.booleans()) else "")
    for _ in range(draw(st.integers(1, 8))):
        out.append(f"[{draw(_STAMP)}][S0{draw(st.integers(1, 3))}]{draw(_BODY)}")
        if draw(st.integers(0, 3)):  # closed, sometimes with spaces before the next one
            out.append(f"[{draw(_STAMP)}]" + draw(st.sampled_from(["", " ", "\n"])))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(_markup(), st.integers(8, 64))
def test_end_times_are_their_own_stamps(text, chunk):
    original = moss.CHUNK
    moss.CHUNK = chunk  # several chunks, so the values of every chunk line up too
    try:
        columns, build, _ = moss.parse_columns(text)
    finally:
        moss.CHUNK = original
    for i in range(len(columns.texts)):
        segment = build(i)
        raw = segment.extra.get("raw_end")
        if raw:  # a headless first segment too: its stamp, or the next start when it has none
            assert columns.closed[i] and columns.ends[i] == float(raw)
        else:
            assert not columns.closed[i] and columns.ends[i] == columns.starts[i]


_OLD_SPLIT = r"\[(?:([0-9]+(?:\.[0-9]+)?)\]((?:(?!\[)\s)*)\[)?([0-9]+(?:\.[0-9]+)?)\]\[(S[0-9]{2,})\]"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_BODY, _STAMP.map(lambda s: f"[{s}]"), st.sampled_from(["[S01]", "[S12]", "["]),
                          st.text(alphabet=" \t\n\u3000\xa0\x1f\x85[]", max_size=3)), max_size=16))
def test_split_pattern_splits_as_before(pieces):
    # Spaces between segments were matched by a lookahead-guarded \s; now by \s*.
    import re
    text = "".join(pieces)
    assert moss._SPLIT.split(text) == re.compile(_OLD_SPLIT).split(text)
