"""The detection engine: a transcript in, findings and the seed's metrics out.

    windows of segments ─▶ streams ─▶ tandem repeats ─▶ loop findings ┐
    segment keys ─▶ segment cycles, tail echoes ────────────────────────┤
    segment keys ─▶ lexicon automaton ──────────────────────────────────┼─▶ one per place ─▶ Analysis
    segment table ─▶ timing findings ───────────────────────────────────┘

The segment table also supplies the timing evidence every verdict weighs (too dense, too
sparse, equal durations, 30 s windows, zero length, an unclosed tail). Utterance-per-line
transcripts (``meta["independent"]``) are judged one utterance at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Transcript
from .config import DEFAULT, DetectConfig
from .dedupe import absorbed, dedupe
from .echoes import echo_findings
from .finding import Finding
from .hallucination import Lexicon, hallucination_findings, lexicon_for
from .near import near_findings
from .prefixes import prefix_findings
from .ratios import highest_and_over, window_ratios
from .segments import consecutive_repeats, segment_findings
from .timing import timing_findings
from .windows import stream_loops


@dataclass(frozen=True)
class Analysis:
    findings: tuple[Finding, ...]
    segments: int
    consecutive_repeated_segments: int
    max_repetition_unit: str | None
    max_repetition: int
    max_compression_ratio: float
    segments_over_compression: int


def analyze(transcript: Transcript, config: DetectConfig = DEFAULT,
            audio_duration: float | None = None, lexicon: Lexicon | None = None, *,
            ratios: bool = True) -> Analysis:
    """Find every loop, known hallucination and timing anomaly in ``transcript``.

    Args:
        transcript: what to judge. ``meta["independent"]`` (utterance-per-line files)
            makes each segment judged on its own.
        config: thresholds.
        audio_duration: seconds of audio, to catch a transcript that stops early.
        lexicon: known hallucinations; when None, the file ``config.lexicon_path`` names,
            else the packaged ``hallucinations.tsv``.
        ratios: False skips whisper's compression ratio (0.0 and no window over it in the
            result), for a caller that needs only the findings: it never flags.

    >>> from degen.formats import loads
    >>> a = analyze(loads("[0.0][S01]" + "的" * 40 + "[2.0]"))
    >>> [(f.kind, f.unit, f.count) for f in a.findings]
    [('char_loop', '的', 40)]
    """
    texts = transcript.columns().texts
    independent = bool(transcript.meta.get("independent"))
    loops, table, keys, (unit, count), _ = stream_loops(transcript, config, independent)
    if not independent:  # utterances: their runs were cut at their edges (find_runs), so each is its own
        loops += segment_findings(transcript, keys, table, config)
        loops += echo_findings(transcript, keys, table, config)
    loops += near_findings(transcript, table, config, loops)
    loops += prefix_findings(transcript, table, config)
    loops += hallucination_findings(transcript, keys, table, config,
                                    lexicon_for(config) if lexicon is None else lexicon, independent)
    loops = dedupe(loops, config.same_place_overlap)
    timing = timing_findings(transcript, table, config, None if independent else audio_duration, independent)
    timing = absorbed(timing, loops)
    highest, over = highest_and_over(window_ratios(table, texts, independent) if ratios else (),
                                     config.compression_ratio)
    findings = sorted(loops + timing, key=lambda f: (f.segments, -f.severity.rank))
    return Analysis(tuple(findings), len(transcript), consecutive_repeats(keys), unit, count, highest, over)
