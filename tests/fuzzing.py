"""Mutation fuzzing for the readers, the scan and the command line: every format's fixture
files (and a few converted to the formats no fixture is in), mutated the ways real files
break: bytes flipped, cut short, slices doubled or dropped, markup tokens and absurd
numbers inserted, re-encoded as UTF-16/32, lines shuffled or repeated, a field made huge,
line ends changed. Seeded: a failure names its seed and case, and is found again."""

from __future__ import annotations

import random
import signal
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from .conftest import FIXTURES

SKIP = {".wav", ".md", ".log"}
MAX_BYTES = 200_000  # a seed file this size or less (the mutations copy it)
# Cases one run tries (the target: 5,000 inputs with no traceback, no exit 4, no hang).
CASES = 5000
CASE_SECONDS = 10  # a case that takes more CPU time than this hangs (CPU: the machine may be busy)

TOKENS = [b"\x00", b"\r", b"\n\n", b"-->", b"[", b"]", b"{", b"}", b'"', b",", b"\t", b"\xef\xbb\xbf", b":",
          b"99999999999999999999", b"-1", b"NaN", b"1e309", b"-0", b"\xe2\x80\xae", b"\x1b[31m", "的".encode() * 50,
          b"00:00:01,000 --> 00:00:00,500", b"[[[[[[[[[[", b"\\u0000", b"\\ud800", b"\xff\xfe", b"\xc3", b"WEBVTT\n",
          b"SPEAKER_00: ", b"[00:01.00]", b"<v Bob>", b'{"text": 5}', b"okay okay okay okay okay okay okay okay "]


@cache
def corpus() -> tuple[tuple[str, bytes], ...]:
    """(name, bytes) of every fixture transcript, and fixtures written in the formats none
    of them is in (CSV, TSV, JSON Lines, a NeMo manifest, LRC, WebVTT)."""
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix not in SKIP
                   and p.stat().st_size <= MAX_BYTES and not p.name.startswith(("replay.", "recordings")))
    found = [(str(p.relative_to(FIXTURES)), p.read_bytes()) for p in files]
    return tuple(found + _converted())


def _converted() -> list[tuple[str, bytes]]:
    import degen
    from degen import formats
    out = []
    for name in ("seed/clean.json", "shapes/loops/zh_char.json", "shapes/loops/en_segments.json",
                 "shapes/natural/en_yeah_i_i_i.json"):
        path = FIXTURES / name
        if not path.exists():
            continue
        transcript = degen.read(path)
        for fmt, suffix in (("csv", ".csv"), ("tsv", ".tsv"), ("jsonl", ".jsonl"), ("manifest", ".jsonl"),
                            ("lrc", ".lrc"), ("vtt", ".vtt"), ("srt", ".srt")):
            out.append((f"{name}.as{suffix}", formats.dumps(transcript, fmt).encode("utf-8")))
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One mutation of ``data`` (see the module's docstring)."""
    b = bytearray(data) or bytearray(b"x")
    op = rng.randrange(11)
    if op == 0:
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif op == 1:
        del b[rng.randrange(len(b)):]
    elif op == 2:
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 200))
        b[j:j] = b[i:j] * rng.randint(1, 20)
    elif op == 3:
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 50)]
    elif op == 4:
        i = rng.randrange(len(b) + 1)
        b[i:i] = rng.choice(TOKENS)
    elif op == 5:
        try:
            return data.decode("utf-8").encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
        except UnicodeDecodeError:
            return bytes(b)
    elif op == 6:
        lines = bytes(b).split(b"\n")
        rng.shuffle(lines)
        return b"\n".join(lines)
    elif op == 7:
        i = rng.randrange(len(b) + 1)
        b[i:i] = rng.choice([b"a", b"ab ", "的".encode(), b"0"]) * rng.choice([1000, 70_000])
    elif op == 8:
        return bytes(b).replace(b"\n", rng.choice([b"\r\n", b"\r", b"\n\n"]))
    elif op == 9:
        lines = bytes(b).split(b"\n")
        k = rng.randrange(len(lines))
        lines[k:k] = [lines[k]] * rng.randint(2, 30)
        return b"\n".join(lines)
    else:
        i = rng.randrange(len(b) + 1)
        depth = rng.choice([100, 260, 2000])
        b[i:i] = b"[" * depth + b"]" * depth
    return bytes(b)


def cases(seed: int, count: int):
    """(case number, seed file's name, its suffix, mutated bytes), ``count`` of them."""
    rng = random.Random(seed)
    seeds = corpus()
    for number in range(count):
        name, data = rng.choice(seeds)
        data = mutate(data, rng)
        if rng.random() < 0.3:
            data = mutate(data, rng)
        yield number, name, Path(name).suffix or ".txt", data


class Hang(Exception):
    pass


@contextmanager
def bounded(seconds: float = CASE_SECONDS):
    """Raise Hang in the block once it has used ``seconds`` of this process's CPU time
    (a profiling timer, delivered to the main thread)."""
    def alarm(*_):
        raise Hang(f"over {seconds} CPU s")
    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
