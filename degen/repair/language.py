"""Language: which language a transcript is in, so every re-decode asks for it and an
answer in another one is refused.

A short clip sent without ``language`` is detected afresh, and a few seconds of one word
are often heard as English (Whisper base answered "Good." for 这个); SGLang-Omni's Whisper
path forces English when the field is absent. So the language is pinned once per run:

    --language / degen.fix(language=)      what the user says
    the input's own field                   verbose_json "language" (Whisper, OpenAI, faster-whisper)
    the clean text's script and words       Han without kana: zh; kana: ja; Hangul: ko;
                                            Latin: the language whose common words it uses

and sent with every request. An answer is foreign when its letters are in another script
(Latin for a Mandarin transcript), or, for two languages of one script, when its words
clearly belong to another language than the transcript's; a repeated unit must be a word
of the transcript's language where a lexicon of it is at hand (``unknown_words``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import regex

from ..model import Transcript

# Whisper's language names (openai/whisper tokenizer.py), for files that name the language
# in words ("english", "German") rather than by code.
_NAMES = {
    "english": "en", "chinese": "zh", "german": "de", "spanish": "es", "russian": "ru", "korean": "ko",
    "french": "fr", "japanese": "ja", "portuguese": "pt", "turkish": "tr", "polish": "pl", "catalan": "ca",
    "dutch": "nl", "arabic": "ar", "swedish": "sv", "italian": "it", "indonesian": "id", "hindi": "hi",
    "finnish": "fi", "vietnamese": "vi", "hebrew": "he", "ukrainian": "uk", "greek": "el", "malay": "ms",
    "czech": "cs", "romanian": "ro", "danish": "da", "hungarian": "hu", "tamil": "ta", "norwegian": "no",
    "thai": "th", "urdu": "ur", "croatian": "hr", "bulgarian": "bg", "lithuanian": "lt", "latin": "la",
    "persian": "fa", "slovak": "sk", "serbian": "sr", "bengali": "bn", "cantonese": "yue", "mandarin": "zh",
}

# The script each language is written in (what an answer's letters must be).
_SCRIPT_OF = {"zh": "Han", "yue": "Han", "ja": "Japanese", "ko": "Hangul", "ru": "Cyrillic", "uk": "Cyrillic",
              "bg": "Cyrillic", "sr": "Cyrillic", "be": "Cyrillic", "mk": "Cyrillic", "kk": "Cyrillic",
              "el": "Greek", "he": "Hebrew", "yi": "Hebrew", "ar": "Arabic", "fa": "Arabic", "ur": "Arabic",
              "hi": "Devanagari", "mr": "Devanagari", "ne": "Devanagari", "th": "Thai", "ta": "Tamil",
              "bn": "Bengali", "ka": "Georgian", "hy": "Armenian", "km": "Khmer", "lo": "Lao", "my": "Myanmar"}
_SCRIPTS = ("Han", "Hiragana", "Katakana", "Hangul", "Cyrillic", "Greek", "Hebrew", "Arabic", "Devanagari",
            "Thai", "Tamil", "Bengali", "Georgian", "Armenian", "Khmer", "Lao", "Myanmar", "Latin")
_LETTER = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in _SCRIPTS))

# The commonest short words of the Latin-script languages Whisper hears best, each list
# disjoint from the others: a sentence of ordinary speech holds several of its own.
_COMMON = {
    "en": "the and is are was you that this with have what not for but they there it's i'm we".split(),
    "de": "der die das und ist nicht ich sie wir ein eine mit auch auf für sich dem den zu von".split(),
    "fr": "le la les et est une des pas je vous nous que qui dans pour avec ce sur au du".split(),
    "es": "el los las y es una por con para como pero muy qué del lo al está yo sí se".split(),
    "it": "il gli è non che di della per sono una con questo anche ma io lei ci mi".split(),
    "pt": "o os as é não um uma com para que do da em mas eu você isso muito também".split(),
    "nl": "de het een en is niet ik je we dat van op voor met zijn maar ook hij zij".split(),
}
_OWN_WORDS = {}
for _code, _words in _COMMON.items():
    for _w in _words:
        _OWN_WORDS.setdefault(_w, set()).add(_code)
_OWN_WORDS = {w: next(iter(codes)) for w, codes in _OWN_WORDS.items() if len(codes) == 1}
_WORD = regex.compile(r"\p{L}+(?:['\u2019]\p{L}+)?")

# A guess from words needs this many of the language's own words, and this many times
# as many as the next language's: a few sentences of speech give a dozen.
LEAST_WORDS = 3
LEAD = 2.0


@dataclass(frozen=True)
class Language:
    """The language a run pins.

    Attributes:
        code: Whisper's code ("en", "zh"), or None where only the script is known.
        script: the script answers must be written in ("Latin", "Han", "Japanese" ...).
        source: where it came from: "given", "input" or "text".
    """

    code: str | None
    script: str | None
    source: str

    def describe(self) -> str:
        what = self.code or f"{self.script} script"
        return f"{what} ({'from ' + self.source if self.source != 'given' else 'given'})"


def code_of(name: str | None) -> str | None:
    """Whisper's code for ``name`` ("English", "en", "zh-CN"), or None."""
    if not isinstance(name, str) or not name.strip():
        return None
    key = name.strip().lower().replace("_", "-")
    if key in _NAMES:
        return _NAMES[key]
    head = key.split("-")[0]
    return head if regex.fullmatch(r"[a-z]{2,3}", head) else None


def script_of(text: str) -> str | None:
    """The script most of ``text``'s letters are in; kana with or without Han is
    "Japanese" (Japanese mixes both, Chinese never writes kana)."""
    counts: Counter = Counter()
    for match in _LETTER.finditer(text):
        counts[match.lastgroup] += 1
    if not counts:
        return None
    if counts["Hiragana"] + counts["Katakana"]:
        kana = counts.pop("Hiragana", 0) + counts.pop("Katakana", 0)
        counts["Japanese"] = kana + counts.pop("Han", 0)
    return counts.most_common(1)[0][0]


def guess_code(text: str) -> str | None:
    """The language of ``text`` from its script and, for Latin script, its common words;
    None when the evidence is thin (a few words, or two languages alike)."""
    script = script_of(text)
    if script == "Han":
        return "zh"
    if script == "Japanese":
        return "ja"
    if script == "Hangul":
        return "ko"
    if script != "Latin":
        return None
    votes = Counter(_OWN_WORDS[w] for w in (m.group().lower() for m in _WORD.finditer(text)) if w in _OWN_WORDS)
    ranked = votes.most_common(2) + [(None, 0), (None, 0)]
    (best, first), (_, second) = ranked[0], ranked[1]
    return best if first >= LEAST_WORDS and first >= LEAD * second else None


def pin(transcript: Transcript, given: str | None = None, clean_text: str = "") -> Language:
    """The language of a repair run: ``given``, else the input's own field, else a guess
    from ``clean_text`` (the unflagged segments: a loop's text is not evidence)."""
    script = script_of(clean_text or " ".join(s.text for s in transcript.segments[:200]))
    if given:
        code = code_of(given) or given
        return Language(code, _SCRIPT_OF.get(code, "Latin" if code else script), "given")
    doc = transcript.meta.get("doc")
    field = code_of(doc.get("language")) if isinstance(doc, dict) else None
    # The field holds what the server said it decoded in, which may be a guess of its own
    # (or a fixed echo): text in another script than the field's language outweighs it.
    if field and (script is None or _SCRIPT_OF.get(field, "Latin") == script):
        return Language(field, _SCRIPT_OF.get(field, "Latin"), "input")
    code = guess_code(clean_text)
    return Language(code, _SCRIPT_OF.get(code, script) if code else script, "text")


def foreign(text: str, language: Language) -> str | None:
    """Why ``text`` (an answer) is not in ``language``, or None when it may be."""
    script = script_of(text)
    if script is None or language.script is None:
        return None
    if script != language.script and not (language.script == "Japanese" and script == "Han"):
        return f"written in {script} script, the transcript in {language.script}"
    if script == "Latin" and language.code in _COMMON:
        heard = guess_code(text)
        if heard is not None and heard != language.code:
            return f"written in {heard}, the transcript in {language.code}"
    return None


def unknown_words(unit: str, language: Language) -> bool:
    """Whether no word of ``unit`` (a repeated unit an answer names) is a word of the
    transcript's language, where its lexicon is known (simplemma's dictionaries, European
    languages mostly): Whisper base hears espeak-ng's German "sieben" as "even" and "danke"
    as "thank you", in Latin script like the rest, each count and all. False where the
    language has no lexicon there (CJK: the script check does that work)."""
    code = language.code
    words = [w for w in _WORD.findall(unit)]
    if not code or not words or script_of(unit) != "Latin":
        return False
    try:
        import simplemma
        return not any(simplemma.is_known(w, code) or simplemma.is_known(w.lower(), code) for w in words)
    except ValueError:  # no lexicon for this language
        return False
