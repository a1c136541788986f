"""A grammar per IFEval prompt: the instructions a regular expression can enforce, compiled into one.

Why one regular expression: most of IFEval's decidable instructions are about the shape of the whole text, and
they compose as a shape: an alphabet (no comma; no capital letter; no lowercase letter), a fixed start (the request
repeated; an opening quotation mark), a fixed end (the end phrase; a closing quotation mark) and pieces that must
appear in order between stretches of free text (a <<title>>, one of the fixed answers, the keywords, n
[placeholders], n *highlights*, n section markers, n - 1 *** dividers, n bullets, the postscript). A prompt's
grammar is

    START  TEXT*  (PIECE TEXT*)*  END        where TEXT is the alphabet's characters

and every text it accepts passes the checker of every instruction it enforces (``tests/suites/ifeval/
test_grammar.py`` draws texts from each of the 540 prompts' grammars and checks them). A kind that forbids characters
(``Kind.forbids``: no comma; a plug-in's own) is enforced by leaving them out of the alphabet. The alphabet is printable
ASCII and the line break: a subset of what passes, so a character the checkers would judge differently (a capital
outside ASCII) never reaches them. What cannot be enforced this way (counts of words, sentences or letters,
forbidden words, two responses, the language) and an instruction whose literal text
the alphabet refuses (a keyword with a comma beside "no commas") are left to the checker, and the grammar says
which (``PromptGrammar.left``). ``detectable_format:json_format`` gives a JSON grammar of its own (``json``: the task
asks for a JSON object), the prompt's other instructions then left to the checker.
"""

from __future__ import annotations

import re
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
    lines: bool = False  # free text never begins a line with a bullet's mark (exact bullet counts)
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


def _sections(shape: _Shape, instruction: Instruction) -> str | None:
    """``n`` lines ``WORD 1`` ... ``WORD n``: IFEval counts matches of ``\\s?WORD\\s?\\d+\\s?`` (case as
    written), at least ``n``. A match before a marker can take at most the newline in front of it, never the word,
    so each marker is counted whatever free text surrounds it (a word that begins with a letter)."""
    word = instruction.args["section_spliter"].strip()
    if not word[:1].isalpha() or shape.cased(word) != word or not shape.fits(f"\n{word} 0123456789"):
        return "the section word holds characters (or a case) the other instructions forbid"
    shape.pieces.extend(_literal(f"\n{word} {n}\n") for n in range(1, instruction.args["num_sections"] + 1))
    return None


def _paragraphs(shape: _Shape, instruction: Instruction) -> str | None:
    """``n`` paragraphs: ``n - 1`` dividers ``\\n***\\n``, each with a character that is not a space on either
    side (no paragraph is empty), and no asterisk anywhere else (so no other ``***``; ``_REMOVES``)."""
    solid = shape.alphabet - {" ", "\n"}
    if not solid or "\n" not in shape.alphabet:
        return "no character is left to write a paragraph with"
    want = instruction.args["num_paragraphs"]
    if want == 0:
        return "zero paragraphs: only an empty response, which IFEval fails"
    divider = f"{_class(solid)}{_literal(chr(10) + '***' + chr(10))}{_class(solid)}"
    shape.pieces.extend([divider] * (want - 1) if want > 1 else [_class(solid)])
    return None


_BULLET_MARKS = frozenset("*- \n")
"""What may not begin a line of free text when bullets are counted exactly: IFEval's bullets are the lines that
match ``^\\s*\\*[^\\*]`` or ``^\\s*-`` (a space or an empty line first included)."""


def _bullets(shape: _Shape, instruction: Instruction) -> str | None:
    """Exactly ``n`` lines that begin ``* ``, and no other line (free text, the request repeated, a keyword at the
    start of a line, the ending) that begins with ``*``, ``-`` or a space. Built last, over every other piece, so
    that it can refuse a prompt whose other pieces could start such a line."""
    if "*" not in shape.alphabet or "\n" not in shape.alphabet or " " not in shape.alphabet:
        return "the bullet's characters are forbidden by another instruction"
    for text in (shape.start, shape.end):
        if text is not None and re.search(r"(?m)^[\s*-]", text):
            return "the request or the ending holds a line a bullet's mark begins"
    if not all(_safe_at_line_start(piece) for piece in shape.pieces + shape.last):
        return "another instruction's piece could begin a line with a bullet's mark"
    shape.lines = True
    shape.pieces.extend([_literal("\n* ")] * instruction.args["num_bullets"])
    return None


def _safe_at_line_start(piece: str) -> bool:
    """Whether ``piece`` (the compiler's regex) can never put a bullet's mark at the start of a line: each line it
    begins (its start, after each newline) begins with a literal other than the marks, and nothing else in it is a
    newline. A paragraph divider (a class after its newline) is refused, as is anything not seen here."""
    if piece.startswith("(") and piece.endswith(")"):  # fixed answers: a group of literals
        return all(_safe_at_line_start(option) for option in piece[1:-1].split("|"))
    starts = [0] + [match.end() for match in re.finditer(r"\\x\{A\}", piece)]
    for at in starts:
        if at == len(piece):
            continue  # ends with a newline: the free text after it is line-aware
        match = re.match(r"\\x\{([0-9A-F]+)\}|([A-Za-z0-9])|\[([^\]]*)\]", piece[at:])
        if match is None:
            return False
        code, plain, body = match.groups()
        chars = {chr(int(code, 16))} if code else {plain} if plain else _class_chars(body)
        if chars == {"\n"}:
            continue  # an empty line: the line after it is looked at next
        if chars & _BULLET_MARKS:
            return False
    return True


def _class_chars(body: str) -> set[str]:
    """The characters of a class ``_class`` wrote (its body between the brackets)."""
    chars: set[str] = set()
    for start, end in re.findall(r"\\x\{([0-9A-F]+)\}(?:-\\x\{([0-9A-F]+)\})?", body):
        chars.update(chr(c) for c in range(int(start, 16), int(end or start, 16) + 1))
    return chars


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
    "detectable_format:multiple_sections": _sections,
    "length_constraints:number_paragraphs": _paragraphs,
    "detectable_format:number_bullet_lists": _bullets,
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
    "length_constraints:number_paragraphs": {"*"},
}
"""Characters a grammar leaves out of the whole text for a kind that does not forbid them itself (``Kind.forbids``
are left out too), before any piece is built. A stray asterisk beside a highlight
changes how IFEval pairs them (``x*`` then ``*a**b*`` counts one highlight, not two), so free text and every other
piece go without. A stray bracket cannot hide a placeholder (each placeholder's ``]`` still ends one match of
IFEval's ``\\[.*?\\]``), so brackets stay."""


# ------------------------------------------------------------------------------------------------ the pattern


def _pattern(shape: _Shape) -> str:
    parts = [_literal(shape.start)] if shape.start else []
    parts.append(_free(shape, line_start=not shape.start))
    for piece in shape.pieces + shape.last:
        parts += [piece, _free(shape, line_start=piece.endswith(_literal("\n")))]
    if shape.end:
        parts.append(_literal(shape.end))
    return "".join(parts)


def _free(shape: _Shape, line_start: bool) -> str:
    """Free text over the alphabet; when bullets are counted (``shape.lines``), no line of it begins with a
    bullet's mark: ``REST* (\\n LINE)*`` mid-line, ``LINE (\\n LINE)*`` at a line's start, where a LINE is empty
    or begins with a character other than ``*``, ``-``, a space or a newline."""
    if not shape.alphabet:
        return ""
    if not shape.lines:
        return f"{_class(shape.alphabet)}*"
    rest, first = shape.alphabet - {"\n"}, shape.alphabet - _BULLET_MARKS
    line = f"({_class(first)}{_class(rest)}*)?" if first else ""
    return f"{line if line_start else _class(rest) + '*'}({_literal(chr(10))}{line})*"


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
