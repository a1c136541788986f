"""What an evaluation is, as one value: ``EvalSpec``, written by hand, read from a YAML or JSON file, or built by
``corral eval`` from its flags.

Why a value: the runner, the command line, training and the benchmarks used to pass some twenty parameters each,
with their defaults and checks written again at every layer. The spec owns every default and every check (bounds
as in ``docs/hostile-input.md``; ``nan`` and ``inf`` refused), so a bad value is refused where it is written, with
the path of its field, before any task or model is loaded. What a run stores (``config.json``, a ``RunConfig``) is
made from the spec and the instances it selects (``corral.evaluation.plan_run``).

``SamplingConfig`` is the run's sampling; ``SamplingConfig.request`` is the one conversion to the model layer's
per-request ``corral.models.Sampling``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator, model_validator

from corral.errors import InputError
from corral.grammars import COMPILE_SECONDS, MAX_COMPILE_SECONDS
from corral.models import MAX_PARTICLES, Sampling
from corral.tasks import ReasoningSpec

MAX_SAMPLES = 10_000
"""The most samples per instance a run may ask for (pass@k is reported for k up to the samples)."""
MAX_ROUNDS = 100
"""The most feedback rounds a run may ask for."""
MAX_TOKENS = 131_072
"""The largest token budget: the longest context of the models Corral runs."""
MAX_INSTANCES = 10_000_000
"""The largest instance count a selection takes (a bound on a filter: larger is the same as all instances)."""
SEED_MAX = 2**32 - 1
"""Seeds are 32-bit (llama.cpp's sampler takes one)."""
MAX_REPEAT_LIMIT = 1_000
MAX_RERANK_K = 256
"""rerank: candidates per sample, each a whole constrained generation."""
MAX_CLOSE_LIMIT = 10_000
MAX_BATCH_SIZE = 4_096
CLOSE_LIMIT = 24
"""The most characters closing may add to a constrained output cut off at its token budget (a few words). A
cut-off output that needs more stays cut off and fails: closing that writes a paragraph writes the answer."""

Decoding = Literal["free", "constrained"]
"""How a run decodes: ``constrained`` compiles each instance's constraint into a grammar."""


class _Value(BaseModel):
    # frozen, no unknown fields, nan or inf refused: a ValidationError naming the field
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class SamplingConfig(_Value):
    """A run's sampling. ``max_tokens`` None: each instance's own budget (the task sizes it so outputs can finish).
    ``repeat_limit`` 0: off; k: a block may appear at most k times in a row (``corral.decoding.RepeatGuard``);
    None: the decoding's default, fixed when the run is planned (``plan_run``)."""

    temperature: float = Field(0.0, ge=0, le=2)
    top_p: float = Field(1.0, gt=0, le=1)
    max_tokens: int | None = Field(None, ge=1, le=MAX_TOKENS)
    seed: int = Field(0, ge=0, le=SEED_MAX)
    repeat_limit: int | None = Field(None, ge=0, le=MAX_REPEAT_LIMIT)

    def request(self, *, budget: int, stop: tuple[str, ...] = (), offset: int = 0, particles: int = 0) -> Sampling:
        """The model layer's sampling for one request: ``budget`` when the run leaves ``max_tokens`` open, the seed
        moved by ``offset`` (a sample's and a round's), and with ``particles`` >= 2 the sequential Monte Carlo the
        model runs over the grammar (top-p 1, and temperature 1 when the run's is greedy: the model's own
        distribution)."""
        smc = particles >= 2
        return Sampling(temperature=(self.temperature or SMC_TEMPERATURE) if smc else self.temperature,
                        top_p=1.0 if smc else self.top_p, max_tokens=self.max_tokens or budget, stop=stop,
                        seed=self.seed + offset, repeat_limit=self.repeat_limit or 0,
                        particles=particles if smc else 0)


SMC_TEMPERATURE = 1.0
"""The temperature of the ``smc`` strategy when the run's sampling is greedy (0): the model's own distribution."""


class GreedyStrategy(_Value):
    """Decode each sample once with the run's sampling (greedy at temperature 0)."""

    kind: Literal["greedy"] = "greedy"


class RerankStrategy(_Value):
    """Draw ``k`` constrained candidates per sample (the first as greedy would, the others at ``temperature``) and
    keep the one the unconstrained model finds most likely (``corral.evaluation._rerank``)."""

    kind: Literal["rerank"] = "rerank"
    k: int = Field(4, ge=1, le=MAX_RERANK_K)
    temperature: float = Field(0.7, gt=0, le=2)


class SmcStrategy(_Value):
    """Sequential Monte Carlo with ``particles`` constrained sequences: a draw from the model's distribution given
    the grammar, tempered at the run's temperature (1 when the run is greedy: the model's own;
    ``corral.models.Sampling.particles``; a local llama.cpp model)."""

    kind: Literal["smc"] = "smc"
    particles: int = Field(8, ge=2, le=MAX_PARTICLES)


DecodingStrategy = Annotated[GreedyStrategy | RerankStrategy | SmcStrategy, Field(discriminator="kind")]
"""How one constrained sample is decoded, a tagged value: ``{kind: rerank, k: 8}``, or its kind alone."""

class EvalSpec(_Value):
    """One evaluation: which task and instances, which model, how to decode, how far to go.

    ``decoding: both`` is two runs that share every other field, free and constrained (``runs``); the free one
    stays greedy. ``task_options`` are the task's ``-T`` options as text (the task's declaration converts them);
    ``where`` keeps instances whose group has one of the values, then ``per_group`` (``[structure, 3]``) the first
    N of each group, then ``limit`` the first N. ``samples``, ``rounds`` and the selection may grow when a run is
    resumed; the other fields are what a record means. ``batch_size`` None: the backend's (``BATCH_SIZES``).
    ``reasoning``: the block a reasoning model writes before its answer (``auto``: as its chat template says); the
    checker, the quality metrics and a constrained run's grammar then apply to the answer after it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, coerce_numbers_to_str=True)

    task: str = Field(min_length=1)
    task_options: dict[str, str] = Field(default_factory=dict)
    model: str = Field("smollm2", min_length=1)
    base_url: str | None = None
    model_options: dict[str, JsonValue] = Field(default_factory=dict)  # JSON data: nan and inf refused
    where: dict[str, Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]] = Field(
        default_factory=dict)
    limit: int | None = Field(None, ge=1, le=MAX_INSTANCES)
    per_group: tuple[Annotated[str, Field(min_length=1)], Annotated[int, Field(ge=1, le=MAX_INSTANCES)]] | None = None
    decoding: Literal["free", "constrained", "both"] = "free"
    strategy: DecodingStrategy = Field(default_factory=GreedyStrategy)
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    samples: int = Field(1, ge=1, le=MAX_SAMPLES)
    rounds: int = Field(0, ge=0, le=MAX_ROUNDS)
    batch_size: int | None = Field(None, ge=1, le=MAX_BATCH_SIZE)
    close_limit: int = Field(CLOSE_LIMIT, ge=0, le=MAX_CLOSE_LIMIT)
    # constrained: seconds one instance's grammar compile may take; past them the instance decodes freely, the reason
    # recorded (``corral.grammars.CompileBudget``)
    compile_seconds: float = Field(COMPILE_SECONDS, gt=0, le=MAX_COMPILE_SECONDS)
    reasoning: ReasoningSpec | None = None

    @field_validator("strategy", mode="before")
    @classmethod
    def _kind_alone(cls, value: Any) -> Any:
        if isinstance(value, dict) and "kind" not in value:
            raise ValueError("name the strategy's kind (greedy, rerank or smc) with its fields, e.g. {kind: rerank, "
                             "k: 8}, or --set strategy=rerank before --set strategy.k=8")
        return {"kind": value} if isinstance(value, str) else value

    @field_validator("task_options", mode="before")
    @classmethod
    def _options_as_text(cls, value: Any) -> Any:
        """A YAML ``shots: 3``, ``strict: true`` or ``kinds: [a, b]`` is the text ``-T`` would give (``a,b``)."""
        if isinstance(value, dict):
            return {key: str(v).lower() if isinstance(v, bool)
                    else ",".join(map(str, v)) if isinstance(v, list | tuple) else v for key, v in value.items()}
        return value

    @model_validator(mode="after")
    def _constrained_strategy(self) -> EvalSpec:
        if self.strategy.kind != "greedy" and self.decoding == "free":
            raise ValueError(f"strategy {self.strategy.kind!r} decodes constrained samples; use it with decoding "
                             f"'constrained' or 'both'")
        return self

    def runs(self) -> tuple[EvalSpec, ...]:
        """One spec per run: this one, or for ``decoding: both`` the free run (greedy) and the constrained one."""
        if self.decoding != "both":
            return (self,)
        return (self.model_copy(update={"decoding": "free", "strategy": GreedyStrategy()}),
                self.model_copy(update={"decoding": "constrained"}))

    def load_model(self) -> Any:
        """The spec's model, loaded with its options (and ``base_url``); the caller closes it."""
        from corral.models import load_model

        options = {**self.model_options, **({"base_url": self.base_url} if self.base_url is not None else {})}
        return load_model(self.model, **options)


class SpecError(InputError):
    """An evaluation spec that cannot be used: one line naming the file (or ``options``) and the field path."""


def parse_eval_spec(data: Any, where: str = "spec") -> EvalSpec:
    """``data`` (a mapping, as read from YAML or JSON) as an ``EvalSpec``, or a ``SpecError`` naming ``where`` and the
    first bad field's path (``spec: strategy.k: Input should be greater than or equal to 1``)."""
    try:
        return EvalSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(first["loc"])
        if loc[:1] == ["strategy"] and len(loc) > 2:  # the union's tag is not part of the path one writes
            del loc[1]
        field = ".".join(str(part) for part in loc) or "(top level)"
        message = first["msg"].removeprefix("Value error, ")
        value = first.get("input")
        if isinstance(value, str | int | float) and first["type"] != "missing":
            message += f", got {value!r}"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SpecError(f"{where}: {field}: {message}{more}") from None


def read_spec_file(path: Path | str) -> dict[str, Any]:
    """The mapping a spec file holds (YAML for ``.yaml``/``.yml``, else JSON), not yet validated: the command line
    lays its flags over it first. Read as the training configs are (``corral.schema.read_data_file``)."""
    from corral.schema import read_data_file

    try:
        data = read_data_file(path)
    except InputError as exc:
        raise SpecError(str(exc)) from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: (top level): an evaluation spec is a mapping of fields, got {type(data).__name__}")
    return data


def load_eval_spec(path: Path | str) -> EvalSpec:
    """A spec file (YAML or JSON), validated; errors name the file and the field path."""
    return parse_eval_spec(read_spec_file(path), str(path))
