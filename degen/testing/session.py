"""A scripted decoder: answers like MOSS-Transcribe-Diarize would for a known session.

A session is an audio file plus its ground truth (``truth.json`` from
``scripts/make_seed_fixtures.py``): clean segments and the regions where greedy decoding
degenerates, with the looping segments it produces there. The decoder finds where an
uploaded clip sits in the session audio (clips are cut by sample index, so their samples
match exactly), and answers with that stretch of the transcript relative to the clip,
speakers renumbered from S01 as MOSS does. At temperature 0 degenerate regions loop; at
temperature > 0 they loop with probability ``loop_probability``, drawn from a generator
of the request's own (seeded by ``seed``, the clip, the settings and how many times the
same request came before), so answers do not depend on how concurrent requests
interleave. Output longer than ``max_new_tokens`` is cut mid-segment and left unclosed,
as the real server does.
"""

from __future__ import annotations

import hashlib
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from ..repair.audio import encode

MARKUP_TOKENS = 8  # tokens a "[12.34][S01]...[13.45]" wrapper costs, roughly


def make_session_audio(duration: float, sample_rate: int = 8000, seed: int = 1) -> np.ndarray:
    """Deterministic noise: every stretch of it is unique, so a clip can be located exactly."""
    rng = np.random.default_rng(seed)
    return rng.integers(-4000, 4000, size=int(round(duration * sample_rate)), dtype=np.int16)


def write_session_audio(path: Path, duration: float, sample_rate: int = 8000, seed: int = 1) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(make_session_audio(duration, sample_rate, seed), sample_rate))
    return path


@dataclass
class Session:
    samples: np.ndarray
    sample_rate: int
    segments: list[dict]
    regions: list[dict]
    loop_probability: float = 0.0
    seed: int = 0
    _seen: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, truth_path: Path, samples: np.ndarray, sample_rate: int, **kw) -> "Session":
        truth = orjson.loads(Path(truth_path).read_bytes())
        return cls(samples, sample_rate, truth["segments"], truth.get("degenerate_regions", []), **kw)

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None, language: str | None = None) -> str | None:
        """The server's answer for an uploaded clip (None when it is not from the session)."""
        offset = self.locate(samples) if rate == self.sample_rate else None
        if offset is None:
            return None
        seconds = samples.size / rate
        return self.markup(offset, seconds, temperature, max_new_tokens,
                           self.generator(offset, seconds, temperature, repetition_penalty))

    def elsewhere(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
                  repetition_penalty: float | None = None) -> str | None:
        """A wrong answer: the transcript of as much audio ten minutes further on (a
        server that mixed up its requests), timed as if it were this clip."""
        offset = self.locate(samples) if rate == self.sample_rate else None
        if offset is None:
            return None
        seconds = samples.size / rate
        total = self.samples.size / self.sample_rate
        other = (offset + 600.0) % max(total - seconds, 1.0)
        return self.markup(other, seconds, max(temperature, 0.1), max_new_tokens, random.Random(self.seed))

    def generator(self, offset: float, seconds: float, temperature: float, penalty: float | None) -> random.Random:
        """A generator for one request: the same request the n-th time gets the same draws
        in every run, whatever other requests run beside it."""
        key = f"{offset:.3f}|{seconds:.3f}|{temperature:g}|{penalty}"
        with self._lock:
            n = self._seen.get(key, 0)
            self._seen[key] = n + 1
        digest = hashlib.sha256(f"{self.seed}|{key}|{n}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def locate(self, clip: np.ndarray) -> float | None:
        """Where ``clip`` starts in the session, in seconds, or None."""
        probe = clip[:32]
        if probe.size == 0:
            return None
        hits = np.flatnonzero(self.samples[: self.samples.size - probe.size + 1] == probe[0])
        for k in range(1, probe.size):
            hits = hits[self.samples[hits + k] == probe[k]]
            if hits.size <= 1:
                break
        for h in hits.tolist():
            n = min(clip.size, self.samples.size - h)
            if np.array_equal(self.samples[h:h + n], clip[:n]):
                return h / self.sample_rate
        return None

    def transcript(self, start: float, end: float, temperature: float,
                   rng: random.Random | None = None) -> list[dict]:
        """Segments (absolute times) the model would write for [start, end]."""
        out, rng = [], rng or random.Random(self.seed)
        looping = {id(r): self._loops(temperature, rng) for r in self.regions}
        for i, seg in enumerate(self.segments):
            region = self._region_of(i)
            if region is not None and looping[id(region)]:
                if i == region["first"]:
                    out.extend(s for s in region["loop"] if _inside(s, start, end))
                continue
            if _inside(seg, start, end):
                out.append(seg)
        return out

    def _loops(self, temperature: float, rng: random.Random) -> bool:
        return temperature <= 0 or rng.random() < self.loop_probability

    def _region_of(self, index: int) -> dict | None:
        for r in self.regions:
            if r["first"] <= index <= r["last"]:
                return r
        return None

    def markup(self, clip_start: float, clip_seconds: float, temperature: float, max_new_tokens: int,
               rng: random.Random | None = None) -> str:
        """The MOSS markup the model returns for a clip, times relative to it."""
        segs = self.transcript(clip_start, clip_start + clip_seconds, temperature, rng)
        speakers: dict[str, str] = {}
        parts, budget = [], max_new_tokens
        for s in segs:
            label = speakers.setdefault(s["speaker"], f"S{len(speakers) + 1:02d}")
            a = min(max(s["start"] - clip_start, 0.0), clip_seconds)
            b = min(max(s["end"] - clip_start, a), clip_seconds)
            budget -= MARKUP_TOKENS
            if budget < len(s["text"]):  # the token cap: cut mid-body, never closed
                parts.append(f"[{a:.2f}][{label}]{s['text'][:max(budget, 0)]}")
                break
            budget -= len(s["text"])
            parts.append(f"[{a:.2f}][{label}]{s['text']}[{b:.2f}]")
        return "".join(parts)


def _inside(seg: dict, start: float, end: float) -> bool:
    return start <= (seg["start"] + seg["end"]) / 2 <= end
