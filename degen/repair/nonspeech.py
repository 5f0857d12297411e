"""Non-speech tags: what a model writes for sound that is not speech, never words.

Whisper base answers a short or unclear clip with ``[BLANK_AUDIO]`` or ``(humming)``;
whisper.cpp writes ``[BLANK_AUDIO]``; OpenAI-style models write ``[Music]``, ``♪``,
``(applause)``, ``*laughs*``; captioning conventions add ``[inaudible]`` and
``(speaking in foreign language)``. Spliced into a transcript they read as speech. An
answer's tags are taken out before it is judged; what is left is the answer's speech, and
an answer that held tags and nothing else says the audio there is not speech.

    [BLANK_AUDIO]  [ Music ]  (humming)  *laughs*  ♪ ♪   ->  tags, removed
    第[2024]年  [S01]  (and then he left)               ->  text, kept (numbers; a speaker
                                                           tag; words in brackets that name
                                                           no sound)
"""

from __future__ import annotations

import regex

# Sounds and silences models and captioners name in tags (English, and the Chinese and
# Japanese ones Whisper writes); a tag is one to three of these words, or an all-capitals
# name such as BLANK_AUDIO, inside [], (), ** or 【】.
SOUND_WORDS = frozenset("""
music musical song singing sings sing humming hums hum instrumental melody beat upbeat dramatic soft
gentle intense suspenseful tense cheerful piano guitar drums drum laughter laughs laughing laugh chuckles
chuckling chuckle giggles giggling applause applauding clapping claps cheering cheers cheer crowd audience
silence silent blank audio noise noises static sound sounds background inaudible unintelligible indistinct
muffled coughs coughing cough sighs sighing sigh breathing breath breathes gasps gasp sniffs sniffing
crying cries sobbing screams screaming whistling whistles bell bells beep beeps ringing rings phone door
knocking footsteps wind rain thunder birds chirping dog barking engine traffic typing clicking foreign
language speaking speaks speaker in a the no speech talking chatter murmuring mumbling mumbles
unclear crosstalk overlapping pause silence
音乐 笑 笑声 掌声 鼓掌 欢呼 咳嗽 叹气 噪音 静音 无声 背景音乐 音楽 拍手 笑い声 笑い 咳 ため息
""".split())
_TAG = regex.compile(r"\[([^\[\]\d]{1,48})\]|\(([^()\d]{1,48})\)|\*([^*\d]{1,32})\*|【([^【】\d]{1,24})】|"
                     r"(?:[♪♫♬🎵🎶]\s*)+")
_WORDS = regex.compile(r"[\p{L}_']+")


def _names_a_sound(inside: str) -> bool:
    words = _WORDS.findall(inside)
    if not words:
        return False
    if len(words) == 1 and regex.fullmatch(r"[A-Z][A-Z_]{2,}", words[0]):  # BLANK_AUDIO, MUSIC, SOUND
        return True
    return len(words) <= 5 and all(w.lower() in SOUND_WORDS for w in words)


def strip_tags(text: str) -> tuple[str, int]:
    """``text`` without its non-speech tags (spaces tidied), and how many were taken out.

    >>> strip_tags("[BLANK_AUDIO]")
    ('', 1)
    >>> strip_tags("第[2024]年 (and then he left)")
    ('第[2024]年 (and then he left)', 0)
    """
    found = 0

    def replace(match: regex.Match) -> str:
        nonlocal found
        inside = next((g for g in match.groups() if g is not None), None)
        if inside is None or _names_a_sound(inside):  # a run of note signs, or a tag naming a sound
            found += 1
            return " "
        return match.group()

    out = _TAG.sub(replace, text)
    if not found:
        return text, 0
    return regex.sub(r"\s{2,}", " ", out).strip(), found
