"""The seed's max-repetition metric counts the copies of a split run per segment, all
runs at once; each equals the count taken one run at a time."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import DEFAULT, streams
from degen.detect.loops import _most_copies_in_a_segment, find_runs


def _one_at_a_time(stream, r, i):
    stops = r.start + r.count * r.period
    a, b = stream.owner_index(r.start[i:i + 1])[0], stream.owner_index(stops[i:i + 1] - 1)[0]
    ends = np.minimum(stream.bounds[a + 1:b + 2], stops[i])
    begins = np.maximum(stream.bounds[a:b + 1], r.start[i])
    return int(((ends - begins) // r.period[i]).max())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab 的.", max_size=12), min_size=2, max_size=12))
def test_split_runs_count_as_one_at_a_time(texts):
    for stream in streams.build_streams(texts).all():
        r = find_runs(stream, DEFAULT)
        stops = r.start + r.count * r.period
        a, b = stream.owner_index(r.start), stream.owner_index(stops - 1)
        split = np.flatnonzero(a != b)
        if split.size:
            got = _most_copies_in_a_segment(stream.bounds, r, stops, a[split], b[split], split)
            assert got.tolist() == [_one_at_a_time(stream, r, i) for i in split.tolist()]
