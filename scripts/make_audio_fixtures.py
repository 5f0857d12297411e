"""Speak the real-model test audio with espeak-ng and sox (Debian packages).

Tests use the committed WAVs and never regenerate them: synthesis and sox's defaults
differ between versions, and a looping decoder is sensitive to every byte.
Usage: python scripts/make_audio_fixtures.py [OUT_DIR]
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

# name -> (seconds of silence between pieces, [(text, words per minute)])
RECIPES = {
    # Greedy tiny.en hears "okay" x10 as "OK" to the token cap, window after window, and
    # the six sentences after it are lost.
    "composite": (3.0, [*[(s, 160) for s in OPENING], (" ".join(["okay"] * 10), 170), *[(s, 160) for s in MIDDLE]]),
    "okay_x10": (0.0, [(" ".join(["okay"] * 10), 170)]),  # "Okay," x112
    "no_x15": (0.0, [(" ".join(["no"] * 15), 170)]),  # "Go," x112
    "clean_a": (0.6, [(s, 160) for s in CLEAN_A]),
    "clean_b": (0.6, [(s, 160) for s in CLEAN_B]),
}


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        sys.exit(f"{tool} is missing: apt-get install espeak-ng sox")
    return path


def piece(text: str, rate: int, out: Path, tmp: Path) -> None:
    raw = tmp / "raw.wav"
    subprocess.run([need("espeak-ng"), "-v", "en-us", "-s", str(rate), "-w", str(raw), text], check=True)
    # -D: no dither (sox's default dither is random, and alone flips a file between looping and not)
    subprocess.run([need("sox"), "-D", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out)], check=True)


def silence(seconds: float, out: Path) -> None:
    subprocess.run([need("sox"), "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", str(out), "trim", "0",
                    str(seconds)], check=True)


def build(name: str, gap_seconds: float, recipe, out_dir: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        parts, gap = [], tmp / "gap.wav"
        if gap_seconds:
            silence(gap_seconds, gap)
        for i, (text, rate) in enumerate(recipe):
            part = tmp / f"{i:02d}.wav"
            piece(text, rate, part, tmp)
            parts += ([gap] if parts and gap_seconds else []) + [part]
        subprocess.run([need("sox"), "-D", *map(str, parts), str(out_dir / f"{name}.wav")], check=True)
    truth = " ".join(text for text, _ in recipe)
    (out_dir / f"{name}.txt").write_text(truth + "\n", encoding="utf-8")


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (gap, recipe) in RECIPES.items():
        build(name, gap, recipe, out_dir)
        print(f"wrote {out_dir / name}.wav")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "fixtures/audio"))
