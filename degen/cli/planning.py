"""``degen plan``: KV-cache capacity and server settings; no transcript, no numpy."""

from __future__ import annotations

import click

from .common import Finite

# capacity.MAX_GPU_GIB, kept literal: importing capacity here would load it for every command
# (tests/cli/test_cli_fuzz.py holds the two equal).
MAX_GPU_GIB = 100_000


@click.command("plan")
@click.option("--gpu-mem", type=Finite(0, min_open=True), required=True, metavar="GIB",
              help="GPU memory of the server's card.")
@click.option("--model", default="moss-transcribe-diarize", show_default=True,
              help="moss-transcribe-diarize, whisper-large-v3, or a name with --layers/--kv-heads/--head-dim.")
@click.option("--fraction", type=Finite(0, 1, min_open=True, max_open=True),
              help="mem-fraction-static; recommended when omitted.")
@click.option("--audio-minutes", type=Finite(0, min_open=True), help="Length of the recording.")
@click.option("--max-new-tokens", type=click.IntRange(1), help="Output cap per request; recommended when omitted.")
@click.option("--layers", type=click.IntRange(1))
@click.option("--kv-heads", type=click.IntRange(1))
@click.option("--head-dim", type=click.IntRange(1))
@click.option("--dtype", type=click.Choice(["bf16", "fp16", "fp32", "fp8", "int8"]))
# Bounded as --gpu-mem is: an absurd size is an argument error, not an overflow inside the arithmetic.
@click.option("--weights-gib", type=Finite(0, MAX_GPU_GIB))
@click.option("--overhead-gib", type=Finite(0, MAX_GPU_GIB))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plan_command(gpu_mem, model, fraction, audio_minutes, max_new_tokens, as_json, **overrides):
    """KV capacity, max_new_tokens and mem-fraction-static for an SGLang-Omni server."""
    import orjson
    from ..capacity import plan, render
    result = plan(gpu_mem, model, fraction=fraction, audio_minutes=audio_minutes, max_new_tokens=max_new_tokens,
                  **overrides)
    click.echo(orjson.dumps(result.to_dict()).decode() if as_json else render(result))
