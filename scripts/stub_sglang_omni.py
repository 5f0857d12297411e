"""SGLang-Omni 0.1.9's real HTTP app over a stubbed engine, for scripts/record_servers.py.

Real: ``sglang_omni.serve.openai_api.create_app`` with the arguments its launcher passes
(model name, architecture, the pipeline config's resolved audio chunking), the real
``sglang_omni.client.Client`` (GenerateRequest -> OmniRequest params), and the model's real
request builder (``make_whisper_scheduler_adapters`` or
``make_moss_transcribe_diarize_scheduler_adapters``), which turns the request into
sglang's own ``SamplingParams`` and ``Req``. Stubbed: the pipeline coordinator. Its
``submit`` runs the request builder, records the ``SamplingParams`` that would go to the
scheduler, and answers a fixed transcript instead of decoding.

Whisper runs on a weightless checkpoint folder (scripts/whisper_checkpoint.py: the real
tokenizer and generation config). MOSS-Transcribe-Diarize's processor is replaced by a
small stand-in (a Qwen-style chat template, Whisper's feature extractor with 128 mel bins
and audio tokens merged 4 to 1): it decides only how many prompt tokens the audio takes,
which no HTTP field changes. A streamed request gets the final result as its only
message (no token deltas), so its SSE stream holds the done event only.
"""

from __future__ import annotations

import asyncio

MOSS_TEXT = "[0.26][S01]Hello there, this is a test.[2.80][3.10][S02]And an answer.[4.20]"
WHISPER_TEXT = "Hello there, this is a test."
WHISPER_TIMED = "<|0.00|> Hello there, this is a test.<|2.80|>"
MODEL_NAMES = {"moss": "OpenMOSS-Team/MOSS-Transcribe-Diarize", "whisper": "openai/whisper-base"}
# What the launcher passes for these checkpoints: MOSS's generation config and context
# are not in this stub, so its documented defaults stand in (5120 new tokens; a Qwen3
# text decoder's 40960 positions). Whisper's stage default is 256 new tokens.
MOSS_MAX_NEW_TOKENS, MOSS_CONTEXT = 5120, 40960
WHISPER_MAX_NEW_TOKENS = 256


def _sampling_record(sp) -> dict:
    keys = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "frequency_penalty",
            "presence_penalty", "max_new_tokens", "sampling_seed", "stop_token_ids")
    out = {k: getattr(sp, k, None) for k in keys}
    out["stop_token_ids"] = sorted(out["stop_token_ids"] or [])
    out["logit_bias"] = "set" if getattr(sp, "logit_bias", None) else None
    out["custom_params"] = sorted((getattr(sp, "custom_params", None) or {}).keys()) or None
    return out


class FakeCoordinator:
    """Stands where the pipeline coordinator is: builds each request as the model's stage
    would, records it, and answers without a model."""

    def __init__(self, kind: str, builder, log: list):
        self.kind, self.builder, self.log = kind, builder, log
        self.requests = 0

    def health(self) -> dict:
        return {"running": True, "stages": ["asr"], "entry_stage": "asr", "total_requests": self.requests,
                "pending_completions": 0, "request_states": {}, "stream_delivery": {}}

    async def submit(self, request_id: str, request) -> dict:
        from sglang_omni.proto import StagePayload
        self.requests += 1
        payload = StagePayload(request_id=request_id, request=request, data=None)
        entry = {"call": _call(request_id), "http_params": _plain(request.params),
                 "metadata_model": request.metadata.get("model")}
        try:
            data = await asyncio.to_thread(self.builder, payload)
        except Exception as exc:  # the stage's own refusal: the real server maps it to a status
            entry["builder_error"] = f"{type(exc).__name__}: {exc}"
            self.log.append(entry)
            raise
        entry["sampling"] = _sampling_record(data.req.sampling_params)
        entry["language"] = data.language
        entry["audio_seconds"] = round(float(data.audio_duration_s), 3)
        entry["prompt_tokens"] = len(data.prompt_token_ids or [])
        self.log.append(entry)
        return {"text": self._answer(data), "language": data.language, "modality": "text",
                "finish_reason": "stop"}

    def _answer(self, data) -> str:
        if self.kind == "moss":
            return MOSS_TEXT
        if getattr(data, "detect_language", False):
            return "en"
        return WHISPER_TIMED if getattr(data, "segment_timestamps", False) else WHISPER_TEXT

    async def stream(self, request_id: str, request):
        """A stream of one message: the final result (the stub has no token deltas)."""
        from types import SimpleNamespace
        yield SimpleNamespace(result=await self.submit(request_id, request))

    async def abort(self, request_id: str) -> None:
        return None


def _call(request_id: str) -> str:
    """Which engine call of a request this is: the whole clip, a chunk, a retry."""
    if "-chunk-" in request_id:
        return "chunk " + request_id.split("-chunk-", 1)[1]
    return "language detection" if request_id.endswith("-lang") else "clip"


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ("audio_bytes",)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def whisper_builder(checkpoint: str):
    from transformers import AutoConfig, AutoProcessor, GenerationConfig
    from sglang_omni.models.whisper_asr.request_builders import make_whisper_scheduler_adapters
    processor = AutoProcessor.from_pretrained(checkpoint)
    builder, _ = make_whisper_scheduler_adapters(
        processor=processor, tokenizer=processor.tokenizer,
        generation_config=GenerationConfig.from_pretrained(checkpoint),
        encoder_token_count=int(processor.feature_extractor.nb_max_frames // 2),
        max_new_tokens=WHISPER_MAX_NEW_TOKENS,
        decoder_context_len=int(AutoConfig.from_pretrained(checkpoint).max_target_positions or 448))
    return builder


class _MossTokenizer:
    """Stand-in tokenizer: one id per character, the three audio marks as special ids."""

    specials = {"<|audio_pad|>": 151646, "<|audio_start|>": 151647, "<|audio_end|>": 151648}
    eos_token_id, vocab_size = 151645, 151936

    def convert_tokens_to_ids(self, token: str) -> int:
        return self.specials[token]

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [ord(c) % 150000 for c in text]

    def decode(self, ids, **_):
        return "".join(chr(i) for i in ids)


class _MossProcessor:
    audio_token, audio_merge_size = "<|audio_pad|>", 4

    def __init__(self):
        from transformers import WhisperFeatureExtractor
        self.tokenizer = _MossTokenizer()
        self.audio_token_id = self.tokenizer.specials[self.audio_token]
        self.feature_extractor = WhisperFeatureExtractor(feature_size=128)

    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True) -> str:
        parts = []
        for m in messages:
            body = "".join(self.audio_token if c["type"] == "audio" else c["text"] for c in m["content"])
            parts.append(f"<|im_start|>{m['role']}\n{body}<|im_end|>\n")
        return "".join(parts) + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def _audio_span_ids(self, count: int) -> list[int]:
        s = self.tokenizer.specials
        return [s["<|audio_start|>"], *[self.audio_token_id] * count, s["<|audio_end|>"]]


def moss_builder():
    from sglang_omni.models.moss_transcribe_diarize.request_builders import (
        make_moss_transcribe_diarize_scheduler_adapters)
    processor = _MossProcessor()
    builder, _ = make_moss_transcribe_diarize_scheduler_adapters(
        processor=processor, tokenizer=processor.tokenizer, max_new_tokens=MOSS_MAX_NEW_TOKENS,
        context_length=MOSS_CONTEXT)
    return builder


def make_app(kind: str, checkpoint: str | None, log: list):
    """The FastAPI app as ``sglang_omni.serve.launcher`` builds it for ``kind``."""
    from sglang_omni.client import Client
    from sglang_omni.serve.openai_api import create_app
    if kind == "whisper":
        from sglang_omni.models.whisper_asr.config import WhisperASRPipelineConfig as Config
        builder = whisper_builder(checkpoint)
    else:
        from sglang_omni.models.moss_transcribe_diarize.config import MossTranscribeDiarizePipelineConfig as Config
        builder = moss_builder()
    config = Config(model_path=checkpoint or MODEL_NAMES[kind])
    client = Client(FakeCoordinator(kind, builder, log))
    return create_app(client, model_name=MODEL_NAMES[kind],
                      supports_audio_translation=config.supports_audio_translation(),
                      architectures=[config.architecture], audio_chunking=config.resolved_audio_chunking)


def about(kind: str) -> dict:
    from importlib.metadata import version
    return {"server": "sglang-omni", "version": version("sglang-omni"), "model_kind": kind,
            "served_model": MODEL_NAMES[kind],
            "packages": {p: version(p) for p in ("sglang-omni", "sglang", "transformers", "torch", "fastapi",
                                                 "starlette", "pydantic", "uvicorn", "python-multipart")},
            "engine_stub": __doc__.strip(),
            "engine_answer": MOSS_TEXT if kind == "moss" else {"text": WHISPER_TEXT, "timestamped": WHISPER_TIMED},
            "stage_defaults": ({"max_new_tokens": MOSS_MAX_NEW_TOKENS, "context_length": MOSS_CONTEXT}
                               if kind == "moss" else {"max_new_tokens": WHISPER_MAX_NEW_TOKENS})}

