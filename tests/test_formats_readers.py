"""Readers for what people paste into bug reports: one realistic sample per format and
variant, sniffed by content (with no extension and with a misleading one), written back as
read, and every unsupported input refused with a one-line error naming the place."""

import json
import subprocess
import sys

import orjson
import pytest

from degen import formats
from degen.errors import FormatError
from degen.model import Span

WHISPER_CPP = """\
whisper_init_from_file_with_params_no_state: loading model from 'models/ggml-base.en.bin'
whisper_model_load: loading model
whisper_model_load: n_vocab       = 51864
whisper_model_load: model size    =  147.37 MB
system_info: n_threads = 4 / 8 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | NEON = 0 |

main: processing 'samples/jfk.wav' (176000 samples, 11.0 sec), 4 threads, 1 processors, lang = en, task = transcribe, timestamps = 1 ...

[00:00:00.000 --> 00:00:08.000]   And so my fellow Americans, ask not what your country can do for you,
[00:00:08.000 --> 00:00:11.000]   ask what you can do for your country.
[00:00:11.000 --> 00:00:14.000]   Thank you.
[00:00:14.000 --> 00:00:17.000]   Thank you.


whisper_print_timings:     load time =   108.59 ms
whisper_print_timings:     fallbacks =   0 p /   0 h
whisper_print_timings:      mel time =    14.99 ms
whisper_print_timings:    total time =   553.46 ms
"""

OPENAI_VERBOSE = """\
Detecting language using up to the first 30 seconds. Use `--language` to specify the language
Detected language: English
[00:00.000 --> 00:04.720]  The quick brown fox jumps over the lazy dog.
[00:04.720 --> 00:09.400]  I'm going to go ahead and start the meeting now.
[00:09.400 --> 00:12.040]  Okay, okay, okay, okay, okay.
100%|██████████████████████████████████████| 1101/1101 [00:03<00:00, 311.69frames/s]
"""

OPENAI_HOURS = """\
[59:58.000 --> 59:59.500]  Still going.
[01:00:00.000 --> 01:00:02.000]  Past the hour.
"""

FASTER_WHISPER = """\
Detected language 'en' with probability 0.982324
[0.00s -> 2.40s]  Hello and welcome.
[2.40s -> 5.12s]  Today we look at loops.
"""

LRC = """\
[ar:Some Band]
[ti:Round and Round]
[al:Loops]
[length: 01:30]
[00:12.00]We go round and round
[00:17.20][00:45.10]Round and round again
[00:21.10]
[00:25.00]Until the record ends
[00:50.30]And round
"""

SPEAKER_INLINE = """\
SPEAKER_00: Okay, let's start with the budget.
SPEAKER_01: Sure. We're at about eighty percent.
SPEAKER_00: Eighty percent of the quarter?
SPEAKER_01: Of the year, actually.
"""

SPEAKER_BRACKET = """\
[SPEAKER_01] so what did the model output
[SPEAKER_02] the same sentence over and over
[SPEAKER_01] how many times
[SPEAKER_02] until it hit the token limit
"""

SPEAKER_BLOCKS = """\
Interview, 12 March

Speaker 1  0:03
So tell me how it started.
We had no idea at first.

Speaker 2  0:11
It started with one repeated line.

Speaker 1  0:20
And then?
"""

SPEAKER_BLOCKS_COLON = """\
Speaker 1:
So tell me how it started.

Speaker 2:
It started with one repeated line.
"""

NAME_TURNS = """\
Alice: Did the nightly job finish?
Bob: It did, but the transcript looks odd.
Alice: Odd how?
Bob: The last minute is the same phrase forty times.
"""

CJK_TURNS = """\
主持人：大家好，欢迎收听。
嘉宾：谢谢邀请。
主持人：今天我们聊聊语音识别。
嘉宾：好的。
"""

NOTES_HEADERS = """\
# Weekly sync, 2024-05-02

## 00:00:40 Budget
Alice: The numbers are in.
Bob: Good.

## 00:05:12 Hiring
We are hiring two people.

## [00:09:40]
Wrap-up.
"""

NOTES_BOLD = """\
# Standup

**[00:01:02] Alice:** We shipped the release.
**[00:01:10] Bob:** Nice. Any regressions?
**[00:01:21] Alice:** One, in the exporter.
"""

JSONL_SEGMENTS = """\
{"start": 0.0, "end": 2.5, "text": "Hello there.", "speaker": "SPEAKER_00", "avg_logprob": -0.21}
{"start": 2.5, "end": 4.0, "text": "General Kenobi.", "speaker": "SPEAKER_01", "avg_logprob": -0.3}
"""

NEMO_MANIFEST = """\
{"audio_filepath": "/data/clips/0001.wav", "duration": 3.2, "text": "the cat sat", "pred_text": "the cat sat"}
{"audio_filepath": "/data/clips/0002.wav", "duration": 1.7, "text": "on the mat", "pred_text": "on the mat mat mat"}
{"audio_filepath": "/data/clips/0003.wav", "duration": 2.0, "text": "ünïcödé ok", "pred_text": "ünïcödé ok"}
"""

WHISPER_TSV = "start\tend\ttext\n0\t4720\tThe quick brown fox.\n4720\t9400\tShe said \"hi\" twice.\n"

WHISPER_CPP_CSV = 'start,end,text\n0,8000," And so my fellow Americans, ask not"\n8000,11000," ask what you can do"\n'

CSV_SECONDS = ("speaker,start,end,text,confidence\n"
               "A,0.5,2.25,hello,0.91\nB,2.25,3.8,\"hi, there\",0.88\nA,3.8,5,bye,0.9\n")

CSV_CLOCK = "Start Time;End Time;Text\n00:00:01.000;00:00:02.500;Hallo zusammen\n00:00:02.500;00:00:04.000;Tschüss\n"

MOSS_HEADLESS = "[S01]Hello everyone[1.50][1.60][S02]Welcome back[3.20][3.40][S01]Let's begin[5.00]"

# (name, text, format, number of segments)
SAMPLES = [
    ("whisper_cpp", WHISPER_CPP, "whisper_console", 4),
    ("openai_verbose", OPENAI_VERBOSE, "whisper_console", 3),
    ("openai_hours", OPENAI_HOURS, "whisper_console", 2),
    ("faster_whisper", FASTER_WHISPER, "whisper_console", 2),
    ("lrc", LRC, "lrc", 5),
    ("speaker_inline", SPEAKER_INLINE, "speaker_text", 4),
    ("speaker_bracket", SPEAKER_BRACKET, "speaker_text", 4),
    ("speaker_blocks", SPEAKER_BLOCKS, "speaker_text", 3),
    ("speaker_blocks_colon", SPEAKER_BLOCKS_COLON, "speaker_text", 2),
    ("name_turns", NAME_TURNS, "speaker_text", 4),
    ("cjk_turns", CJK_TURNS, "speaker_text", 4),
    ("notes_headers", NOTES_HEADERS, "meeting_notes", 3),
    ("notes_bold", NOTES_BOLD, "speaker_text", 3),
    ("jsonl", JSONL_SEGMENTS, "jsonl", 2),
    ("nemo_manifest", NEMO_MANIFEST, "manifest", 3),
    ("whisper_tsv", WHISPER_TSV, "tsv", 2),
    ("whisper_cpp_csv", WHISPER_CPP_CSV, "csv", 2),
    ("csv_seconds", CSV_SECONDS, "csv", 3),
    ("csv_clock", CSV_CLOCK, "csv", 2),
    ("moss_headless", MOSS_HEADLESS, "moss", 3),
]
IDS = [s[0] for s in SAMPLES]


@pytest.mark.parametrize("name, text, fmt, count", SAMPLES, ids=IDS)
@pytest.mark.parametrize("extension", ["", ".json", ".txt", ".srt"])
def test_samples_sniff_by_content(name, text, fmt, count, extension):
    assert formats.sniff(text, extension) == fmt
    transcript = formats.loads(text, extension=extension)
    assert transcript.format == fmt and len(transcript) == count


@pytest.mark.parametrize("name, text, fmt, count", SAMPLES, ids=IDS)
def test_samples_write_back_what_they_read(name, text, fmt, count):
    transcript = formats.loads(text)
    written = formats.dumps(transcript)
    if fmt in ("jsonl", "manifest"):
        assert [json.loads(x) for x in written.splitlines()] == [json.loads(x) for x in text.splitlines()]
    else:
        assert written == text
    assert formats.loads(written, fmt).segments == transcript.segments
