"""Three out-of-domain instruction kinds in the manner of IFBench (Pyatkin et al. 2025), registered as plug-ins.

A worked example for ``docs/ifeval.md``: each kind is a plain function from its arguments and a response to the
violations it finds, registered with ``register_kind``; its parameters are typed (``Param``) so a bad row of data
is refused with its line, and ``tick`` counts the check's work against the evaluation's budget. The ids and
argument names are IFBench's; the checks are written from the instructions' wording.

    corral eval ifeval -T data=docs/examples/ifbench-prompts.jsonl -T kinds=docs/examples/ifbench_kinds.py
"""

from __future__ import annotations

import re
import string

from corral.suites.ifeval import Param, register_kind, tick
from corral.text import Level, get_profile
from corral.verdicts import Violation

WHITESPACE = frozenset(chr(code) for code in range(0x110000) if chr(code).isspace())


def _words(response: str) -> int:
    """Words as IFEval counts them (runs of ``\\w``: the ``ifeval-v1`` segmentation profile)."""
    tick()
    return len(get_profile("ifeval-v1").split(response, Level.WORD))


@register_kind("count:word_count_range", (Param("min_words", int), Param("max_words", int)),
               lambda a: f"The response must contain between {a['min_words']} and {a['max_words']} words.",
               "partial", "a bounded count of \\w runs is regular, but not written as a grammar here",
               "words (runs of \\w) between two bounds, both included")
def word_count_range(args, response: str) -> list[Violation]:
    count, low, high = _words(response), args["min_words"], args["max_words"]
    if low <= count <= high:
        return []
    change = f"add at least {low - count}" if count < low else f"remove at least {count - high}"
    return [Violation("count:word_count_range", f"The response has {count} words; it needs {low} to {high}: "
                      f"{change}.", None, f"{low}..{high}", count)]


@register_kind("count:numbers", (Param("N", int),),
               lambda a: f"Include exactly {a['N']} numbers in the response.",
               "checker", "a number is a run of digits once punctuation is removed: countable by a grammar, "
               "but left to the checker in this example",
               "runs of digits, punctuation removed first, exactly N")
def numbers(args, response: str) -> list[Violation]:
    tick()
    found = re.findall(r"\d+", response.translate(str.maketrans("", "", string.punctuation)))
    if len(found) == args["N"]:
        return []
    return [Violation("count:numbers", f"The response has {len(found)} numbers ({', '.join(found[:5]) or 'none'}"
                      f"{', ...' if len(found) > 5 else ''}); it needs exactly {args['N']}.", None, args["N"],
                      len(found))]


@register_kind("format:no_whitespace", (),
               lambda a: "The response should not contain any whitespace.",
               "grammar", "a forbidden set of characters: the grammar leaves them out of its alphabet",
               "no whitespace character anywhere", forbids=WHITESPACE)
def no_whitespace(args, response: str) -> list[Violation]:
    tick()
    where = next((at for at, char in enumerate(response) if char in WHITESPACE), None)
    if where is None:
        return []
    return [Violation("format:no_whitespace", f"The response has whitespace (the first at character {where}, "
                      f"{response[where]!r}); write it with none.", (where, where + 1), 0, None)]
