"""Loops inside and across segments, from tandem repeats over token streams."""

from __future__ import annotations

import functools
import os

import numpy as np
import regex

from ..model import Transcript
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .places import clip, span_of, text_of, texts_of
from .periodic import Runs, tandem_repeats, tandem_repeats_in
from .table import SegmentTable
from .script import kana_count, speech_units
from .tokens import Stream, content, grapheme_len, normalize

_SEP = r"[\p{P}\p{S}\p{Z}\s]*"
# Copies searched for from: doubled clauses are reported low, and the words stream finds
# them (a CJK clause is one word there); the other streams start at three copies, which
# keeps them fast.
WORDS_FEWEST, FEWEST = 2, 3
# The seed's max-repetition metric reports a unit from this count: doubles (``good``,
# ``看看``) are everywhere.
METRIC_FEWEST = 3
EXCERPT_COPIES = 3  # copies back to back an excerpt looks for, not the unit's first innocent occurrence
# A line of one drawing character and nothing else (``-----``, ``=====``): a log's or a
# console's ruler, layout rather than text, when the transcript has no time to give it.
# Not the dot or other punctuation a decoder loops on (``......``).
RULER = regex.compile(r"^[^\S\n]*([-=_~*#─━═])\1{2,}[^\S\n]*$", regex.M)


def loop_findings(stream: Stream, runs: Runs, transcript: Transcript, table: SegmentTable,
                  config: DetectConfig, speaker: str | None = None) -> list[Finding]:
    """Turn the runs of one stream into findings, keeping those that pass the bar.
    ``speaker`` names the speaker of a per-speaker stream."""
    # Fewer copies than any count rule needs only matter for long units (a doubled
    # clause is low): skip the rest here, without a Python call per double.
    fewest = min(config.min_repeats_evidence, config.min_repeats_short, config.min_repeats)
    unit_end = np.minimum(runs.start + runs.period, stream.ids.size) - 1
    unit_chars = stream.end_at(unit_end) - stream.starts[runs.start] if len(runs) else runs.start
    keep = np.flatnonzero((runs.count >= fewest) | (unit_chars >= config.long_unit))
    run_starts, periods, run_stops = runs.start[keep], runs.period[keep], (runs.start + runs.length)[keep]
    starts = _aligned(stream, run_starts, periods, run_stops)
    counts = (run_stops - starts) // periods
    # The texts holding each run's first token, its last whole copy's last, and its last
    # token's (``stream.owner_index``), found for all runs at once rather than per run.
    texts = [stream.owner_index(at).tolist() for at in (starts, starts + counts * periods - 1, run_stops - 1)]
    out, long_units = [], {}
    for start, period, count, run_stop, k_first, k_last, k_stop in zip(
            starts.tolist(), periods.tolist(), counts.tolist(), run_stops.tolist(), *texts):
        if count < fewest:  # below every count rule only a clause can pass (_judge's last branches)
            unit = (period, stream.ids[start:start + period].tobytes())  # equal ids, equal text
            if unit not in long_units:
                # full=True: the most lenient clause test any branch of _judge applies
                long_units[unit] = _long(stream.text(start, start + period), config, full=True)
            if not long_units[unit]:
                continue  # most doubles (``the the``) end here, before the costly evidence
        finding = _judge(stream, start, period, count, transcript, table, config, speaker,
                         _cut_copies(stream, start, period, run_stop, k_first, k_stop, config.cut_min_chars), (k_first, k_last))
        if finding is not None:
            out.append(finding)
    return out


def _aligned(stream: Stream, start: np.ndarray, period: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Start each run at a segment's first token when one falls inside its first unit:
    a run found from ``there|Aye. Aye.`` reads better, and maps to the right segments,
    as ``Aye.`` from the next segment on (all runs at once)."""
    k = stream.owner_index(start)
    bound = stream.bounds[np.minimum(k + 1, stream.bounds.size - 1)]
    move = (start != stream.bounds[k]) & (start < bound) & (bound < start + period) & (stop - bound >= 2 * period)
    return np.where(move, bound, start)


def _cut_copies(stream: Stream, start: int, period: int, run_stop: int, k0: int, k1: int,
                cut_min_chars: int) -> float:
    """Copies of the unit in a run that fills its segment to an edge, counting the copy
    cut short before it: loops start in the previous chunk and stop at the token cap,
    usually mid-unit (``面有几条小路，前面有几条小路，前面有几条小路``). 0 when the run
    touches neither edge of its segment (texts ``k0`` and ``k1`` of the stream hold its
    first and last token); the cut copy counts where ``cut_min_chars`` or more of the
    unit's tail stand just before the run."""
    if k0 != k1:
        return 0.0
    begin, end = int(stream.bounds[k0]), int(stream.bounds[k0 + 1])
    copies = (run_stop - start) / period
    unit = stream.text(start, start + period).replace(" ", "")
    before = stream.text(max(begin, start - period), start).replace(" ", "")
    cut = len(os.path.commonprefix([unit[::-1], before[::-1]]))  # the unit's tail just before the run
    if cut >= cut_min_chars:
        return copies + cut / len(unit)
    return copies if start == begin or run_stop == end else 0.0


def _judge(stream: Stream, start: int, period: int, count: int, transcript: Transcript,
           table: SegmentTable, config: DetectConfig, speaker: str | None,
           cut_copies: float, texts: tuple[int, int]) -> Finding | None:
    """A finding for ``count`` copies of ``period`` tokens from ``start``, or None;
    ``texts``: the stream's texts holding the first and the last of those tokens."""
    stop = start + count * period
    unit_key = stream.text(start, start + period)
    graphemes = grapheme_len(unit_key.replace(" ", ""))
    threshold = config.threshold_for(graphemes)
    first, first_frac = stream.locate(start, texts[0])
    last, last_frac = stream.locate(stop - 1, texts[1])
    if not table.timed and _rulers(transcript, first, last, unit_key):
        return None
    # Where the run ends on the segment axis: after its last token, a token of that text
    # further (a fraction of the run's own length overshot into the next segment, where
    # de-duplication took it for an overlap with a finding there).
    last_size = max(1, int(stream.bounds[texts[1] + 1] - stream.bounds[texts[1]]))
    extent = (first + first_frac, last + last_frac + 1.0 / last_size)
    members = None
    if speaker is not None:  # a per-speaker stream: judge that speaker's text only
        members = stream.owners[texts[0]:texts[1] + 1]
    evidence = table.evidence(first, last, config, members, uniform_min=config.min_repeats_long)
    if graphemes <= config.short_unit and "slow" in evidence and count < threshold \
            and last - first + 1 < config.min_repeats_evidence \
            and not transcript.meta.get("independent"):
        # A syllable said a few times in a cue or two held long (拜拜 at the end of a
        # podcast, a laugh, a sung note) is spoken or sung pace: slowness says the cue
        # outlasts its text, not that the text is a decoder's. One copy a window over
        # silence (a loop) spreads over as many segments as it has copies. Not for an
        # utterance (a manifest row): its duration is its own clip's, cut around its
        # speech, so a clip far longer than its text is text laid over silence.
        evidence = tuple(e for e in evidence if e != "slow")
    if speaker is None and len({table.speakers[i] for i in range(first, last + 1)} - {None}) > 1:
        threshold *= config.turns_factor  # spread over turns of several speakers: a drill or a read-back
    if count >= threshold or (evidence and count >= config.min_repeats_evidence):
        score = count / threshold if count >= threshold else count / config.min_repeats_evidence
        high = config.high_factor
        severe = count >= high * threshold or (count >= threshold and evidence) or (evidence and score >= high)
    elif _long(unit_key, config, full=bool(evidence)) and (first == last or evidence) and (
            count >= config.min_repeats_long or cut_copies >= config.min_repeats_long - config.cut_copies_slack):
        # A whole clause three times running: inside one segment the shape is the
        # evidence; across segments (a cycle cut anywhere) the timing must agree.
        score, severe = count / config.min_repeats_long, len(evidence) > 1
        evidence = evidence or (("clause_x3",) if count >= config.min_repeats_long else ("clause_x3_cut",))
    elif _long(unit_key, config, full=True) and first == last:
        # A clause said twice (or thrice across turns), a polite formula said three
        # times: worth a look, not a loop.
        unit, excerpt = _display(texts_of(transcript, first, last, stream.joiner), unit_key, stream.joiner,
                                 stream.name != "punct", count)
        return Finding(kind=Kind.PHRASE_LOOP, severity=Severity.LOW, span=span_of(transcript, first, last),
                       segments=(first, last), speaker=speaker or table.speaker_of(first, last), unit=unit,
                       period=period, count=count, excerpt=excerpt, score=count / config.min_repeats_long,
                       evidence=evidence, stream=stream.name,
                       extent=extent,
                       covered=count * grapheme_len(content(unit_key) or unit_key))
    else:
        return None
    unit, excerpt = _display(texts_of(transcript, first, last, stream.joiner), unit_key, stream.joiner,
                             stream.name != "punct", count)
    return Finding(
        kind=Kind.CHAR_LOOP if graphemes == 1 else Kind.PHRASE_LOOP,
        severity=Severity.HIGH if severe else Severity.MEDIUM,
        span=span_of(transcript, first, last),
        segments=(first, last),
        speaker=speaker or table.speaker_of(first, last),
        unit=unit, period=period, count=count, excerpt=excerpt,
        score=score, evidence=evidence, stream=stream.name,
        extent=extent,
        covered=count * grapheme_len(content(unit_key) or unit_key),
    )


def _rulers(transcript: Transcript, first: int, last: int, unit_key: str) -> bool:
    """The unit is a drawing character that, in segments first..last, runs only as whole
    ruler lines (``RULER``): nothing of it is left three times running without them."""
    if len(unit_key) != 1 or not RULER.match(unit_key * 3):
        return False
    return all(unit_key * 3 not in RULER.sub("", text_of(transcript, i)) for i in range(first, last + 1))


def _long(unit_key: str, config: DetectConfig, full: bool = False) -> bool:
    """A clause or sentence rather than a word: enough speech units (words, or CJK
    graphemes) that saying it several times running is not emphasis. Kana count at
    ``kana_weight`` (a polite formula in kana is short) unless ``full`` (timing says machine)."""
    units, cjk = speech_units(unit_key)
    if cjk and not full:
        units -= (1 - config.kana_weight) * kana_count(unit_key)
    return units >= (config.long_unit_cjk if cjk else config.long_unit)


@functools.lru_cache(maxsize=4)
def _normalized(text: str) -> str:
    """``normalize(text)``, once per text: every finding of a one-line file takes its
    excerpt from the same megabyte-long text (NFKC of it for each of 580 findings: 40 s)."""
    return normalize(text)


# Units longer than this (characters) are not compiled into a pattern to find them as
# written: a fuzzed line held a 70,000-character word, and each finding of it compiled one
# (0.3 s each; 5 s of one file's scan). No unit that long is shown whole anyway.
LONG_UNIT = 256


def _display(text: str, unit_key: str, joiner: str, trailing: bool = True, count: int = 1) -> tuple[str, str]:
    """The unit as written (``Aye.`` rather than ``aye``) and an excerpt starting at it."""
    parts = unit_key.split(" ") if joiner else list(unit_key)
    if len(unit_key) > LONG_UNIT:  # no pattern of it: the excerpt starts where its first part does
        norm = _normalized(text)
        at = norm.find(parts[0][:LONG_UNIT]) if len(norm) == len(text) else -1
        return unit_key, clip(text[max(at, 0):])
    sep = _SEP if trailing else ""
    unit = regex.compile(sep.join(regex.escape(p) for p in parts if p) + (r"[\p{P}\s]*" if trailing else ""))
    norm = _normalized(text)
    if len(norm) != len(text):  # normalisation changed lengths: positions would not map back
        return unit_key, clip(text)
    copies = regex.compile(f"(?:{unit.pattern}){{{min(count, EXCERPT_COPIES)}}}")
    found = copies.search(norm) or unit.search(norm)
    if found is None:
        return unit_key, clip(text)
    first = unit.match(norm, found.start())
    return text[first.start():first.end()].strip() or unit_key, clip(text[found.start():])


def max_repetition(streams: list[Stream], runs: list[Runs], transcript: Transcript) -> tuple[str | None, int]:
    """The largest count of any unit inside one segment's text (the seed's metric), from
    ``METRIC_FEWEST`` copies."""
    best_unit, best = None, METRIC_FEWEST - 1
    for stream, r in zip(streams, runs):
        if not len(r):
            continue
        stops = r.start + r.count * r.period
        a, b = stream.owner_index(r.start), stream.owner_index(stops - 1)
        counts = np.where(a == b, r.count, 0)
        split = np.flatnonzero(a != b)
        if split.size:  # split across segments: count the copies per segment
            counts[split] = _most_copies_in_a_segment(stream.bounds, r, stops, a[split], b[split], split)
        i = int(np.argmax(counts))
        if counts[i] > best:
            best = int(counts[i])
            start = int(r.start[i])
            key = stream.text(start, start + int(r.period[i]))
            seg = stream.locate(start)[0]
            best_unit = _display(text_of(transcript, seg), key, stream.joiner, stream.name != "punct", best)[0]
    return best_unit, (best if best_unit else 0)


def _most_copies_in_a_segment(bounds: np.ndarray, r: Runs, stops: np.ndarray, first: np.ndarray,
                              last: np.ndarray, which: np.ndarray) -> np.ndarray:
    """For runs ``which`` (from text ``first`` to text ``last`` of their stream), the
    most whole copies of the unit that lie in one text, all runs at once: each run is cut
    into its pieces, one per text it touches."""
    offsets, run, begins, ends = _pieces(bounds, r.start, stops, first, last, which)
    return np.maximum.reduceat((ends - begins) // r.period[run], offsets)


def _pieces(bounds: np.ndarray, starts: np.ndarray, stops: np.ndarray, first: np.ndarray, last: np.ndarray,
            which: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Runs ``which`` (tokens ``starts``..``stops``, from text ``first`` to text ``last``
    of their stream) cut at the texts' edges: (where each run's pieces begin among them,
    the run of each piece, where each piece begins and ends)."""
    pieces = last - first + 1
    offsets = np.cumsum(pieces) - pieces
    run = np.repeat(which, pieces)
    text = np.repeat(first, pieces) + np.arange(int(pieces.sum())) - np.repeat(offsets, pieces)
    return offsets, run, np.maximum(bounds[text], starts[run]), np.minimum(bounds[text + 1], stops[run])


def find_runs(stream: Stream, config: DetectConfig, alone: bool = False) -> Runs:
    """The stream's runs; ``alone`` (utterances judged each on its own): cut at the texts'
    edges, as each text's own search would find them."""
    fewest = WORDS_FEWEST if stream.name == "words" else FEWEST
    if stream.name == "punct":  # a stretch of other text is a token matching nothing (a negative id)
        runs = tandem_repeats_in(stream.ids, stream.ids >= 0, config.max_period, fewest)
    else:
        runs = tandem_repeats(stream.ids, config.max_period, fewest)
    return within_texts(stream, runs, fewest) if alone else runs


def within_texts(stream: Stream, runs: Runs, fewest: int) -> Runs:
    """``runs`` cut where they cross from one text into the next, the parts of ``fewest``
    copies or more kept. A run's part inside one text is the run that text's own search
    finds (maximal in the stream, so maximal in the text, with the same primitive period).
    Searched whole, a repeat running on from one utterance into the next was one run that
    could make no finding (4 copies over 10 s then 4 over 17 s: too slow only alone)."""
    stops = runs.start + runs.length
    first, last = stream.owner_index(runs.start), stream.owner_index(stops - 1)
    crossing = np.flatnonzero(first != last)
    if not crossing.size:
        return runs
    _, run, begin, end = _pieces(stream.bounds, runs.start, stops, first[crossing], last[crossing], crossing)
    length = end - begin
    period = runs.period[run]
    kept = length // period >= fewest
    whole = first == last
    start = np.concatenate((runs.start[whole], begin[kept]))
    period = np.concatenate((runs.period[whole], period[kept]))
    length = np.concatenate((runs.length[whole], length[kept]))
    order = np.lexsort((period, start))  # tandem_repeats' order
    return Runs(start[order], period[order], (length // period)[order], length[order])
