"""``degen plan``: KV-cache capacity and server settings; no transcript, no numpy."""

from __future__ import annotations

import sys

import click

from .common import EXIT_CLEAN, EXIT_FOUND, MAX_GPU_GIB, Finite
from .help import Command, GiB

PLAN_EXAMPLES = (
    ("degen plan --gpu-mem 24 --audio-minutes 60", "Settings for an hour of audio on a 24 GiB card."),
    ("degen plan --gpu-mem 80GB --model whisper-large-v3 --json", "Another model, as JSON."),
    ("degen plan --gpu-mem 24 --model mine --layers 28 --kv-heads 8 --head-dim 128",
     "A model degen does not know, described by its architecture."),
)

# The models capacity.MODELS knows, kept literal for the same reason (tests/cli/test_cli_fuzz.py
# holds the two equal).
MODELS = ("moss-transcribe-diarize", "whisper-large-v3")


@click.command("plan", cls=Command, short_help="KV capacity and server settings for a GPU card; no transcript.",
               groups=(("Card and recording", ("gpu_mem", "audio_minutes", "fraction", "max_new_tokens")),
                       ("Model", ("model", "layers", "kv_heads", "head_dim", "dtype", "weights_gib", "overhead_gib")),
                       ("Output", ("as_json",))),
               examples=PLAN_EXAMPLES)
@click.option("--gpu-mem", type=GiB(MAX_GPU_GIB), required=True, metavar="GIB",
              help="GPU memory of the server's card: 24, 24GB or 24GiB.")
@click.option("--model", default=MODELS[0], show_default=True, metavar="NAME",
              help=f"{' or '.join(MODELS)}; any other name with --layers, --kv-heads and --head-dim.")
@click.option("--fraction", type=Finite(0, 1, min_open=True, max_open=True), metavar="F",
              help="mem-fraction-static to check; recommended when omitted.")
@click.option("--audio-minutes", type=Finite(0, min_open=True), metavar="MIN",
              help="Length of the recording (default: the 60 min the seed's settings hold).")
@click.option("--max-new-tokens", type=click.IntRange(1), metavar="N",
              help="Output cap per request; recommended when omitted.")
@click.option("--layers", type=click.IntRange(1), metavar="N", help="Decoder layers (overrides the model's).")
@click.option("--kv-heads", type=click.IntRange(1), metavar="N", help="Key/value attention heads per layer.")
@click.option("--head-dim", type=click.IntRange(1), metavar="N", help="Size of one attention head.")
@click.option("--dtype", type=click.Choice(["bf16", "fp16", "fp32", "fp8", "int8"]), help="KV cache data type.")
# Bounded as --gpu-mem is: an absurd size is an argument error, not an overflow inside the arithmetic.
@click.option("--weights-gib", type=Finite(0, MAX_GPU_GIB), metavar="GIB", help="GPU memory the weights take.")
@click.option("--overhead-gib", type=Finite(0, MAX_GPU_GIB), metavar="GIB",
              help="Fixed memory besides weights and KV pool (CUDA context, activations).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plan_command(gpu_mem, model, fraction, audio_minutes, max_new_tokens, as_json, **overrides):
    """KV capacity, max_new_tokens and mem-fraction-static for an SGLang-Omni server.

    Exits 0 when the settings hold the recording, 1 when they do not (an OOM risk, a
    recording that does not fit, or output that would be cut), 2 on bad arguments.
    """
    import orjson
    from ..capacity import plan, render
    result = plan(gpu_mem, model, fraction=fraction, audio_minutes=audio_minutes, max_new_tokens=max_new_tokens,
                  **overrides)
    click.echo(orjson.dumps(result.to_dict()).decode() if as_json else render(result))
    sys.exit(EXIT_FOUND if result.problems else EXIT_CLEAN)
