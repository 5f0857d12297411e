"""Record a real model's answers once; replay them on any machine.

A sampling decoder's answers depend on the CPU, the runtime's version and the order of
requests, so a test that runs the live model asserts only what holds everywhere. To test
a full repair deterministically, ``RecordingDecoder`` wraps a live decoder and keeps every
answer it gave, keyed by the clip's samples (a SHA-256 of the 16-bit PCM and the rate) and
the decoding settings (temperature, repetition penalty). ``ReplayDecoder`` answers the same
requests with the same segments from the saved file, and the server's token cap is applied
at replay time, as the live decoder applies it. A key asked twice (the same clip at the
same temperature, a second attempt) gets the answers in the order they were recorded (the
last one again past the end).

A request that was never recorded is an error (the server answers 500) and is listed in
``misses``: the recording is stale, because the repair now sends other clips or settings.
Record again with ``python -m degen.testing record`` (see README, "Real-model recordings").
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections import defaultdict
from pathlib import Path

import numpy as np
import orjson

from .whisper import SAMPLE_RATE, to_markup

FORMAT = 1


def answer_key(samples: np.ndarray, rate: int, temperature: float, repetition_penalty: float | None) -> str:
    """The clip's identity and the settings that change the answer (the cap does not: it is
    applied to the recorded segments when they are replayed)."""
    digest = hashlib.sha256(np.ascontiguousarray(samples, dtype="<i2").tobytes() + str(rate).encode()).hexdigest()
    return f"{digest[:24]}|t={temperature:.3f}|p={repetition_penalty or 1.0:.3f}"


class RecordingDecoder:
    """The live ``decoder`` behind the test server, every answer kept for ``save``."""

    def __init__(self, decoder):
        self.decoder = decoder
        self.answers: dict[str, list] = defaultdict(list)
        self._lock = threading.Lock()

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None, language: str | None = None) -> str | None:
        if rate != SAMPLE_RATE:
            return None
        found = self.decoder.answer(samples, rate, temperature, repetition_penalty, language)
        with self._lock:
            self.answers[answer_key(samples, rate, temperature, repetition_penalty)].append(found)
        return to_markup(found, max_new_tokens, samples.size / rate)

    def save(self, path: Path, about: dict) -> None:
        """Write the answers and ``about`` (model, versions, what was recorded) atomically."""
        body = {"format": FORMAT, "about": about,
                "answers": {key: [[list(seg) for seg in answer] for answer in answers]
                            for key, answers in sorted(self.answers.items())}}
        _write_atomic(Path(path), orjson.dumps(body, option=orjson.OPT_INDENT_2))


class ReplayDecoder:
    """Answers from a recording made by ``RecordingDecoder``; the same ``decode`` interface."""

    def __init__(self, path: Path):
        body = orjson.loads(Path(path).read_bytes())
        if body.get("format") != FORMAT or "answers" not in body:
            raise ValueError(f"{path}: not a recording of format {FORMAT}; record it again")
        self.path, self.about = Path(path), body.get("about", {})
        self.answers = {key: [[tuple(seg) for seg in answer] for answer in answers]
                        for key, answers in body["answers"].items()}
        self.misses: list[str] = []
        self.served = 0
        self._asked: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None, language: str | None = None) -> str | None:
        recorded = self.about.get("language")
        if language and recorded and language != recorded:  # the answers were made in another language
            raise LookupError(f"{self.path.name} was recorded in {recorded!r}; this request asks for {language!r}")
        key = answer_key(samples, rate, temperature, repetition_penalty)
        with self._lock:
            answers = self.answers.get(key)
            if not answers:
                self.misses.append(key)
                raise LookupError(f"no recorded answer for {key} in {self.path.name}: the recording is stale, "
                                  "record it again (python -m degen.testing record)")
            found = answers[min(self._asked[key], len(answers) - 1)]
            self._asked[key] += 1
            self.served += 1
        return to_markup(found, max_new_tokens, samples.size / rate)


def record(names: list[str], decoder, audio_dir: Path, tag: str, replay_name: str,
           keep_greedy: bool = False) -> dict:
    """Decode each ``NAME.wav`` of ``audio_dir`` greedily in one request, as a user would
    have, and save the answer as ``NAME.TAG.greedy.json``; then run ``degen.fix`` on each with
    its default policy against the same model and save every answer the repair asked for as
    ``replay_name``. Returns the manifest entry (model, versions, files).

    ``keep_greedy``: keep the committed greedy transcripts and record only the repair's
    answers (after a change to what the repair asks for: whether greedy decoding loops
    depends on the CPU, and a machine where it does not would lose the fixture)."""
    import degen
    from ..model import Span
    from ..repair.audio import Audio
    from ..repair.client import HttpTranscriber, Request
    from .server import TestServer
    recorder = RecordingDecoder(decoder)
    files = {}
    with TestServer(recorder) as server:
        for name in names:
            greedy = audio_dir / f"{name}.{tag}.greedy.json"
            wav = (audio_dir / f"{name}.wav").read_bytes()
            files[name] = {"greedy": greedy.name, "wav_sha256": hashlib.sha256(wav).hexdigest()}
            if keep_greedy and greedy.exists():
                continue
            audio = Audio.open(audio_dir / f"{name}.wav")
            reply = HttpTranscriber(server.url).transcribe(Request(audio.clip(Span(0, audio.duration)), 0.0, 4096))
            _write_atomic(greedy, orjson.dumps(orjson.loads(reply.text), option=orjson.OPT_INDENT_2) + b"\n")
        for name in names:
            degen.fix(audio_dir / files[name]["greedy"], audio=audio_dir / f"{name}.wav", transcriber=server.url)
    about = {**decoder.describe(), "recorded": sorted(files)}
    recorder.save(audio_dir / replay_name, about)
    return {**about, "replay": replay_name, "files": files}


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; fixtures are for everyone
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
