"""Loop findings locate runs from the texts found for all runs at once: the same place
as ``Stream.locate`` finds when it searches for the text itself."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import streams


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab 的.", max_size=8), min_size=1, max_size=10), st.data())
def test_place_from_batched_texts_is_locate(texts, data):
    built = streams.build_streams(texts)
    chosen = np.array(sorted(data.draw(st.sets(st.integers(0, len(texts) - 1), min_size=1))), dtype=np.int64)
    for stream in built.all() + [built.chars.subset(chosen), built.words.subset(chosen)]:
        if stream.ids.size == 0:
            continue
        positions = np.array(data.draw(st.lists(st.integers(0, stream.ids.size - 1), min_size=1, max_size=8)))
        for position, k in zip(positions.tolist(), stream.owner_index(positions).tolist()):
            assert stream.locate(position, k) == stream.locate(position)
