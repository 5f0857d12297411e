"""Splice properties: order, untouched outside, identity on an identical candidate."""

import numpy as np
from hypothesis import given, settings, strategies as st

from degen.model import Segment, Span, Transcript
from degen.repair.plan import RepairSpan, make_plan
from degen.repair.splice import Replacement, apply, closed, place


@st.composite
def transcripts(draw):
    n = draw(st.integers(3, 12))
    t, segs = 0.0, []
    for i in range(n):
        start = round(t + draw(st.integers(0, 200)) / 100, 2)
        end = round(start + draw(st.integers(10, 500)) / 100, 2)
        segs.append(Segment(Span(start, end), draw(st.sampled_from(["S01", "S02", "S03"])), f"text {i}"))
        t = end
    return Transcript(tuple(segs), "moss")


def repair_span(t: Transcript, a: int, b: int, pad: float) -> RepairSpan:
    core = Span(t[a].span.start, t[b].span.end)
    end = t.end + 1.0
    return RepairSpan(Span(max(0.0, core.start - pad), min(end, core.end + pad)), core, (a, b), ("test",))


@st.composite
def cases(draw):
    t = draw(transcripts())
    a = draw(st.integers(0, len(t) - 1))
    b = draw(st.integers(a, len(t) - 1))
    return t, a, b, draw(st.sampled_from([0.0, 0.5, 2.0]))


def candidate_segments(draw, clip: Span):
    n = draw(st.integers(0, 6))
    cuts = sorted(draw(st.lists(st.floats(0, clip.duration), min_size=2 * n, max_size=2 * n)))
    return Transcript(tuple(Segment(Span(round(cuts[2 * i], 3), round(cuts[2 * i + 1], 3)),
                                    draw(st.sampled_from(["S01", "S02"])), f"new {i}") for i in range(n)), "moss")


def spliced(t, rs, candidate):
    placed = place(candidate, rs, t)
    return apply(t, [Replacement(rs, closed(placed.segments))])


@settings(max_examples=200, deadline=None)
@given(cases(), st.data())
def test_order_and_outside(case, data):
    t, a, b, pad = case
    rs = repair_span(t, a, b, pad)
    out = spliced(t, rs, candidate_segments(data.draw, rs.span))
    for x, y in zip(out, out.segments[1:]):
        assert x.span.start <= x.span.end <= y.span.start
    n_new = len(out) - (len(t) - (b - a + 1))
    assert out.segments[:a] == t.segments[:a]
    assert out.segments[a + n_new:] == t.segments[b + 1:]
    assert all(rs.core.start <= s.span.start and s.span.end <= rs.core.end for s in out.segments[a:a + n_new])


@settings(max_examples=200, deadline=None)
@given(cases())
def test_identity_on_identical_candidate(case):
    t, a, b, pad = case
    rs = repair_span(t, a, b, pad)
    labels: dict[str, str] = {}
    same = Transcript(tuple(
        Segment(s.span.shift(-rs.span.start), labels.setdefault(s.speaker, f"S{len(labels) + 1:02d}"), s.text)
        for s in t.segments[a:b + 1]), "moss")
    out = spliced(t, rs, same)
    assert [(round(s.span.start, 3), round(s.span.end, 3), s.speaker, s.text) for s in out] == \
           [(round(s.span.start, 3), round(s.span.end, 3), s.speaker, s.text) for s in t]


def test_plan_pads_merges_and_splits():
    segs = [Segment(Span(i * 2.0, i * 2.0 + 1.5), "S01", f"s{i}") for i in range(60)]
    t = Transcript(tuple(segs), "moss")
    from degen.detect.finding import Finding
    f = lambda a, b: Finding("segment_loop", "high", Span(segs[a].span.start, segs[b].span.end), (a, b))
    plan = make_plan(t, [f(2, 3), f(4, 4), f(10, 40)], audio_duration=120.0, pad=0.5, max_span=30.0)
    cores = [(rs.core.start, rs.core.end, rs.segments) for rs in plan.spans]
    assert cores[0] == (4.0, 9.5, (2, 4))  # 2-3 and 4 are 0.5 s apart: merged
    assert all(rs.core.duration <= 30.0 for rs in plan.spans)
    assert [rs.segments for rs in plan.spans[1:]] == [(10, 24), (25, 39), (40, 40)]
    assert plan.spans[0].span == Span(3.5, 10.0)


# --- Seams: the chunks of one long stretch join without a sentence twice or lost ------

SENTENCES = [" ".join(w * (1 + i % 3) for w in (f"w{i}a", f"w{i}b", f"w{i}c")) for i in range(40)]


@st.composite
def long_stretches(draw):
    """A stretch of sentences, split by the plan into chunks, and a model whose times
    wobble: the same sentence may sit on either side of a cut in two answers."""
    n = draw(st.integers(12, 30))
    t, segs = 0.0, []
    for i in range(n):
        start = round(t + draw(st.integers(10, 150)) / 100, 2)
        end = round(start + draw(st.integers(150, 600)) / 100, 2)
        segs.append(Segment(Span(start, end), "S01", SENTENCES[i]))
        t = end
    wobble = draw(st.sampled_from([0.0, 0.4, 1.0]))
    # What the looping decoder wrote over it: segments of its own, unrelated to the sentences.
    step = draw(st.integers(200, 900)) / 100
    loop = [Segment(Span(round(a, 2), round(min(a + step, t), 2)), "S01", "no no no no")
            for a in np.arange(segs[0].span.start, t, step).tolist()]
    return (Transcript(tuple(segs), "moss"), Transcript(tuple(loop), "moss"), wobble,
            draw(st.randoms(use_true_random=False)))


def answer(truth: Transcript, clip: Span, wobble: float, rng) -> Transcript:
    """What a model says for a clip: every sentence whose middle it holds, times moved by
    up to ``wobble`` seconds, relative to the clip, cut at its edges."""
    out = []
    for s in truth:
        if clip.start <= (s.span.start + s.span.end) / 2 + rng.uniform(-wobble, wobble) <= clip.end:
            a = min(max(s.span.start + rng.uniform(-wobble, wobble) - clip.start, 0.0), clip.duration)
            b = min(max(s.span.end + rng.uniform(-wobble, wobble) - clip.start, a), clip.duration)
            out.append(Segment(Span(round(a, 3), round(b, 3)), "S01", s.text))
    return Transcript(tuple(out), "moss")


@settings(max_examples=150, deadline=None)
@given(long_stretches())
def test_chunks_of_a_long_stretch_join_without_writing_a_sentence_twice(case):
    from degen.detect.finding import Finding
    truth, looping, wobble, rng = case
    loop = Finding("segment_loop", "high", Span(looping[0].span.start, looping.end), (0, len(looping) - 1))
    plan = make_plan(looping, [loop], audio_duration=truth.end + 10, pad=0.5, max_span=30.0)
    replacements, prior = [], ()
    for rs in plan.spans:
        # The clip reaches back into the part before, as a repair sends it.
        clip = Span(max(rs.limit.start, rs.span.start - 15.0) if rs.core.start > rs.limit.start else rs.span.start,
                    rs.span.end)
        placed = place(answer(truth, clip, wobble, rng), rs, looping, clip, frozenset(range(len(looping))), prior)
        replacements.append(Replacement(rs, closed(placed.segments)))
        prior = placed.segments
    out = apply(looping, replacements)
    texts = [s.text for s in out]
    assert len(texts) == len(set(texts))  # nothing written twice
    assert texts == [s.text for s in truth]  # nothing lost, in order
    for x, y in zip(out, out.segments[1:]):
        assert x.span.start <= y.span.start


def _second_part(answer: list[tuple[float, float, str]], prior: list[tuple[float, float, str]]) -> list[str]:
    """The texts the second part of a stretch (core 10-20 s, its clip reaching back to 5 s)
    writes, after a first part that wrote ``prior``."""
    looping = Transcript(tuple(Segment(Span(a, a + 5.0), "S01", "no no no no") for a in (0.0, 5.0, 10.0, 15.0)), "moss")
    rs = RepairSpan(Span(9.5, 20.0), Span(10.0, 20.0), (2, 3), ("test",), bounds=Span(0.0, 20.0))
    clip = Span(5.0, 20.0)
    candidate = Transcript(tuple(Segment(Span(a - clip.start, b - clip.start), "S01", t) for a, b, t in answer), "moss")
    before = tuple(Segment(Span(a, b), "S01", t) for a, b, t in prior)
    return [s.text for s in place(candidate, rs, looping, clip, frozenset(range(4)), before).segments]


def test_a_sentence_the_part_before_wrote_is_not_written_again_though_stamped_apart():
    # stamped 1.4 s later by this answer, after the end of the first answer's stamp
    assert _second_part([(7.0, 8.0, "Earlier."), (9.6, 9.9, "The seam."), (12.0, 14.0, "Later.")],
                        [(7.1, 8.0, "Earlier."), (8.2, 9.5, "The seam.")]) == ["Later."]


def test_a_sentence_said_twice_at_a_seam_is_written_twice():
    # the part before wrote the first "Yeah." only: the second, past its core, is this part's
    assert _second_part([(8.6, 9.0, "Yeah."), (9.4, 9.8, "Yeah."), (12.0, 14.0, "Later.")],
                        [(8.5, 9.0, "Yeah.")]) == ["Yeah.", "Later."]
