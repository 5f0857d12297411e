"""degen against the recorded real servers (fixtures/servers, replayed by
``TestServer(dialect=...)``): each is identified from what it says about itself, spoken to
in its own fields, never sent a knob its recording shows it drops, and its report names the
knobs applied. vLLM's token cap and seed are applied; an unknown server's penalty is probed
before a step relies on it."""

import orjson
import pytest
from click.testing import CliRunner

import degen
from degen.cli import main
from degen.repair.client import HttpTranscriber, Request
from degen.repair.journal import Journal
from degen.testing import Session, TestServer
from degen.testing.dialect_servers import recorded_calls
from degen.testing.dialects import DIALECTS, load

from ..conftest import FIXTURES

SEED = FIXTURES / "seed"
RECORDED = [name for name, (_, stem) in DIALECTS.items() if "transcriptions" in load(stem)]
KIND = {"sglang-omni-0.1.9-moss": "sglang-omni-moss", "sglang-omni-0.1.9-whisper": "sglang-omni-whisper",
        "vllm-0.32": "vllm", "faster-whisper-server-0.0.3": "faster-whisper-server", "whisper-cpp": "whisper.cpp"}
# A form field and the engine-call attribute it sets, as the recordings log the calls.
ATTRIBUTE = {"temperature": ("temperature", float), "repetition_penalty": ("repetition_penalty", float),
             "max_new_tokens": ("max_tokens", int), "max_completion_tokens": ("max_tokens", int),
             "max_tokens": ("max_tokens", int), "seed": ("seed", int), "language": ("language", str),
             "top_p": ("top_p", float), "top_k": ("top_k", int)}
LANGUAGE_NAMES = {"en": "english", "zh": "chinese", "de": "german"}


def reaching(recording) -> set[str]:
    """The fields a recorded server passes to its model: those some answered request set
    on every engine call it made (from the recording alone, not from degen's profiles)."""
    out = set()
    for case in recording["transcriptions"]:
        calls = [c for c in recorded_calls(recording, case) if c.call != "language detection"]
        for name, value in case["request"]["fields"].items():
            if case["status"] == 200 and name in ATTRIBUTE and calls:
                attr, kind = ATTRIBUTE[name]
                want = {kind(value), LANGUAGE_NAMES.get(value)} if name == "language" else {kind(value)}
                if all(getattr(c, attr) in want for c in calls):
                    out.add(name)
    return out


def truth_of(result):
    """Every span placed, against what was said there: (placed texts, true texts)."""
    truth = degen.read(SEED / "clean.json")
    for o in result.outcomes:
        if o.placed is not None:
            said = [s.text for s in truth if o.rs.core.start <= (s.span.start + s.span.end) / 2 <= o.rs.core.end]
            yield [s.text.strip() for s in o.placed.segments], said


def session(seed_samples, loop_probability=1.0, seed=0):
    return Session.load(SEED / "truth.json", *seed_samples, loop_probability=loop_probability, seed=seed)


def fix(server, seed_audio, **kw):
    return degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url, **kw)


# --- who is it ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dialect, version", [("sglang-omni-0.1.9-moss", "0.1.9"), ("sglang-omni-0.1.9-whisper", "0.1.9"),
                                              ("vllm-0.32", "0.32.0"), ("faster-whisper-server-0.0.3", "0.0.3"),
                                              ("whisper-cpp", None)])
def test_each_recorded_server_is_identified_from_what_it_says(make_server, dialect, version):
    server = make_server(dialect=dialect)
    found = HttpTranscriber(server.url).server
    assert (found.kind, found.version) == (KIND[dialect], version) and found.confident
    assert server.stats.transcriptions == 0  # found from GETs alone


def test_the_contract_server_is_a_guess_and_an_unlisted_model_is_unknown(make_server):
    guess = HttpTranscriber(make_server().url).server
    assert guess.kind == "sglang-omni-moss" and "a guess" in guess.found_by and not guess.confident
    assert make_server().stats.requests == 0
    unknown = HttpTranscriber(make_server(model_id="whisper-1").url).server
    assert unknown.kind == "unknown" and unknown.relies("repetition_penalty") is None


def test_server_kind_overrides_detection(make_server, seed_audio, tmp_path):
    server = make_server(dialect="sglang-omni-0.1.9-moss")
    forced = HttpTranscriber(server.url, server_kind="faster-whisper-server")
    assert forced.server.kind == "faster-whisper-server" and forced.server.found_by == "--server-kind"
    report = tmp_path / "r.json"
    run = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--server",
                                    server.url, "--server-kind", "faster-whisper-server", "--out",
                                    str(tmp_path / "o.json"), "--report", str(report)])
    assert run.exit_code in (0, 1), run.output
    (entry,) = orjson.loads(report.read_bytes())["servers"]
    assert entry["kind"] == "faster-whisper-server" and entry["found_by"] == "--server-kind"
    assert not any("max_new_tokens" in form for form in server.stats.forms)  # its fields, not MOSS's
    bad = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--server",
                                    server.url, "--server-kind", "nosuch"])
    assert bad.exit_code == 2 and "nosuch" in bad.output
    with pytest.raises(degen.ConfigError, match="choose one of"):
        degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url, server_kind="nosuch")


def test_the_command_line_and_the_docs_list_every_profile():
    from degen.options import SERVER_KINDS
    from degen.repair.servers import KINDS, tables
    assert SERVER_KINDS == KINDS
    page = (FIXTURES.parent / "docs" / "servers.md").read_text(encoding="utf-8")
    generated = page.split("holds them equal -->\n", 1)[1].split("<!-- end of generated tables -->", 1)[0]
    assert generated == tables(), "docs/servers.md: paste degen.repair.servers.tables() between its markers"


# --- what it is sent ---------------------------------------------------------------------------

@pytest.mark.parametrize("dialect", RECORDED)
def test_no_step_sends_a_knob_the_server_drops(make_server, seed_audio, seed_samples, dialect):
    """Every step of the escalation runs (every answer loops): each field sent is one the
    recording shows reaching the model, and the report names exactly those as applied."""
    recording = load(DIALECTS[dialect][1])
    with TestServer(session(seed_samples), dialect=dialect) as server:
        result = fix(server, seed_audio)
    reach = reaching(recording)
    sent = {name for form in server.stats.forms for name in form} - {"response_format"}
    assert sent and sent <= reach, f"{dialect} drops {sorted(sent - reach)}"
    (entry,) = result.to_dict()["servers"]
    named = [*entry["applied"].values(), *(v.split(":")[0] for v in entry["sent_unused"].values())]
    assert set(", ".join(named).split(", ")) == sent  # MOSS reads the language, then only echoes it
    if "repetition_penalty" not in reach:  # the penalised steps ran without it, or not at all
        assert {s["step"] for s in entry["steps_skipped"]} == {"0.1/p1.1", "0.4/p1.1"}
        assert not any(a.step.repetition_penalty for o in result.outcomes for a in o.attempts)
    assert ("max_new_tokens" in reach) == ("max_new_tokens" in sent)  # a cap wherever one exists
    assert ("max_completion_tokens" in reach) == ("max_completion_tokens" in sent)


def test_whisper_cpp_is_sent_its_own_fields_and_its_fallback_is_off(make_server, seed_audio, seed_samples):
    recording = load("whisper-cpp-server-source")
    with TestServer(session(seed_samples), dialect="whisper-cpp") as server:
        result = fix(server, seed_audio)
    not_taken = {name.split(" ")[0] for name in recording["form"]["not taken"]}
    assert server.stats.forms and all(not set(form) & not_taken for form in server.stats.forms)
    assert all(form["temperature_inc"] == "0" for form in server.stats.forms)
    assert sorted(c.temperature for c in server.stats.calls) == sorted(float(f["temperature"])
                                                                       for f in server.stats.forms)  # no ladder
    assert result.to_dict()["servers"][0]["route"] == "/inference"


def test_vllm_applies_the_token_cap_to_every_request(seed_audio, seed_samples):
    """vLLM ignores max_new_tokens (its cap is 448 without max_completion_tokens): every
    request sends max_completion_tokens, it reaches the engine, and every looping answer
    stops there."""
    written = []

    class Measured:
        def __init__(self, inner):
            self.inner = inner

        def decode(self, samples, rate, temperature, cap, penalty=None, language=None):
            text = self.inner.decode(samples, rate, temperature, cap, penalty, language)
            from degen.testing.dialects import plain_text
            written.append((cap, len(plain_text(text, ""))))
            return text
    with TestServer(Measured(session(seed_samples)), dialect="vllm-0.32") as server:
        fix(server, seed_audio)
    caps = [int(f["max_completion_tokens"]) for f in server.stats.forms]
    assert caps and all("max_new_tokens" not in f for f in server.stats.forms)
    reached = [c.max_tokens for c in server.stats.calls if c.call != "language detection"]
    assert set(reached) <= {min(cap, 448) for cap in caps} and min(reached) < 448  # each 30 s chunk gets it
    assert all(length <= cap for cap, length in written)  # measured: no answer ran past its cap
    assert sum(length for _, length in written) < 0.6 * 448 * len(written)  # where 448 would have let loops run


def test_vllm_attempts_carry_recorded_seeds_that_repeat_a_run(make_server, seed_audio, seed_samples):
    runs = []
    for _ in range(2):
        journal = Journal(None, "")
        with TestServer(session(seed_samples), dialect="vllm-0.32") as server:
            result = fix(server, seed_audio, journal=journal)
        entries = [e for es in journal.done.values() for e in es]
        assert entries and all(e.seed is not None for e in entries)
        assert sorted(int(f["seed"]) for f in server.stats.forms) == sorted(e.seed for e in entries)
        assert len({e.seed for e in entries}) == len(entries)  # every attempt its own draw
        attempts = [a for o in result.to_dict()["edits"] for a in o["attempts"]] + \
            [a for o in result.outcomes for a in (x.to_dict() for x in o.attempts)]
        assert all("seed" in a for a in attempts)
        runs.append(sorted((e.span, e.attempt, e.seed, e.body) for e in entries))
    assert runs[0] == runs[1]  # the same inputs send the same seeds: the run repeats exactly
    moss = make_server(dialect="sglang-omni-0.1.9-moss")
    journal = Journal(None, "")
    fix(moss, seed_audio, journal=journal)
    assert all(e.seed is None for es in journal.done.values() for e in es)
    assert not any("seed" in form for form in moss.stats.forms)


def test_two_seeded_draws_of_one_step_are_two_witnesses():
    from degen.model import Segment, Span
    from degen.repair.decide import Heard, Tried, lines
    from degen.repair.evidence import EvidenceConfig, Verdict
    from degen.repair.policy import Step
    from degen.repair.result import Attempt
    from degen.repair.splice import Placed
    said = Placed((Segment(Span(0, 4), "S01", " ".join(["wait"] * 10)),), ())

    def tried(number, seed):
        attempt = Attempt(Step(0.1), Span(0, 4), "http://s", 64, Verdict(True, 0.0, "clean"), seed=seed)
        return Tried(number, attempt, said, "")
    assert len(lines((tried(1, None), tried(2, None)), Heard(), "wait", EvidenceConfig())) == 1
    assert len(lines((tried(1, 11), tried(2, 12)), Heard(), "wait", EvidenceConfig())) == 2


# --- an unknown server ------------------------------------------------------------------------

class Honouring:
    """A decoder whose loops the penalty breaks, greedy or not: without it the session
    loops, with it the answer is the clean one."""

    def __init__(self, looping, clean):
        self.looping, self.clean = looping, clean

    def decode(self, samples, rate, temperature, cap, penalty=None, language=None):
        if penalty:
            return self.clean.decode(samples, rate, max(temperature, 0.1), cap, penalty, language)
        return self.looping.decode(samples, rate, temperature, cap, penalty, language)


def test_an_unknown_server_is_probed_before_a_step_relies_on_the_penalty(seed_audio, seed_samples):
    with TestServer(session(seed_samples), model_id="whisper-1") as server:
        result = fix(server, seed_audio, concurrency=2)
    (entry,) = result.to_dict()["servers"]
    assert entry["kind"] == "unknown" and entry["probe"]["requests"] == 3
    assert "byte-identical" in entry["probe"]["repetition_penalty"]
    assert sum("repetition_penalty" in form for form in server.stats.forms) == 1  # the probe's own trial
    assert {s["step"] for s in entry["steps_skipped"]} == {"0.1/p1.1", "0.4/p1.1"}
    assert set(entry["assumed"]) >= {"token_cap", "temperature"}
    honouring = Honouring(session(seed_samples), session(seed_samples, loop_probability=0.0))
    with TestServer(honouring, model_id="whisper-1") as server:
        result = fix(server, seed_audio, concurrency=2)
    (entry,) = result.to_dict()["servers"]
    assert "differed" in entry["probe"]["repetition_penalty"] and entry["applied"]["repetition_penalty"]
    accepted = [a for o in result.outcomes for a in o.attempts if a.accepted]
    assert accepted and all(a.step.repetition_penalty == 1.1 for a in accepted)
    assert not entry["steps_skipped"]


# --- the targets: the recorded SGLang-Omni and vLLM ----------------------------------------------

@pytest.mark.parametrize("loop_probability", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("dialect", ["sglang-omni-0.1.9-moss", "sglang-omni-0.1.9-whisper", "vllm-0.32"])
def test_every_span_is_faithful_or_honestly_unresolved(seed_audio, seed_samples, tmp_path, dialect,
                                                       loop_probability):
    report = tmp_path / "r.json"
    with TestServer(session(seed_samples, loop_probability, seed=3), dialect=dialect) as server:
        run = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                        "--server", server.url, "--out", str(tmp_path / "o.json"),
                                        "--report", str(report)])
    doc = orjson.loads(report.read_bytes())
    for placed, said in truth_of_report(doc):
        assert placed == said
    assert run.exit_code == (1 if doc["unresolved"] else 0), run.output
    if loop_probability == 0.0:
        assert run.exit_code == 0  # nothing loops at a temperature: every span is repaired
    assert doc["servers"][0]["kind"] == KIND[dialect]


def truth_of_report(doc):
    truth = degen.read(SEED / "clean.json")
    for edit in doc["edits"]:
        said = [s.text for s in truth if edit["start"] <= (s.span.start + s.span.end) / 2 <= edit["end"]]
        yield [s["text"].strip() for s in edit["after"]], said


class Lenient:
    """A real model's recorded answers (``ReplayDecoder``); a request the recording never
    saw (a dialect cuts clips its own way: vLLM's 30 s chunks, SGLang-Omni Whisper's srt
    pieces) gets no answer, which the judge refuses as a deletion."""

    def __init__(self, path):
        from degen.testing.replay import ReplayDecoder
        self.replay, self.missed = ReplayDecoder(path), 0

    def decode(self, *args, **kw):
        try:
            return self.replay.decode(*args, **kw)
        except LookupError:
            self.missed += 1
            return None


@pytest.mark.parametrize("dialect", ["faster-whisper-server-0.0.3", "sglang-omni-0.1.9-whisper", "vllm-0.32"])
def test_real_english_loops_through_each_dialect_are_never_wrongly_repaired(dialect):
    """Whisper tiny.en's recorded loops and answers (fixtures/audio), through the servers'
    dialects: nothing the input had right is lost, no
    repetition is cut nor the text made worse, and a run that says every span was repaired
    (exit 0) is faithful to what was said."""
    from degen.testing.fidelity import judge
    audio = FIXTURES / "audio"
    (entry,) = [e for e in orjson.loads((audio / "recordings.json").read_bytes()).values() if e["model"] == "tiny.en"]
    text = lambda t: " ".join(s.text for s in t)  # noqa: E731
    with TestServer(Lenient(audio / entry["replay"]), dialect=dialect) as server:
        for name, files in entry["files"].items():
            greedy = degen.read(audio / files["greedy"])
            result = degen.fix(greedy, audio=audio / f"{name}.wav", transcriber=server.url)
            script, after = (audio / f"{name}.txt").read_text(), result.transcript
            loops = lambda t: [f.count for f in degen.scan(t).flagged if f.is_loop]  # noqa: E731
            verdict, was = (judge(script, text(greedy), text(t), loops(t)) for t in (after, greedy))
            assert not verdict.lost, f"{name}: lost {verdict.lost}"
            assert verdict.count >= min(was.count, 0.75 * verdict.real) and verdict.wer <= was.wer + 1e-9, name
            # (a repaired span may still look like a loop to scan: "wait" said ten times is
            # kept ten times; the judge below, which knows the script, says whether it is one)
            if not (result.unresolved or result.plan.unrepairable) and result.plan.spans:
                assert not verdict.looped and verdict.count_kept and verdict.wer <= 0.35, name
            if result.plan.spans:  # a clean recording contacts no server
                assert result.to_dict()["servers"][0]["kind"] == KIND[dialect]
