"""vLLM 0.32's real OpenAI server app over a stubbed engine client, for
scripts/record_servers.py.

Real: the app as ``vllm serve`` builds it (``build_app`` and ``init_app_state`` from
``vllm.entrypoints.launchers`` with the parsed command line ``--model CKPT
--served-model-name openai/whisper-base``), its ``VllmConfig`` (CPU platform, set with
``VLLM_TARGET_DEVICE=cpu``), renderer (which runs Whisper's real multimodal processor and
tokenizer on each prompt) and ``InputProcessor`` (the checks ``AsyncLLM.generate`` makes
before a request reaches the engine core). Stubbed: the engine client's ``generate``. It
runs ``InputProcessor.process_inputs`` as ``AsyncLLM`` does, records the ``SamplingParams``
and the decoder prompt it was given, and answers a fixed transcript as token ids (with
Whisper timestamp tokens when the prompt asks for them, the language token for a
language-detection call), with logprobs of -0.1 when logprobs were asked for.

The checkpoint folder is weightless (scripts/whisper_checkpoint.py): the real Whisper
base tokenizer and generation config, no weights (none are loaded: the engine core is not
started). The supported tasks are those the model runner would report for this model
class (``generate`` and ``transcription``).
"""

from __future__ import annotations

import os

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")

SERVED = "openai/whisper-base"
TEXT = " Hello there, this is a test."
# A timestamped prompt ends in <|0.00|>, so the model's answer starts with the text.
TIMED = " Hello there, this is a test.<|2.80|>"


def _sampling_record(sp) -> dict:
    keys = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "frequency_penalty",
            "presence_penalty", "seed", "max_tokens", "min_tokens", "logprobs", "n")
    out = {k: getattr(sp, k, None) for k in keys}
    out["allowed_token_ids"] = len(sp.allowed_token_ids) if getattr(sp, "allowed_token_ids", None) else None
    return out


class FakeEngineClient:
    """Stands where ``AsyncLLM`` is: the same config, renderer and input checks; no engine core."""

    def __init__(self, vllm_config, log: list):
        from vllm.renderers import renderer_from_config
        from vllm.v1.engine.input_processor import InputProcessor
        self.vllm_config, self.model_config, self.log = vllm_config, vllm_config.model_config, log
        self.renderer = renderer_from_config(vllm_config)
        self.input_processor = InputProcessor(vllm_config, self.renderer)
        self.tokenizer = self.renderer.tokenizer
        self.supported = supported_tasks(self.model_config)
        self.is_running, self.is_stopped, self.errored, self.dead_error = True, False, False, None

    async def get_supported_tasks(self):
        return self.supported

    async def check_health(self) -> None:
        return None

    async def is_tracing_enabled(self) -> bool:
        return False

    async def do_log_stats(self) -> None:
        return None

    async def abort(self, request_id) -> None:
        return None

    async def is_paused(self) -> bool:
        return False

    async def is_sleeping(self) -> bool:
        return False

    def check_admission(self, *args, **kwargs) -> None:
        return None

    async def generate(self, prompt, sampling_params, request_id, **kwargs):
        from vllm.outputs import CompletionOutput, RequestOutput
        entry = {"call": _call(request_id), "sampling": _sampling_record(sampling_params),
                 "decoder_prompt": self._decoder_prompt(prompt)}
        try:
            self.input_processor.process_inputs(request_id, prompt, sampling_params, self.supported)
        except Exception as exc:  # AsyncLLM.generate raises the same before the engine core
            entry["engine_error"] = f"{type(exc).__name__}: {exc}"
            self.log.append(entry)
            raise
        self.log.append(entry)
        ids, text = self._answer(entry["decoder_prompt"], sampling_params)
        logprobs = None
        if sampling_params.logprobs is not None:
            from vllm.logprobs import Logprob
            logprobs = [{i: Logprob(logprob=-0.1)} for i in ids]
        output = CompletionOutput(index=0, text=text, token_ids=ids, cumulative_logprob=-0.1 * len(ids),
                                  logprobs=logprobs, finish_reason="stop")
        yield RequestOutput(request_id=request_id, prompt=None, prompt_token_ids=[], prompt_logprobs=None,
                            outputs=[output], finished=True)

    def _decoder_prompt(self, prompt) -> str:
        dec = prompt.get("decoder_prompt", prompt) if isinstance(prompt, dict) else prompt
        ids = dec.get("prompt_token_ids") if isinstance(dec, dict) else None
        if not ids:
            return repr(dec)[:200]
        # Special tokens by name (decode would drop timestamp tokens), text runs decoded.
        pieces, run = [], []
        for i in list(ids) + [None]:
            if i is not None and i < self.tokenizer.eos_token_id:
                run.append(i)
                continue
            if run:
                pieces.append(self.tokenizer.decode(run))
                run = []
            if i is not None:
                pieces.append(self.tokenizer.convert_ids_to_tokens(i))
        return "".join(pieces)

    def _answer(self, decoder_prompt: str, sampling_params) -> tuple[list[int], str]:
        if sampling_params.max_tokens == 1 and sampling_params.allowed_token_ids:
            token = "<|en|>"
            return [self.tokenizer.convert_tokens_to_ids(token)], token
        timed = "<|notimestamps|>" not in decoder_prompt
        text = TIMED if timed else TEXT
        ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        return ids, self.tokenizer.decode(ids, skip_special_tokens=True)


def _call(request_id: str) -> str:
    if request_id.endswith("-lang_detect"):
        return "language detection"
    tail = request_id.rsplit("-", 1)[-1]
    return f"chunk {tail}" if tail.isdigit() else "clip"


def supported_tasks(model_config) -> tuple:
    """What the model runner reports for this model class (get_supported_generation_tasks)."""
    from vllm.model_executor.model_loader import get_model_cls
    from vllm.model_executor.models.interfaces import supports_transcription
    from vllm.model_executor.models.interfaces_base import is_text_generation_model
    cls = get_model_cls(model_config)
    if supports_transcription(cls) and getattr(cls, "supports_transcription_only", False):
        return ("transcription",)
    return tuple(t for t, ok in (("generate", is_text_generation_model(cls)),
                                 ("transcription", supports_transcription(cls))) if ok)


def make_app(checkpoint: str, log: list):
    import asyncio
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.launchers.api_server.app_state import init_app_state
    from vllm.entrypoints.launchers.app import build_app
    from vllm.entrypoints.launchers.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser
    args = make_arg_parser(FlexibleArgumentParser()).parse_args(
        ["--model", checkpoint, "--served-model-name", SERVED])
    vllm_config = AsyncEngineArgs.from_cli_args(args).create_engine_config()
    client = FakeEngineClient(vllm_config, log)
    app = build_app(args, client.supported, vllm_config.model_config)
    asyncio.run(init_app_state(client, app.state, args, client.supported))
    return app


def about() -> dict:
    from importlib.metadata import version
    return {"server": "vllm", "version": version("vllm"), "model_kind": "whisper", "served_model": SERVED,
            "packages": {p: version(p) for p in ("vllm", "transformers", "torch", "fastapi", "starlette",
                                                 "pydantic", "uvicorn", "python-multipart")},
            "engine_stub": __doc__.strip(), "engine_answer": {"text": TEXT, "timestamped": TIMED}}
