"""FormatBench's ten tasks, each registered once: checker, description, token budget, grammar (and what it leaves to
the checker), quality metric.

Why one table: a task's parts used to be registered in four places (a catalogue of checkers, a dict of grammar
builders, a dict of quality metrics, a dict of descriptions) and its budget in a fifth, so adding a task meant
finding all five. The parts are still written beside their kind (checkers in ``_simple``, ``_tagged``, ...; grammars
in ``_grammars_*``; metrics in ``_quality``); this table is where a task is put together. A task from outside
Corral calls ``register_format_task`` in its own module (or names it under the ``corral_format_tasks`` entry-point
group); nothing here changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _agent, _ftime, _mtt, _parse, _simple, _tagged, _xdl
from ._core import FormatTask, register_format_task
from ._grammars_copy import capseg_grammar, ner_grammar, parse_grammar
from ._grammars_simple import acrow_grammar, eqa_grammar, ftime_grammar, mcq_grammar, mtt_grammar
from ._grammars_structured import XDL_LEFT, agent_grammar, xdl_grammar
from ._quality import (
    acrow_quality,
    capseg_quality,
    eqa_quality,
    ftime_quality,
    mcq_quality,
    mtt_quality,
    ner_quality,
    parse_quality,
)


def _labels(instance: Mapping[str, Any]) -> dict[str, str]:
    return {"labels": ", ".join(str(label) for label in instance["labels"])}


def _other_tags(instance: Mapping[str, Any]) -> dict[str, str]:
    others = [tag for tag in instance.get("tags") or () if tag not in ("PER", "ORG", "LOC")]
    return {"extra": "".join(f", <{tag}>...</{tag}>" for tag in others)}


FORMAT_TASKS = (
    FormatTask(
        _simple.MCQ, max_tokens=12, grammar=mcq_grammar, quality=mcq_quality, fields=_labels,
        description="Give the Penn Treebank part-of-speech tag of the word marked with [[ ]] in the sentence. Answer "
                    "with exactly one tag from this list and nothing else: {labels}."),
    FormatTask(
        _simple.EQA, max_tokens=48, grammar=eqa_grammar, quality=eqa_quality,
        description="Answer the question with a span copied exactly from the passage: one or more whole words, in "
                    "the passage's spelling and case. Write only the span, with no explanation."),
    FormatTask(
        _tagged.NER, max_tokens=256, grammar=ner_grammar, quality=ner_quality, fields=_other_tags,
        description="Mark the named entities in the sentence with tags: <PER>...</PER> for people, <ORG>...</ORG> "
                    "for organisations and <LOC>...</LOC> for locations{extra}. Copy the sentence word for word, only "
                    "adding the tags; do not nest tags, and close every tag you open."),
    FormatTask(
        _parse.CHECKER, max_tokens=512, grammar=parse_grammar, quality=parse_quality,
        description="Write the constituency parse tree of the sentence in Penn Treebank bracket notation, on one "
                    "line, e.g. (S (NP (DT The) (NN cat)) (VP (VBD sat))). Every word is a leaf under its "
                    "part-of-speech tag, in the sentence's order; phrases and clauses use Penn Treebank labels (S, NP, "
                    "VP, PP, ...)."),
    FormatTask(
        _tagged.CAPSEG, max_tokens=160, grammar=capseg_grammar, quality=capseg_quality,
        description="Split the text into subtitles. Insert <eol> where a line ends inside a subtitle block and <eob> "
                    "where a block ends; a block has at most 2 lines, a line at most 42 characters, and the text ends "
                    "with <eob>. Do not change, add or remove any word."),
    FormatTask(
        _mtt.CHECKER, max_tokens=128, grammar=mtt_grammar, left_to_checker=("translation",), quality=mtt_quality,
        description="Translate the German sentence into English. Translate each listed term by the given English "
                    "term. Write only the English translation."),
    FormatTask(
        _simple.ACROW, max_tokens=160, grammar=acrow_grammar, quality=acrow_quality,
        description="Write a short poem whose lines begin with the letters of the given word, in order (an "
                    "acrostic): one line per letter, no title, no blank lines, no other text."),
    FormatTask(
        _ftime.CHECKER, max_tokens=48, grammar=ftime_grammar, quality=ftime_quality,
        description="Turn the reminder into a time expression relative to the current time. A single time is "
                    "YYYYMMDDTHHMMSS, e.g. 20240131T083000. A repeating time is Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS: "
                    "R followed by the number of repetitions (-1 for no end), the first time, and the interval, e.g. "
                    "R-1/20240101T080000/P0Y0M1DT0H0M0S. Write only the expression."),
    FormatTask(
        _agent.CHECKER, max_tokens=24, grammar=agent_grammar, quality=_agent.agent_quality,
        description="You are playing a text adventure game. Reply with one command the game understands, such as "
                    "'go north', 'take apple', 'open fridge' or 'cook potato with stove', and nothing else."),
    FormatTask(
        _xdl.CHECKER, max_tokens=768, grammar=xdl_grammar, left_to_checker=XDL_LEFT,
        description="Translate the chemistry procedure into XDL (XML). Use <XDL><Synthesis> with a <Hardware> "
                    "section declaring each vessel as <Component id=... type=.../>, a <Reagents> section declaring "
                    "each chemical as <Reagent name=.../>, and a <Procedure> of steps such as <Add vessel= reagent= "
                    "amount=/>, <Stir vessel= time=/>, <HeatChill vessel= temp= time=/>, <Transfer from_vessel= "
                    "to_vessel=/>, <Filter vessel=/>, <Evaporate vessel=/>, <Wait time=/>. Every vessel and reagent "
                    "a step uses must be declared. Write only the XDL."),
)
"""The ten tasks in the paper's order; budgets leave room for the gold answer of the longest shipped instance."""

TASKS = tuple(task.name for task in FORMAT_TASKS)

for _task in FORMAT_TASKS:
    register_format_task(_task)
