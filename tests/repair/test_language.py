"""The language a repair pins, answers in another one, and non-speech tags."""

import pytest

from degen.model import Segment, Span, Transcript
from degen.repair.language import Language, code_of, foreign, guess_code, pin, script_of
from degen.repair.nonspeech import strip_tags
from degen.repair.splice import parse_candidate


@pytest.mark.parametrize("text, script", [
    ("我们先把上周的进度过一遍", "Han"), ("いやいや、そうですね", "Japanese"), ("東京に行きます", "Japanese"),
    ("안녕하세요", "Hangul"), ("ну, давай", "Cyrillic"), ("Good.", "Latin"), ("123 !!", None),
])
def test_script_of(text, script):
    assert script_of(text) == script


@pytest.mark.parametrize("text, code", [
    ("The meeting will start with a short review of what we have done.", "en"),
    ("Wir beginnen mit dem Budget für das nächste Quartal und der Server ist nicht da.", "de"),
    ("Nous allons commencer avec le budget pour les mois qui viennent dans la salle.", "fr"),
    ("Vamos a empezar con el presupuesto para los meses que vienen y está muy bien.", "es"),
    ("Good.", None),  # one word: too thin to tell
    ("okay okay okay", None),
    ("这个这个这个", "zh"),
])
def test_guess_code_needs_several_of_a_language_s_own_words(text, code):
    assert guess_code(text) == code


def test_names_and_codes():
    assert code_of("english") == "en" and code_of("German") == "de" and code_of("zh-CN") == "zh"
    assert code_of("auto") is None and code_of("") is None and code_of(None) is None


def _doc(language: str, text: str) -> Transcript:
    return Transcript((Segment(Span(0, 2), "S01", text),), "sglang_verbose", {"doc": {"language": language}})


def test_pin_prefers_the_user_then_the_input_then_the_text():
    t = _doc("de", "Wir beginnen mit dem Budget und der Server ist nicht da.")
    assert pin(t, "fr").code == "fr" and pin(t, "fr").source == "given"
    assert pin(t).code == "de" and pin(t).source == "input"
    english = Transcript((Segment(Span(0, 2), None, "The meeting will start with what we have done."),))
    assert pin(english, clean_text=english[0].text) == Language("en", "Latin", "text")


def test_a_field_in_another_script_than_the_text_is_not_believed():
    # A server that echoes a fixed language (or guessed wrong): the text outweighs it.
    t = _doc("zh", "The meeting will start with a short review of what we have done.")
    language = pin(t, clean_text=t[0].text)
    assert language.code == "en" and language.source == "text"


def test_foreign_answers():
    zh = Language("zh", "Han", "text")
    assert foreign("Good.", zh) and "Latin" in foreign("Good, good, good.", zh)
    assert foreign("这个这个这个", zh) is None
    assert foreign("そうですね", zh)  # kana: Japanese, not Chinese
    assert foreign("東京", Language("ja", "Japanese", "text")) is None  # kanji alone may be Japanese
    de = Language("de", "Latin", "input")
    assert foreign("The meeting will start with what we have done.", de) == "written in en, the transcript in de"
    assert foreign("Ja.", de) is None and foreign("okay", Language(None, "Latin", "text")) is None


@pytest.mark.parametrize("text, left, found", [
    ("[BLANK_AUDIO]", "", 1), ("(humming)", "", 1), ("[ Music ]", "", 1), ("♪ ♪", "", 1),
    ("*laughs* okay then", "okay then", 1), ("(upbeat music) Welcome back.", "Welcome back.", 1),
    ("[笑声]", "", 1), ("(speaking in foreign language)", "", 1),
    ("第[2024]年", "第[2024]年", 0), ("(and then he left)", "(and then he left)", 0), ("[S01]hi", "[S01]hi", 0),
])
def test_non_speech_tags(text, left, found):
    assert strip_tags(text) == (left, found)


def test_an_answer_of_tags_alone_is_an_answer_without_speech():
    answer = parse_candidate('{"text": "[0.00][S01][BLANK_AUDIO][1.50]"}', "json")
    assert len(answer) == 0 and answer.meta["nonspeech_tags"] == 1
    kept = parse_candidate("[0.00][S01]Hello there.[1.00][1.00][S01](humming)[2.00]", "json")
    assert [s.text for s in kept] == ["Hello there."] and kept.meta["nonspeech_tags"] == 1
    plain = parse_candidate("[0.00][S01]Hello there.[1.00]", "json")
    assert [s.text for s in plain] == ["Hello there."] and "nonspeech_tags" not in plain.meta
