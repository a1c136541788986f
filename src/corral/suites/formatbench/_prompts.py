"""FormatBench prompts, written for Corral: a task's description (its definition and its format, as the paper's
Figure 7 has one; ``FormatTask.description``), and two ways to put description, few-shot examples and input in
front of a model.

``alpaca`` is the paper's instruction prompt (Figure 6, left), sent as one user message::

    ### Instruction
    {task description}

    ### Example
    {few-shot input}
    Answer: {few-shot answer}
    ...
    ### Example
    {input}
    Answer:

and its refinement prompt (Figure 6, right) repeats it with the previous answer and the checker's messages,
ending in ``Corrected Answer:`` (or, with thoughts, ``Thoughts:``, after which the model reasons and then writes
``Corrected Answer:``). ``chat`` puts the description in a system message and each example in a user/assistant
pair, and a feedback round continues the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TEMPLATES = ("alpaca", "chat")

def description(task: str, instance: Mapping[str, Any]) -> str:
    """The task's description (``FormatTask.describe``) for ``instance``."""
    from ._core import get_format_task

    return get_format_task(task).describe(instance)


def alpaca_prompt(task: str, instance: Mapping[str, Any], shots: Sequence[Mapping[str, Any]]) -> str:
    parts = [f"### Instruction\n{description(task, instance)}"]
    parts += [f"### Example\n{shot['input']}\nAnswer: {shot['gold']}" for shot in shots]
    parts.append(f"### Example\n{instance['input']}\nAnswer:")
    return "\n\n".join(parts)


def alpaca_refinement(thoughts: bool) -> str:
    """Figure 6 (right) for the runner: ``{prompt}`` is the raw prompt, which ends with "Answer:"."""
    ending = "Thoughts:" if thoughts else "Corrected Answer:"
    return "{prompt} {answer}\nThe answer contains following format error(s):\n{feedback}\n" + ending


CHAT_FEEDBACK = "The answer contains following format error(s):\n{feedback}\nWrite the corrected answer only."
CHAT_FEEDBACK_THOUGHTS = ("The answer contains following format error(s):\n{feedback}\nFirst write your thoughts "
                          "after 'Thoughts:', then the corrected answer after 'Corrected Answer:'.")
