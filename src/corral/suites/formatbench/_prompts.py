"""FormatBench prompts, written for Corral: a description per task (its definition and its format, as the paper's
Figure 7 has one), and two ways to put description, few-shot examples and input in front of a model.

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

DESCRIPTIONS: dict[str, str] = {
    "mcq": "Give the Penn Treebank part-of-speech tag of the word marked with [[ ]] in the sentence. Answer with "
           "exactly one tag from this list and nothing else: {labels}.",
    "eqa": "Answer the question with a span copied exactly from the passage: one or more whole words, in the "
           "passage's spelling and case. Write only the span, with no explanation.",
    "ner": "Mark the named entities in the sentence with tags: <PER>...</PER> for people, <ORG>...</ORG> for "
           "organisations and <LOC>...</LOC> for locations{extra}. Copy the sentence word for word, only adding the "
           "tags; do not nest tags, and close every tag you open.",
    "parse": "Write the constituency parse tree of the sentence in Penn Treebank bracket notation, on one line, "
             "e.g. (S (NP (DT The) (NN cat)) (VP (VBD sat))). Every word is a leaf under its part-of-speech tag, in "
             "the sentence's order; phrases and clauses use Penn Treebank labels (S, NP, VP, PP, ...).",
    "capseg": "Split the text into subtitles. Insert <eol> where a line ends inside a subtitle block and <eob> where "
              "a block ends; a block has at most 2 lines, a line at most 42 characters, and the text ends with "
              "<eob>. Do not change, add or remove any word.",
    "mtt": "Translate the German sentence into English. Translate each listed term by the given English term. "
           "Write only the English translation.",
    "acrow": "Write a short poem whose lines begin with the letters of the given word, in order (an acrostic): "
             "one line per letter, no title, no blank lines, no other text.",
    "ftime": "Turn the reminder into a time expression relative to the current time. A single time is "
             "YYYYMMDDTHHMMSS, e.g. 20240131T083000. A repeating time is Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS: R "
             "followed by the number of repetitions (-1 for no end), the first time, and the interval, e.g. "
             "R-1/20240101T080000/P0Y0M1DT0H0M0S. Write only the expression.",
    "agent": "You are playing a text adventure game. Reply with one command the game understands, such as "
             "'go north', 'take apple', 'open fridge' or 'cook potato with stove', and nothing else.",
    "xdl": "Translate the chemistry procedure into XDL (XML). Use <XDL><Synthesis> with a <Hardware> section "
           "declaring each vessel as <Component id=... type=.../>, a <Reagents> section declaring each chemical as "
           "<Reagent name=.../>, and a <Procedure> of steps such as <Add vessel= reagent= amount=/>, <Stir vessel= "
           "time=/>, <HeatChill vessel= temp= time=/>, <Transfer from_vessel= to_vessel=/>, <Filter vessel=/>, "
           "<Evaporate vessel=/>, <Wait time=/>. Every vessel and reagent a step uses must be declared. Write only "
           "the XDL.",
}
"""Each task's description (definition and format). ``{labels}`` and ``{extra}`` are filled from the data."""


def description(task: str, instance: Mapping[str, Any]) -> str:
    text = DESCRIPTIONS[task]
    if task == "mcq":
        return text.format(labels=", ".join(str(label) for label in instance["labels"]))
    if task == "ner":
        others = [tag for tag in instance.get("tags") or () if tag not in ("PER", "ORG", "LOC")]
        return text.format(extra="".join(f", <{tag}>...</{tag}>" for tag in others))
    return text


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
