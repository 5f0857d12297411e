"""degen plan never recommends or accepts settings the KV pool cannot hold without saying so,
and its errors name the real cause."""

from click.testing import CliRunner

from degen.cli import main


def plan(*args):
    return CliRunner().invoke(main, ["plan", *map(str, args)])


def test_max_new_tokens_over_the_pool_is_warned_without_audio_minutes():
    result = plan("--gpu-mem", 24, "--max-new-tokens", 200_000)  # KV capacity 136,876
    assert "note" in result.output and "KV capacity" in result.output, result.output


def test_a_pool_of_a_few_tokens_is_not_recommended_silently():
    result = plan("--gpu-mem", 80, "--layers", 1000, "--kv-heads", 1000, "--head-dim", 1000)  # 18 tokens
    assert result.exit_code == 2 or "note" in result.output, result.output


def test_weights_larger_than_the_card_do_not_ask_for_a_larger_fraction():
    result = plan("--gpu-mem", 24, "--weights-gib", 1000)
    assert result.exit_code == 2 and "raise the fraction" not in result.output, result.output
