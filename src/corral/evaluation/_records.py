"""What a run writes: its config, one record per generated sample, and a summary; all plain JSON.

A run is a directory::

    config.json       RunConfig: what produced the records (identity hash) and how far the run goes
    records.jsonl     one SampleRecord per (instance, sample, round), appended and flushed as produced
    likelihoods.jsonl the likelihood of each sample's final output under the model with no grammar, appended
                      when the run has finished generating; read_records puts each into its record
    summary.json      Summary: the metrics over the selected instances (corral.evaluation.summarize)

Records are pydantic models so that a run directory read back from disk is validated, and a bad line is
reported with its line number and field path rather than failing somewhere in a report.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from corral.errors import InputError
from corral.files import MAX_RUN_FILE_BYTES, read_input_bytes
from corral.jsonl import JsonlError, append_jsonl, enumerate_jsonl
from corral.models import MAX_PARTICLES, Likelihood
from corral.tasks import ReasoningSpec
from corral.verdicts import Verdict

from ._spec import (
    CLOSE_LIMIT,
    MAX_CLOSE_LIMIT,
    MAX_ROUNDS,
    MAX_SAMPLES,
    Decoding,
    RerankStrategy,
    SamplingConfig,
    SmcStrategy,
)

CONFIG_FILE = "config.json"
RECORDS_FILE = "records.jsonl"
LIKELIHOODS_FILE = "likelihoods.jsonl"
SUMMARY_FILE = "summary.json"

MAX_CONFIG_BYTES = MAX_RUN_FILE_BYTES
"""A run's config.json larger than this (64 MiB) is refused unread (it lists the selected instance ids)."""

Strategy = Literal["greedy", "rerank", "smc"]
"""How one sample is decoded, as a run stores it (the kind of the spec's ``DecodingStrategy``)."""

SampleDecoding = Literal["free", "constrained", "free-fallback"]
"""How one sample was decoded: ``free-fallback`` when the run is constrained but the instance's constraint is not
expressible as a grammar (the reason is in ``fallback_reason``)."""


class RunError(InputError):
    """A run directory cannot be used: unreadable, malformed, or made by another config. One line, with the path."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunConfig(_Frozen):
    """What produced a run, as ``config.json`` stores it: made by ``plan_run`` from an ``EvalSpec``, its task and the
    instances it selects. Its fields keep the names and defaults of the runs already stored, so that they resume.

    Identity fields (hashed into ``hash``) fix what a record means: task, model, decoding, sampling, templates.
    Extent fields (``samples``, ``rounds``, ``selection``) may grow when a run is resumed or extended, without
    redoing finished work.
    """

    task: str
    task_version: str
    model: str  # the spec given to load_model: smollm2, transformers:smollm2, openai:NAME
    backend: str
    base_url: str | None = None
    decoding: Decoding = "free"
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    feedback_template: str = ""
    extract: str = "whole"  # the answer-extraction policy: which part of the output is checked
    task_options: dict[str, Any] = Field(default_factory=dict)  # e.g. formatbench's checker_mode, template, shots
    stop_on_repeat: bool = False  # a feedback chain ends when the model repeats one of its earlier answers
    strategy: Strategy = "greedy"
    # the strategy's settings (``RerankStrategy``, ``SmcStrategy``); stored whatever the strategy, with its defaults
    rerank_k: int = RerankStrategy().k
    rerank_temperature: float = Field(RerankStrategy().temperature, gt=0, allow_inf_nan=False)
    particles: int = SmcStrategy().particles
    close_limit: int = Field(CLOSE_LIMIT, ge=0, le=MAX_CLOSE_LIMIT)  # constrained: characters closing may add
    # constrained: what compiled the grammars (Corral's version, the grammar compiler's sources, the mask engine);
    # ``corral.evaluation.grammar_fingerprint``. A run is never resumed by another compiler: its outputs would mix
    grammar_fingerprint: str = ""
    # constrained on a served model: what the server enforces (``corral.evaluation._served_plan``): its kind, the
    # summary line, and per instance enforced-as or checker-only-with-reason; not part of what a record means
    grammar_plan: dict[str, Any] | None = None
    # the reasoning block the model writes before its answer, resolved (tags and pre-fill fixed): what is checked
    reasoning: ReasoningSpec | None = None
    # extent (bounded: a config is read back from disk, and summaries and reports loop over these)
    samples: int = Field(1, ge=1, le=MAX_SAMPLES)
    rounds: int = Field(0, ge=0, le=MAX_ROUNDS)  # feedback rounds after the first attempt
    selection: dict[str, Any] = Field(default_factory=dict)  # filters: structures, sources, limit, per_group
    instances: list[str] = Field(default_factory=list)  # the selected instance ids, in order
    corral_version: str = ""
    hash: str = ""

    def identity(self) -> dict[str, Any]:
        """What a record means. Fields added after a version are included only when they differ from their default,
        so that the hash (and the directory name) of an earlier run stays the same."""
        core = self.model_dump(include={"task", "task_version", "model", "backend", "base_url", "decoding",
                                        "sampling", "feedback_template"})
        if not core["sampling"]["repeat_limit"]:
            del core["sampling"]["repeat_limit"]
        later = self.model_dump(include={"extract", "task_options", "stop_on_repeat", "strategy"})
        defaults = {"extract": "whole", "task_options": {}, "stop_on_repeat": False, "strategy": "greedy"}
        identity = core | {key: value for key, value in later.items() if value != defaults[key]}
        if self.strategy == "rerank":  # k and the temperature mean something only when reranking
            identity |= {"rerank_k": self.rerank_k, "rerank_temperature": self.rerank_temperature}
        if self.strategy == "smc":
            identity |= {"particles": self.particles}
        if self.decoding == "constrained" and self.grammar_fingerprint:  # what a constrained record means
            identity |= {"close_limit": self.close_limit, "grammar_fingerprint": self.grammar_fingerprint}
        if self.reasoning is not None:  # the answer is what follows the block: another run than without it
            identity |= {"reasoning": self.reasoning.model_dump(mode="json")}
        return identity

    def with_hash(self) -> RunConfig:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]
        return self.model_copy(update={"hash": digest})

    @model_validator(mode="after")
    def _rerank_settings(self) -> RunConfig:
        if self.rerank_k < 1 or self.rerank_temperature <= 0:
            raise ValueError(f"rerank_k must be >= 1 and rerank_temperature > 0, got {self.rerank_k} and "
                             f"{self.rerank_temperature}")
        if not 2 <= self.particles <= MAX_PARTICLES:
            raise ValueError(f"particles must be in 2..{MAX_PARTICLES}, got {self.particles}")
        if self.strategy in ("rerank", "smc") and self.decoding != "constrained":
            raise ValueError(f"strategy {self.strategy!r} decodes constrained samples; use it with decoding "
                             f"'constrained'")
        return self

    @property
    def label(self) -> str:
        """How reports name this run: model and decoding (and the strategy, when it is not the default, and the
        reasoning block, when there is one)."""
        thinking = ", thinking" if self.reasoning is not None else ""
        if self.strategy == "rerank":
            return f"{self.model} ({self.decoding}, rerank k={self.rerank_k}{thinking})"
        if self.strategy == "smc":  # its temperature when not the model's own (1, or the greedy run's default)
            tempered = f" T={self.sampling.temperature:g}" if self.sampling.temperature not in (0, 1) else ""
            return f"{self.model} ({self.decoding}, smc K={self.particles}{tempered}{thinking})"
        return f"{self.model} ({self.decoding}{thinking})"


class Candidate(_Frozen):
    """One of the constrained candidates the ``rerank`` strategy drew for a sample."""

    seed: int | None
    text: str
    finish_reason: Literal["stop", "length", "context", "error"]
    completion_tokens: int = 0
    seconds: float = 0.0
    likelihood: Likelihood | None = None  # under the model with no grammar


class Rerank(_Frozen):
    """The candidates of a reranked sample and which one became its output (``chosen``, an index)."""

    chosen: int
    candidates: list[Candidate]


class SampleRecord(_Frozen):
    """One generation and its verdict.

    ``sample`` is the i-th independent sample of the instance (seeded ``seed + sample + 10007 * round``);
    ``round`` 0 is the first attempt and round r > 0 answers the checker's feedback on round r - 1. A sample's
    rounds stop at its first pass (or as ``ends_chain`` says).
    """

    instance: str
    sample: int
    round: int
    groups: dict[str, str] = Field(default_factory=dict)  # breakdown keys, e.g. structure and source
    messages: list[dict[str, str]]  # the chat sent to the model
    output: str  # the model's text, then ``appended`` if any
    answer: str  # what was checked: the output after the task's answer-extraction policy
    passed: bool
    score: float  # graded, in [0, 1]: e.g. the share of rules met
    violations: list[dict[str, Any]] = Field(default_factory=list)  # the verdict's violations, whole
    detail: dict[str, Any] = Field(default_factory=dict)  # the checker's own evidence (COLLIE: per-part results)
    feedback: str = ""  # the checker's feedback ('' when passed)
    decoding: SampleDecoding = "free"
    fallback_reason: str | None = None
    finish_reason: Literal["stop", "length", "context", "error"] = "stop"
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    quality: dict[str, float] = Field(default_factory=dict)  # the task's quality metrics, if it has any
    repeated: bool = False  # the answer equals one this sample gave in an earlier round
    # text the runner added: the grammar's shortest completion of a constrained output cut off at its token budget
    # (at most the run's close_limit characters); the verdict above is on the output with it
    appended: str = ""
    # the checker's verdict on the model's own text, before ``appended`` (None when nothing was appended)
    written_passed: bool | None = None
    # the output's likelihood under the same model with no grammar (for a final output: see LIKELIHOODS_FILE)
    likelihood: Likelihood | None = None
    rerank: Rerank | None = None  # the candidates, when the run's strategy is rerank and the sample constrained
    replaced: int = 0  # characters of the model's output that could not be encoded, replaced by U+FFFD
    undecided: str | None = None  # why the checker could not decide (its budget ran out); the sample then fails
    # the reasoning block's text, when the run declares one or the server separated one (None: no block); ``answer``
    # is then taken from what follows the block, and ``output`` keeps the whole text
    thinking: str | None = None
    thinking_closed: bool | None = None  # False: the block never closed within its bound (no answer; failed)
    thinking_served: bool = False  # the server returned the block apart from ``output`` (reasoning_content)

    @model_validator(mode="before")
    @classmethod
    def _older_records(cls, data: Any) -> Any:
        """Records written before verdicts were one type kept COLLIE's per-part results as ``parts``."""
        if isinstance(data, dict) and "parts" in data:
            data = {**data, "detail": {"parts": data["parts"]}}
            del data["parts"]
        return data

    @classmethod
    def judged(cls, verdict: Verdict[Any], **fields: Any) -> SampleRecord:
        """A record carrying ``verdict`` whole: passed, score, violations, feedback and the checker's detail."""
        data = verdict.to_json()
        return cls(passed=verdict.passed, score=verdict.score, violations=data["violations"],
                   detail=data.get("detail", {}), feedback=verdict.feedback, undecided=verdict.undecided, **fields)

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.instance, self.sample, self.round)

    @property
    def empty(self) -> bool:
        return not self.answer.strip()

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def closed(self) -> bool:
        """Cut off at the budget, then closed by the runner's appended text."""
        return bool(self.appended)

    @property
    def passed_as_written(self) -> bool:
        """The model finished its output and the checker passed it: the model's pass, the headline. A cut-off output
        never counts, closed or not: its pass would rest on text the model did not write (or never finished)."""
        return self.passed and self.finish_reason != "length" and not self.appended

    @property
    def closing_changed_verdict(self) -> bool:
        """The appended text turned a failing output into a passing one (it supplied what the constraint requires)."""
        return self.written_passed is not None and self.passed != self.written_passed

    def ends_chain(self, stop_on_repeat: bool) -> bool:
        """Whether no feedback round follows this one: it passed, its prompt no longer fits the model's context,
        or (when the run stops on repeats) the model gave an answer it had given before (ReFF's refinement stops)."""
        return self.passed or self.finish_reason == "context" or (stop_on_repeat and self.repeated)


def read_config(run: Path) -> RunConfig:
    """The run's ``config.json``, validated: a regular file inside the run of at most ``MAX_CONFIG_BYTES`` (a link,
    a FIFO, a device or a directory in its place is refused, not followed or read), or a ``RunError`` naming it."""
    path = run / CONFIG_FILE
    if not os.path.lexists(path):
        raise RunError(f"{run} is not a run directory: it has no {CONFIG_FILE}")
    try:
        return RunConfig.model_validate_json(read_input_bytes(path, MAX_CONFIG_BYTES, within=run))
    except InputError as exc:
        raise RunError(str(exc)) from None
    except ValidationError as exc:
        raise RunError(f"{path}: {_first_error(exc)}") from None


def read_records(run: Path) -> list[SampleRecord]:
    """The run's records, in file order, each with its likelihood from ``likelihoods.jsonl`` where one was
    written for its output. A torn last line (the process was killed mid-write) is ignored; any other bad line is
    an error naming its line number and field."""
    records = _read_lines(run / RECORDS_FILE, SampleRecord)  # a cut-off last write: the runner redoes it
    return with_likelihoods(records, read_likelihoods(run))


_Line = TypeVar("_Line", bound=BaseModel)


def _read_lines(path: Path, model: type[_Line]) -> list[_Line]:
    """Each line of a JSONL file as ``model`` (none when the file is absent), a torn last line ignored; a bad
    line is a ``RunError`` naming its line number and field."""
    if not os.path.lexists(path):  # a link, even a dangling one, is refused below rather than taken for no file
        return []
    lines = []
    try:
        for number, row in enumerate_jsonl(path, torn_tail=True, within=path.parent):
            try:
                lines.append(model.model_validate(row))
            except ValidationError as exc:
                raise RunError(f"{path}:{number}: {_first_error(exc)}") from None
    except JsonlError as exc:
        raise RunError(str(exc)) from None
    return lines


class LikelihoodLine(_Frozen):
    """One line of ``likelihoods.jsonl``: the likelihood of a record's output, keyed by the record and a hash of
    the output, so that a line never lends its figure to a different output under the same key."""

    instance: str
    sample: int
    round: int
    output_sha256: str
    likelihood: Likelihood

    @classmethod
    def of(cls, record: SampleRecord, likelihood: Likelihood) -> LikelihoodLine:
        return cls(instance=record.instance, sample=record.sample, round=record.round,
                   output_sha256=output_hash(record.output), likelihood=likelihood)


def output_hash(output: str) -> str:
    return hashlib.sha256(output.encode("utf-8")).hexdigest()


def read_likelihoods(run: Path) -> list[LikelihoodLine]:
    """The lines of the run's ``likelihoods.jsonl`` (none when it has none), torn last line ignored."""
    return _read_lines(run / LIKELIHOODS_FILE, LikelihoodLine)


def with_likelihoods(records: Sequence[SampleRecord], lines: Iterable[LikelihoodLine]) -> list[SampleRecord]:
    """``records`` with each likelihood line put into the record it scored (same key and output); a record that
    already carries a likelihood keeps it."""
    found = {(line.instance, line.sample, line.round, line.output_sha256): line.likelihood for line in lines}
    if not found:
        return list(records)
    out = []
    for record in records:
        likelihood = None if record.likelihood is not None else found.get((*record.key, output_hash(record.output)))
        out.append(record if likelihood is None else record.model_copy(update={"likelihood": likelihood}))
    return out


def append_likelihoods(file: IO[str], lines: Iterable[LikelihoodLine]) -> None:
    for line in lines:
        append_jsonl(file, line.model_dump(mode="json"))


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "(top level)"
    return f"{where}: {error['msg']}"
