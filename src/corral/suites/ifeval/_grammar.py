"""A grammar per IFEval prompt: the instructions a regular expression can enforce, compiled into one.

Why one regular expression: most of IFEval's decidable instructions are about the shape of the whole text, and
they compose as a shape: an alphabet (no comma; no capital letter; no lowercase letter), a fixed start (the request
repeated; an opening quotation mark), a fixed end (the end phrase; a closing quotation mark) and pieces that must
appear in order between stretches of free text (a <<title>>, one of the fixed answers, the keywords, n
[placeholders], n *highlights*, the postscript). A prompt's grammar is

    START  TEXT*  (PIECE TEXT*)*  END        where TEXT is the alphabet's characters

and every text it accepts passes the checker of every instruction it enforces (``tests/suites/ifeval/
test_grammar.py`` draws texts from each of the 540 prompts' grammars and checks them). A kind that forbids characters
(``Kind.forbids``: no comma; a plug-in's own) is enforced by leaving them out of the alphabet. The alphabet is printable
ASCII and the line break: a subset of what passes, so a character the checkers would judge differently (a capital
outside ASCII) never reaches them. What cannot be enforced this way (counts of words, sentences, paragraphs or
letters, forbidden words, sections, bullets, two responses, the language) and an instruction whose literal text
the alphabet refuses (a keyword with a comma beside "no commas") are left to the checker, and the grammar says
which (``PromptGrammar.left``). ``detectable_format:json_format`` gives a JSON grammar of its own (``json``: the task
asks for a JSON object), the prompt's other instructions then left to the checker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ._format import OPTIONS
from ._kinds import Instruction

ALPHABET = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n"}
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
"""The characters free text may use before an instruction removes some: printable ASCII and the line break."""


@dataclass(frozen=True)
class PromptGrammar:
    """What a prompt's grammar enforces: ``pattern`` (a Rust ``regex``, anchored at both ends) or ``json`` (a JSON
    document), the ids of the instructions it enforces, and each instruction left to the checker with why."""

    pattern: str | None
    json: bool
    enforced: tuple[str, ...]
    left: tuple[tuple[str, str], ...]


@dataclass
class _Shape:
    alphabet: set[str] = field(default_factory=lambda: set(ALPHABET))
    case: str | None = None  # "lower" or "upper": literals are written in that case (the checkers ignore case)
    start: str | None = None
    end: str | None = None
    pieces: list[str] = field(default_factory=list)  # regex pieces, in order
    last: list[str] = field(default_factory=list)  # pieces that go after all others (the postscript)
    enforced: list[str] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)

    def fits(self, text: str) -> bool:
        return all(char in self.alphabet for char in text)

    def cased(self, text: str) -> str:
        return text.lower() if self.case == "lower" else text.upper() if self.case == "upper" else text


def compile_prompt(instructions: tuple[Instruction, ...]) -> PromptGrammar:
    """The grammar of a prompt with ``instructions`` (see the module docstring)."""
    ids = [instruction.id for instruction in instructions]
    if "detectable_format:json_format" in ids:
        left = tuple((i, "the response is JSON: only the JSON grammar is enforced") for i in ids
                     if i != "detectable_format:json_format")
        return PromptGrammar(None, True, ("detectable_format:json_format",), left)
    shape = _Shape()
    for instruction in instructions:  # every character any kind removes goes first: pieces use the final alphabet
        shape.alphabet -= _REMOVES.get(instruction.id, set()) | instruction.kind.forbids
    ordered = sorted(instructions, key=_rank)
    for instruction in ordered:
        add = _ADDERS.get(instruction.id)
        if add is None and instruction.kind.forbids:  # enforced by the alphabet alone (a plug-in's kind too)
            shape.enforced.append(instruction.id)
            continue
        if add is None:
            shape.left.append((instruction.id, instruction.kind.why if instruction.kind.enforcement == "checker"
                               else "not expressed as a regular expression yet"))
            continue
        reason = add(shape, instruction)
        if reason is None:
            shape.enforced.append(instruction.id)
        else:
            shape.left.append((instruction.id, reason))
    if not shape.enforced:
        return PromptGrammar(None, False, (), tuple(shape.left))
    return PromptGrammar(_pattern(shape), False, tuple(shape.enforced), tuple(shape.left))


# ------------------------------------------------------------------------------------------------ each kind


def _case(case: str) -> Callable[[_Shape, Instruction], str | None]:
    """The builder for all-lowercase (``case="lower"``) or all-capitals (``"upper"``): the other case's letters
    leave the alphabet, literals are written in this case, and one letter of it is required (``str.islower`` and
    ``str.isupper`` need a cased character)."""
    other, own = (_UPPER, _LOWER) if case == "lower" else (_LOWER, _UPPER)

    def add(shape: _Shape, instruction: Instruction) -> str | None:
        if shape.case not in (None, case):
            return f"the response must also be in {'capitals' if case == 'lower' else 'lowercase'}"
        shape.alphabet -= other
        shape.case = case
        shape.pieces.append(_class(own))
        return None

    return add


def _quotation(shape: _Shape, instruction: Instruction) -> str | None:
    if shape.start is not None or shape.end is not None or '"' not in shape.alphabet:
        return "another instruction fixes how the response begins or ends"
    shape.start, shape.end = '"', '"'
    return None


def _repeat_prompt(shape: _Shape, instruction: Instruction) -> str | None:
    request = shape.cased(instruction.args["prompt_to_repeat"].strip())
    if shape.start is not None:
        return "another instruction fixes how the response begins"
    if not shape.fits(request) or request.lower() != instruction.args["prompt_to_repeat"].strip().lower():
        return "the request holds characters the other instructions forbid"
    shape.start = request
    return None


def _end_checker(shape: _Shape, instruction: Instruction) -> str | None:
    phrase = shape.cased(instruction.args["end_phrase"].strip())
    if not phrase or phrase[0] == '"' or phrase[-1] == '"' or not shape.fits(phrase):
        return "the end phrase holds characters the other instructions forbid"
    if phrase.lower() != instruction.args["end_phrase"].strip().lower():
        return "the end phrase changes under the required case"
    if shape.end == '"':  # quoted: the checker strips the closing quotation mark before it looks at the end
        shape.end = phrase + '"'
    elif shape.end is None:
        shape.end = phrase
    else:
        return "another instruction fixes how the response ends"
    return None


def _title(shape: _Shape, instruction: Instruction) -> str | None:
    inside = shape.alphabet - {"<", ">", "\n"}
    solid = inside - {" "}
    if not solid:
        return "no character is left for a title"
    shape.pieces.append(f"{_literal('<<')}{_class(inside)}*{_class(solid)}{_class(inside)}*{_literal('>>')}")
    return None


def _constrained_response(shape: _Shape, instruction: Instruction) -> str | None:
    usable = [option for option in OPTIONS if shape.fits(option)]
    if not usable:
        return "none of the fixed answers fits the required case or punctuation"
    shape.pieces.append("(" + "|".join(_literal(option) for option in usable) + ")")
    return None


def _existence(shape: _Shape, instruction: Instruction) -> str | None:
    words = [shape.cased(word) for word in instruction.args["keywords"]]
    if not all(shape.fits(word) and word.lower() == original.lower()
               for word, original in zip(words, instruction.args["keywords"], strict=True)):
        return "a keyword holds characters the other instructions forbid"
    shape.pieces.extend(_literal(word) for word in words)
    return None


def _placeholders(shape: _Shape, instruction: Instruction) -> str | None:
    inside = shape.alphabet - {"[", "]", "\n"}
    shape.pieces.extend([f"{_literal('[')}{_class(inside)}+{_literal(']')}"] * instruction.args["num_placeholders"])
    return None


def _highlights(shape: _Shape, instruction: Instruction) -> str | None:
    inside = shape.alphabet - {"\n"}
    solid = inside - {" "}
    star = _literal("*")
    shape.pieces.extend([f"{star}{_class(inside)}*{_class(solid)}{_class(inside)}*{star}"]
                        * instruction.args["num_highlights"])
    return None


def _postscript(shape: _Shape, instruction: Instruction) -> str | None:
    marker = shape.cased(instruction.args["postscript_marker"].strip())
    if not marker or not shape.fits(marker + "\n ") or marker.lower() != instruction.args[
            "postscript_marker"].strip().lower():
        return "the marker holds characters the other instructions forbid"
    shape.last.append(_literal("\n" + marker + " "))
    return None


_ADDERS: dict[str, Callable[[_Shape, Instruction], str | None]] = {
    "change_case:english_lowercase": _case("lower"),
    "change_case:english_capital": _case("upper"),
    "startend:quotation": _quotation,
    "combination:repeat_prompt": _repeat_prompt,
    "startend:end_checker": _end_checker,
    "detectable_format:title": _title,
    "detectable_format:constrained_response": _constrained_response,
    "keywords:existence": _existence,
    "detectable_content:number_placeholders": _placeholders,
    "detectable_format:number_highlighted_sections": _highlights,
    "detectable_content:postscript": _postscript,
}
"""The kinds a prompt's regular expression enforces; the alphabet's kinds first (``_ORDER``), so that the others'
literal text is checked against the final alphabet."""

_ORDER = {name: index for index, name in enumerate(_ADDERS)}


def _rank(instruction: Instruction) -> int:
    """Where an instruction is built: a kind the alphabet alone enforces first, then ``_ADDERS``' order, then the
    rest (left to the checker)."""
    if instruction.id not in _ORDER and instruction.kind.forbids:
        return -1
    return _ORDER.get(instruction.id, len(_ORDER))

_REMOVES: dict[str, set[str]] = {
    "detectable_format:number_highlighted_sections": {"*"},
}
"""Characters a grammar leaves out of the whole text for a kind that does not forbid them itself (``Kind.forbids``
are left out too), before any piece is built. A stray asterisk beside a highlight
changes how IFEval pairs them (``x*`` then ``*a**b*`` counts one highlight, not two), so free text and every other
piece go without. A stray bracket cannot hide a placeholder (each placeholder's ``]`` still ends one match of
IFEval's ``\\[.*?\\]``), so brackets stay."""


# ------------------------------------------------------------------------------------------------ the pattern


def _pattern(shape: _Shape) -> str:
    free = f"{_class(shape.alphabet)}*" if shape.alphabet else ""
    parts = [_literal(shape.start)] if shape.start else []
    parts.append(free)
    for piece in shape.pieces + shape.last:
        parts += [piece, free]
    if shape.end:
        parts.append(_literal(shape.end))
    return "".join(parts)


def _literal(text: str) -> str:
    """``text`` as a Rust regex that matches it exactly: letters and digits as they are, every other character as
    ``\\x{HEX}`` (always valid, whatever the character)."""
    return "".join(char if char.isascii() and char.isalnum() else f"\\x{{{ord(char):X}}}" for char in text)


def _class(chars: set[str] | frozenset[str]) -> str:
    """A character class of exactly ``chars``, as ranges of ``\\x{HEX}`` escapes."""
    codes = sorted(ord(char) for char in chars)
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    body = "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
    return f"[{body}]"
