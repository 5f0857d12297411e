"""Tail echoes read from a packed key column a chunk at a time, with lengths read once,
find what the definition finds, one segment at a time by index."""

from hypothesis import given, settings, strategies as st

from degen.detect.echoes import _echo_runs, _ending_the_next
from degen.model import Packed
from .test_scan_speed_segments import _echo_runs_plain

KEYS = st.sampled_from(["", "要", "重要", "非常重要", "对", "对对对", "ab", "b"])


def _packed(keys: list[str], sizes: list[int]) -> Packed:
    """``keys`` packed in chunks of the given sizes (cycled), as windows pack them."""
    packed, at, k = Packed(), 0, 0
    while at < len(keys):
        size = sizes[k % len(sizes)]
        packed.extend(keys[at:at + size])
        at, k = at + size, k + 1
    return packed


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(KEYS, st.sampled_from([None, "S01", "S02"])), max_size=40),
       st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_echoes_of_packed_keys_are_the_definition_s(rows, sizes):
    keys, speakers = [k for k, _ in rows], tuple(s for _, s in rows)
    packed = _packed(keys, sizes)
    assert _echo_runs(packed, speakers) == _echo_runs(keys, speakers) == _echo_runs_plain(keys, speakers)


@settings(max_examples=400, deadline=None)
@given(st.lists(KEYS, max_size=40), st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_keys_ending_the_next_are_found_across_chunks(keys, sizes, data):
    maybe = sorted(data.draw(st.sets(st.integers(0, max(len(keys) - 2, 0)))) if len(keys) > 1 else [])
    expected = [i for i in maybe if keys[i].endswith(keys[i + 1])]
    assert _ending_the_next(_packed(keys, sizes), maybe) == expected
    assert _ending_the_next(keys, maybe) == expected
