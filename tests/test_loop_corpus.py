"""The real-loop corpus (fixtures/loops, made by scripts/make_loop_corpus.py) and the
fidelity judge that scores repairs of it, per language.

Nothing here runs a model: the corpus's greedy transcripts were recorded once and are
committed with their audio. What must hold of the data is asserted: every file is there
and unchanged, each recording's recipe is the generator's own (its id a hash of it, its
split a hash of the id), what was said matches the recipe, every greedy transcript is
flagged as a loop by degen scan, and the audio is what degen reads (FLAC, 16 kHz mono).
"""

import hashlib
import importlib.util
from collections import Counter

import numpy as np
import orjson
import pytest
import soundfile as sf

import degen
from degen.testing import TestServer
from degen.testing.fidelity import guess_language, judge, longest_run, tokens

from .conftest import FIXTURES

ROOT = FIXTURES.parent
LOOPS = FIXTURES / "loops"
MANIFEST = orjson.loads((LOOPS / "corpus.json").read_bytes())
RECORDINGS = MANIFEST["recordings"]
_spec = importlib.util.spec_from_file_location("make_loop_corpus", ROOT / "scripts" / "make_loop_corpus.py")
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)
NAMES = sorted(RECORDINGS)


def test_the_corpus_is_large_and_spread_over_languages_and_places():
    assert len(RECORDINGS) >= 150
    per_language = Counter(e["language"] for e in RECORDINGS.values())
    assert set(per_language) == set(generator.SENTENCES)
    assert min(per_language.values()) >= 20, per_language
    assert {e["placement"] for e in RECORDINGS.values()} == set(generator.PLACEMENTS)
    assert {e["split"] for e in RECORDINGS.values()} == {"dev", "test"}


def test_the_audio_stays_within_its_size_budget():
    # The working tree travels to the GPU machine (64 MiB at most): the corpus keeps to ~25 MB.
    assert sum((LOOPS / e["audio"]).stat().st_size for e in RECORDINGS.values()) < 27e6


@pytest.mark.parametrize("name", NAMES)
def test_each_recording_is_its_recipe(name):
    entry = RECORDINGS[name]
    recipe = entry["recipe"]
    assert generator.recipe_id(recipe) == name  # the id is the recipe's hash
    assert generator.recipes((recipe["language"],)).get(name) == recipe  # the generator's own
    assert entry["split"] == generator.split_of(name)
    assert entry["language"] == recipe["language"] and entry["placement"] == recipe["placement"]
    assert entry["model"] == generator.MODELS.get(recipe["language"], "base")
    assert entry["voice_source"] == generator.SOURCES[recipe["engine"]]
    assert entry["script"] == generator.script(recipe)
    assert (entry["unit"], entry["count"]) == (recipe["unit"], recipe["count"])
    assert 8 <= entry["count"] <= 30
    said = tokens(entry["script"], entry["language"])
    assert longest_run(tuple(tokens(entry["unit"], entry["language"])), said) == entry["count"]


@pytest.mark.parametrize("name", NAMES)
def test_each_file_is_there_unchanged_and_readable(name):
    entry = RECORDINGS[name]
    audio = LOOPS / entry["audio"]
    assert audio.suffix == ".flac"
    assert hashlib.sha256(audio.read_bytes()).hexdigest() == entry["flac_sha256"]
    info = sf.info(str(audio))
    assert (info.format, info.samplerate, info.channels, info.subtype) == ("FLAC", 16000, 1, "PCM_16")
    assert info.frames / info.samplerate == pytest.approx(entry["duration"], abs=1e-3)
    assert entry["duration"] <= generator.MAX_SECONDS


@pytest.mark.parametrize("name", NAMES)
def test_each_greedy_transcript_loops(name):
    entry = RECORDINGS[name]
    transcript = degen.read(LOOPS / entry["greedy"])
    loops = [f for f in degen.scan(transcript).flagged if f.is_loop]
    assert loops, f"{name}: the greedy transcript is not flagged"
    assert [{"unit": f.unit, "count": f.count} for f in loops] == entry["heard"]
    # ... longer than what was said: a loop, not speech that repeats heard about as said.
    assert generator.past_what_was_said(loops, entry["recipe"])
    before = " ".join(s.text for s in transcript)
    verdict = judge(entry["script"], before, before, [f.count for f in loops], language=entry["language"],
                    unit=entry["unit"], count=entry["count"])
    assert not verdict.faithful
    assert (verdict.count, round(verdict.wer, 3)) == (entry["greedy_count"], entry["greedy_wer"])


class _Found:
    def __init__(self, unit, count):
        self.unit, self.count = unit, count


@pytest.mark.parametrize("unit, count, heard, loops", [
    ("bueno", 8, [("Bueno,", 9)], False),  # speech that repeats, heard about as said
    ("muy bien", 15, [("Mujen,", 18)], False),  # misheard, and shorter than said
    ("oui", 19, [("on va faire un peu de la fin.", 14)], True),  # a sentence made up, repeated
    ("thank you", 12, [("Thank you,", 21)], True),
    ("好的", 10, [("好的", 12)], False),
    ("好的", 10, [("好的", 13)], True),
])
def test_a_loop_is_text_longer_than_the_repetition_said(unit, count, heard, loops):
    language = "zh" if unit == "好的" else "fr" if unit == "oui" else "en"
    recipe = {"language": language, "unit": unit, "count": count}
    assert generator.past_what_was_said([_Found(u, c) for u, c in heard], recipe) is loops


def test_splits_are_a_hash_of_the_id_near_sixty_forty():
    every = generator.recipes()
    assert len(every) == len(generator.SENTENCES) * generator.RECIPES_PER_LANGUAGE
    dev = sum(generator.split_of(rid) == "dev" for rid in every)
    assert 0.5 < dev / len(every) < 0.7
    assert generator.recipes() == every  # the same recipes every time


class _Echo:
    """A server decoder that keeps every clip it was sent and answers the recipe's words."""

    def __init__(self, words):
        self.words, self.clips = words, []

    def decode(self, samples, rate, temperature, max_new_tokens, repetition_penalty=None, **request):
        self.clips.append((rate, samples.copy()))
        return f"[0.00][S01]{self.words}[{samples.size / rate:.2f}]"


def test_degen_fix_reads_a_flac_and_sends_its_samples(tmp_path):
    from click.testing import CliRunner

    from degen.cli import main as cli
    # A loop of the word said (one of another word, "K," for "okay", may be left unrepairable).
    name = next(n for n in NAMES if RECORDINGS[n]["language"] == "en"
                and tokens(RECORDINGS[n]["heard"][0]["unit"], "en") == tokens(RECORDINGS[n]["unit"], "en"))
    entry = RECORDINGS[name]
    samples, _ = sf.read(str(LOOPS / entry["audio"]), dtype="int16")
    decoder = _Echo(" ".join([entry["unit"]] * entry["count"]))
    out = tmp_path / "fixed.json"
    with TestServer(decoder) as server:
        run = CliRunner().invoke(cli, ["fix", str(LOOPS / entry["greedy"]), "--audio", str(LOOPS / entry["audio"]),
                                       "--server", server.url, "--out", str(out)])
    assert run.exit_code in (0, 1), run.output
    assert decoder.clips and out.exists()
    for rate, clip in decoder.clips:  # each clip is a stretch of the FLAC's own samples
        assert rate == 16000 and _found(samples, clip)


def _found(samples, clip) -> bool:
    """Where ``clip`` starts in ``samples`` (searched by its first 64 samples)."""
    head = clip[:64]
    starts = np.flatnonzero(np.all(np.lib.stride_tricks.sliding_window_view(samples, 64) == head, axis=1))
    return any(np.array_equal(samples[s:s + clip.size], clip) for s in starts)


# --- the fidelity judge, per language ---

@pytest.mark.parametrize("language, said, heard", [
    ("en", "twelve twelve okay", "12, 12. OK"),
    ("en", "all right all right", "Alright, alright."),
    ("de", "zwölf ja Straße", "12 Ja strasse"),
    ("fr", "douze voilà dix-sept", "12, voila 17"),
    ("es", "doce sí gracias", "12 si, Gracias."),
    ("zh", "三个好的請", "3个好的请"),
    ("ja", "はいそうですね", "ハイ、そうですね。"),
])
def test_the_same_words_fold_alike_in_each_language(language, said, heard):
    assert tokens(said, language) == tokens(heard, language)


@pytest.mark.parametrize("language, text, words", [
    ("zh", "好的好的", ["好", "的", "好", "的"]),
    ("ja", "ありがとう", ["あ", "り", "が", "と", "う"]),
    ("en", "all right", ["all", "right"]),
])
def test_mandarin_and_japanese_are_scored_a_character_at_a_time(language, text, words):
    assert tokens(text, language) == words


def test_the_language_is_guessed_from_the_characters():
    assert [guess_language(t) for t in ("ja ja", "然后", "そうですね", "今日の会議")] == [None, "zh", "ja", "ja"]


def test_a_japanese_repetition_of_five_characters_is_judged_by_the_recipe():
    script = "今日の会議を始めます。" + "そうですね" * 10
    kept = judge(script, script, "今日の会議を始めます" + "ソウデスネ" * 11, [11], language="ja", unit="そうですね",
                 count=10)
    assert kept.faithful and kept.count == 11
    looped = judge(script, script, "今日の会議を始めます" + "そうですね" * 40, [40], language="ja", unit="そうですね",
                   count=10)
    assert looped.looped and not looped.faithful
    cut = judge(script, script, "今日の会議を始めます" + "そうですね" * 3, [], language="ja", unit="そうですね", count=10)
    assert cut.deletion and not cut.faithful


def test_a_mandarin_repair_that_writes_another_language_is_not_faithful():
    script = "首先请财务部介绍一下情况。" + "这个" * 19
    verdict = judge(script, script, "首先请财务部介绍一下情况。 Good, Good, Good, Good", [], language="zh", unit="这个",
                    count=19)
    assert verdict.deletion and not verdict.faithful and verdict.count == 0


def test_a_number_said_in_words_and_heard_in_digits_is_kept():
    script = "Wir beginnen mit dem Budget. " + " ".join(["zwölf"] * 12)
    verdict = judge(script, script, "Wir beginnen mit dem Budget. " + "12, " * 12, [12], language="de", unit="zwölf",
                    count=12)
    assert verdict.faithful and verdict.count == 12


def test_the_input_mishearings_outside_the_loop_are_not_the_repairs():
    # de_meeting: Whisper base misheard the sentences around the loop; a repair that cuts
    # the loop to the count said and leaves the rest as the input had it is faithful, one
    # that also changes a sentence for the worse is not
    script = "Wir beginnen mit dem Budget für das nächste Quartal. " + "ja " * 6 + "Der neue Server läuft."
    before = "Wir beginnen mit dem Bruder für das Nächste kmal. " + "Ja, " * 40 + "Den Oilserver läuft er jetzt."
    right = "Wir beginnen mit dem Bruder für das Nächste kmal. " + "Ja, " * 6 + "Den Oilserver läuft er jetzt."
    worse = "Wir beginnen mit dem Bruder für das Nächste kmal. " + "Ja, " * 6 + "Das Leben sehe ich am Morgen."
    kept = judge(script, before, right, [], language="de", unit="ja", count=6)
    assert kept.wer > 0.35 and kept.wer == kept.floor and kept.faithful
    changed = judge(script, before, worse, [], language="de", unit="ja", count=6)
    assert changed.wer > kept.floor and not changed.faithful
    # a loop of another word than the one said gives no floor: the text to keep is unknown
    misheard = judge(script, before.replace("Ja, ", "Smokes, "), right, [], language="de", unit="ja", count=6)
    assert misheard.floor == 0.0
