"""The runner: every instance an ``EvalSpec`` selects, ``samples`` seeded samples, free or constrained decoding, and up
to ``rounds`` feedback rounds, written to a resumable run directory.

Work is planned from what the run directory already holds, so running the same command again produces only
the missing records: a killed run resumes, and a finished run can be extended with more samples, rounds or
instances. Rounds go breadth-first (all first attempts, then the feedback round for those that failed), so
a local backend batches and a served one runs concurrently. Each batch's records are appended and flushed
as soon as they are checked. When generation is done, each sample's final output is scored under the same model
with no grammar (``_scoring``), for the fluency figures.

The ``rerank`` strategy (``_rerank``) decodes each constrained sample as k candidates and keeps the one the
unconstrained model finds most likely; the record keeps every candidate. The ``smc`` strategy asks the model for
sequential Monte Carlo over the grammar (``Sampling.particles``): a draw from the model's own distribution given
the grammar, where greedy masking walks into whatever the mask leaves open.

A constrained output cut off at its token budget is closed with its grammar's shortest completion when that adds
at most ``close_limit`` characters; the record keeps what was appended and the verdict on the model's own text,
and a closed output never counts as the model's pass (``SampleRecord.passed_as_written``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from corral.errors import InputError
from corral.files import MAX_RUN_FILE_BYTES, open_input, open_output, read_input_json, writing
from corral.grammars import DEFAULT_COMPILE_BUDGET, CompileBudget
from corral.jsonl import append_jsonl, atomic_write
from corral.models import Completion, Likelihood, Model, Request, parse_spec, score_texts
from corral.tasks import ReasoningSpec, Task, TaskInstance, get_task, select
from corral.text import Thought

from ._cache import ResponseCache
from ._chains import Chain
from ._fingerprint import grammar_fingerprint
from ._lock import LOCK_FILE, run_lock
from ._metrics import summarize
from ._records import (
    CONFIG_FILE,
    LIKELIHOODS_FILE,
    RECORDS_FILE,
    SUMMARY_FILE,
    Candidate,
    Rerank,
    RunConfig,
    RunError,
    SampleRecord,
    read_config,
    read_records,
)
from ._rerank import candidate_requests, choose_candidate
from ._scoring import score_finals
from ._served_plan import PLANNED_BACKENDS, compile_grammar, plan_served
from ._spec import CLOSE_LIMIT, Decoding, EvalSpec
from ._summary import Summary

ERRORS_FILE = "errors.jsonl"
RUNTIME_FILE = "runtime.json"
ROUND_SEED_STRIDE = 10007  # sample s in round r is seeded seed + s + 10007 * r: stable when n or R grow
# llamacpp decodes a call's samples together (bit for bit the replies it would write alone), but one chain at a
# time is its default: on the README job 8 chains saved 11% of the time and cost 33% more peak memory (1.37 GB
# against 1.04: the parked KV streams and the lexers of up to 8 grammars at once); --set batch_size=8 chooses speed
BATCH_SIZES = {"llamacpp": 1, "transformers": 8, "openai": 16}


@dataclass(frozen=True)
class _Work:
    instance: TaskInstance
    sample: int
    round: int
    messages: list[dict[str, str]]
    earlier_answers: tuple[str, ...] = ()  # this sample's answers in rounds before ``round``


# The repeat limit constrained decoding on a local model gets unless one is given: a grammar keeps every copy of a
# loop legal ("him him him him ..."), so a loop runs to the token budget; two copies in a row stay allowed.
CONSTRAINED_REPEAT_LIMIT = 2
_GUARDED_BACKENDS = ("llamacpp", "transformers")  # the backends that own the token loop the guard needs
SMC_BACKENDS = ("llamacpp",)  # the backends whose token loop runs particles (``Sampling.particles``)


def default_repeat_limit(decoding: Decoding, backend: str) -> int:
    """The repeat limit a run gets when its sampling leaves it open (None)."""
    return CONSTRAINED_REPEAT_LIMIT if decoding == "constrained" and backend in _GUARDED_BACKENDS else 0


@dataclass(frozen=True)
class RunPlan:
    """A run before it starts: its spec (one decoding), the task, the instances the spec selects, and the config
    the run stores (``config.json``). Planning checks everything that can fail before a model loads."""

    spec: EvalSpec
    task: Task
    instances: tuple[TaskInstance, ...]
    config: RunConfig


def plan_run(spec: EvalSpec, task: Task | None = None) -> RunPlan:
    """Plan the run ``spec`` describes: its task (``task``: the one ``spec.task`` names, already built, or one that
    is not registered; None: ``get_task(spec.task, **spec.task_options)``), the instances it selects, and the
    config with its identity hash (for a constrained run, one that names the grammar compiler).
    A ``ValueError`` for a spec of two decodings (``EvalSpec.runs`` splits it), a selection that matches nothing,
    a strategy the model cannot run, or ``reasoning: auto`` for a model whose chat template names no block.
    The task the plan holds carries the resolved reasoning block (``Task.reasoning``), from the spec or, when the
    spec declares none, the task's own."""
    from corral.version import __version__

    if spec.decoding == "both":
        raise ValueError("decoding 'both' is two runs: plan each of spec.runs()")
    task = task if task is not None else get_task(spec.task, **spec.task_options)
    backend, _ = parse_spec(spec.model)
    # the reasoning block, its tags fixed now (from the chat template for ``auto``): part of what a record means
    reasoning = (spec.reasoning.resolve(spec.model) if spec.reasoning is not None
                 else ReasoningSpec(**task.reasoning.to_json()) if task.reasoning is not None else None)
    task = dataclasses.replace(task, reasoning=reasoning.block() if reasoning is not None else None)
    if spec.strategy.kind == "smc" and backend not in SMC_BACKENDS:
        raise ValueError(f"strategy 'smc' runs its particles inside the model's token loop: a local llama.cpp model "
                         f"({', '.join(SMC_BACKENDS)}), not {backend}")
    chosen = tuple(select(task, spec.where, limit=spec.limit, per_group=spec.per_group))
    sampling = spec.sampling
    if sampling.repeat_limit is None:
        sampling = sampling.model_copy(update={"repeat_limit": default_repeat_limit(spec.decoding, backend)})
    settings = spec.strategy.model_dump(exclude={"kind"})  # rerank's k and temperature, smc's particles
    stored = {"k": "rerank_k", "temperature": "rerank_temperature", "particles": "particles"}  # RunConfig's names
    config = RunConfig(
        task=task.name, task_version=task.version, model=spec.model, backend=backend, base_url=spec.base_url,
        decoding=spec.decoding, sampling=sampling, feedback_template=task.template.refinement or task.template.feedback,
        extract=task.extract, task_options=dict(task.options), stop_on_repeat=task.stop_on_repeat,
        strategy=spec.strategy.kind, close_limit=spec.close_limit,
        grammar_fingerprint=grammar_fingerprint(_grammar_module(task)) if spec.decoding == "constrained" else "",
        reasoning=reasoning,
        samples=spec.samples, rounds=spec.rounds,
        selection={"filters": dict(spec.where), "limit": spec.limit,
                   "per_group": list(spec.per_group) if spec.per_group else None},
        instances=[inst.id for inst in chosen], corral_version=__version__,
        **{stored[key]: value for key, value in settings.items()}).with_hash()
    return RunPlan(spec, task, chosen, config)


def _grammar_module(task: Task) -> str | None:
    """The module of the task's grammar function (a ``functools.partial``'s function's)."""
    function = getattr(task.grammar, "func", task.grammar)
    return getattr(function, "__module__", None)


def evaluate(spec: EvalSpec | RunPlan, out: Path | str | None = None, *, model: Model | None = None,
             cache: ResponseCache | None = None,
             on_progress: Callable[[int, int, int], None] | None = None,
             on_plan: Callable[[str], None] | None = None) -> tuple[Path, Summary]:
    """Run (or resume, or extend) the evaluation ``spec`` describes (or a run already planned by ``plan_run``, as
    the command line does to check every run before any starts); returns the run directory and its summary.

    ``out``: the run directory (None: one named by the config under ``corral-runs/``). ``model``: a model already in
    memory to reuse (it must be the spec's; the caller closes it); None loads the spec's when the first generation
    needs it. ``cache``: the shared response cache (None: no cache). ``on_progress(done, total, passed)`` is called
    after each batch. ``on_plan(line)``: told a constrained run's grammar plan on a served model before it generates
    (``RunConfig.grammar_plan`` keeps it whole).
    """
    planned = spec if isinstance(spec, RunPlan) else plan_run(spec)
    run = Path(out) if out is not None else default_run_dir(planned.config)
    _refuse_foreign(run)  # before the lock, which would write into a directory that is not a run's
    with run_lock(run):  # one writer: a second run on this directory is refused while this one writes
        return _run(planned, run, model, cache, on_progress, on_plan)


def _run(planned: RunPlan, run: Path, loaded_model: Model | None, cache: ResponseCache | None,
         on_progress: Callable[[int, int, int], None] | None,
         on_plan: Callable[[str], None] | None = None) -> tuple[Path, dict[str, Any]]:
    task, config, chosen = planned.task, planned.config, planned.instances
    samples, rounds = config.samples, config.rounds
    done = _open_run(run, config)
    by_id = {inst.id: inst for inst in chosen}

    loaded: list[Model] = [loaded_model] if loaded_model is not None else []

    noted: list[bool] = []

    def the_model() -> Model:
        if not loaded:
            loaded.append(planned.spec.load_model())
        if not noted:  # the model is about to generate: say where (greedy outputs differ between CPU variants)
            _note_runtime(run, loaded[0])
            noted.append(True)
        return loaded[0]

    grammars: dict[str, tuple[Any, str | None]] = {}
    budget = CompileBudget(seconds=planned.spec.compile_seconds)  # each instance's grammar compile
    if config.decoding == "constrained" and config.backend in PLANNED_BACKENDS:  # what the server will enforce
        if not loaded:
            loaded.append(planned.spec.load_model())
        served = plan_served(task, chosen, loaded[0], grammars, budget)
        if served is not None:
            config = config.model_copy(update={"grammar_plan": served})
            _write_json(run / CONFIG_FILE, config.model_dump(mode="json"))
            if on_plan:
                on_plan(served["summary"])
    total = _expected(config, done)
    counted = [r for r in done.values() if r.instance in by_id and r.sample < samples and r.round <= rounds]
    progress = [len(counted), total, sum(r.passed for r in counted)]
    size = planned.spec.batch_size or BATCH_SIZES.get(config.backend, 8)
    if on_progress:
        on_progress(*progress)
    try:
        with open_output(run / RECORDS_FILE, append=True, within=run) as records_file:
            # chains (an instance's sample and its feedback rounds) a batch at a time, each batch to its last round:
            # a round's chat begins with the previous round's, and a local model continues from the context that
            # one left (llama.cpp: only the new turn is evaluated) when nothing ran in between
            chains = [(inst, s) for inst in chosen for s in range(samples)]
            for start in range(0, len(chains), size):
                for round_ in range(rounds + 1):
                    batch = [_Work(inst, s, round_, _messages(task, inst, done, s, round_),
                                   tuple(done[inst.id, s, q].answer for q in range(round_)))
                             for inst, s in chains[start:start + size]
                             if (inst.id, s, round_) not in done and _chain(config, done, inst.id, s).needs(round_)]
                    if not batch:
                        continue
                    records = _generate(task, config, batch, the_model, cache, grammars, run, budget)
                    for record in records:
                        append_jsonl(records_file, record.model_dump(mode="json"))
                        done[record.key] = record
                    progress[0] += len(records)
                    progress[2] += sum(r.passed for r in records)
                    # a chain that ends at round r (a pass, a repeat, a full context) needs no rounds r+1..R
                    progress[1] -= sum(rounds - r.round for r in records if r.ends_chain(config.stop_on_repeat))
                    if on_progress:
                        on_progress(*progress)
        score_finals(run, config, done, the_model, size)
    finally:
        if loaded and loaded_model is None:
            loaded[0].close()
    summary = summarize(config, done.values(), read_runtimes(run))
    _write_json(run / SUMMARY_FILE, summary.to_json())
    return run, summary


def read_runtimes(run: Path) -> list[str]:
    """Where the run's generations were computed (``runtime.json``), one entry per distinct runtime.

    The file is derived (the next generation rewrites it whole), so one that cannot be used is taken for none
    rather than stopping a run or a report: absent, garbage, the wrong type, or not a regular file of the run (a
    link, a FIFO, a device: refused by ``corral.files``, never followed or read)."""
    try:
        data = read_input_json(run / RUNTIME_FILE, MAX_RUN_FILE_BYTES, within=run)
    except InputError:
        return []
    return [item for item in data if isinstance(item, str)] if isinstance(data, list) else []


def _note_runtime(run: Path, model: Model) -> None:
    runtime = getattr(model, "runtime", "")
    known = read_runtimes(run)
    if runtime and runtime not in known:
        _write_json(run / RUNTIME_FILE, [*known, runtime])


def default_run_dir(config: RunConfig, root: Path = Path("corral-runs")) -> Path:
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in config.model)
    return root / f"{config.task}-{slug}-{config.decoding}-{config.hash[:8]}"


def _refuse_foreign(run: Path) -> None:
    """A ``RunError`` when ``run`` is a file, a non-empty directory that is not a run's, or a path the system
    refuses (a name too long, no permission to look)."""
    try:
        if run.exists() and not run.is_dir():
            raise RunError(f"--out {run} is a file, not a run directory")
        if (run.is_dir() and not os.path.lexists(run / CONFIG_FILE)
                and any(p.name != LOCK_FILE for p in run.iterdir())):
            raise RunError(f"--out {run} is not empty and is not a run directory (no {CONFIG_FILE})")
    except OSError as exc:
        raise RunError(f"--out {run}: cannot use it: {exc.strerror or exc}") from None


def _open_run(run: Path, config: RunConfig) -> dict[tuple[str, int, int], SampleRecord]:
    """Start or reopen ``run`` (checked by ``_refuse_foreign`` and created by its lock) for ``config``; the records
    it already holds, by key."""
    if os.path.lexists(run / CONFIG_FILE):  # a link in its place is refused by read_config, not replaced
        old = read_config(run)
        if old.decoding == config.decoding == "constrained" and old.grammar_fingerprint != config.grammar_fingerprint:
            raise RunError(f"{run} holds a constrained run whose grammars were compiled by another Corral "
                           f"(Corral {old.corral_version or 'unknown'}, grammar fingerprint "
                           f"{old.grammar_fingerprint or 'none'}; this is {config.corral_version}, "
                           f"{config.grammar_fingerprint}); its outputs would mix two compilers: choose another "
                           f"--out")
        if old.hash != config.hash:
            changed = [k for k in {**old.identity(), **config.identity()}
                       if old.identity().get(k) != config.identity().get(k)]
            raise RunError(f"{run} holds a run with another config (different {', '.join(changed)}); "
                           f"choose another --out, or rerun with the same settings to resume it")
    _write_json(run / CONFIG_FILE, config.model_dump(mode="json"))
    _drop_torn_tail(run / RECORDS_FILE)
    _drop_torn_tail(run / LIKELIHOODS_FILE)
    done: dict[tuple[str, int, int], SampleRecord] = {}
    for record in read_records(run):
        done.setdefault(record.key, record)
    return done


def _drop_torn_tail(path: Path) -> None:
    """A run killed mid-write leaves a partial last line: cut it so that appends start on a fresh line. The file is
    one of the run's own (``within``: not through a link, not a FIFO or a device), and only its tail is read."""
    if not os.path.lexists(path):
        return
    try:
        with open_input(path, within=path.parent) as stream:
            keep = _last_line_end(stream)
    except OSError as exc:
        raise RunError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if keep is not None:
        with open_output(path, append=True, within=path.parent) as stream, writing(path):
            os.ftruncate(stream.fileno(), keep)


def _last_line_end(stream: BinaryIO, block: int = 1 << 20) -> int | None:
    """The size of ``stream`` up to its last newline, or None when it is empty or ends with one."""
    end = stream.seek(0, os.SEEK_END)
    position = end
    while position > 0:
        start = max(0, position - block)
        stream.seek(start)
        data = stream.read(position - start)
        if position == end and data.endswith(b"\n"):
            return None
        found = data.rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return None if end == 0 else 0


def _chain(config: RunConfig, done: Mapping[tuple[str, int, int], SampleRecord], instance: str,
           sample: int) -> Chain:
    """The written rounds of one sample of the run."""
    rounds = {r: record for r in range(config.rounds + 1) if (record := done.get((instance, sample, r)))}
    return Chain(rounds, config.stop_on_repeat)


def _expected(config: RunConfig, done: Mapping[tuple[str, int, int], SampleRecord]) -> int:
    """Records the run will hold when finished, as far as known now (a chain's length depends on its passes)."""
    return sum(_chain(config, done, instance, s).expected(config.rounds)
               for instance in config.instances for s in range(config.samples))


def _messages(task: Task, instance: TaskInstance, done: Mapping[tuple[str, int, int], SampleRecord], sample: int,
              round_: int) -> list[dict[str, str]]:
    if round_ == 0:
        return [dict(m) for m in task.template.messages(instance)]
    previous = done[(instance.id, sample, round_ - 1)]
    if task.template.refinement is not None:
        return [dict(m) for m in task.template.refinement_messages(instance, previous.answer, previous.feedback)]
    return [*previous.messages, {"role": "assistant", "content": previous.output},
            dict(task.template.feedback_turn(instance, previous.feedback))]


def _generate(task: Task, config: RunConfig, batch: Sequence[_Work], the_model: Callable[[], Model],
              cache: ResponseCache | None, grammars: dict[str, tuple[Any, str | None]], run: Path,
              budget: CompileBudget = DEFAULT_COMPILE_BUDGET) -> list[SampleRecord]:
    """Complete and check one batch; failed generations go to errors.jsonl and are retried on the next run. Each
    instance's grammar is compiled once, within ``budget``: past it, or not expressible, the instance decodes freely
    and its records say why."""
    requests, fallbacks = [], []
    for item in batch:
        grammar, reason = None, None
        if config.decoding == "constrained":
            if item.instance.id not in grammars:
                grammars[item.instance.id] = compile_grammar(task, item.instance, budget)
            grammar, reason = grammars[item.instance.id]
        smc = config.strategy == "smc" and grammar is not None
        requests.append(Request(
            tuple(item.messages),  # type: ignore[arg-type]
            config.sampling.request(budget=item.instance.max_tokens, stop=task.stop,
                                    offset=item.sample + ROUND_SEED_STRIDE * item.round,
                                    particles=config.particles if smc else 0),
            grammar))
        fallbacks.append(reason)

    reranked = [config.strategy == "rerank" and request.grammar is not None for request in requests]
    plans = [candidate_requests(request, config.rerank_k, config.rerank_temperature) if rerank else [request]
             for request, rerank in zip(requests, reranked, strict=True)]
    flat, hits = _complete([r for plan in plans for r in plan], config, the_model, cache)

    records, errors = [], []
    position = 0
    for item, request, plan, rerank, reason in zip(batch, requests, plans, reranked, fallbacks, strict=True):
        got, was_cached = flat[position:position + len(plan)], all(hits[position:position + len(plan)])
        position += len(plan)
        failed = next((completion for completion in got if completion.finish_reason == "error"), None)
        if failed is not None:  # a reranked sample needs all its candidates: the next run retries it whole
            errors.append({"instance": item.instance.id, "sample": item.sample, "round": item.round,
                           "error": failed.error, "time": time.time()})
            continue
        completion, likelihood, candidates = got[0], got[0].likelihood, None
        if rerank:
            completion, likelihood, candidates = _rerank(the_model(), request, plan, got)
        appended = "" if _block_unclosed(task, completion) else _close_at_budget(request, completion,
                                                                                 config.close_limit)
        records.append(_record(task, config, item, completion, reason, was_cached, appended,
                               likelihood=None if appended else likelihood, rerank=candidates))
    if errors:
        with open_output(run / ERRORS_FILE, append=True, within=run) as f:
            for error in errors:
                append_jsonl(f, error)
    return records


def _complete(requests: Sequence[Request], config: RunConfig, the_model: Callable[[], Model],
              cache: ResponseCache | None) -> tuple[list[Completion], list[bool]]:
    """Every request's one completion, from the cache where it has them (and whether it did)."""
    completions: list[Completion | None] = [None] * len(requests)
    model_id = cache_model_id(config) if cache else ""
    keys = [ResponseCache.key(r, config.backend, model_id) for r in requests] if cache else []
    if cache is not None:
        completions = [cache.get(key) for key in keys]
    cached = [completion is not None for completion in completions]
    missing = [i for i, c in enumerate(completions) if c is None]
    if missing:
        results = the_model().complete([requests[i] for i in missing])
        for i, [completion] in zip(missing, results, strict=True):
            completions[i] = completion
            if cache is not None:
                cache.put(keys[i], completion)
    return completions, cached  # type: ignore[return-value]


def _rerank(model: Model, request: Request, plan: Sequence[Request], got: Sequence[Completion],
            ) -> tuple[Completion, Likelihood | None, Rerank]:
    """The candidate to keep (with the whole cost of the sample as its seconds), its likelihood, and the
    candidates as the record keeps them."""
    started = time.perf_counter()
    likelihoods = [completion.likelihood for completion in got]  # found while decoding, where the backend could
    if any(likelihood is None for likelihood in likelihoods):
        likelihoods = score_texts(model, [request] * len(got), [completion.text for completion in got])
    if all(likelihood is None for likelihood in likelihoods) and any(completion.text for completion in got):
        raise RunError(f"strategy 'rerank' needs a model that scores texts (llamacpp, transformers); "
                       f"{model.backend} model {model.name!r} does not")
    chosen = choose_candidate(got, likelihoods)
    seconds = sum(completion.seconds for completion in got) + time.perf_counter() - started
    candidates = Rerank(chosen=chosen, candidates=[
        Candidate(seed=candidate.sampling.seed, text=completion.text, finish_reason=completion.finish_reason,
                  completion_tokens=completion.completion_tokens, seconds=completion.seconds, likelihood=likelihood)
        for candidate, completion, likelihood in zip(plan, got, likelihoods, strict=True)])
    return dataclasses.replace(got[chosen], seconds=seconds), likelihoods[chosen], candidates


CLOSE_SECONDS = 2.0
CLOSE_NODES = 5_000
"""The closing search's budgets per cut-off output. A completion of at most ``close_limit`` characters is found in
milliseconds (a hint word, a period, closing brackets) or not at all: on the README main job's 12 cut-off outputs
2 s and 5,000 A* nodes closed the same 5 as 10 s and 500,000 nodes, in 18 s against 75 s, and kept the process
at 0.7 GB against 3.0 GB (each expanded node holds a copy of the grammar's matcher)."""


def _close_at_budget(request: Request, completion: Completion, limit: int = CLOSE_LIMIT) -> str:
    """The grammar's shortest completion of a constrained output cut off at its token budget, when it adds at most
    ``limit`` characters ("" if none is needed, none was found within the search's budgets, or it is longer): a
    model cut off one word short of a sentence's end gets its output parsed; one looping inside a recursive rule
    stays cut off and fails, rather than have the search write its answer."""
    if request.grammar is None or completion.finish_reason != "length" or limit <= 0:
        return ""
    from corral.grammars import shortest_completion

    grammar = request.grammar
    if completion.reasoning is not None:  # the server kept the block apart: the text is the answer alone
        grammar = dataclasses.replace(grammar, reasoning=None)
    found = shortest_completion(grammar, completion.text, seconds=CLOSE_SECONDS, max_nodes=CLOSE_NODES,
                                max_bytes=4 * limit) or ""
    return found if len(found) <= limit else ""


def _record(task: Task, config: RunConfig, item: _Work, completion: Completion, fallback: str | None,
            cached: bool, appended: str = "", likelihood: Likelihood | None = None,
            rerank: Rerank | None = None) -> SampleRecord:
    output = completion.text + appended
    judged = task.judge(item.instance, output, thought=_served(task, completion, output))
    decoding = config.decoding if fallback is None else "free-fallback"
    written = (task.judge(item.instance, completion.text, quality=False,
                          thought=_served(task, completion, completion.text)).verdict.passed if appended else None)
    thought = judged.thought
    return SampleRecord.judged(
        judged.verdict,
        instance=item.instance.id, sample=item.sample, round=item.round, groups=dict(item.instance.groups),
        messages=item.messages, output=output, answer=judged.answer, decoding=decoding, fallback_reason=fallback,
        finish_reason=completion.finish_reason, error=completion.error,
        prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
        seconds=completion.seconds, cached=cached, quality=judged.quality,
        repeated=judged.answer in item.earlier_answers,
        appended=appended, written_passed=written, likelihood=likelihood, rerank=rerank, replaced=completion.replaced,
        thinking=thought.thinking if thought else None, thinking_closed=thought.closed if thought else None,
        thinking_served=completion.reasoning is not None)


def _served(task: Task, completion: Completion, answer: str) -> Thought | None:
    """The thought of a reply whose server separated the reasoning block (``answer``: its text, with anything the
    runner appended), bounded as the task's block is; None for a reply that did not (``Task.judge`` splits it)."""
    if completion.reasoning is None:
        return None
    bound = task.reasoning.max_chars if task.reasoning is not None else None
    return Thought.served(completion.reasoning, answer, cut_off=completion.finish_reason == "length", max_chars=bound)


def _block_unclosed(task: Task, completion: Completion) -> bool:
    """Whether the output's reasoning block never closed within its bound: it has no answer, and the runner must
    not write one by closing it (``_close_at_budget``)."""
    served = _served(task, completion, completion.text)
    if served is not None:
        return not served.closed
    return task.reasoning is not None and not task.reasoning.split(completion.text).closed


def cache_model_id(config: RunConfig) -> str:
    """The model as the response cache knows it. A local llama.cpp model includes its CPU variant: variants' kernels
    round differently, so a response computed on one is not the answer another gives (CORRAL_LLAMA_CPU=skylakex
    must reproduce skylakex figures, not return what zen4 said)."""
    compiler = f"#grammars-{config.grammar_fingerprint}" if config.grammar_fingerprint else ""
    if config.base_url:
        return f"{config.model}@{config.base_url}{compiler}"
    if config.backend == "llamacpp":
        from corral.models import load_backends

        return f"{config.model}@llama.cpp-{load_backends().chosen}{compiler}"
    if config.backend == "transformers" and Path(config.model).expanduser().is_dir():
        from corral.models import fingerprint

        return f"{config.model}@{fingerprint(Path(config.model).expanduser())}{compiler}"  # retrained: another model
    return config.model + compiler


def _write_json(path: Path, data: Any) -> None:
    """Written whole or not at all (a temporary file renamed over the old one)."""
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
