"""KV-capacity and max_new_tokens planning for SGLang-Omni (the first seed's arithmetic).

    bytes_per_token = 2 (K and V) x layers x kv_heads x head_dim x dtype_bytes
    kv_capacity     = (fraction x gpu_mem - weights - overhead) x 1024^3 / bytes_per_token
    needed          = audio_tokens_per_second x seconds + max_new_tokens  <=  kv_capacity
    peak memory     ~ fraction x gpu_mem + dynamic_overhead               <   gpu_mem

Every constant is named, sourced, and overridable.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from .errors import ConfigError

GIB = 1024 ** 3
DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "fp8": 1, "int8": 1}
# Headroom kept free beyond the estimated peak: a "24 GB" card reports 23.5 GiB to CUDA.
OOM_MARGIN_GIB = 1.0
FIT_HEADROOM = 1.10  # recommend a pool 10% larger than the recording strictly needs
# Without a recording's length, pools are sized for this long a recording: the seed's
# recommended default on 24 GiB (0.55) covers up to 60 min. Pool size costs no speed.
REFERENCE_MINUTES = 60
# Sanity bounds on inputs (also refuse inf and nan): far beyond any card or recording.
MAX_GPU_GIB = 100_000
MAX_AUDIO_MINUTES = 100_000
DEFAULT_MAX_NEW_TOKENS = 32768  # the seed's default: 2^15 covers 50-60 min of output
OUTPUT_MARGIN = 1.25  # max_new_tokens covers the expected output by this much


@dataclass(frozen=True)
class ModelSpec:
    """What the arithmetic needs to know about a served model.

    Sources: MOSS-Transcribe-Diarize numbers are the seed's (Qwen3 decoder, measured on a
    50-minute recording: 40,193 input tokens, 19,366 output tokens, ~5.3 GiB dynamic
    overhead at fraction 0.60 on a 24 GiB card). Whisper numbers are from its published
    architecture (decoder 32 layers, 20 heads of 64, 1,500 encoder frames per 30 s); its
    weights, overhead and output rate are estimates.
    """

    name: str
    layers: int
    kv_heads: int
    head_dim: int
    dtype: str = "bf16"
    weights_gib: float = 1.6
    overhead_gib: float = 1.3
    audio_tokens_per_second: float = 13.4
    output_tokens_per_second: float = 19366 / 3000
    dynamic_overhead_gib: float = 5.3

    @property
    def bytes_per_token(self) -> int:
        if self.dtype not in DTYPE_BYTES:
            raise ConfigError(f"unknown dtype {self.dtype!r}; use one of {', '.join(DTYPE_BYTES)}")
        return 2 * self.layers * self.kv_heads * self.head_dim * DTYPE_BYTES[self.dtype]


MODELS = {
    "moss-transcribe-diarize": ModelSpec("moss-transcribe-diarize", layers=28, kv_heads=8, head_dim=128),
    "whisper-large-v3": ModelSpec("whisper-large-v3", layers=32, kv_heads=20, head_dim=64, dtype="fp16",
                                  weights_gib=2.9, overhead_gib=1.3, audio_tokens_per_second=50.0,
                                  output_tokens_per_second=4.0, dynamic_overhead_gib=2.0),
}

# Configurations the seed ran, so that an estimate can be checked against what happened.
MEASURED = {
    (16.0, 0.80): "ran 50 min without OOM (RTX 5080 Laptop, 16 GiB)",
    (24.0, 0.55): "ran 50 min without OOM (RTX 4090D, 24 GiB)",
    (24.0, 0.60): "ran 50 min without OOM (RTX 4090D, 24 GiB)",
    (24.0, 0.80): "OOM during inference (RTX 4090D, 24 GiB)",
}


def kv_capacity(spec: ModelSpec, gpu_mem_gib: float, fraction: float) -> int:
    """Tokens the static KV pool holds (0 when the pool cannot even hold the weights)."""
    usable = fraction * gpu_mem_gib - spec.weights_gib - spec.overhead_gib
    return max(0, int(usable * GIB / spec.bytes_per_token))


def peak_gib(spec: ModelSpec, gpu_mem_gib: float, fraction: float) -> float:
    return fraction * gpu_mem_gib + spec.dynamic_overhead_gib


def measured(spec: ModelSpec, gpu_mem_gib: float, fraction: float) -> str | None:
    """What the seed saw for this exact configuration, if it ran it: its model with its
    own numbers (other weights or layers describe another model, which it never ran)."""
    if spec != MODELS["moss-transcribe-diarize"]:
        return None
    return MEASURED.get((float(gpu_mem_gib), round(fraction, 2)))


def oom_risk(spec: ModelSpec, gpu_mem_gib: float, fraction: float) -> bool:
    """A measurement wins over the estimate: the estimate's dynamic overhead was measured
    on one 24 GiB card, and the seed ran 16 GiB at 0.80 for 50 min without OOM."""
    seen = measured(spec, gpu_mem_gib, fraction)
    if seen is not None:
        return "without OOM" not in seen
    return peak_gib(spec, gpu_mem_gib, fraction) > gpu_mem_gib - OOM_MARGIN_GIB


def minimum_gpu_gib(spec: ModelSpec) -> float:
    """The smallest card with any KV pool clear of the estimated peak: weights, fixed
    overhead, dynamic overhead and the margin."""
    return spec.weights_gib + spec.overhead_gib + spec.dynamic_overhead_gib + OOM_MARGIN_GIB


@dataclass(frozen=True)
class CapacityPlan:
    model: str
    gpu_mem_gib: float
    fraction: float
    fraction_recommended: bool
    bytes_per_token: int
    kv_capacity: int
    max_new_tokens: int
    max_new_tokens_recommended: bool
    audio_minutes: float | None
    audio_tokens: int | None
    expected_output_tokens: int | None
    output_cut: bool | None
    fits: bool | None
    longest_audio_minutes: float
    peak_gib: float
    oom_risk: bool
    measured: str | None
    notes: tuple[str, ...]

    @property
    def spare(self) -> float | None:
        """The share of the KV pool left over once the recording and its output cap are in."""
        if self.audio_tokens is None:
            return None
        return self.kv_capacity / (self.audio_tokens + self.max_new_tokens) - 1

    @property
    def problems(self) -> tuple[str, ...]:
        """Why these settings do not serve the recording (empty when they do): ``degen plan``
        exits 1 for any, as ``degen scan`` does for a finding."""
        checks = (("oom_risk", self.oom_risk), ("does_not_fit", self.fits is False),
                  ("output_cut", bool(self.output_cut)), ("no_room_for_audio", self.longest_audio_minutes <= 0))
        return tuple(name for name, bad in checks if bad)

    def to_dict(self) -> dict:
        return {**asdict(self), "problems": list(self.problems)}


def largest_safe_fraction(spec: ModelSpec, gpu_mem_gib: float) -> float:
    """The largest fraction (in steps of 0.01) not at risk of OOM: clear of the estimated
    peak, or measured without OOM in the seed."""
    estimate = math.floor((gpu_mem_gib - OOM_MARGIN_GIB - spec.dynamic_overhead_gib) / gpu_mem_gib * 100) / 100
    seen = [f for (gpu, f), what in MEASURED.items()
            if gpu == float(gpu_mem_gib) and "without OOM" in what and measured(spec, gpu, f)]
    return max([estimate, *seen])


def fraction_for(spec: ModelSpec, gpu_mem_gib: float, tokens: int, step: float = 0.05) -> float:
    """The smallest fraction (in steps of ``step``) whose pool holds ``tokens`` with 10% headroom."""
    need_gib = tokens * FIT_HEADROOM * spec.bytes_per_token / GIB + spec.weights_gib + spec.overhead_gib
    return max(step, math.ceil(round(need_gib / gpu_mem_gib / step, 9)) * step)


def recommend_fraction(spec: ModelSpec, gpu_mem_gib: float, audio_minutes: float | None,
                       max_new_tokens: int | None) -> tuple[float, list[str]]:
    """One answer per card: the smallest fraction (steps of 0.05) whose pool holds the
    reference recording (``REFERENCE_MINUTES``) and its output cap with 10% headroom.
    A shorter recording gets the same answer; a longer one may raise it, and a note says
    why. Never above the largest fraction clear of OOM: then that one, with a note. A
    pool's size does not change decoding speed (seed: 199.9 s at both 0.55 and 0.60)."""
    safe = largest_safe_fraction(spec, gpu_mem_gib)
    reference = min(_fraction_holding(spec, gpu_mem_gib, REFERENCE_MINUTES, max_new_tokens), safe)
    if not audio_minutes or audio_minutes <= REFERENCE_MINUTES:
        wanted, minutes = reference, REFERENCE_MINUTES
    else:
        wanted, minutes = _fraction_holding(spec, gpu_mem_gib, audio_minutes, max_new_tokens), audio_minutes
    headroom = f"with {FIT_HEADROOM - 1:.0%} headroom"
    if wanted > safe:  # steps of 0.05 overshoot: the largest safe fraction may hold it all the same
        exact = _fraction_holding(spec, gpu_mem_gib, minutes, max_new_tokens, step=0.01)
        wanted = safe if exact <= safe else exact
    if wanted <= safe:
        longer = wanted > reference
        return min(wanted, 0.95), [f"{audio_minutes:g} min is longer than the {REFERENCE_MINUTES} min the default "
                                   f"({reference:.2f}) holds: holding it {headroom} needs {wanted:.2f}"] if longer else []
    # One note, not two that disagree: the fraction recommended is the one checked below.
    return safe, [f"holding {minutes:g} min {headroom} needs fraction {wanted:.2f}, above {safe:.2f}, the largest "
                  f"clear of OOM: recommending {safe:.2f} (whether the recording fits it is on the fits line); for "
                  f"more room use a bigger card, split the audio or lower max_new_tokens"]


def _fraction_holding(spec: ModelSpec, gpu_mem_gib: float, minutes: float, max_new_tokens: int | None,
                      step: float = 0.05) -> float:
    seconds = minutes * 60
    cap = max_new_tokens or output_cap(math.ceil(spec.output_tokens_per_second * seconds))
    return fraction_for(spec, gpu_mem_gib, math.ceil(spec.audio_tokens_per_second * seconds) + cap, step)


def output_cap(expected: int) -> int:
    """The seed's 32768 up to 60 min of output; beyond, a power of two covering the
    expected output by 25%."""
    return max(DEFAULT_MAX_NEW_TOKENS, 1 << math.ceil(math.log2(max(1, expected * OUTPUT_MARGIN))))


def recommend_max_new_tokens(spec: ModelSpec, expected: int | None, capacity: int, audio_tokens: int) -> int:
    """A power of two covering the expected output by 25%, within the KV capacity; when
    that power of two does not fit but the room left does cover the expected output,
    the room itself (in steps of 1024)."""
    target = int((expected or 0) * OUTPUT_MARGIN) or DEFAULT_MAX_NEW_TOKENS
    value = 1 << max(9, math.ceil(math.log2(target)))
    room = (capacity - audio_tokens) // 1024 * 1024
    if audio_tokens + value > capacity and expected and room >= expected:
        return room
    while value > 512 and audio_tokens + value > capacity:
        value //= 2
    return value


def plan(gpu_mem_gib: float, model: str | ModelSpec = "moss-transcribe-diarize", *, fraction: float | None = None,
         audio_minutes: float | None = None, max_new_tokens: int | None = None, **overrides) -> CapacityPlan:
    """The seed's arithmetic for one card, one model and optionally one recording.

    >>> p = plan(24, fraction=0.55)
    >>> round(p.kv_capacity / 1000, 1)
    96.4
    """
    spec = _spec(model, overrides)
    if not 0 < gpu_mem_gib <= MAX_GPU_GIB or (fraction is not None and not 0 < fraction < 1):
        raise ConfigError(f"the GPU memory must be between 0 and {MAX_GPU_GIB:g} GiB and the fraction between 0 "
                          f"and 1 (got {gpu_mem_gib!r} GiB, fraction {fraction!r})")
    if audio_minutes is not None and not 0 <= audio_minutes <= MAX_AUDIO_MINUTES:
        raise ConfigError(f"the audio length must be between 0 and {MAX_AUDIO_MINUTES:g} minutes "
                          f"(got {audio_minutes!r}); split longer recordings")
    _check_card(spec, gpu_mem_gib)
    seconds = audio_minutes * 60 if audio_minutes else None
    audio_tokens = math.ceil(spec.audio_tokens_per_second * seconds) if seconds else None
    expected = math.ceil(spec.output_tokens_per_second * seconds) if seconds else None
    notes: list[str] = []
    fraction_given = fraction is not None
    if not fraction_given:
        fraction, notes = recommend_fraction(spec, gpu_mem_gib, audio_minutes, max_new_tokens)
    capacity = kv_capacity(spec, gpu_mem_gib, fraction)
    if capacity == 0:
        raise ConfigError(f"at fraction {fraction:.2f} of {gpu_mem_gib:g} GiB the pool cannot even hold the weights "
                          f"and overhead ({spec.weights_gib + spec.overhead_gib:.1f} GiB): raise the fraction")
    tokens_given = max_new_tokens is not None
    if not tokens_given:
        max_new_tokens = recommend_max_new_tokens(spec, expected, capacity, audio_tokens or 0)
    room = capacity - max_new_tokens
    longest = max(0.0, room / spec.audio_tokens_per_second / 60)
    fits = None if audio_tokens is None else audio_tokens + max_new_tokens <= capacity
    if fits is False:
        notes.append(f"input {audio_tokens} + max_new_tokens {max_new_tokens} = {audio_tokens + max_new_tokens} "
                     f"> KV capacity {capacity}: expect OOM or a truncated transcript")
    if fits is None and room <= 0:  # no recording given: say so here, or the plan looks usable
        notes.append(f"max_new_tokens {max_new_tokens} leaves no room for audio in the KV capacity of {capacity} "
                     f"tokens: lower max_new_tokens or use a bigger card")
    cut = None if expected is None else expected > max_new_tokens
    if cut:
        notes.append(f"expected output {expected} tokens > max_new_tokens {max_new_tokens}: "
                     f"the transcript would be cut")
    risk = oom_risk(spec, gpu_mem_gib, fraction)
    seen = measured(spec, gpu_mem_gib, fraction)
    peak = peak_gib(spec, gpu_mem_gib, fraction)
    if risk:
        notes.append(f"OOM risk: estimated peak {peak:.1f} GiB (static {fraction * gpu_mem_gib:.1f} + dynamic "
                     f"{spec.dynamic_overhead_gib:.1f}) is near or over {gpu_mem_gib:g} GiB; lower the fraction")
    elif seen and peak > gpu_mem_gib - OOM_MARGIN_GIB:
        notes.append(f"the estimated peak {peak:.1f} GiB is over the card, but the seed ran this setting without OOM: "
                     f"the dynamic overhead ({spec.dynamic_overhead_gib:.1f} GiB) was measured on a 24 GiB card and "
                     f"overstates a smaller one")
    return CapacityPlan(spec.name, gpu_mem_gib, round(fraction, 2), not fraction_given, spec.bytes_per_token, capacity,
                        max_new_tokens, not tokens_given, audio_minutes, audio_tokens, expected, cut, fits,
                        round(longest, 1), round(peak, 2), risk, seen, tuple(notes))


def _check_card(spec: ModelSpec, gpu_mem_gib: float) -> None:
    """A card with no room for a KV pool clear of the estimated peak is an error, not a
    plan with capacity 0."""
    smallest = minimum_gpu_gib(spec)
    if gpu_mem_gib < smallest and not any(measured(spec, gpu_mem_gib, f) for f in (0.55, 0.60, 0.80)):
        raise ConfigError(f"{gpu_mem_gib:g} GiB is too small for {spec.name}: weights "
                          f"{spec.weights_gib:g} + overhead {spec.overhead_gib:g} + dynamic peak "
                          f"{spec.dynamic_overhead_gib:g} + margin {OOM_MARGIN_GIB:g} GiB leave no KV pool; "
                          f"it needs at least {math.ceil(smallest * 10) / 10:g} GiB")


def _spec(model: str | ModelSpec, overrides: dict) -> ModelSpec:
    if isinstance(model, ModelSpec):
        spec = model
    elif model in MODELS:
        spec = MODELS[model]
    else:
        required = ("layers", "kv_heads", "head_dim")
        if not all(overrides.get(k) for k in required):
            raise ConfigError(f"unknown model {model!r}: choose {', '.join(MODELS)} or give its layers, "
                              f"kv_heads and head_dim")
        spec = ModelSpec(model, **{k: overrides.pop(k) for k in required})
    changes = {k: v for k, v in overrides.items() if v is not None}
    return replace(spec, **changes) if changes else spec


def _fits(p: CapacityPlan) -> str:
    if not p.fits:
        return "NO"
    spare = p.spare or 0.0
    tight = f", under the {FIT_HEADROOM - 1:.0%} recommended" if spare < FIT_HEADROOM - 1 else ""
    return f"yes, {spare:.1%} of the pool to spare{tight}"


def render(p: CapacityPlan) -> str:
    """The plan for people. A recommended value is never at risk of OOM (recommendations
    stay clear of it), so "recommended" and "OOM risk" never label the same line."""
    tag = lambda given: " (recommended)" if given else ""
    peak_tag = " (OOM risk)" if p.oom_risk else ""
    lines = [
        f"model {p.model} on {p.gpu_mem_gib:g} GiB",
        f"  mem-fraction-static   {p.fraction:.2f}{tag(p.fraction_recommended)}",
        f"  bytes per token       {p.bytes_per_token:,}",
        f"  KV capacity           {p.kv_capacity:,} tokens",
        f"  max_new_tokens        {p.max_new_tokens:,}{tag(p.max_new_tokens_recommended)}",
        f"  longest audio         {p.longest_audio_minutes:.1f} min with that max_new_tokens",
        f"  estimated peak        {p.peak_gib:.1f} GiB{peak_tag} (dynamic part measured on a 24 GiB card)",
    ]
    if p.audio_minutes:
        lines += [f"  audio                 {p.audio_minutes:g} min = {p.audio_tokens:,} input tokens, "
                  f"~{p.expected_output_tokens:,} output tokens expected",
                  f"  fits                  {_fits(p)}; output cut: {'yes' if p.output_cut else 'no'}"]
    if p.measured:
        lines.append(f"  measured in the seed  {p.measured}")
    lines += [f"  note: {n}" for n in p.notes]
    return "\n".join(lines)
