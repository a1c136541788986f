"""One llguidance grammar for "a free reasoning block, then the answer's grammar" (``Grammar.reasoning``).

Why a grammar of grammars: llguidance takes a list of grammars, the first the start, where a Lark grammar refers
to another by ``@name``. The answer's grammar goes into that list unchanged (a Lark grammar, a JSON schema, a
regex, whatever its ``%ignore`` or options), under a name, and a small Lark grammar in front says: the block, then
``@answer``. Each grammar keeps its own lexemes, so the answer's ``%ignore`` never reaches into the thinking and
no rule name of the answer can clash with the wrapper's.

The block is one lexeme: the open tag, then at most ``max_chars`` characters, then the close tag, and *lazy*
(llguidance ends a lazy lexeme at the first point it matches): the block ends at its first close tag, as
``Reasoning.split`` says, so the thinking cannot hold the close tag, and once ``max_chars`` characters are written
only the close tag is allowed. Why lazy rather than ``(?s:.{0,N}) & ~(?s:.*CLOSE.+)``: the engine decides the
emptiness of that intersection anew at each byte, at a cost that grows with N (2 ms a byte at N = 4,000; over the
step budget at N = 32,768), where the lazy count costs nothing at a bound of a million.

Up to four spaces or newlines may follow the block (templates write ``</think>\\n\\n``); they are a lexeme of
their own, taken greedily, so an answer grammar that itself begins with whitespace gets only what is left after
them (``Reasoning.split`` strips them from the answer anyway). Without ``prefilled`` the block is optional (the
model may answer at once, as the split allows); with it, the output starts inside the block, which must close.
"""

from __future__ import annotations

import json
from typing import Any

from corral.text import Reasoning

from ._regex import case_pattern, rx

SEPARATOR_CHARS = 4
"""The most spaces or newlines between the close tag and the answer."""

_WRAPPER, _ANSWER = "corral_reasoning", "corral_answer"


def with_thinking(serialized: str, reasoning: Reasoning) -> str:
    """``serialized`` (an llguidance grammar: Lark text or a top-level JSON grammar) after a free, bounded block."""
    top: dict[str, Any] = (json.loads(serialized) if serialized.lstrip().startswith("{")
                           else {"grammars": [{"lark_grammar": serialized}]})
    grammars = [dict(grammar) for grammar in top["grammars"]]
    taken = {grammar.get("name") for grammar in grammars}
    answer = grammars[0].get("name") or _fresh(_ANSWER, taken)
    grammars[0]["name"] = answer
    wrapper = _fresh(_WRAPPER, taken | {answer})
    block = f"(?s:.{{0,{reasoning.max_chars}}}){case_pattern(reasoning.close, True)}"
    think = block if reasoning.prefilled else case_pattern(reasoning.open, True) + block
    start = f"start: think SEP? @{answer}" + ("" if reasoning.prefilled else f" | @{answer}")
    lark = f"{start}\nthink[lazy]: {rx(think)}\nSEP: /[ \\t\\r\\n]{{1,{SEPARATOR_CHARS}}}/\n"
    out: dict[str, Any] = {"grammars": [{"name": wrapper, "lark_grammar": lark}, *grammars]}
    if top.get("max_tokens") is not None:
        out["max_tokens"] = top["max_tokens"]
    return json.dumps(out, ensure_ascii=False)


def _fresh(name: str, taken: set[Any]) -> str:
    found, n = name, 1
    while found in taken:
        n += 1
        found = f"{name}_{n}"
    return found
