"""De-duplication by the unit steps findings touch, and absorption of timing findings by
the loops around them, keep exactly what comparing every pair kept."""

from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import DEFAULT
from degen.detect.dedupe import absorbed, dedupe, overlaps
from degen.detect.finding import Finding

SEVERITIES = ("low", "medium", "high")
STREAMS = ("segments", "lexicon", "words", "chars", "punct")


@st.composite
def finding(draw):
    start = draw(st.one_of(st.integers(0, 30).map(float), st.floats(0, 30, allow_nan=False)))
    length = draw(st.one_of(st.just(0.0), st.integers(1, 8).map(float), st.floats(0, 8, allow_nan=False),
                            st.floats(60, 100, allow_nan=False)))  # some over WIDE_STEPS
    return Finding(kind="phrase_loop", severity=draw(st.sampled_from(SEVERITIES)), span=None,
                   segments=(int(start), int(start + length)), stream=draw(st.sampled_from(STREAMS)),
                   extent=(start, start + length), covered=draw(st.integers(0, 50)))


def every_pair(findings):
    from degen.detect.dedupe import _STREAM_PREFERENCE
    ranked = sorted(findings, key=lambda f: (-f.severity.rank, -f.covered, _STREAM_PREFERENCE[f.stream]))
    kept = []
    for f in ranked:
        if not any(overlaps(f.extent, k.extent, DEFAULT.same_place_overlap) for k in kept):
            kept.append(f)
    return kept


@settings(max_examples=400, deadline=None)
@given(st.lists(finding(), max_size=40))
def test_the_same_findings_kept_in_the_same_order(findings):
    assert [id(f) for f in dedupe(findings, DEFAULT.same_place_overlap)] == [id(f) for f in every_pair(findings)]


@st.composite
def placed(draw, kind):
    first = draw(st.integers(0, 40))
    return Finding(kind=kind, severity="medium", span=None, segments=(first, first + draw(st.integers(0, 10))))


@settings(max_examples=400, deadline=None)
@given(st.lists(placed("rate"), max_size=30), st.lists(placed("phrase_loop"), max_size=30))
def test_timing_inside_a_loop_is_absorbed_exactly_as_by_asking_every_loop(timing, loops):
    inside = [f for f in timing if not any(l.segments[0] <= f.segments[0] and f.segments[1] <= l.segments[1]
                                           for l in loops)]
    assert absorbed(timing, loops) == inside
