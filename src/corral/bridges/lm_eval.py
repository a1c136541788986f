"""Corral tasks in lm-evaluation-harness: a task whose metric is Corral's checker, and a ``corral`` model.

So a team that reports with lm-eval (its ``simple_evaluate``, its result tables and sample logs) gets Corral's
benchmarks and verdicts next to its other tasks::

    import lm_eval
    from corral.bridges.lm_eval import CorralLM, corral_lm_task

    results = lm_eval.simple_evaluate(model=CorralLM("smollm2"), tasks=[corral_lm_task("collie", limit=4)],
                                      apply_chat_template=True)
    results["results"]["corral_collie"]        # {"passed,none": ..., "score,none": ..., ...}

``corral_lm_task`` builds a ``ConfigurableTask`` from a generated config (``task_config``): the documents are the
selected Corral instances, ``process_results`` judges each generation through ``Task.judge`` (the call ``corral
eval`` makes) and reports ``passed`` (0/1) and ``score`` (the verdict's graded score), both averaged. With
``apply_chat_template=True`` the model gets Corral's own chat (system message, few-shot turns, user prompt) through
its chat template; without, the turns' texts joined by blank lines, for a completion model.

``CorralLM`` (registered as lm-eval model ``corral``) runs any model ``corral.models.load_model`` loads: the bundled
SmolLM2 through llama.cpp, a transformers checkpoint, an OpenAI-compatible server; it needs no tokenizer download.
It generates (``generate_until``); Corral's models do not expose log-likelihoods of a continuation, so
``loglikelihood`` tasks raise a one-line error saying so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from corral.extras import require

require("lm_eval", "lm-eval", "corral.bridges.lm_eval")

import datasets
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.api.task import ConfigurableTask

from corral.models import Message, Model, Request, Sampling, load_model
from corral.tasks import Task

from ._select import Selection, Where, choose

METRICS = ("passed", "score")
"""What each document reports: ``passed`` (1.0 or 0.0, ``verdict.passed``) and ``score`` (the verdict's graded
score in [0, 1]); lm-eval averages both over the task."""


def task_name(task: Task) -> str:
    """The lm-eval name of a Corral task: ``corral_`` and the name, other characters as ``_``
    (``corral_concode_gen``)."""
    return "corral_" + re.sub(r"[^A-Za-z0-9_]", "_", task.name)


def plain_prompt(messages: Sequence[Mapping[str, str]]) -> str:
    """A chat as one text for a model without a chat template: the turns' contents, separated by blank lines."""
    return "\n\n".join(message["content"] for message in messages)


def task_config(selection: Selection, *, name: str | None = None, max_tokens: int | None = None) -> dict[str, Any]:
    """The lm-eval task config (what a task YAML holds) for the chosen instances: a generation task over documents
    that carry Corral's chat, with the checker's two metrics averaged. ``process_results`` is filled in by
    ``CorralLMTask``, which knows the instances."""
    task = selection.task
    docs = [{"corral_instance": inst.id, "messages": json.dumps(task.template.messages(inst)),
             "text": plain_prompt(task.template.messages(inst)), "reference": inst.reference or "",
             "max_tokens": max_tokens or inst.max_tokens} for inst in selection.instances]
    return {
        "task": name or task_name(task),
        "custom_dataset": lambda **_: {"test": datasets.Dataset.from_list(docs)},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": lambda doc: doc["text"],
        "doc_to_target": lambda doc: doc["reference"],
        "generation_kwargs": {"until": list(task.stop), "do_sample": False, "temperature": 0.0},
        "metric_list": [{"metric": metric, "aggregation": "mean", "higher_is_better": True} for metric in METRICS],
        "metadata": {"version": task.version, "corral_task": task.name, "corral_options": dict(task.options)},
    }


class CorralLMTask(ConfigurableTask):
    """A Corral task as an lm-eval task: Corral's instances, chat and token budgets, Corral's checker as the metric.

    It overrides only what a config cannot say: the context is Corral's whole chat (``fewshot_context``), each
    request asks for its instance's own token budget (``construct_requests``), and each generation is judged by
    ``Task.judge`` (``process_results``).
    """

    def __init__(self, selection: Selection, *, name: str | None = None, max_tokens: int | None = None) -> None:
        self.selection = selection
        self._by_id = {inst.id: inst for inst in selection.instances}
        config = task_config(selection, name=name, max_tokens=max_tokens)
        config["process_results"] = self.judge_results
        super().__init__(config=config)

    def fewshot_context(self, doc: dict[str, Any], num_fewshot: int, system_instruction: str | None = None,
                        apply_chat_template: bool = False, fewshot_as_multiturn: bool = False,
                        chat_template: Any = None, gen_prefix: str | None = None) -> str:
        """Corral's chat for ``doc``, through the model's chat template when asked, else as plain text; the
        instances carry their own few-shot turns, so lm-eval's ``num_fewshot`` adds none."""
        messages: list[dict[str, str]] = json.loads(doc["messages"])
        if system_instruction:
            messages = [{"role": "system", "content": system_instruction}, *messages]
        if apply_chat_template and chat_template is not None:
            return chat_template(messages)
        return plain_prompt(messages)

    def construct_requests(self, doc: dict[str, Any], ctx: Any, **kwargs: Any) -> Instance:
        kwargs.pop("apply_chat_template", None)
        kwargs.pop("chat_template", None)
        generation = dict(self.config.generation_kwargs)
        generation["max_gen_toks"] = int(doc["max_tokens"])
        return Instance(request_type="generate_until", doc=doc, arguments=(ctx, generation), idx=0, **kwargs)

    def judge_results(self, doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
        """One generation's metrics: the verdict of ``Task.judge`` on it (``METRICS``)."""
        judged = self.selection.task.judge(self._by_id[doc["corral_instance"]], results[0], quality=False)
        return {"passed": float(judged.verdict.passed), "score": float(judged.verdict.score)}


def corral_lm_task(task: str | Task = "collie", *, where: Where = None, limit: int | str | None = None,
                   max_tokens: int | None = None, name: str | None = None, **options: Any) -> CorralLMTask:
    """A registered Corral task (built with ``options``, chosen by ``where`` and ``limit`` as ``corral eval``
    chooses) as an lm-eval task to pass in ``simple_evaluate(tasks=[...])``.

    Args:
        task: a registered Corral task name, or a built ``Task``.
        where: instance filters (``"structure=word01,sent01"`` or a mapping), as ``corral eval --where``.
        limit: N instances, or ``GROUP=N``, as ``corral eval --limit``.
        max_tokens: every request's token budget (default: each instance's own).
        name: the lm-eval task name (default ``corral_<task>``; give another to run two selections together).
        **options: the Corral task's options (``checker_mode="reference"``).
    """
    return CorralLMTask(choose(task, options, where, limit), name=name, max_tokens=max_tokens)


@register_model("corral")
class CorralLM(LM):
    """Any model Corral loads, as an lm-eval model (``--model corral --model_args model=smollm2``).

    Greedy unless a request's ``gen_kwargs`` ask for sampling (``do_sample`` with a ``temperature``). A context made
    by ``apply_chat_template`` is Corral's chat itself (JSON messages), so the model applies its own template once,
    as Corral's runner does; any other context is sent as one user message.

    Args:
        model: what ``corral.models.load_model`` takes (``smollm2``, ``openai:NAME``, ``transformers:PATH``).
        batch_size: requests handed to the model at once.
        seed: the sampling seed (local backends).
        **model_options: passed to ``load_model`` (``base_url``, ``n_threads``, ``extra_body``, ...).
    """

    def __init__(self, model: str | Model = "smollm2", batch_size: int | str = 8, seed: int = 0,
                 **model_options: Any) -> None:
        super().__init__()
        self.model = model if not isinstance(model, str) else load_model(model, **model_options)
        self.batch_size = int(batch_size)
        self.seed = int(seed)

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        asked = [self._request(*request.args[:2]) for request in requests]
        texts: list[str] = []
        for start in range(0, len(asked), self.batch_size):
            for [completion] in self.model.complete(asked[start:start + self.batch_size]):
                if completion.finish_reason == "error":
                    raise RuntimeError(f"model {self.model.name!r} failed on a request: {completion.error}")
                texts.append(completion.text)
        return texts

    def loglikelihood(self, requests: list[Instance], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        raise NotImplementedError("the corral lm-eval model generates (generate_until tasks); Corral's models score "
                                  "an output as a chat reply, not a raw-text continuation with its greedy flag, so "
                                  "loglikelihood and multiple-choice tasks need another lm-eval model")

    def loglikelihood_rolling(self, requests: list[Instance], disable_tqdm: bool = False) -> list[float]:
        return self.loglikelihood(requests)  # type: ignore[return-value]

    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        """The chat itself, as JSON: ``generate_until`` hands it to the model, whose backend applies the template."""
        return json.dumps(chat_history)

    @property
    def tokenizer_name(self) -> str:
        return f"corral-{self.model.backend}-{self.model.name}"

    def chat_template(self, chat_template: bool | str = False) -> str:
        return ""

    def close(self) -> None:
        """Release the model (a llama.cpp context, a server connection)."""
        self.model.close()

    def _request(self, context: str, gen_kwargs: Mapping[str, Any]) -> Request:
        messages = _messages(context)
        until = gen_kwargs.get("until") or ()
        sample = bool(gen_kwargs.get("do_sample", False))
        temperature = float(gen_kwargs.get("temperature", 0.0)) if sample else 0.0
        return Request(tuple(messages), Sampling(temperature=temperature, max_tokens=int(gen_kwargs.get(
            "max_gen_toks", 256)), stop=(until,) if isinstance(until, str) else tuple(until), seed=self.seed))


def _messages(context: str) -> list[Message]:
    """The chat a context stands for: JSON messages from ``apply_chat_template``, or the text as one user turn."""
    if context.startswith("[{"):
        try:
            parsed = json.loads(context)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(m, dict) and {"role", "content"} <= m.keys() for m in parsed):
            return [{"role": m["role"], "content": str(m["content"])} for m in parsed]
    return [{"role": "user", "content": context}]


__all__ = [
    "METRICS",
    "CorralLM",
    "CorralLMTask",
    "corral_lm_task",
    "plain_prompt",
    "task_config",
    "task_name",
]
