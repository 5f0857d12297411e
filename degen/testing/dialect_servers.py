"""The recorded servers' families, each as its code behaved in fixtures/servers/*.json.

Every rule here is read off a recording (and the code it was recorded from); the README
of fixtures/servers says, per server, what each field does. Messages are the servers' own.
"""

from __future__ import annotations

import ast
import math

import orjson

from .dialects import (CHUNK_SECONDS, DIALECTS, BaseDialect, Call, Engine, Reply, chunks, decoded_audio, detail,
                       json_reply, load, number, plain_text, pydantic_errors, segments_of, subtitles, text_reply,
                       truthy, usage)

WHISPER_CONTEXT = 448  # Whisper's decoder positions


# --- SGLang-Omni 0.1.9 ------------------------------------------------------------------------

class SGLangOmni(BaseDialect):
    """SGLang-Omni 0.1.9 (MOSS-Transcribe-Diarize or Whisper): the shared form
    (speech_to_text.parse_speech_to_text_form) and the model's own request builder."""

    spec = (("file", "file", None), ("temperature", "float", None), ("repetition_penalty", "gt0le2", None),
            ("max_new_tokens", "ge1", None))
    formats = ("json", "text", "verbose_json", "srt", "vtt")

    def __init__(self, recording: dict):
        super().__init__(recording)
        self.moss = self.about["model_kind"] == "moss"
        self.defaults = self.about["stage_defaults"]
        self.languages = self._languages()
        self.source = "MOSS-Transcribe-Diarize" if self.moss else "Whisper ASR"

    def _languages(self) -> str:
        """The tokenizer's language list as its error message prints it (order and repeats kept)."""
        for case in self.recording["transcriptions"]:
            message = str(case.get("json", {}).get("detail", "")) if case["status"] == 400 else ""
            if "Language should be one of: " in message:
                return message.split("one of: ", 1)[1].rstrip(".")
        return "[]"

    def transcribe(self, form: dict, audio: bytes | None, engine: Engine) -> Reply:
        errors = pydantic_errors(form, audio is not None, self.spec)
        if errors:
            return detail(422, errors)
        fmt = (form.get("response_format") or "json").strip().lower()
        if not audio:
            return detail(400, "Uploaded audio file is empty")
        decoded = decoded_audio(audio)
        seconds = decoded[0].size / decoded[1] if decoded else 0.0
        stream = truthy(form.get("stream"))
        if stream and fmt not in ("json", "text"):
            return detail(400, f"stream=true supports only response_format 'json' or 'text', got "
                                f"{form.get('response_format')!r}")
        chunked = not self.moss and seconds > CHUNK_SECONDS
        if stream and chunked:
            return detail(400, f"stream=true does not support audio longer than {CHUNK_SECONDS:g} seconds; "
                                "use stream=false, which transcribes long audio in chunks")
        if chunked and fmt in ("srt", "vtt"):
            return detail(400, f"response_format {fmt!r} does not support chunked transcription because chunk "
                                "boundary timestamps are not model-derived")
        if decoded is None:
            return detail(400, f"Could not decode {self.source} audio input")
        language = self._language(form.get("language"))
        if language is None:
            return detail(400, f"Unsupported language: {form['language'].strip().lower()}. Language should be "
                                f"one of: {self.languages}.")
        samples, rate = decoded
        pieces = chunks(samples, rate) if chunked else [(0.0, samples)]
        texts = [engine(piece, rate, self._call(form, fmt, piece.size / rate, language,
                                                 f"chunk {i}" if chunked else "clip"))
                 for i, (_, piece) in enumerate(pieces)]
        if fmt not in self.formats:  # checked only once the model has answered
            return detail(400, f"Unsupported response_format for /v1/audio/transcriptions: "
                                f"{form.get('response_format')!r}")
        return self._respond(fmt, stream, texts, pieces, seconds, form, language)

    def model_language(self, call: Call) -> str | None:
        return None if self.moss else super().model_language(call)  # MOSS only echoes it

    def _language(self, value: str | None) -> str | None:
        if self.moss:
            return value or "auto"
        text = (value or "").strip().lower()
        if text in ("", "en", "eng", "english"):
            return "english"  # resolve_language: absent means English
        return text if text in ast.literal_eval(self.languages) else None

    def _call(self, form: dict, fmt: str, seconds: float, language: str, which: str) -> Call:
        temperature = float(form["temperature"]) if form.get("temperature") else 0.0
        requested = int(form["max_new_tokens"]) if form.get("max_new_tokens") else None
        timestamps = fmt in ("srt", "vtt")
        if self.moss:
            cap = requested or max(min(self.defaults["max_new_tokens"], 512), math.ceil(10 * seconds))
            cap = min(cap, self.defaults["context_length"])
            penalty = float(form["repetition_penalty"]) if form.get("repetition_penalty") else 1.0
            top = (0.95, None if temperature == 0 else 50)
        else:
            prefix = 3 if timestamps else 4  # <|startoftranscript|><|lang|><|task|>[<|notimestamps|>]
            cap = min(requested or self.defaults["max_new_tokens"], WHISPER_CONTEXT - prefix)
            penalty, top = 1.0, (1.0, None)  # the Whisper builder never passes the penalty on
        return Call(which, temperature, top[0], top[1], penalty, cap, None, language,
                    form.get("prompt"), timestamps)

    def _respond(self, fmt, stream, texts, pieces, seconds, form, language) -> Reply:
        joined = texts[0] if self.moss else " ".join(plain_text(t) for t in texts if plain_text(t))
        if stream:
            done = {"type": "transcript.text.done", "text": joined, "usage": usage(seconds)}
            body = f"data: {orjson.dumps(done).decode()}\n\ndata: [DONE]\n\n"
            return text_reply(200, body, "text/event-stream; charset=utf-8")
        if fmt == "text":
            return text_reply(200, joined)
        if fmt in ("srt", "vtt"):
            return text_reply(200, subtitles(fmt, self._segments(texts[0], seconds, timed=True)))
        if fmt == "verbose_json":
            if len(pieces) > 1:
                segs = [{"id": i, "start": round(start, 2), "end": round(min(start + CHUNK_SECONDS, seconds), 2),
                         "text": plain_text(t)} for i, ((start, _), t) in enumerate(zip(pieces, texts))]
            else:
                segs = self._segments(texts[0], seconds, timed=False)
            body = {"task": "transcribe", "language": None if len(pieces) > 1 else
                    (language if not self.moss else (form.get("language") or "auto")),
                    "duration": round(seconds, 3), "text": joined, "segments": segs, "usage": usage(seconds)}
            return json_reply(200, {k: v for k, v in body.items() if v is not None})
        return json_reply(200, {k: v for k, v in {"text": joined, "usage": usage(seconds)}.items() if v is not None})

    def _segments(self, markup: str, seconds: float, timed: bool) -> list[dict]:
        if not self.moss and not timed:  # Whisper's verbose_json: the whole clip as one segment
            return [{"id": 0, "start": 0.0, "end": round(seconds, 3), "text": plain_text(markup)}]
        segs = segments_of(markup)
        if self.moss:
            return [{"id": i, "start": s, "end": e, "text": f"[{spk}]{t}"} for i, (s, e, spk, t) in enumerate(segs)]
        return [{"id": i, "start": s, "end": e, "text": t.strip()} for i, (s, e, _, t) in enumerate(segs)]


# --- vLLM 0.32 --------------------------------------------------------------------------------

class VLLM(BaseDialect):
    """vLLM 0.32's /v1/audio/transcriptions (TranscriptionRequest, SpeechToTextBaseServing)."""

    spec = (("file", "file", None), ("temperature", "float", None), ("top_p", "float", None),
            ("top_k", "int", None), ("min_p", "float", None), ("seed", "int", None),
            ("repetition_penalty", "float", None), ("max_completion_tokens", "int", None))
    formats = ("json", "text", "srt", "verbose_json", "vtt", "diarized_json")

    def __init__(self, recording: dict):
        super().__init__(recording)
        self.languages = []
        for case in recording["transcriptions"]:
            message = case.get("json", {}).get("error", {}).get("message", "") if case["status"] == 400 else ""
            if message.startswith("Unsupported language:"):
                self.languages = ast.literal_eval(message.split("Must be one of ", 1)[1].rstrip("."))

    @staticmethod
    def _error(status: int, message: str, kind: str = "BadRequestError", param=None) -> Reply:
        return json_reply(status, {"error": {"message": message, "type": kind, "param": param, "code": status}})

    def _invalid(self, form: dict, has_file: bool) -> Reply | None:
        errors = pydantic_errors(form, has_file, self.spec)
        fmt = form.get("response_format") or "json"
        if fmt not in self.formats:
            allowed = "'json', 'text', 'srt', 'verbose_json' or 'vtt'"
            errors += [{"type": "literal_error", "loc": ["body", "response_format"],
                        "msg": f"Input should be {allowed}", "input": fmt, "ctx": {"expected": allowed}},
                       {"type": "literal_error", "loc": ["body", "response_format"],
                        "msg": "Input should be 'diarized_json'", "input": fmt, "ctx": {"expected": "'diarized_json'"}}]
        if not errors:
            return None
        for e in errors:
            e["loc"] = ".".join(e["loc"])
            if e["type"] == "missing":
                e["input"] = f"<dict of {len(form) + 1} items>"
        lines = "".join(f"\n  {e!r}" for e in errors)
        count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}:"
        return self._error(400, count + lines, "Bad Request", errors[0]["loc"])

    def transcribe(self, form: dict, audio: bytes | None, engine: Engine) -> Reply:
        bad = self._invalid(form, audio is not None)
        if bad:
            return bad
        model, fmt, stream = form.get("model"), form.get("response_format") or "json", truthy(form.get("stream"))
        if model and model != self.model_id:
            return self._error(404, f"The model `{model}` does not exist. Valid aliases: {self.model_id}.",
                               "NotFoundError", "model")
        if fmt not in ("text", "json", "verbose_json", "diarized_json"):
            return self._error(400, "Currently only support response_format: `text`, `json`, `verbose_json` "
                                    "or `diarized_json`")
        if fmt == "diarized_json":
            return self._error(400, f"Currently do not support diarized_json for {model or self.model_id}")
        if fmt == "verbose_json" and stream:
            return self._error(400, f"{fmt} format doesn't support streaming case")
        language = form.get("language")
        if language is not None and self.languages and language.lower() not in self.languages:
            return self._error(400, f"Unsupported language: {language!r}.  Must be one of {self.languages}.")
        decoded = decoded_audio(audio) if audio else None
        if decoded is None:
            return self._error(400, "Invalid or unsupported audio file.")
        samples, rate = decoded
        pieces = chunks(samples, rate) if samples.size / rate > CHUNK_SECONDS else [(0.0, samples)]
        if language is None:  # one greedy step on the first chunk names the language
            engine(pieces[0][1], rate, Call("language detection", 0.0, 1.0, None, 1.0, 1))
            language = "en"
        temperature = float(form.get("temperature") or 0.0)
        if temperature < 0:
            return self._error(400, f"temperature must be non-negative, got {temperature}. "
                                    f"(parameter=temperature, value={temperature})", param="temperature")
        if temperature > 2:
            return self._error(400, f"temperature must be in [0, 2], got {temperature}. "
                                    f"(parameter=temperature, value={temperature})", param="temperature")
        penalty = float(form["repetition_penalty"]) if form.get("repetition_penalty") else 1.0
        if penalty <= 0:
            return self._error(400, f"repetition_penalty must be greater than zero, got {penalty}.")
        cap = min(int(form["max_completion_tokens"]), WHISPER_CONTEXT) if form.get("max_completion_tokens") \
            else WHISPER_CONTEXT  # max_new_tokens is not a field here: the cap is always 448
        top_k = int(form["top_k"]) if form.get("top_k") else None
        call = Call("clip", temperature, float(form["top_p"]) if form.get("top_p") else 1.0,
                    None if top_k in (None, 0, -1) else top_k, penalty, cap,
                    int(form["seed"]) if form.get("seed") else None, language, form.get("prompt") or None,
                    fmt == "verbose_json")
        texts = []
        for i, (_, piece) in enumerate(pieces):
            which = f"chunk {i}" if len(pieces) > 1 else "clip"
            texts.append(engine(piece, rate, Call(**{**call.to_dict(), "call": which})))
        return self._respond(fmt, stream, texts, pieces, samples.size / rate, language, temperature)

    def _respond(self, fmt, stream, texts, pieces, seconds, language, temperature) -> Reply:
        text = " ".join(" " + plain_text(t) for t in texts)
        if stream:
            chunk = {"id": "transcribe-0", "object": "transcription.chunk", "created": 0, "model": self.model_id,
                     "choices": [{"delta": {"content": text}, "finish_reason": "stop", "stop_reason": None}]}
            return text_reply(200, f"data: {orjson.dumps(chunk).decode()}\n\ndata: [DONE]\n\n",
                              "text/event-stream; charset=utf-8")
        if fmt != "verbose_json":  # text too: vLLM answers JSON whatever the format
            return json_reply(200, {"text": text, "usage": usage(seconds)})
        segments = []
        for (start, _), markup in zip(pieces, texts):
            for i, (s, e, _, words) in enumerate(segments_of(markup)):  # ids restart in each chunk
                segments.append({"id": i, "avg_logprob": 0.0, "compression_ratio": 0.0, "end": start + e,
                                 "no_speech_prob": None, "seek": int(start), "start": start + s,
                                 "temperature": temperature, "text": " " + words.strip(), "tokens": []})
        return json_reply(200, {"duration": seconds, "language": language, "text": text, "segments": segments,
                                "words": None})


# --- faster-whisper-server 0.0.3 ---------------------------------------------------------------

FALLBACK = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)  # faster-whisper's temperatures when none is sent


class FasterWhisperServer(BaseDialect):
    """faster-whisper-server 0.0.3: file, model_name, language, prompt, response_format,
    temperature; nothing else reaches faster-whisper."""

    spec = (("file", "file", None), ("temperature", "float", None))

    def transcribe(self, form: dict, audio: bytes | None, engine: Engine) -> Reply:
        errors = pydantic_errors(form, audio is not None, self.spec)
        if errors:
            return detail(422, errors)
        fmt = form.get("response_format") or "json"
        if fmt not in ("json", "verbose_json"):
            return detail(400, {"error": {"message": f"Unsupported response_format: {fmt}",
                                           "type": "invalid_request_error"}})
        decoded = decoded_audio(audio)
        if decoded is None:  # faster-whisper raises; nothing catches it
            return text_reply(500, "Internal Server Error")
        samples, rate = decoded
        temperature = float(form["temperature"]) if form.get("temperature") else FALLBACK
        markup = engine(samples, rate, Call("clip", temperature, None, None, 1.0, None, None,
                                            form.get("language"), form.get("prompt"), True))
        segs = segments_of(markup)
        text = "".join(" " + t.strip() for _, _, _, t in segs)
        if fmt == "json":
            return json_reply(200, {"text": text})
        first = temperature if isinstance(temperature, float) else FALLBACK[0]
        return json_reply(200, {
            "task": "transcribe", "language": form.get("language") or "en", "duration": samples.size / rate,
            "text": text, "segments": [{"id": i, "start": s, "end": e, "text": " " + t.strip(), "tokens": [],
                                        "temperature": first, "avg_logprob": 0.0, "compression_ratio": 0.0,
                                        "no_speech_prob": 0.0} for i, (s, e, _, t) in enumerate(segs)]})


# --- whisper.cpp's server (read from source) --------------------------------------------------

class WhisperCpp(BaseDialect):
    """whisper.cpp's examples/server: POST /inference, every field optional, errors as
    {"error": "..."}; its contract is read from the source (see its recording's about)."""

    route = "/inference"
    server_header = "whisper.cpp"

    def __init__(self, recording: dict):
        super().__init__(recording)
        self.defaults = recording["defaults"]

    def get(self, path: str) -> Reply:
        if path.rstrip("/") == "/health":
            return json_reply(200, {"status": "ok"})
        if path in ("", "/"):
            return text_reply(200, "<html><body><h1>Whisper.cpp Server</h1></body></html>", "text/html")
        return text_reply(404, f"File Not Found ({path})")

    def transcribe(self, form: dict, audio: bytes | None, engine: Engine) -> Reply:
        if audio is None:
            return json_reply(400, {"error": "no 'file' field in the request"})
        values = {}
        for name in ("temperature", "temperature_inc"):
            raw = form.get(name)
            if raw is not None and number(raw) is None:  # std::stof throws; the handler answers
                return text_reply(500, "500 Internal Server Error\nstof")
            values[name] = float(raw) if raw is not None else self.defaults[name]
        decoded = decoded_audio(audio) if audio else None
        if decoded is None:
            return json_reply(400, {"error": "failed to read audio data"})
        samples, rate = decoded
        ladder, t = [], values["temperature"]
        while t <= 1.0 + 1e-9 and (values["temperature_inc"] > 0 or not ladder):
            ladder.append(round(t, 2))
            t += values["temperature_inc"]
        no_timestamps = truthy(form.get("no_timestamps"))
        markup = engine(samples, rate, Call("clip", tuple(ladder) if len(ladder) > 1 else ladder[0], None, None,
                                            1.0, None, None, form.get("language") or self.defaults["language"],
                                            form.get("prompt") or None, not no_timestamps))
        segs = segments_of(markup)
        fmt = form.get("response_format") or "json"
        text = "".join(t for _, _, _, t in segs)
        if fmt == "text":
            return text_reply(200, text, "text/html; charset=utf-8")
        if fmt in ("srt", "vtt"):
            body = subtitles(fmt, [{"start": s, "end": e, "text": t} for s, e, _, t in segs])
            return text_reply(200, body, "application/x-subrip" if fmt == "srt" else "text/vtt")
        if fmt == "verbose_json":
            return json_reply(200, {"task": "transcribe", "language": "english", "duration": samples.size / rate,
                                    "text": text, "segments": [
                                        {"id": i, "text": t, "start": s, "end": e, "temperature": ladder[0],
                                         "avg_logprob": 0.0, "no_speech_prob": 0.0}
                                        for i, (s, e, _, t) in enumerate(segs)]})
        return json_reply(200, {"text": text})  # any other format answers json


# --- recorded engine logs as Calls ------------------------------------------------------------

def _sglang_call(entry: dict) -> Call:
    sp, params = entry["sampling"], entry["http_params"]
    greedy = sp["top_k"] == 1 and sp["temperature"] == 1.0  # sglang's normalize() spelling of greedy
    top_k = None if greedy or sp["top_k"] in (-1, 1 << 30) else sp["top_k"]
    return Call(entry["call"], 0.0 if greedy else sp["temperature"], sp["top_p"], top_k, sp["repetition_penalty"],
                sp["max_new_tokens"], sp.get("sampling_seed"), entry["language"], params.get("prompt"),
                bool(params.get("segment_timestamps")))


def _vllm_call(entry: dict) -> Call:
    sp, prompt = entry["sampling"], entry["decoder_prompt"]
    language = None
    if "<|transcribe|>" in prompt:
        language = prompt.rsplit("<|transcribe|>", 1)[0].rsplit("<|", 1)[1].rstrip("|>")
    said = prompt.split("<|prev|>", 1)[1].split("<|startoftranscript|>", 1)[0] if "<|prev|>" in prompt else None
    return Call(entry["call"], sp["temperature"], sp["top_p"], None if sp["top_k"] in (0, -1) else sp["top_k"],
                sp["repetition_penalty"], sp["max_tokens"], sp["seed"], language, said or None, "<|0.00|>" in prompt)


def _fws_call(entry: dict) -> Call:
    eff = entry["effective"]
    temperature = tuple(eff["temperature"]) if isinstance(eff["temperature"], list) else eff["temperature"]
    return Call("clip", temperature, None, None, float(eff["repetition_penalty"]), None, None, eff["language"],
                eff["initial_prompt"], True)


RECORDED = {"sglang-omni": _sglang_call, "vllm": _vllm_call, "faster-whisper-server": _fws_call}


def make(name: str):
    """The dialect called ``name`` (see ``DIALECTS``), built from its recording."""
    if name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r}: choose one of {', '.join(sorted(DIALECTS))}")
    family, recording = DIALECTS[name]
    return globals()[family](load(recording))


def recorded_calls(recording: dict, case: dict) -> list[Call]:
    """A recorded request's engine log as ``Call``s, sorted by call name (a request's chunks
    run concurrently, so their order is not the server's)."""
    server = recording["about"]["server"]
    convert = RECORDED[server]
    calls = [convert(entry) for entry in case.get("engine", []) if not entry.get("builder_error")
             and not entry.get("engine_error") and not entry.get("decode_error")]
    return sorted(calls, key=lambda c: c.call)
