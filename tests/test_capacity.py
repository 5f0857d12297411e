"""The seed's KV-capacity table, recommendations, and the advice in every scan."""

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

import degen
from degen.advice import advise
from degen.capacity import MODELS, kv_capacity, plan
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
    assert result.exit_code == 0 and data["oom_risk"] and round(data["kv_capacity"], -2) == 152600
    assert "OOM" in CliRunner().invoke(main, ["plan", "--gpu-mem", "24", "--fraction", "0.8"]).output
