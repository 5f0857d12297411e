"""Pieces: decode a span whose audio repeats one word as several short requests.

When the audio itself says a word again and again (``recurrence.find_repetition``), a decoder
given the whole clip hears one sound many times and loops on it at any temperature. The
"pieces" step sends instead:

    |-- before --|-p1-|-p2-|-p3-|-p4-|--- after ---|    one request each; p1..p4 cut at
                 |==== the repeated stretch =====|      the dips between copies

and joins the answers into one answer for the clip: the parts before and after as the
server wrote them, the pieces as one segment over the stretch, written as the word they
agree on (`name`) once per copy. Each piece holds one copy, so the count comes from the
audio, not from the decoder. Each part is journaled under its own key and the joined
answer as the step's own (a resumed run replays them), and it is judged like any other.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from ..detect import DEFAULT, DetectConfig
from ..detect.script import cjk_count
from ..errors import FormatError
from ..model import Segment, Span
from .evidence import EvidenceConfig, claims, density, word_key
from .journal import JournalEntry
from .policy import Step
from .recurrence import Repetition
from .send import Sender, Sent
from .splice import parse_candidate

# Parts before or after the stretch shorter than this hold no word worth a request.
LEAST_PART = 0.3
# Voiced seconds below which a part before or after the stretch is not sent: less than a
# syllable (0.1 to 0.4 s) is no word, and a decoder given silence makes one up.
LEAST_VOICED = 0.1
# Parts of one span in flight at once (the sender's --concurrency bounds the whole run).
MAX_PARALLEL = 8
# An edge piece this many times longer or shorter than the median inner piece is no whole
# copy. The inner cuts fall where one copy's frames end and the next's begin; the outer
# bounds come from the copies' quietest phase, and where the speaker starts the run from
# silence or goes straight on to the next sentence they cut into a copy (a first piece of
# 0.16 s where the copies last 0.35 s, a last one that holds the next sentence's first
# syllable). The recurrence accepts copies whose lengths spread by at most 0.18 of their
# mean (``recurrence.UNSTEADY``): half again or two thirds is far outside any copy it counted.
MISCUT = 1.5

_END = re.compile(r"[\s.。!！?？,，、;；:：]+$")


@dataclass(frozen=True)
class Part:
    """One request of a pieces step: a stretch of the clip, and whether it is a piece."""

    span: Span
    piece: bool


def parts(clip: Span, repetition: Repetition) -> list[Part]:
    """The requests for ``clip``: before the stretch, its pieces, after it (transcript
    time; ``repetition`` is in transcript time too)."""
    out = []
    if repetition.start - clip.start >= LEAST_PART:
        out.append(Part(Span(clip.start, repetition.start), False))
    out += [Part(Span(a, b), True) for a, b in repetition.pieces()]
    if clip.end - repetition.end >= LEAST_PART:
        out.append(Part(Span(repetition.end, clip.end), False))
    return out


def send_pieces(sender: Sender, transcriber, key: str, number: int, step: Step, clip: Span,
                repetition: Repetition, budget, loop_units: tuple[str, ...] = (),
                voiced: Callable[[Span], float] | None = None, config: DetectConfig = DEFAULT) -> Sent:
    """Send every part (each journaled under its own key, so an interrupted step resumes
    part by part), then journal and return the joined answer as the step's. ``config``:
    the run's detection settings (the fastest rates a speaker holds)."""
    def one(tag: str, k: int, part: Part) -> Sent:
        part_key = f"{key}~{tag}{k}"
        return sender.replayable(part_key).get(number) or \
            sender.send(transcriber, part_key, number, step, part.span, budget(part.span.duration))

    def send_all(tag: str, todo: list[Part], done: dict[int, Sent]) -> list[tuple[Part, Sent]]:
        # Sent together (the sender bounds what is in flight): a server batches short clips.
        with ThreadPoolExecutor(max_workers=min(len(todo), MAX_PARALLEL) or 1) as pool:
            return list(zip(todo, pool.map(lambda k, p: done.get(k) or one(tag, k, p), range(len(todo)), todo)))

    tag, todo, done, spare = _phase(clip, repetition, loop_units, voiced, one)
    sents = send_all(tag, todo, done)
    every = [s for _, s in sents] + spare
    entry = JournalEntry(key, number, (clip.start, clip.end), step.to_dict(),
                         sents[0][1].entry.server if sents else "", sum(s.entry.token_budget for s in every),
                         format="pieces", sent=sum(s.requests for s in every if not s.replayed),
                         seconds_sent=sum(s.clip.duration * s.requests for s in every if not s.replayed),
                         pieces=len(every))
    errors = [s.error for _, s in sents if s.error]
    if errors:
        return Sent(entry.with_(error=errors[0]))  # not journaled: the failed part is retried, the others replayed
    try:
        body, named = joined(clip, sents, loop_units, voiced, config)
        entry = entry.with_(body=body, named=named.why if named else None, said=named.copies if named else None,
                            copies=named.of if named else None)
        if named is None:
            # The copies are one sound said again (recurrence); answers naming it several
            # ways show the decoder could not tell what it is, and any one of them may be a
            # deletion of the real word.
            entry = entry.with_(body="", unusable=f"the {repetition.copies} pieces of one repeated word do not "
                                                  f"agree on what it is")
    except FormatError as exc:
        entry = entry.with_(body="", unusable=exc.detail)  # judged as an empty answer: refused
    sender.journal.record(entry)
    return Sent(entry)


def _requests(clip: Span, repetition: Repetition, voiced: Callable[[Span], float] | None) -> list[Part]:
    """The parts to send: every piece, and the parts around the stretch that hold a word."""
    return [p for p in parts(clip, repetition) if p.piece or voiced is None or voiced(p.span) >= LEAST_VOICED]


def _phase(clip: Span, repetition: Repetition, loop_units: tuple[str, ...],
           voiced: Callable[[Span], float] | None, one: Callable[[str, int, Part], Sent]):
    """Where to cut the copies: (the parts' key tag, the parts, those already sent by
    index, requests sent and not used). A word of two syllables can be quieter between
    them than between copies, and cut there every piece says the end of one copy and the
    start of the next ("zig zwan" for German "zwanzig", decoded "620" and "Sich zu man"):
    no piece names the word. So where the copies have a second quiet point and the input's
    loop names a unit, the middle piece goes first; when it does not say that unit, the
    middle piece cut at the other point is tried, and the cuts that let it say the unit
    are taken. A piece costs one copy's audio; one at most is sent and not used."""
    todo = _requests(clip, repetition, voiced)
    pieces = [k for k, p in enumerate(todo) if p.piece]
    other = repetition.rephased(clip.start, clip.end)
    if other is None or not loop_units or len(pieces) < 3:
        return "", todo, {}, []
    middle = pieces[len(pieces) // 2]
    first = one("", middle, todo[middle])
    if first.error or _hears(first, loop_units):
        return "", todo, {middle: first}, []
    moved = _requests(clip, other, voiced)
    at = [k for k, p in enumerate(moved) if p.piece][len(pieces) // 2]
    second = one("r", at, moved[at])
    if not second.error and _hears(second, loop_units):
        return "r", moved, {at: second}, [first]
    return "", todo, {middle: first}, [second]


def _hears(sent: Sent, loop_units: tuple[str, ...]) -> bool:
    """Whether one piece's answer says one of the input loop's units (or its clipped end)."""
    try:
        said = _key(" ".join(s.text for s in parse_candidate(sent.entry.body, sent.entry.format)))
    except FormatError:
        return False
    return any(_says(said, _key(u), _head(u)) for u in loop_units if _key(u))


def pieces_note(entry: JournalEntry) -> str | None:
    """For the report: how many requests a pieces answer took, and how the word was named."""
    if entry.pieces is None:
        return None
    said = f"named {entry.named}" if entry.named else entry.unusable or "no repeated word named"
    return f"{entry.pieces} requests; {said}"


def joined(clip: Span, sents: list[tuple[Part, Sent]], loop_units: tuple[str, ...] = (),
           voiced: Callable[[Span], float] | None = None, config: DetectConfig = DEFAULT) -> tuple[str, "Named | None"]:
    """One MOSS-markup answer for the clip, times relative to its start, and how the
    repeated word was named (None when the pieces' own words were kept). A part around
    the stretch whose answer writes more than its voiced audio holds at the fastest rate
    people speak is left out: given the tail of the last copy (0.2 s), Whisper base wrote
    "Ich bin jetzt bei der" after a German "ja" x12."""
    parsed = [(part, _segments(part.span, parse_candidate(sent.entry.body, sent.entry.format)))
              for part, sent in sents]
    if voiced is not None:
        parsed = [(part, segments) for part, segments in parsed
                  if part.piece or not _made_up(" ".join(s.text for s in segments), voiced(part.span), config)]
    stretch = [(part.span, segments) for part, segments in parsed if part.piece]
    # A piece cut into a copy heard no whole copy; one cut right that came back as
    # something else (a sentence made up over 0.3 s, another word) is the decoder's doubt.
    heard = whole_copies([span.duration for span, _ in stretch])
    joined_stretch, named = _one(stretch, loop_units, heard) if stretch else (None, None)
    if named is not None and joined_stretch is not None:
        around = " ".join(seg.text for part, segments in parsed if not part.piece for seg in segments)
        if _goes_on(around, joined_stretch.text):
            # The word said again outside the stretch: the recurrence found only part of the
            # repetition, and its count (the pieces') is short.
            raise FormatError("the audio goes on repeating the word past the stretch the recurrence found")
    out: list[Segment] = []
    for part, segments in parsed:  # the pieces are consecutive: one segment where they stand
        if not part.piece:
            out += segments
        elif joined_stretch is not None:
            out.append(joined_stretch)
            joined_stretch = None
    return "".join(_markup(seg, clip.start) for seg in out if _key(seg.text)), named


def _made_up(text: str, voiced: float, config: DetectConfig) -> bool:
    """Whether ``text`` holds more speech units than ``voiced`` seconds hold at the fastest
    rate no speaker exceeds (one unit at least: a syllable's worth of sound is a word)."""
    units, fastest, _ = density(text, config, EvidenceConfig())
    return units > max(1.0, fastest * voiced)


def _goes_on(around: str, stretch: str) -> bool:
    """Whether the text decoded around the pieces repeats the pieces' word (two copies in
    a row or more)."""
    word = claims(stretch, EvidenceConfig(), least=2)
    return bool(word) and any(unit == word[0][0] for unit, _ in claims(around, EvidenceConfig(), least=2))


def _segments(span: Span, candidate) -> list[Segment]:
    """A part's answer in transcript time (an untimed answer spans the whole part)."""
    if not candidate.timed:
        text = " ".join(s.text.strip() for s in candidate if s.text.strip())
        speaker = next((s.speaker for s in candidate if s.speaker), None)
        return [Segment(span, speaker, text)] if text else []
    return [Segment(Span(span.start + min(s.span.start, span.duration), span.start + min(s.span.end, span.duration)),
                    s.speaker, s.text, s.closed) for s in candidate]


def _one(stretch: list[tuple[Span, list[Segment]]], loop_units: tuple[str, ...],
         heard: list[bool]) -> tuple[Segment, "Named | None"]:
    """The pieces of the repeated stretch as one segment, and how its word was named: a
    segment per piece would read as a run of identical segments, which is what a segment
    loop looks like. Named, the stretch says the word once per copy the recurrence cut;
    the pieces' own texts (a piece that looped or was cut included) were only votes. The
    count is the recurrence's; how many pieces said the word exactly once is what the
    decoder adds to it (``decide``): a cut that split a copy, or held two, shows there."""
    texts = [" ".join(s.text.strip() for s in segs) for _, segs in stretch]
    named = name(texts, loop_units, heard)
    word = named.word if named else None
    texts = [word] * len(texts) if word else [t for t in texts if t]
    body = ""
    for k, text in enumerate(texts):
        piece = text if k == len(texts) - 1 else _END.sub("", text)
        if body and not (cjk_count(body[-1]) and cjk_count(piece[:1])):
            body += ", " if body[-1].isalnum() else " "
        body += piece
    speaker = next((s.speaker for _, segs in stretch for s in segs if s.speaker), None)
    closed = bool(word) or all(s.closed for _, segs in stretch for s in segs)
    return Segment(Span(stretch[0][0].start, stretch[-1][0].end), speaker, body, closed), named


def _key(text: str) -> str:
    """What a piece's answer says, to the vote: its folded words in one spelling
    (``word_key``: "Alright" and "All right" are one word said), run together."""
    return "".join(ch for ch in word_key(text) if ch.isalnum())


def _says(piece: str, unit: str, head: str | None = None) -> bool:
    """Whether a piece's answer is the unit, or the unit with its end clipped: a piece is
    cut at the quiet before the next copy, and a word ending in a stop has its closure
    there, so its release may fall in the next piece ("wait" -> "way"). The beginning is
    what the piece heard whole: ``head``, every word but the last and the last one's first
    two letters (``_head``; "you go" is not "you know" clipped); a clipped unit is no
    longer than the unit ("wait wait" is two copies, not one). A CJK character is a
    syllable of its own, never a clipped end: 谢 said for a piece is 谢, not 谢谢."""
    if piece == unit:
        return True
    head = unit[:2] if head is None else head
    return not cjk_count(unit[:1]) and len(head) <= len(piece) <= len(unit) and len(unit) > 2 and \
        piece.startswith(head)


def _head(unit: str) -> str:
    """What a clipped copy of ``unit`` still says in full (``_says``), as a key."""
    *whole, last = unit.split() or [""]
    return _key(" ".join(whole)) + _key(last)[:2]


def whole_copies(lengths: list[float]) -> list[bool]:
    """Which pieces hold one whole copy: all but an edge piece ``MISCUT`` times longer or
    shorter than the median inner piece. (Fewer than three pieces have no inner piece to
    measure by: all count.)"""
    whole = [True] * len(lengths)
    if len(lengths) < 3:
        return whole
    inner = sorted(lengths[1:-1])
    typical = inner[len(inner) // 2]
    for k in (0, len(lengths) - 1):
        whole[k] = typical / MISCUT <= lengths[k] <= typical * MISCUT
    return whole


@dataclass(frozen=True)
class Named:
    """The word the pieces of a repeated stretch agree on: ``said`` of the ``heard``
    pieces (those holding a whole copy) said it exactly once; ``copies`` times in all,
    every piece counted (a piece that said it twice counts two, one that said something
    else none, an edge piece cut into a copy one: the recurrence's copy, on which its
    answer has no say), of ``of`` pieces."""

    word: str
    said: int
    of: int
    copies: int
    heard: int

    @property
    def why(self) -> str:
        unheard = self.of - self.heard
        note = f"; {unheard} at the edges cut into a copy" if unheard else ""
        return f"{self.word!r}, said by {self.said} of {self.of} pieces ({self.copies} times in all{note})"


def _times(piece: str, unit: str, head: str | None = None) -> int:
    """How many times a piece's answer says ``unit``: once where ``_says`` hears it, else
    the copies of it written in a row ("waitwait": 2)."""
    if _says(piece, unit, head):
        return 1
    copies = len(piece) // len(unit) if unit else 0
    return copies if copies and piece == unit * copies else 0


def name(texts: list[str], loop_units: tuple[str, ...], heard: list[bool] | None = None) -> Named | None:
    """The word most pieces say, when more than half say it; None otherwise. Only the
    pieces ``heard`` (all when None) vote: an edge piece cut into a copy was no hearing of
    one copy; where such pieces are half or more, nothing is named.

    Each piece holds one copy of the same sound, so the copies have one name. A piece
    says the loop's unit when its answer is that unit or its beginning (``_says``: a copy
    cut at the dip before the next one may lose its release). The loop's own unit, heard in
    context, breaks a tie; it wins no vote it does not have (measured on the real-loop
    corpus's dev split: named by 15% of the pieces, a greedy loop's misheard unit, "thank
    you" for "you know", stood for the word the pieces said)."""
    heard = heard or [True] * len(texts)
    every = [_key(t) for t in texts]
    keys = [k for k, h in zip(every, heard) if h]
    if len(keys) * 2 <= len(every):
        return None
    loops = [(_key(u), u.strip(" ,.，。、")) for u in loop_units if _key(u)]
    candidates = dict.fromkeys([k for k, _ in loops] + [k for k in keys if k])
    if not candidates:
        return None
    heads = {k: _head(text) for k, text in loops}
    # The first piece has no copy before it: where it says the loop's unit bare, a short
    # word before the unit in the others is the release of the copy before ("It's all
    # right" for "all right": the cut fell before the t of "right").
    leads = {c: heard[0] and every[0] == c for c in heads}

    def says(k: str, c: str) -> bool:
        # a loop's unit is said by its clipped beginning too; a piece's answer only by itself
        return (_says(k, c, heads[c]) or (leads[c] and _led(k, c))) if c in heads else k == c
    support = {c: sum(says(k, c) for k in keys) for c in candidates}
    top = max(support.values())
    if top * 2 <= len(keys):
        return None
    tied = [c for c in candidates if support[c] == top]
    loop_names = {k: text for k, text in loops}
    chosen = next((c for c in tied if c in loop_names), None) or max(tied, key=keys.count)
    word = loop_names.get(chosen) or _END.sub("", next(t for t, k in zip(texts, every) if k == chosen))
    cut = len(every) - len(keys)
    copies = sum(1 if says(k, chosen) else _times(k, chosen, heads.get(chosen)) for k in keys)
    return Named(word, top, len(every), copies + cut, len(keys))


def _led(piece: str, unit: str) -> bool:
    """Whether a piece's answer is ``unit`` after a lead shorter than half of it: one
    syllable of the copy before, heard as a word ("It's", "So")."""
    return piece.endswith(unit) and 0 < len(piece) - len(unit) < len(unit) / 2


def _markup(seg: Segment, origin: float) -> str:
    start, end = seg.span.start - origin, seg.span.end - origin
    head = f"[{start:.2f}][{seg.speaker or 'S01'}]{seg.text.strip()}"
    return head + (f"[{end:.2f}]" if seg.closed else "")
