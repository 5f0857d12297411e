"""Detection: a transcript in, findings and the seed's metrics out (``engine.analyze``).

The modules import one way, each only from those below it::

    engine           analyze: every detector over one transcript, one finding per place
    windows          stream loops, window by window of segments (a small text is one window)
    loops segments echoes hallucination timing ratios     the detectors
    lexicon_blocks shreds heads dedupe                    the lexicon search; one finding per place
    table            per-segment facts (times, speech units, speakers) and the timing evidence
    streams script   the token streams of the texts; which text is CJK
    tokens periodic places finding config highlight      characters, tandem repeats, shared values
"""

from __future__ import annotations

from .config import DEFAULT, SEVERITIES, DetectConfig
from .engine import Analysis, analyze
from .finding import HALLUCINATION_KINDS, LOOP_KINDS, TIMING_KINDS, Finding
from .hallucination import Lexicon, lexicon_for, load_lexicon
from .ratios import compression_ratio

__all__ = ["DetectConfig", "DEFAULT", "SEVERITIES", "Finding", "Analysis", "analyze",
           "LOOP_KINDS", "TIMING_KINDS", "HALLUCINATION_KINDS", "compression_ratio", "Lexicon", "load_lexicon", "lexicon_for"]
