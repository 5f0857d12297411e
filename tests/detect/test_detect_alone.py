"""Utterances judged each on its own inside one analysis (manifests): a repeat running on
from one utterance into the next is cut at the edge, as each utterance's own search finds
it; and a finding's place on the segment axis stays inside its own segments."""

import numpy as np
from hypothesis import given, settings, strategies as st

import degen
from degen.detect import DEFAULT
from degen.detect.loops import find_runs, within_texts
from degen.detect.periodic import tandem_repeats
from degen.detect.streams import build_streams
from degen.detect.tokens import Stream

from ..conftest import FIXTURES


def as_set(runs, shift=0):
    return {(int(s) + shift, int(p), int(c), int(n)) for s, p, c, n in zip(runs.start, runs.period, runs.count,
                                                                            runs.length)}


def stream_of(ids: list[int], cuts: list[int]) -> Stream:
    bounds = np.array([0, *cuts, len(ids)], dtype=np.int64)
    n = len(bounds) - 1
    return Stream("chars", np.array(ids, dtype=np.int64), bounds, np.arange(n), "", np.arange(len(ids)), None, "")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(ids=st.lists(st.integers(0, 2), min_size=0, max_size=60), data=st.data(), fewest=st.sampled_from([2, 3]))
def test_runs_cut_at_the_texts_edges_are_each_texts_own_runs(ids, data, fewest):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(ids)), max_size=6)))
    stream = stream_of(ids, cuts)
    cut = within_texts(stream, tandem_repeats(stream.ids, 8, fewest), fewest)
    bounds = stream.bounds.tolist()
    own = set()
    for a, b in zip(bounds, bounds[1:]):
        own |= as_set(tandem_repeats(np.array(ids[a:b], dtype=np.int64), 8, fewest), a)
    assert as_set(cut) == own
    order = list(zip(cut.start.tolist(), cut.period.tolist()))
    assert order == sorted(order)  # tandem_repeats' order


def test_a_stream_searched_alone_never_reports_a_run_across_texts():
    built = build_streams(["了 了 了 了", "了 了 了 了", "yeah yeah", "yeah yeah yeah"])
    for stream in built.all():
        runs = find_runs(stream, DEFAULT, alone=True)
        owners = stream.owner_index(runs.start), stream.owner_index(runs.start + runs.length - 1)
        assert (owners[0] == owners[1]).all()
    assert len(find_runs(built.chars, DEFAULT, alone=False)) and len(find_runs(built.chars, DEFAULT, alone=True))


def test_every_loop_finding_lies_within_its_own_segments():
    for path in sorted((FIXTURES / "shapes" / "loops").iterdir()) + sorted((FIXTURES / "wild" / "loop").iterdir()):
        try:
            findings = degen.scan(path).findings
        except degen.DegenError:
            continue
        for f in findings:
            if f.extent is not None and f.stream in ("chars", "words", "punct"):
                assert f.segments[0] <= f.extent[0] < f.extent[1] <= f.segments[1] + 1 + 1e-9, (path.name, f)
