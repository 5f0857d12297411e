"""Every detection threshold, named once, with the reason for its value.

The numbers come from the shapes in real transcripts: natural repetition reaches x6 in
ordinary speech, "no" x11 from one speaker, 对对对 x3, a chorus x5; real loops run from
x12 (a sentence) to x500 (a punctuation mark). A single count cannot separate the two
for short units, so short units need a higher count, and independent evidence from the
timing (text the time cannot hold, a tail cut at the token cap) lowers the bar.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..errors import ConfigError
from .finding import Severity

SEVERITIES = tuple(s.value for s in Severity)  # plain strings: what a CLI choice lists


@dataclass(frozen=True, slots=True)
class DetectConfig:
    # Longest repeating unit searched, in tokens (graphemes, or words): 64 words holds
    # the longest looping sentences seen; 64 graphemes a CJK sentence.
    max_period: int = 64
    # Count from which a unit of more than `short_unit` graphemes is a loop. Ordinary
    # speech reaches x6 and a chorus x5; looping sentences start around x12.
    min_repeats: int = 8
    # Count from which a unit of at most `short_unit` graphemes is a loop: people say
    # "no" x11 and laugh 哈哈哈; single-character loops run x31 to x500.
    min_repeats_short: int = 16
    short_unit: int = 3
    # Count from which any repeat is a loop when timing independently says the text is
    # not speech (too dense for its time, or running into an unclosed tail).
    min_repeats_evidence: int = 4
    # A repeat spread over turns of several speakers (a drill, a read-back, a chant)
    # needs this many times the count one speaker's repeat needs: people do echo each
    # other, a decoder's loop stays with one voice.
    turns_factor: int = 2
    # A count this many times its threshold (or a rate this many times its limit) is high
    # on its own: twice the bar is no borderline case.
    high_factor: int = 2
    # Identical consecutive segments from one speaker: loops of 5 and more one-second
    # segments are common; several speakers saying "Yeah." x4 is a conversation.
    min_segment_repeats: int = 5
    # A long unit (this many speech units, words or CJK graphemes: a clause or sentence,
    # not "Yeah.", "no, no" or 对对对) repeated min_repeats_long times is a loop when timing or shape backs it
    # (inside one segment the shape is the evidence: nobody says a whole sentence three
    # times running); twice is reported as low.
    long_unit: int = 5
    # In CJK graphemes (about syllables) a clause needs more: 감사합니다 (5) and 谢谢大家
    # are one polite word people do say three times; 前面有几条小路 (7) is a clause.
    long_unit_cjk: int = 7
    # What a kana counts toward a clause: a kana is one mora, and Japanese carries about
    # half as much per mora as Mandarin per syllable (Pellegrino, Coupé & Marsico 2011:
    # information rate per syllable 0.49 vs 0.94). So ありがとうございます (10 kana) is a
    # polite formula of 5 units, said three times by people, while a clause with kanji
    # still reaches 7. With machine timing the kana count in full.
    kana_weight: float = 0.5
    min_repeats_long: int = 3
    # Near copies of a clause on one line (near.py): a window of the unit's length counts
    # as a copy when this share of its tokens equals the tokens one unit on (a word
    # swapped in seven, or punctuation and case, which normalising removes, differ) ...
    near_copy_share: float = 0.8
    # ... and the unit holds at least this share of distinct tokens: a clause of seven
    # words has six or seven, a run of three digits spaced out (二 零 二 二 零) matches
    # its own shift by chance.
    near_distinct_share: float = 0.6
    # A clause run that fills its segment to an edge counts the copy cut short beside it
    # (a loop starts in the previous chunk and stops at the token cap, mid-unit): it is a
    # loop when its copies, the cut ones in part, come within half a copy of
    # min_repeats_long ...
    cut_copies_slack: float = 0.5
    # ... and the cut copy shows at least this many characters of the unit's tail (one
    # character before a run matches by chance).
    cut_min_chars: int = 2
    # Growing prefixes on one line (prefixes.py): every partial result of a dictation
    # inserted again (``Do Do yDo you Do you kDo you know``). People restart a sentence
    # once or twice ("I, I think, I think that"); this many copies, each the one before
    # and more, the longest of prefix_words words, is the client's echo.
    prefix_copies: int = 4
    prefix_words: int = 3
    max_segment_period: int = 5
    # Copies of a segment loop timed alike segment by segment (a decoder replaying itself)
    # must be most of them, at least this share, in one unbroken stretch.
    alike_share: float = 0.5
    # Tail echoes (echoes.py): a streaming decoder re-emitting the end of each utterance
    # as extra segments. Two copies after one utterance could be someone stressing a
    # syllable; the same after a second, different utterance is the decoder's habit.
    echo_copies: int = 2
    echo_runs: int = 2
    # rapidfuzz ratio from which two consecutive segments count as one repeated segment.
    near_duplicate_ratio: float = 90.0
    # Speech rates no speaker holds. Fast Mandarin runs 7-8 syllables/s and fast
    # Japanese 8 morae/s (one CJK grapheme is about one of either); fast English runs
    # 4-5 words/s and auctioneers 6-7.
    max_cjk_rate: float = 12.0
    max_word_rate: float = 7.0
    # A stretch of segments is held to the CJK rate when at least this share of them is
    # CJK text: a stretch takes the limit of the script most of it is written in.
    cjk_share: float = 0.5
    # A rate verdict needs enough text, and times floor at this many seconds, because
    # timestamps of short segments are coarse.
    rate_min_units: int = 12
    rate_min_seconds: float = 1.0
    # This many consecutive segments with the same non-zero duration is machine-made.
    uniform_duration_run: int = 5
    # Whisper decodes 30 s windows; a run of segments each exactly one window long is
    # the decoder's grid, not speech.
    window_seconds: float = 30.0
    # Slow: a repeated run carrying fewer speech units a second than this, over at
    # least slow_min_seconds of segment time, is text laid over silence or music (a
    # 6-word sentence per 15 s window). Held notes in singing stay above it averaged
    # over whole lines.
    slow_rate: float = 0.5
    slow_min_seconds: float = 6.0
    # Seconds within which two durations count as equal: timestamps written to 10 ms
    # (SRT, whisper's 20 ms tokens halved by rounding) put up to 10 ms of rounding on a
    # duration, so 11 ms tells "equal up to rounding" from any real spread of speech.
    uniform_tolerance: float = 0.011
    # A transcript is cut short when its last end falls this far before the audio end,
    # both in seconds and as a share of the audio (natural trailing silence is shorter).
    truncation_seconds: float = 30.0
    truncation_share: float = 0.05
    # Known hallucinations (hallucination.py). A segment is a candidate when lexicon
    # phrases make up this share of its text: "Untertitelung des ZDF, 2020" is one,
    # "thank you all for coming to this talk" is not.
    hallucination_coverage: float = 0.5
    # Over silence: a segment this long carrying fewer speech units a second than the
    # slowest real speech (about 1.5 words/s) is mostly silence the model filled in.
    silence_min_seconds: float = 3.0
    silence_rate: float = 1.0
    # Alone in a window: this much silence on both sides; turn gaps in conversation are
    # well under a second, and a pause of 5 s leaves room for nothing but the phrase.
    isolation_gap: float = 5.0
    # A blip: a whole segment shorter than this is no utterance. A word said on its own is
    # lengthened at the end of the utterance and takes 0.3 s or more; whisper's "you." over
    # a breath is given 0.16 s.
    fragment_seconds: float = 0.25
    # The same phrase from one voice this many times is repeated, not polite.
    hallucination_repeats: int = 3
    # Two findings are one place when they share this much of the shorter one's extent:
    # half, so that a loop found in two streams (its words and its characters), whose
    # ends differ by a token or a segment, is reported once, while a loop beside it is not.
    same_place_overlap: float = 0.5
    # Whisper's own fallback cut on zlib compression ratio; reported, not used to flag.
    compression_ratio: float = 2.4
    # Findings at or above this severity make a transcript degenerate.
    fail_on: str = "medium"
    # Another hallucination lexicon (same TSV as hallucinations.tsv); "" is the packaged one.
    lexicon_path: str = ""

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "fail_on":
                if value not in SEVERITIES:
                    raise ConfigError(f"fail_on must be one of {', '.join(SEVERITIES)}, not {value!r}")
            elif f.name == "lexicon_path":
                if not isinstance(value, str):
                    raise ConfigError(f"lexicon_path must be a path string, not {value!r}")
            elif not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"{f.name} must be a non-negative number, not {value!r}")
        if self.max_period < 1 or self.min_repeats < 2 or self.min_repeats_short < 2 or self.min_repeats_evidence < 2:
            raise ConfigError("max_period must be >= 1 and every min_repeats* >= 2")

    def with_(self, **changes) -> "DetectConfig":
        """A copy with ``changes``; None values are ignored (handy for CLI options)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def threshold_for(self, unit_graphemes: int) -> int:
        return self.min_repeats_short if unit_graphemes <= self.short_unit else self.min_repeats


DEFAULT = DetectConfig()
