"""Many utterances judged at once, each with exactly the verdict ``judge`` gives
it alone.

Judged one at a time, a short utterance costs a whole analysis (streams, tables, a
tandem search, timing), mostly fixed costs paid again for every few words: a manifest
went through ``degen filter`` at a few thousand lines a second. Here a batch of
utterances is analysed as one transcript in the utterance-per-line mode that
``degen scan`` uses for manifests (each utterance its own, a loop across two re-judged on
each side), and only the utterances that batch finds anything in are judged alone again.

That is exact as long as the batch misses nothing an utterance alone would show, which
holds because in that mode every detector reads an utterance's own text and time, and a
letter found nowhere else in the batch stands between each utterance and the next, so no
repeat runs on from one into another (one that did was searched as a single run, and when
that run made no finding the loop inside one utterance went unseen). Were the batch ever to find more
than an utterance alone shows, that would only cost a second look: the verdict is always
the one judged alone. ``tests/archive/test_utterances.py`` checks it against ``judge`` on
generated utterances and on every segment of the bundled transcripts, and that a manifest
scan gives every line the findings it gets alone.
"""

from __future__ import annotations

import numbers
import unicodedata
from typing import Sequence

from ..detect import DEFAULT, DetectConfig, analyze
from ..model import Segment, Span, Transcript
from ..report import Report

def judge(text: str, duration: float | None = None, config: DetectConfig = DEFAULT, name: str = "<text>") -> Report:
    """``degen.scan`` of one utterance, its duration (seconds of audio) as timing evidence.

    The text is never sniffed as a file format (an utterance may start with ``[`` or ``{``).

    >>> judge("okay " * 40, 4.0).degenerate, judge("okay, okay.", 4.0).degenerate
    (True, False)
    """
    from .. import scan
    span = Span(0.0, float(duration)) if duration is not None else None
    transcript = Transcript([Segment(span, None, text)], "text", {"independent": True})
    return scan(transcript, config, audio_duration=duration, name=name)



def worst_severity(report: Report) -> str | None:
    """The highest severity among the findings, or None when there are none."""
    return worst_of(report.findings)


def worst_of(findings) -> str | None:
    return max((f.severity for f in findings), key=lambda severity: severity.rank, default=None)


def verdict(report: Report) -> dict:
    """What a quarantined line or a dataset row carries about its text."""
    return {"degenerate": report.degenerate, "severity": worst_severity(report),
            "findings": [f.to_dict() for f in report.findings]}


def as_duration(value) -> float | None:
    # numbers.Real: numpy's int64 and float32 too (a Ray Data batch's whole-second durations)
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < value < 1e7
    return float(value) if ok else None





BATCH = 2048  # utterances analysed together (per utterance: 45 us at 128, 31 at 512, 20 from 2048 on)


def judge_many(texts: Sequence[str], durations: Sequence[float | None], config: DetectConfig = DEFAULT,
               names: Sequence[str] | None = None) -> list[Report | None]:
    """``judge(texts[i], durations[i], config)`` for every i, or None where that
    report would hold no finding at all (the utterance is clean at every severity).

    Args:
        texts: the utterances.
        durations: seconds of audio each (None: no timing evidence); valid as ``judge``
            takes them (positive and finite).
        config: detection thresholds.
        names: how each report names its source (default ``<text>``).
    """
    reports: list[Report | None] = [None] * len(texts)
    for first in range(0, len(texts), BATCH):
        rows = range(first, min(first + BATCH, len(texts)))
        for i in _touched(texts, durations, rows, config):
            report = judge(texts[i], durations[i], config, "<text>" if names is None else names[i])
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
        walls = _walls([texts[i] for i in group])
        if walls is None:  # no letters left to wall the rows apart with: judge each alone
            touched.update(group)
            continue
        segments = []
        for k, i in enumerate(group):
            if k:
                segments.append(Segment(Span(0.0, 1.0) if timed else None, None, walls[k - 1]))
            segments.append(Segment(Span(0.0, float(durations[i])) if timed else None, None, texts[i]))
        analysis = analyze(Transcript(segments, "text", {"independent": True}), config, ratios=False)
        for f in analysis.findings:
            touched.update(group[s // 2] for s in range(f.segments[0], f.segments[1] + 1) if s % 2 == 0)
    return sorted(touched)


# Letters that no run can cross: a run's every token equals the one a period away, so a
# token found once in the whole text lies in no run. Without such a wall between two rows,
# a repeat running on from one row into the next was searched as one run, and when that
# run made no finding (e.g. 了 x4 over 10 s then 了 x4 over 17 s: "slow" only alone), the
# loop inside the second row went unseen. CJK Extension A: letters (one word, one
# character each), unchanged by NFKC and case folding, rare in transcripts.
WALLS = range(0x3400, 0x4DC0)


def _walls(texts: list[str]) -> list[str] | None:
    """A distinct wall letter for each gap between ``texts``, none found in the texts;
    None when too few are left."""
    used = set("".join(texts))
    used.update(unicodedata.normalize("NFKC", "".join(used)))  # as the streams read them (U+FAD2 is U+3B9D)
    free = (chr(c) for c in WALLS if chr(c) not in used)
    walls = [w for _, w in zip(range(len(texts) - 1), free)]
    return walls if len(walls) == max(0, len(texts) - 1) else None
