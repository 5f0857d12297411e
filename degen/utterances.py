"""Many utterances judged at once, each with exactly the verdict ``filter.judge`` gives
it alone.

Judged one at a time, a short utterance costs a whole analysis (streams, tables, a
tandem search, timing), mostly fixed costs paid again for every few words: a manifest
went through ``degen filter`` at a few thousand lines a second. Here a batch of
utterances is analysed as one transcript in the utterance-per-line mode that
``degen scan`` uses for manifests (each utterance its own, a loop across two re-judged on
each side), and only the utterances that batch finds anything in are judged alone again.

That is exact as long as the batch misses nothing an utterance alone would show, which
holds because in that mode every detector reads an utterance's own text and time (a loop
that runs on across two utterances is re-judged in each). Were the batch ever to find more
than an utterance alone shows, that would only cost a second look: the verdict is always
the one judged alone. ``tests/test_utterances.py`` checks it against ``judge`` on
generated utterances and on every segment of the bundled transcripts, and that a manifest
scan gives every line the findings it gets alone.
"""

from __future__ import annotations

from typing import Sequence

from .detect import DEFAULT, DetectConfig, analyze
from .model import Segment, Span, Transcript
from .report import Report

BATCH = 2048  # utterances analysed together (per utterance: 45 us at 128, 31 at 512, 20 from 2048 on)


def judge_many(texts: Sequence[str], durations: Sequence[float | None], config: DetectConfig = DEFAULT,
               names: Sequence[str] | None = None) -> list[Report | None]:
    """``filter.judge(texts[i], durations[i], config)`` for every i, or None where that
    report would hold no finding at all (the utterance is clean at every severity).

    Args:
        texts: the utterances.
        durations: seconds of audio each (None: no timing evidence); valid as ``judge``
            takes them (positive and finite).
        config: detection thresholds.
        names: how each report names its source (default ``<text>``).
    """
    from .filter import judge
    reports: list[Report | None] = [None] * len(texts)
    for first in range(0, len(texts), BATCH):
        rows = range(first, min(first + BATCH, len(texts)))
        for i in _touched(texts, durations, rows, config):
            report = judge(texts[i], durations[i], config, names[i] if names else "<text>")
            reports[i] = report if report.findings else None
    return reports


def _touched(texts, durations, rows: range, config: DetectConfig) -> list[int]:
    """The rows a batch analysis finds anything in (timed and untimed ones apart: a
    transcript's segments either all carry times or none do)."""
    touched: set[int] = set()
    for timed in (True, False):
        group = [i for i in rows if (durations[i] is not None) == timed]
        if not group:
            continue
        segments = [Segment(Span(0.0, float(durations[i])) if timed else None, None, texts[i]) for i in group]
        analysis = analyze(Transcript(segments, "text", {"independent": True}), config, ratios=False)
        for f in analysis.findings:
            touched.update(group[k] for k in range(f.segments[0], f.segments[1] + 1))
    return sorted(touched)
