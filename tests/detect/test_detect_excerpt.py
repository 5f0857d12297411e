"""A loop's excerpt shows the loop: one split across segments starts in a segment that
may hold one character of it, and the excerpt was that segment's text alone."""

import degen

from ..conftest import FIXTURES


def test_a_phrase_loops_excerpt_shows_the_loop_not_the_first_segment():
    """The seed's phrase loop starts in a segment that holds one character of it ("我")."""
    from degen.detect.tokens import normalize
    report = degen.scan(FIXTURES / "seed" / "degenerate.json")
    (loop,) = [f for f in report.findings if f.kind == "phrase_loop" and f.unit.startswith("我们需要")]
    assert normalize(loop.excerpt.rstrip("…")).startswith(normalize(loop.unit))
    for path in sorted((FIXTURES / "shapes" / "loops").iterdir()):
        try:
            found = degen.scan(path).findings
        except degen.DegenError:
            continue
        for f in found:
            if f.kind in ("char_loop", "phrase_loop") and f.unit:
                unit, shown = " ".join(normalize(f.unit).split()), " ".join(normalize(f.excerpt.rstrip("…")).split())
                assert shown[:len(unit)] == unit[:len(shown)] and len(shown) >= min(len(unit), 30), (path, f)
