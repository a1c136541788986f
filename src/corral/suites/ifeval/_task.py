"""The ``ifeval`` task: IFEval's 540 prompts, each response judged strictly and loosely by Corral's checkers.

Each record's verdict is the chosen mode's prompt-level result (``mode``: strict by default, IFEval's headline)
with the strict check's violations as feedback; its detail holds both modes per instruction, and its quality the
statistics the summary turns into IFEval's four numbers: ``prompt_strict``, ``prompt_loose`` (means over prompts)
and ``instruction_strict``, ``instruction_loose`` (followed instructions over all instructions), and Corral's
``enforced_strict``: the same over the instructions the prompt's grammar enforces exactly (``exactly_enforced``),
which a constrained output the model finished follows every time.

A constrained run decodes each prompt under its grammar (``_grammar``): one regular expression for the instructions
a grammar can enforce (no comma, the case, quotation marks, the request repeated, the end phrase, a title, a fixed
answer, keywords, placeholders, highlights, section markers, paragraph dividers, blank-line paragraphs and the
nth one's first word, bullets, a postscript), a JSON object for a JSON prompt; the checker decides the rest, and a
prompt with nothing to enforce decodes freely (recorded). The answer is the raw output (``extract="raw"``): loose
mode removes the first and last lines, so stripping first would change which lines those are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from corral.tasks import Task, TaskInstance, TaskOption, register_task
from corral.verdicts import Verdict

from ._data import Prompt, read_prompt_file, read_prompts
from ._grammar import PromptGrammar, compile_prompt
from ._modes import MODES, IFEvalResult, judge_prompt
from ._plugins import load_kind_modules

VERSION = "1"
MAX_TOKENS = 1280
"""lm-evaluation-harness's generation budget for IFEval (its ``max_gen_toks``): room for the 300+ word answers."""


def _instance(prompt: Prompt) -> TaskInstance:
    return TaskInstance(id=prompt.key, prompt=prompt.prompt, target=prompt,
                        groups={"instructions": str(len(prompt.instructions))}, max_tokens=MAX_TOKENS)


def _instances() -> Iterator[TaskInstance]:
    for prompt in read_prompts():
        yield _instance(prompt)


def _compiled(prompt: Prompt) -> PromptGrammar:
    """The prompt's compiled grammar, once per prompt object (the grammar and the quality both read it)."""
    compiled = _COMPILED.get(id(prompt))
    if compiled is None or compiled[0] is not prompt:
        compiled = _COMPILED[id(prompt)] = (prompt, compile_prompt(prompt.instructions))
    return compiled[1]


_COMPILED: dict[int, tuple[Prompt, PromptGrammar]] = {}


def exactly_enforced(prompt: Prompt) -> tuple[bool, ...]:
    """Per instruction of ``prompt``: whether its grammar enforces it exactly (the kind is marked ``grammar`` and
    the prompt's grammar enforces it), so that every text the grammar accepts follows it strictly."""
    enforced = set(_compiled(prompt).enforced)
    return tuple(i.id in enforced and i.kind.enforcement == "grammar" for i in prompt.instructions)


def _grammar(instance: TaskInstance) -> Any:
    """The prompt's grammar (``_grammar.compile_prompt``): the instructions a regular expression enforces, or any
    JSON value for a JSON prompt; a prompt none of whose instructions can be enforced decodes freely."""
    from corral.grammars import Grammar, NotExpressible

    prompt: Prompt = instance.target
    compiled = _compiled(prompt)
    left = "; ".join(f"{kind}: {why}" for kind, why in compiled.left)
    if compiled.json:
        # an object: what "wrap the whole output in JSON" asks for; any JSON value let the model write an endless number
        return Grammar.json_schema({"type": "object"}, description=f"IFEval {prompt.key}: a JSON object")
    if compiled.pattern is None:
        raise NotExpressible(f"none of this prompt's instructions is enforced by a grammar ({left})")
    description = f"IFEval {prompt.key}: enforces {', '.join(compiled.enforced)}"
    if compiled.counts:  # counts over the whole text: the shape intersected with each (_counts)
        return Grammar.lark(compiled.lark(), description=description)
    return Grammar.regex(compiled.pattern, description=description)


OPTIONS = (
    TaskOption("mode", str, "strict", "which verdict decides a record's pass: strict, or loose (IFEval's upper "
               "bound); both are recorded either way", choices=MODES),
    TaskOption("data", str, None, "a JSON Lines file of prompts in IFEval's format (key, prompt, "
               "instruction_id_list, kwargs: IFBench's test file, a benchmark's own) instead of the 540 shipped; "
               "the task's version is its SHA-256"),
    TaskOption("kinds", list, None, "modules (import names, or .py files) that register more instruction kinds "
               "with register_kind before the data is read; installed plug-ins (entry points "
               "'corral_ifeval_kinds') load by themselves"),
)


@register_task("ifeval", options=OPTIONS)
def ifeval(mode: str, data: str | None = None, kinds: tuple[str, ...] | None = None) -> Task:
    """IFEval (Zhou et al. 2023) on Corral's checkers, with the options in ``OPTIONS``: the shipped prompts, or
    ``data``'s, whose instructions may be kinds that ``kinds`` registers (out-of-domain constraints, IFBench's)."""
    load_kind_modules(kinds or ())
    version, instances, name = VERSION, _instances, "IFEval (Zhou et al. 2023): 540 prompts with 25 kinds of " \
                                                   "verifiable instructions, strict and loose"
    if data is not None:
        prompts, digest = read_prompt_file(data)
        version = f"{VERSION}+sha256:{digest[:16]}"
        name = f"IFEval-format prompts from {data} ({len(prompts)})"
        instances = lambda: (_instance(prompt) for prompt in prompts)  # noqa: E731

    last: dict[tuple[str, str], Verdict[IFEvalResult]] = {}  # the latest check, which quality reads

    def check(instance: TaskInstance, answer: str) -> Verdict[IFEvalResult]:
        prompt: Prompt = instance.target
        verdict = judge_prompt(prompt.instructions, answer, mode)  # type: ignore[arg-type]
        last.clear()
        last[(instance.id, answer)] = verdict
        return verdict

    def quality(instance: TaskInstance, answer: str) -> dict[str, float]:
        """IFEval's statistics from the check's own result: ``Task.judge`` checks first, so the prompt is not judged
        (and its language identified) a second time."""
        verdict = last.get((instance.id, answer))
        if verdict is None:  # called on its own, not after the check
            verdict = check(instance, answer)
        if verdict.detail is None:
            return {}
        exact = exactly_enforced(instance.target)
        followed = [ok for ok, enforced in zip(verdict.detail.strict, exact, strict=True) if enforced]
        return {**verdict.detail.quality(), "enforced_strict@ratio:correct": float(sum(followed)),
                "enforced_strict@ratio:total": float(len(followed))}

    return Task(
        name="ifeval",
        version=version,
        extract="raw",
        instances=instances,
        check=check,
        grammar=_grammar,
        quality=quality,
        description=name,
    )
