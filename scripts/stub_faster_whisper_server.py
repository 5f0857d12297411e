"""faster-whisper-server 0.0.3's real HTTP app over a stubbed WhisperModel, for
scripts/record_servers.py.

Real: ``faster_whisper_server.api.app`` and its model selection
(``get_transcriber_for_request``, single-model mode as ``FWS_MODEL_NAME`` sets it).
Stubbed: ``faster_whisper.WhisperModel``, which the server constructs and calls
``transcribe(audio, **options)`` on. The stub records the options the server passed and,
beside them, the values faster-whisper 1.2.1's ``WhisperModel.transcribe`` would then use
(its signature's defaults for what was not passed: when no temperature is sent, its
fallback ladder 0.0 .. 1.0), and answers one fixed segment. Audio it cannot read raises,
as faster-whisper's PyAV decoding does (a different exception class, the same unhandled
500); an unknown language is passed through, which the real model would refuse inside
``transcribe`` (also a 500).
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

TEXT = " Hello there, this is a test."
SERVED = "whisper-base"  # FWS_MODEL_NAME: any path or name; no model is loaded
KNOBS = ("language", "task", "temperature", "initial_prompt", "repetition_penalty", "no_repeat_ngram_size",
         "compression_ratio_threshold", "log_prob_threshold", "condition_on_previous_text", "beam_size",
         "best_of", "max_new_tokens", "word_timestamps", "vad_filter", "batch_size")


def _defaults() -> dict:
    from faster_whisper import WhisperModel
    params = inspect.signature(WhisperModel.transcribe).parameters
    return {k: p.default for k, p in params.items() if k in KNOBS and p.default is not inspect.Parameter.empty}


def _jsonable(value):
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


class StubWhisperModel:
    """Takes the place of ``faster_whisper.WhisperModel``: records, does not decode."""

    log: list = []
    defaults: dict = {}

    def __init__(self, model_size_or_path, **options):
        self.path, self.options = model_size_or_path, options

    def transcribe(self, audio, **options):
        import soundfile as sf
        try:
            samples, rate = sf.read(audio)
            seconds = round(len(samples) / rate, 3)
        except Exception as exc:  # faster-whisper decodes with PyAV and raises on junk
            self.log.append({"call": "clip", "passed": {k: _jsonable(v) for k, v in sorted(options.items())},
                             "decode_error": type(exc).__name__})
            raise
        effective = {**self.defaults, **options}
        self.log.append({"call": "clip", "passed": {k: _jsonable(v) for k, v in sorted(options.items())},
                         "effective": {k: _jsonable(effective.get(k)) for k in KNOBS if k in effective},
                         "audio_seconds": seconds})
        segment = SimpleNamespace(start=0.0, end=2.8, text=TEXT, tokens=[50364, 2425, 456], temperature=0.0,
                                  avg_logprob=-0.2, compression_ratio=1.1, no_speech_prob=0.01)
        info = SimpleNamespace(language=options.get("language") or "en", duration=seconds)
        return iter([segment]), info


def make_app(log: list):
    import os
    os.environ["FWS_MODEL_NAME"] = SERVED
    from faster_whisper_server import models
    from faster_whisper_server.api import app
    StubWhisperModel.log, StubWhisperModel.defaults = log, _defaults()
    models.WhisperModel = StubWhisperModel
    models._log_download_if_needed = lambda name: None  # it would look the name up on the hub
    return app


def about() -> dict:
    from importlib.metadata import version
    return {"server": "faster-whisper-server", "version": version("faster-whisper-server"),
            "model_kind": "whisper", "served_model": SERVED,
            "packages": {p: version(p) for p in ("faster-whisper-server", "faster-whisper", "ctranslate2", "fastapi",
                                                 "starlette", "pydantic", "uvicorn", "python-multipart")},
            "engine_stub": __doc__.strip(), "engine_answer": TEXT, "engine_defaults": _jsonable(_defaults())}
