"""A grammar per IFEval prompt: the instructions a regular expression can enforce, compiled into one.

Why one regular expression: most of IFEval's decidable instructions are about the shape of the whole text, and
they compose as a shape: an alphabet (no comma; no capital letter; no lowercase letter), a fixed start (the request
repeated; an opening quotation mark), a fixed end (the end phrase; a closing quotation mark) and pieces that must
appear in order between stretches of free text (a <<title>>, one of the fixed answers, the keywords, n
[placeholders], n *highlights*, n section markers, n - 1 *** dividers, n bullets, the postscript). A prompt's
grammar is

    START  TEXT*  (PIECE TEXT*)*  END        where TEXT is the alphabet's characters

and every text it accepts passes the checker of every instruction it enforces (``tests/suites/ifeval/
test_grammar.py`` draws texts from each of the 540 prompts' grammars and checks them). A kind that forbids
characters (``Kind.forbids``: no comma; a plug-in's own) is enforced by leaving them out of the alphabet. The
alphabet is printable ASCII and the line break: a subset of what passes, so a character the checkers would judge
differently (a capital outside ASCII) never reaches them. Counts over the whole text (words, a letter, a keyword,
forbidden words) are conditions beside the shape that the grammar intersects with it (``_counts``,
``PromptGrammar.lark``). Paragraphs split at blank lines (the nth one's first word) are dividers among the pieces,
free text then written without line breaks. What cannot be enforced this way (sentence counts, two responses, the
language) and an instruction whose literal text the alphabet refuses (a keyword with a comma beside
"no commas") are left to the checker, and the grammar says which (``PromptGrammar.left``).
``detectable_format:json_format`` gives a JSON grammar of its own (``json``: the task asks for a JSON object), the
prompt's other instructions then left to the checker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ._counts import TEXT, Count, forbidden_word, keyword_frequency, letter_frequency, number_words
from ._format import OPTIONS
from ._kinds import Instruction
from ._length import FIRST_WORD_ENDS as _FIRST_WORD_ENDS
from ._regex import char_class as _class
from ._regex import literal as _literal

ALPHABET = TEXT
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
    counts: tuple[Count, ...] = ()
    """Conditions on the whole text beside ``pattern`` (``_counts``): the grammar is then a Lark lexeme, the
    pattern intersected with each (``lark``)."""

    def lark(self) -> str:
        """The grammar as llguidance's Lark: one lexeme, ``pattern & count & ~count ...``."""
        assert self.pattern is not None
        terms = [f"/{self.pattern}/", *(f"{'~' if c.negated else ''}/{c.regex}/" for c in self.counts)]
        return "start: TEXT\nTEXT: " + " & ".join(terms) + "\n"


@dataclass
class _Shape:
    alphabet: set[str] = field(default_factory=lambda: set(ALPHABET))
    case: str | None = None  # "lower" or "upper": literals are written in that case (the checkers ignore case)
    start: str | None = None
    end: str | None = None
    pieces: list[str] = field(default_factory=list)  # regex pieces, in order
    lines: bool = False  # free text never begins a line with a bullet's mark (exact bullet counts)
    counts: list[tuple[str, Count]] = field(default_factory=list)  # conditions on the whole text, by instruction
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
    compiled = PromptGrammar(_pattern(shape), False, tuple(shape.enforced), tuple(shape.left),
                             tuple(count for _, count in shape.counts))
    upper = {name for name, count in shape.counts if count.upper}
    lower = {name for name, count in shape.counts if not count.upper}
    reason = ("beside a count bounded from below, left to the checker (their intersection is not checked for a "
              "text)" if lower else "its bound conflicts with text the other instructions require")
    if upper and (lower or not _has_a_text(compiled)):
        # an upper bound the required text already breaks (a forbidden word inside a keyword, fewer words than the
        # repeated request holds), or one beside a lower bound: the upper bounds go to the checker, the rest stays
        # (by kind: a kind given twice, at least 6 and fewer than 8 times, goes whole)
        shape.left += [(name, reason) for name in shape.enforced if name in upper]
        shape.enforced = [name for name in shape.enforced if name not in upper]
        shape.counts = [(name, count) for name, count in shape.counts if name not in upper]
        if not shape.enforced:
            return PromptGrammar(None, False, (), tuple(shape.left))
        compiled = PromptGrammar(_pattern(shape), False, tuple(shape.enforced), tuple(shape.left),
                                 tuple(count for _, count in shape.counts))
    return compiled


def _has_a_text(compiled: PromptGrammar) -> bool:
    """Whether the grammar accepts the shape's sparest text (``_sparest``), the engine deciding: upper bounds
    only ever reject more text, so if that one fails they conflict with what the shape requires (or nearly so:
    the answer is cautious, never wrong the other way)."""
    from corral.grammars import Grammar, accepts

    assert compiled.pattern is not None
    return accepts(Grammar.lark(compiled.lark()), _sparest(compiled.pattern, 0)[0])


_ATOM = re.compile(r"\\x\{([0-9A-F]+)\}|([A-Za-z0-9])|\[([^\]]*)\]")
"""One atom of the compiler's patterns (``_regex``): an escaped character, a letter or digit, or a class."""

_SPARE = ".,;:!?()'\"#$%&+/<=>@[]^`{|}~0123456789-_ \nxqzjkvwbfgpymhdlcurtnsoiaeXQZ"
"""The characters the sparest text takes from a class, first found first: punctuation (no word, no letter), then
digits, then the rarest letters; a space, a line break and a bullet's marks late, as bullets and lines count them."""


def _sparest(pattern: str, at: int) -> tuple[str, int]:
    """The sparest text of the compiler's pattern from ``at`` to the closing parenthesis (or the end): no
    repetition it can leave out, the shortest alternative, and from a class its first character in ``_SPARE``."""
    options: list[str] = []
    out: list[str] = []
    while at < len(pattern) and pattern[at] != ")":
        if pattern[at] == "|":
            options.append("".join(out))
            out, at = [], at + 1
            continue
        if pattern[at] == "(":
            text, at = _sparest(pattern, at + 1)
            at += 1  # the closing parenthesis
        else:
            match = _ATOM.match(pattern, at)
            assert match is not None, pattern[at:at + 30]
            at = match.end()
            code, plain, body = match.groups()
            if body is None:
                text = chr(int(code, 16)) if code else plain
            else:
                chars = _class_chars(body)
                text = next((char for char in _SPARE if char in chars), min(chars))
        repeat = pattern[at] if at < len(pattern) and pattern[at] in "*+?" else ""
        at += bool(repeat)
        out.append("" if repeat in ("*", "?") else text)
    options.append("".join(out))
    return min(options, key=len), at


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
        match = _ATOM.match(piece, at)
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


def _count(build: Callable[[Instruction, set[str]], Count | str | None]) -> Callable[[_Shape, Instruction], str | None]:
    """The adder of a count over the whole text (``_counts``): its condition joins the shape's."""

    def add(shape: _Shape, instruction: Instruction) -> str | None:
        made = build(instruction, shape.alphabet)
        if isinstance(made, str):
            return made
        if made is not None:
            shape.counts.append((instruction.id, made))
        return None

    return add


def _forbidden_words(shape: _Shape, instruction: Instruction) -> str | None:
    made = [forbidden_word(word, shape.alphabet) for word in instruction.args["forbidden_words"]]
    reasons = [item for item in made if isinstance(item, str)]
    if reasons:
        return reasons[0]
    shape.counts += [(instruction.id, item) for item in made if isinstance(item, Count)]
    return None


_NEWLINE = _literal("\n")
_CLASS = re.compile(r"\[[^\]]*\]")


def _nth_paragraph(shape: _Shape, instruction: Instruction) -> str | None:
    """Exactly ``n`` paragraphs split at blank lines, the ``k``-th beginning with the word: ``n - 1`` dividers
    ``S\\n\\nS`` (``S`` a character that is not a space, so no paragraph is empty), the ``k``-th ``S\\n\\nWORD `` (the
    response's start for ``k = 1``), and no other blank line: free text goes without line breaks, and every other
    piece may hold a line break only as a literal that neither ends it nor follows another. Built after every
    other piece, so that it can refuse a prompt whose pieces could make a blank line."""
    want, nth = instruction.args["num_paragraphs"], instruction.args["nth_paragraph"]
    word = shape.cased(instruction.args["first_word"].strip())
    solid = shape.alphabet - {" ", "\n"}
    if not 0 < nth <= want:
        return f"paragraph {nth} of {want}: IFEval fails every response"
    if (not word or not shape.fits(word + " ") or word.lower() != instruction.args["first_word"].strip().lower()
            or any(char.isspace() or char in _FIRST_WORD_ENDS for char in word) or not solid):
        return "the first word holds characters (or a case) the other instructions forbid"
    if shape.lines or any("\n" in text for text in (shape.start, shape.end) if text):
        return "another instruction writes lines of its own (bullets, the request or the ending)"
    for piece in shape.pieces + shape.last:
        if any(_NEWLINE in body for body in _CLASS.findall(piece)) or piece.endswith(_NEWLINE) \
                or _NEWLINE * 2 in piece:
            return "another instruction's piece could make a blank line"
    if nth == 1:
        if shape.start not in (None, '"'):  # IFEval drops a paragraph's leading quotation mark
            return "another instruction fixes how the response begins"
        shape.start = (shape.start or "") + word + " "
    between = f"{_class(solid)}{_NEWLINE * 2}{_class(solid)}"
    dividers = [between] * (want - 1)
    if nth > 1:
        dividers[nth - 2] = f"{_class(solid)}{_NEWLINE * 2}{_literal(word + ' ')}"
    shape.pieces.extend(dividers)
    shape.alphabet.discard("\n")  # free text: no line break, so no blank line but the dividers'
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
    "detectable_format:multiple_sections": _sections,
    "length_constraints:number_paragraphs": _paragraphs,
    "detectable_format:number_bullet_lists": _bullets,
    "length_constraints:number_words": _count(number_words),
    "keywords:letter_frequency": _count(letter_frequency),
    "keywords:frequency": _count(keyword_frequency),
    "keywords:forbidden_words": _forbidden_words,
    "length_constraints:nth_paragraph_first_word": _nth_paragraph,
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
