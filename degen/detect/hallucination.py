"""Known hallucinations: what ASR models write over silence and music ("Thanks for
watching", "Untertitelung des ZDF", "字幕由Amara.org社区提供"), matched against a
per-language lexicon and weighed by what the timing says.

A phrase alone proves little: people do say "thank you". So its severity rises with
independent evidence: where it stands (the first or last words of the transcript, or of
the speech before or after a long silence), whether it is its segment's whole text, the
timing (over silence: a long segment with little text; a blip too short to be said;
alone between long gaps) and repetition (the same phrase coming back). A phrase that is
most of its segment is weighed whole; one inside a line of other text (``inline``) only
where it stands at an edge, or is a phrase speech rarely says (a subtitle credit).

Severity (``_severity``): the place counts once, however many edges it touches, so
that a bare "Thank you." in a file of its own is low, as a manifest's row of it is.
A known credit with nothing for it but its words is low too; standing as a segment of
its own it is medium, and high with any other signal. An everyday phrase needs a signal
besides its place: low with one, medium with two, high with three.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import re

import numpy as np

from ..errors import ConfigError
from ..model import Transcript
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .places import excerpt_of, span_of
from .heads import Heads, finditer as heads_finditer, keys_candidates, matches_at
from . import inline, lexicon_blocks
from .lexicon_blocks import matches  # noqa: F401  (part of this module's interface)
from .table import SegmentTable
from .tokens import SEP, content

LEXICON_FILE = "hallucinations.tsv"
WEAK_PREFIX = "weak-"  # source ids of phrases people really say
# Evidence that is the phrase's place: counted once however many of them hold.
POSITION = frozenset({"file_edge", "only_text", "window_edge"})
# Characters from which a search runs the regex only where a phrase can start (``heads``):
# below this, the regex alone is as quick as the tables' set-up.
LONG_TEXT = 100_000


@dataclass(frozen=True)
class Lexicon:
    """Normalised phrases, their languages and sources, and one automaton over them.

    Attributes:
        phrases: normalised phrase -> tuple of (language, source id).
        pattern: one regex alternation of every phrase (as a trie), or None when empty.
        path: where it was read from.
    """

    phrases: dict
    pattern: re.Pattern | None
    path: str = ""

    @cached_property
    def heads(self) -> Heads | None:
        """Where a phrase can start (made on first use: a few ms, worth it on long texts only)."""
        return Heads.of(self.phrases) if self.phrases else None

    def finditer(self, text: str) -> list:
        """Every match of ``pattern`` in ``text``, as ``pattern.finditer`` finds them."""
        if self.pattern is None:
            return []
        if len(text) < LONG_TEXT:
            return list(self.pattern.finditer(text))
        return heads_finditer(self.pattern, self.heads, text)

    def finditer_keys(self, keys: list[str], joined_too: bool = True, resume: int = 0) -> tuple[list, list]:
        """The matches in ``keys`` joined by SEP, and (``joined_too``) in the keys joined
        by nothing from position ``resume`` on (as ``pattern.finditer`` goes on from
        there), which finds phrases cut between two segments; on a long text one search
        for where phrases can start serves both."""
        if self.pattern is None or not keys:
            return [], []
        separated = SEP.join(keys)
        if not joined_too:
            return self.finditer(separated), []
        joined = "".join(keys)
        if len(separated) < LONG_TEXT:
            return list(self.pattern.finditer(separated)), list(self.pattern.finditer(joined, resume))
        starts, separated_starts = keys_candidates(self.heads, keys, joined, len(SEP))
        return (matches_at(self.pattern, separated, separated_starts),
                matches_at(self.pattern, joined, starts[starts >= resume]))

    def __len__(self) -> int:
        return len(self.phrases)

    def strong(self, phrase: str) -> bool:
        """A phrase speech rarely says by chance ("Untertitelung des ZDF"); the lexicon
        marks the everyday ones ("Thank you.", "Vielen Dank") with a ``weak-`` source."""
        return not all(source.startswith(WEAK_PREFIX) for _, source in self.phrases.get(phrase, ()))


def load_lexicon(path: str | Path | None = None) -> Lexicon:
    """Read a lexicon file (``lang<TAB>phrase<TAB>source_id`` rows, ``#`` comments).

    Args:
        path: the file; the packaged ``hallucinations.tsv`` when None (an empty lexicon
            when the package has none).

    Raises:
        ConfigError: a row without three fields, or naming an uncited source.
    """
    if path is None:
        # The file beside this module (importlib.resources would cost ~10 ms of start-up
        # for the same path: degen is never imported from a zip).
        packaged = Path(__file__).with_name(LEXICON_FILE)
        if not packaged.is_file():
            return Lexicon({}, None, "")
        return _parse(packaged.read_text(encoding="utf-8"), str(packaged))
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the hallucination lexicon ({e}); give a UTF-8 TSV file") from None
    return _parse(text, str(path))


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    return load_lexicon()


def lexicon_for(config: DetectConfig) -> Lexicon:
    """The lexicon ``config`` names (``lexicon_path``), else the packaged one; read once
    per file version."""
    if not config.lexicon_path:
        return default_lexicon()
    path = Path(config.lexicon_path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the hallucination lexicon ({e.strerror}); "
                          f"give a UTF-8 TSV file") from None
    return _cached_lexicon(str(path), stamp)


@lru_cache(maxsize=8)
def _cached_lexicon(path: str, stamp: int) -> Lexicon:
    return load_lexicon(path)


def _parse(text: str, where: str) -> Lexicon:
    comments, rows = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            comments.append(line)
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not all(f.strip() for f in fields):
            raise ConfigError(f"{where}: line {number}: expected lang<TAB>phrase<TAB>source_id, "
                              f"got {line[:60]!r}; fix or remove the row")
        rows.append((number, *(f.strip() for f in fields)))
    phrases: dict[str, tuple] = {}
    for number, lang, phrase, source in rows:
        if not any(f"[{source}]" in c for c in comments):
            raise ConfigError(f"{where}: line {number}: source {source!r} has no '# [{source}] ...' "
                              f"citation line; add one")
        key = content(phrase)
        if key:
            phrases[key] = phrases.get(key, ()) + ((lang, source),)
    if not phrases:
        return Lexicon({}, None, where)
    return Lexicon(phrases, re.compile(_trie_pattern(phrases)), where)


def _trie_pattern(phrases) -> str:
    """One regex alternation of every phrase, factored as a trie (``th(?:ank(?:you|s))``):
    at each position the engine follows one branch instead of trying every phrase, 20x
    faster than the flat alternation, and the greedy optional tails prefer the longest
    phrase, as Aho-Corasick's leftmost-longest match would."""
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for ch in phrase:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


def hallucination_findings(transcript: Transcript, keys: list[str], table: SegmentTable, config: DetectConfig,
                           lexicon: Lexicon, independent: bool = False) -> list[Finding]:
    """One finding per run of consecutive segments made mostly of lexicon phrases.

    ``independent``: each segment is its own utterance, so file edges, gaps and
    repeats across segments say nothing; only the segment's own timing counts.
    """
    texts = transcript.columns().texts
    hits = lexicon_blocks.search(texts, keys, lexicon, straddle=not independent)
    found, covered = _found(hits)
    matched = {i: lexicon_blocks.matched_key(texts, keys, i) for i in found}  # the keys as matched, where needed
    # Most of the segment, or one phrase said again and again (a known phrase looping
    # after real speech: "... party. Thank you. Thank you. Thank you. Thank you.").
    candidates = sorted(i for i, m in found.items() if matched[i] and (
        covered[i] >= config.hallucination_coverage * len(matched[i])
        or any(p * config.hallucination_repeats in matched[i] for p in set(m))))
    groups = _groups(candidates, independent)
    totals = _phrase_totals(found, candidates, table)
    # Nothing but known phrases in the whole file: the recording held no speech at all.
    whole = not independent and len(candidates) == hits.nonempty  # each candidate's key has text
    out = []
    for first, last in groups:
        phrases = [p for i in range(first, last + 1) for p in found[i]]
        phrase = max(phrases, key=lambda p: (lexicon.strong(p), phrases.count(p), len(p)))
        evidence = _evidence(first, last, phrase, phrases, totals, table, config, independent)
        if whole:
            evidence.append("only_text")
        severity = _severity(lexicon.strong(phrase), evidence, isolated=not independent)
        if severity is None:
            continue
        langs = sorted({lang for lang, _ in lexicon.phrases[phrase]})
        out.append(Finding(
            kind=Kind.HALLUCINATION, severity=severity, span=span_of(transcript, first, last),
            segments=(first, last), speaker=table.speaker_of(first, last),
            unit=excerpt_of(transcript, first), count=phrases.count(phrase),
            excerpt=excerpt_of(transcript, first), score=1.0 + len(evidence),
            evidence=tuple(evidence) + tuple(f"lexicon:{lang}" for lang in langs), stream="lexicon",
            extent=(float(first), float(last + 1)), covered=sum(len(matched[i]) for i in range(first, last + 1))))
    taken = set(candidates)
    out += [f for i in sorted(found) if i not in taken and matched[i] == keys[i]
            for f in [_inline(transcript, i, found, totals, table, config, lexicon, independent)] if f]
    return out


def _inline(transcript: Transcript, i: int, found, totals, table: SegmentTable, config: DetectConfig,
            lexicon: Lexicon, independent: bool) -> Finding | None:
    """The finding for the phrases inside segment ``i``'s line of other text, or None. A
    credit counts anywhere, and more at an edge of the speech or said again; an everyday
    phrase only as a sentence of its own at an edge ("... One, two, three. Thank you."),
    never for coming back ("you" ends many a sentence, and an outro thanks several times)."""
    text = transcript.columns().texts[i]
    best = None
    for place in inline.places(text, lexicon):
        strong = lexicon.strong(place.phrase)
        if not strong and not inline.own_sentence(text, place):
            continue
        evidence = [] if independent else _edges(i, place, table, config)
        if not strong and not evidence:
            continue
        repeats = sum(p == place.phrase for j in found for p in found[j] if table.speakers[j] == table.speakers[i])
        if strong and repeats >= config.hallucination_repeats:
            evidence.append("repeated")
        severity = _severity(strong, evidence, isolated=False)
        if severity is not None and (best is None or severity.rank > best[0].rank):
            best = (severity, place, evidence, strong)
    if best is None:
        return None
    severity, place, evidence, _ = best
    langs = sorted({lang for lang, _ in lexicon.phrases[place.phrase]})
    size = max(len(text), 1)
    return Finding(
        kind=Kind.HALLUCINATION, severity=severity, span=span_of(transcript, i, i), segments=(i, i),
        speaker=table.speaker_of(i, i), unit=text[place.first:place.last + 1], count=1,
        excerpt=excerpt_of(transcript, i), score=1.0 + len(evidence),
        evidence=tuple(evidence) + ("inline",) + tuple(f"lexicon:{lang}" for lang in langs), stream="lexicon",
        extent=(i + place.first / size, i + (place.last + 1) / size), covered=len(place.phrase))


def _edges(i: int, place, table: SegmentTable, config: DetectConfig) -> list[str]:
    """Where an inline phrase stands: the first or last words of the transcript, or of
    the speech before or after a silence of ``isolation_gap`` (a window's edge)."""
    n = len(table)
    texts_before = any(table.units[:i] > 0)
    texts_after = any(table.units[i + 1:] > 0)
    if place.opens and not texts_before or place.closes and not texts_after:
        return ["file_edge"]
    if table.timed and table.measured:
        gap_before = table.start[i] - table.end[i - 1] if i > 0 else 0.0
        gap_after = table.start[i + 1] - table.end[i] if i + 1 < n else 0.0
        if place.opens and gap_before >= config.isolation_gap or place.closes and gap_after >= config.isolation_gap:
            return ["window_edge"]
    return []


def _found(hits: lexicon_blocks.Found) -> tuple[dict[int, list[str]], dict[int, int]]:
    """The phrases in each segment, those cut between two turns included, and how many
    graphemes of it they cover."""
    found = hits.phrases  # sparse: most segments hold no phrase
    covered = {i: sum(map(len, m)) for i, m in found.items()}
    for i, phrase, here, there in hits.straddling:
        found.setdefault(i, []).append(phrase)  # a phrase cut between two turns
        found.setdefault(i + 1, []).append(phrase)
        covered[i] = covered.get(i, 0) + here
        covered[i + 1] = covered.get(i + 1, 0) + there
    return found, covered


def _groups(candidates: list[int], independent: bool) -> list[tuple[int, int]]:
    """(first, last) of each run of consecutive candidate segments (each alone when
    independent); ``candidates`` sorted."""
    out: list[tuple[int, int]] = []
    for i in candidates:
        if out and out[-1][1] == i - 1 and not independent:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def _phrase_totals(found, candidates, table: SegmentTable) -> dict:
    """How often each phrase occurs in candidate segments, per speaker: a phrase one
    voice keeps saying over silence is a machine's, three people thanking is not."""
    totals: dict = {}
    for i in candidates:
        for p in found[i]:
            key = (p, table.speakers[i])
            totals[key] = totals.get(key, 0) + 1
    return totals


def _evidence(first, last, phrase, phrases, totals, table: SegmentTable, config: DetectConfig,
              independent: bool) -> list[str]:
    n = len(table)
    found = []
    if table.timed and table.measured:  # LRC ends are the next start: no silence to read
        seconds = float(np.sum(table.end[first:last + 1] - table.start[first:last + 1]))
        units = int(table.units[first:last + 1].sum())
        if seconds >= config.silence_min_seconds and units / seconds < config.silence_rate:
            found.append("over_silence")
        found += _blip(first, last, seconds, table, config, independent)
    if phrases.count(phrase) >= config.hallucination_repeats:
        found.append("repeated")
    if independent:
        return found
    if "repeated" not in found and totals.get((phrase, table.speakers[first]), 0) >= config.hallucination_repeats:
        found.append("repeated")
    if first == 0 or last == n - 1:
        found.append("file_edge")
    elif table.timed:
        before = table.start[first] - table.end[first - 1]
        after = table.start[last + 1] - table.end[last]
        if min(before, after) >= config.isolation_gap:
            found.append("alone")
    return found


def _blip(first: int, last: int, seconds: float, table: SegmentTable, config: DetectConfig,
          independent: bool = False) -> list[str]:
    """Timing no utterance has: a fragment too short to be said on its own, and one that
    starts before the same voice's previous segment ends (the decoder writing over time it
    had already transcribed; different speakers may overlap). Utterances of a manifest
    each start at 0 s on their own clip: none overlaps another."""
    found = ["fragment"] if 0 < seconds < config.fragment_seconds else []
    if first > 0 and not independent and table.speakers[first] == table.speakers[first - 1] \
            and table.start[first] < table.end[first - 1] - config.uniform_tolerance:
        found.append("overlap")
    return found


def _severity(strong: bool, evidence, isolated: bool) -> Severity | None:
    """The severity the evidence earns (see the module's docstring). ``isolated``: the
    phrase is its segment's whole text in a transcript of several utterances (not a row
    of a manifest, judged by its own timing only)."""
    placed = any(e in POSITION for e in evidence)
    others = sum(1 for e in evidence if e not in POSITION)
    signals = others + placed
    if strong:
        if isolated:
            return Severity.HIGH if signals else Severity.MEDIUM
        return (Severity.LOW, Severity.MEDIUM, Severity.HIGH)[min(signals, 2)]
    if not others:  # its place alone: a real "Thank you." closes many a recording
        return Severity.LOW if placed else None
    return (None, Severity.LOW, Severity.MEDIUM, Severity.HIGH)[min(signals, 3)]
