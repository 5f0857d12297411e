"""The seed's KV-capacity table, recommendations, and the advice in every scan."""

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

import degen
from degen.present.advice import advise
from degen.capacity import FIT_HEADROOM, MODELS, kv_capacity, plan
from degen.cli import main
from degen.errors import ConfigError

from .conftest import FIXTURES


@pytest.mark.parametrize("gpu, fraction, expected_k, oom", [
    (16, 0.80, 92.7, None), (24, 0.55, 96.4, False), (24, 0.60, 107.7, False), (24, 0.80, 152.6, True)])
def test_seed_table(gpu, fraction, expected_k, oom):
    p = plan(gpu, fraction=fraction)
    assert p.bytes_per_token == 114688
    assert round(p.kv_capacity / 1000, 1) == expected_k
    if oom is not None:
        assert p.oom_risk == oom


@pytest.mark.parametrize("minutes", [50, 55, 60])
def test_32768_is_recommended_for_50_to_60_minutes(minutes):
    assert plan(24, audio_minutes=minutes).max_new_tokens == 32768


def test_60_minutes_with_49152_does_not_fit_16_gib_at_080():
    p = plan(16, fraction=0.80, audio_minutes=60, max_new_tokens=49152)
    assert p.fits is False and any("97392" in n for n in p.notes)
    assert plan(16, fraction=0.80, audio_minutes=60, max_new_tokens=32768).fits


def test_24_gib_recommendation_matches_the_seed():
    assert plan(24, audio_minutes=60).fraction == 0.55
    assert not plan(24, audio_minutes=60).oom_risk


def test_custom_and_unknown_models():
    p = plan(80, "mine", layers=28, kv_heads=8, head_dim=128, dtype="bf16", weights_gib=1.6)
    assert p.bytes_per_token == 114688
    with pytest.raises(ConfigError):
        plan(24, "mystery")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(MODELS)), st.floats(8, 192), st.floats(0.2, 0.9), st.floats(0.01, 0.09))
def test_capacity_grows_with_fraction_and_memory(model, gpu, fraction, step):
    spec = MODELS[model]
    assert kv_capacity(spec, gpu, fraction + step) >= kv_capacity(spec, gpu, fraction)
    assert kv_capacity(spec, gpu * 1.5, fraction) >= kv_capacity(spec, gpu, fraction)


@settings(max_examples=200, deadline=None)
@given(st.floats(24, 192), st.floats(1, 90))
def test_a_recommended_configuration_fits_its_inputs(gpu, minutes):
    p = plan(gpu, audio_minutes=minutes)
    if not p.notes:  # no conflict was reported
        assert p.fits and not p.output_cut and not p.oom_risk


@pytest.mark.parametrize("name, phrase", [
    ("loops/zh_char.json", "temperature 0.1"),
    ("loops/en_segments.json", "degen fix"),
    ("loops/en_truncated.json", "max_new_tokens"),
    ("loops/zh_dense.json", "timing"),
])
def test_advice_for_each_finding_kind(name, phrase):
    report = degen.scan(FIXTURES / "shapes" / name)
    assert any(phrase in a for a in report.advice)


def test_advice_with_gpu_memory_gives_numbers():
    report = degen.scan(FIXTURES / "shapes" / "loops" / "en_truncated.json")
    (text,) = [a for a in advise(report, gpu_mem=24) if "max_new_tokens" in a]
    assert "KV capacity" in text
    result = CliRunner().invoke(main, ["scan", "--json", "--gpu-mem", "24",
                                       str(FIXTURES / "shapes" / "loops" / "en_truncated.json")])
    assert any("KV capacity" in a for a in json.loads(result.output)["advice"])


def test_plan_command():
    result = CliRunner().invoke(main, ["plan", "--gpu-mem", "24", "--fraction", "0.8", "--json"])
    data = json.loads(result.output)
    assert data["oom_risk"] and round(data["kv_capacity"], -2) == 152600
    assert result.exit_code == 1 and data["problems"] == ["oom_risk"]  # a problem found, as scan's 1
    assert "OOM" in CliRunner().invoke(main, ["plan", "--gpu-mem", "24", "--fraction", "0.8"]).output
    fine = CliRunner().invoke(main, ["plan", "--gpu-mem", "24GB", "--audio-minutes", "60", "--json"])
    assert fine.exit_code == 0 and json.loads(fine.output)["problems"] == []


@pytest.mark.parametrize("args, problem", [
    (["--audio-minutes", "600"], "does_not_fit"), (["--audio-minutes", "90", "--max-new-tokens", "16384"], "output_cut"),
])
def test_plan_exits_1_when_the_settings_do_not_hold_the_recording(args, problem):
    result = CliRunner().invoke(main, ["plan", "--gpu-mem", "24", "--json", *args])
    assert result.exit_code == 1 and problem in json.loads(result.output)["problems"]


@pytest.mark.parametrize("gpu", [16, 24, 40, 80])
def test_what_a_note_says_is_needed_agrees_with_the_fits_line(gpu):
    """At 24 GiB and 90 min the plan said "fits yes" at 0.73, then that 90 min "needs 0.80":
    a note that a longer recording needs more than is recommended is given only when the
    recommendation leaves less than the headroom it asks for (or fits only by cutting the output)."""
    for minutes in range(61, 241, 3):
        p = plan(gpu, audio_minutes=minutes)
        above = [n for n in p.notes if "above" in n and "largest clear of OOM" in n]
        if above:
            # the need counts the whole output cap; a plan that fits by a smaller cap cuts the output
            assert not p.fits or p.spare < FIT_HEADROOM - 1 or p.output_cut, (minutes, p.spare, above)
        elif p.fits:
            assert p.spare >= FIT_HEADROOM - 1 or p.max_new_tokens_recommended, (minutes, p.spare)


def test_16_gib_recommends_the_seeds_measured_080_without_an_oom_label():
    from degen.capacity import render
    p = plan(16)
    assert p.fraction == 0.80 and p.fraction_recommended and not p.oom_risk
    assert "without OOM" in p.measured and any("24 GiB card" in n for n in p.notes)
    text = render(p)
    assert "OOM risk" not in text and "(recommended)" in text and "24 GiB card" in text


@pytest.mark.parametrize("minutes", [None, 10, 30, 50, 60])
def test_24_gib_gives_one_answer_up_to_60_minutes(minutes):
    p = plan(24, audio_minutes=minutes)
    assert p.fraction == 0.55 and not any("longer than" in n for n in p.notes)


def test_longer_audio_changes_the_answer_and_says_why():
    p = plan(24, audio_minutes=90)
    assert p.fraction > 0.55 and any("holding 90 min with 10% headroom needs fraction 0.80" in n for n in p.notes)
    assert p.fits and not p.output_cut and not p.oom_risk
    p = plan(24, audio_minutes=70)
    assert p.fraction > 0.55 and any("70 min is longer than the 60 min" in n for n in p.notes)
    assert p.spare >= 0.10


@settings(max_examples=300, deadline=None)
@given(st.floats(9.3, 192), st.one_of(st.none(), st.floats(1, 240)), st.sampled_from(sorted(MODELS)))
def test_a_recommendation_is_never_labelled_oom_risk(gpu, minutes, model):
    from degen.capacity import render
    try:
        p = plan(gpu, model, audio_minutes=minutes)
    except ConfigError as exc:
        assert "too small" in str(exc)
        return
    assert not p.oom_risk
    assert not any("(recommended)" in line and "OOM risk" in line for line in render(p).splitlines())


def test_a_card_too_small_for_any_pool_is_an_error_naming_the_minimum():
    with pytest.raises(ConfigError, match=r"8 GiB is too small.*at least 9.2 GiB"):
        plan(8)
    result = CliRunner().invoke(main, ["plan", "--gpu-mem", "8"])
    assert result.exit_code == 2 and "at least 9.2 GiB" in result.output
    with pytest.raises(ConfigError, match="cannot even hold"):
        plan(24, fraction=0.1)


def test_capacity_errors_speak_in_library_terms():
    for call in (lambda: plan(24, "mystery"), lambda: plan(24, fraction=1.5), lambda: plan(-1)):
        with pytest.raises(ConfigError) as err:
            call()
        assert "--" not in str(err.value)


def test_advice_survives_a_card_too_small():
    report = degen.scan(FIXTURES / "shapes" / "loops" / "en_truncated.json")
    (text,) = [a for a in advise(report, gpu_mem=8) if "max_new_tokens" in a]
    assert "too small" in text
