"""What the clamp tasks share: the paper's instruction, the token estimate the example budget counts in, the room an
output gets, the few-shot options and their check, the two ways few-shot examples are picked (from one pool, or
from the other databases), and the completion-style instance and task every clamp task is."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from corral.retrieval import Example
from corral.tasks import PromptTemplate, Task, TaskInstance, TaskOption
from corral.verdicts import Verdict, Violation

__all__ = ["CHARS_PER_TOKEN", "INSTRUCTION", "check_counts", "count_tokens", "cross_database_shots", "max_tokens",
           "parse_instance", "parse_task", "pool_shots", "reads_as_one", "shot_options"]

INSTRUCTION = "Let's translate what a human user says into what a computer might say."
CHARS_PER_TOKEN = 3
"""The prompt budget counts tokens as characters / 3 (an English BPE averages about 4: the estimate errs long)."""


def count_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def max_tokens(gold: str) -> int:
    """Room for the gold output three times over, in estimated tokens: a constrained tree that is cut off is not a
    tree, and a small model nests deeper than the gold (SmolLM2 wrote a VP inside a VP for each of 45 words)."""
    return 3 * count_tokens(gold) + 64


def check_counts(name: str, shots: int, budget: int) -> None:
    if shots < 0 or budget < 0:
        raise ValueError(f"{name}: shots and budget must be at least 0, got {shots} and {budget}")


def shot_options(shots: int = 20, examples: str = "examples") -> tuple[TaskOption, ...]:
    """The few-shot options every clamp task has: up to ``shots`` of ``examples``, their token budget, the ranking."""
    return (
        TaskOption("shots", int, shots, f"few-shot {examples}, retrieved by BM25 (at most; the budget may drop some)"),
        TaskOption("budget", int, 1500, "prompt tokens the examples may take (estimated as characters / 3)"),
        TaskOption("retriever", str, "bm25", "how examples are ranked: BM25, or the cosine of the bundled model's "
                   "sentence embeddings (slow: about 0.13 s per example of the pool, once per run)",
                   choices=("bm25", "dense")),
    )


def parse_instance(id: str, text: str, gold: str, pairs: str, groups: Mapping[str, str], /,
                   **target: Any) -> TaskInstance:
    """One completion-style instance: the instruction, the few-shot ``pairs``, then ``Human: text`` and
    ``Computer:``; the target holds ``gold`` and whatever the grammar and quality read."""
    return TaskInstance(id=id, prompt=f"{INSTRUCTION}\n\n{pairs}Human: {text}\nComputer:",
                        target={"gold": gold, **target}, groups=dict(groups), max_tokens=max_tokens(gold),
                        reference=gold)


def reads_as_one(rule: str, what: str, read: Callable[[str], object],
                 error: type[Exception]) -> Callable[[TaskInstance, str], Verdict[dict[str, Any]]]:
    """A well-formedness check: the answer passes when ``read`` reads it whole; else one ``rule`` violation saying
    it is not one ``what``, with the reader's own message (which names the place)."""
    def check(instance: TaskInstance, answer: str) -> Verdict[dict[str, Any]]:
        try:
            read(answer)
            found: list[Violation] = []
        except error as exc:
            found = [Violation(rule, f"The answer is not one {what}: {exc}.", seen=answer[:60])]
        return Verdict.of(found, detail={"well_formed": not found})

    check.__doc__ = f"Well-formed: the answer reads as one {what}."
    return check


def parse_task(name: str, version: str, instances: Callable[[], Iterator[TaskInstance]],
               check: Callable[[TaskInstance, str], Verdict[Any]], grammar: Callable[[TaskInstance], Any],
               quality: Callable[[TaskInstance, str], dict[str, float]], description: str) -> Task:
    """A clamp task: the answer is the first line the model writes after ``Computer:`` (it stops at the next
    ``Human:``)."""
    return Task(name=name, version=version, instances=instances, check=check, grammar=grammar,
                template=PromptTemplate(), extract="first_line", quality=quality, stop=("\nHuman:",),
                options={"stop": ["\nHuman:"]}, description=description)


class _SqlExample(Example, Protocol):
    """A retriever's example that names its database."""

    @property
    def db_id(self) -> str: ...


E = TypeVar("E", bound=Example)
S = TypeVar("S", bound=_SqlExample)


def pool_shots(pool: Sequence[E], items: Sequence[E], shots: int, budget: int, method: str,
               render: Callable[[E], str]) -> Iterator[tuple[E, str]]:
    """Each of ``items`` with its few-shot block: up to ``shots`` examples of ``pool`` ranked by ``method`` against
    its words (never itself), best match last, within ``budget`` tokens, each written by ``render``."""
    from corral.retrieval import Retriever

    retriever = Retriever(pool, method) if shots > 0 else None
    for item in items:
        picked = retriever.select(item.words, k=shots, budget_tokens=budget, count_tokens=count_tokens,
                                  render=render, exclude_id=item.id) if retriever is not None else []
        yield item, "".join(render(shot) for shot in picked)


def cross_database_shots(items: Sequence[S], shots: int, budget: int, method: str,
                         render: Callable[[S], str]) -> Iterator[tuple[S, str]]:
    """Each item with its few-shot block: up to ``shots`` items of the *other* databases (a text-to-SQL example over
    the same tables would hand the model the names), ranked by ``method`` against its words, best match last,
    within ``budget`` tokens, each written by ``render``."""
    from corral.retrieval import Retriever

    retrievers: dict[str, Retriever] = {}
    for item in items:
        picked: list[S] = []
        if shots > 0:
            if item.db_id not in retrievers:
                retrievers[item.db_id] = Retriever([x for x in items if x.db_id != item.db_id], method)
            picked = retrievers[item.db_id].select(item.words, k=shots, budget_tokens=budget,
                                                   count_tokens=count_tokens, render=render)
        yield item, "".join(render(shot) for shot in picked)
