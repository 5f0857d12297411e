"""De-duplication by the unit steps findings touch keeps exactly what comparing every
pair kept."""

from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import _dedupe, _overlap
from degen.detect.finding import Finding

SEVERITIES = ("low", "medium", "high")
STREAMS = ("segments", "lexicon", "words", "chars", "punct")


@st.composite
def finding(draw):
    start = draw(st.one_of(st.integers(0, 30).map(float), st.floats(0, 30, allow_nan=False)))
    length = draw(st.one_of(st.just(0.0), st.integers(1, 8).map(float), st.floats(0, 8, allow_nan=False)))
    return Finding(kind="phrase_loop", severity=draw(st.sampled_from(SEVERITIES)), span=None,
                   segments=(int(start), int(start + length)), stream=draw(st.sampled_from(STREAMS)),
                   extent=(start, start + length), covered=draw(st.integers(0, 50)))


def every_pair(findings):
    from degen.detect import SEVERITY_RANK, _STREAM_PREFERENCE
    ranked = sorted(findings, key=lambda f: (-SEVERITY_RANK[f.severity], -f.covered, _STREAM_PREFERENCE[f.stream]))
    kept = []
    for f in ranked:
        if not any(_overlap(f.extent, k.extent) for k in kept):
            kept.append(f)
    return kept


@settings(max_examples=400, deadline=None)
@given(st.lists(finding(), max_size=40))
def test_the_same_findings_kept_in_the_same_order(findings):
    assert [id(f) for f in _dedupe(findings)] == [id(f) for f in every_pair(findings)]
