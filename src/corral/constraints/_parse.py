"""Reading the textual form with a real grammar (Lark, LALR), with errors that name line, column and
what was expected there.

The grammar knows selectors, levels, strings, numbers, relations, and/or/not/parentheses and quantifiers;
it knows no base constraint by name: ``name(args) [rel value]`` is a call, turned into a node by the kind
registered under ``name``. ``selector rel 'string'`` is the built-in ``match`` kind (COLLIE's ``pos(...) == v``).
"""

from __future__ import annotations

from functools import cache

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from corral.errors import InputError
from corral.registry import RegistryError
from corral.text import Level

from ._kinds import Call, get_kind
from ._nodes import TEXT, UNIT, And, Constraint, Expr, ForEach, Match, Not, Or, Pos, Quantifier, Rel
from ._pattern import PatternTooLarge
from ._strings import decode_string

GRAMMAR = r"""
start: profile? level_prefix? expr

profile: "[" PROFILE_NAME "]"
level_prefix: LEVEL ":"

?expr: or_expr
?or_expr: and_expr (_OR and_expr)*
?and_expr: not_expr (_AND not_expr)*
?not_expr: _NOT not_expr -> negation
         | atom
?atom: "(" expr ")"
     | quantified
     | selector REL STRING CASE?  -> match
     | call REL value CASE?       -> compared_call
     | call                       -> bare_call

quantified: QUANTIFIER "(" (SIGNED_INT ",")? selector "," LEVEL "," expr ")"
call: NAME "(" [arg ("," arg)*] ")"
?arg: selector | LEVEL | STRING | SIGNED_INT
?value: SIGNED_INT | STRING

selector: TEXT                                    -> text
        | UNIT                                    -> unit
        | POS "(" selector "," LEVEL "," SIGNED_INT ")" -> pos

// keywords end at a word boundary, so "allx" or "notable" stay names
_OR.3: /or\b/
_AND.3: /and\b/
_NOT.3: /not\b/
TEXT.3: /text\b/
UNIT.3: /unit\b/
POS.3: /pos\b/
QUANTIFIER.3: /(?:all|any|at_least|at_most|exactly)\b/
LEVEL.3: /(?:character|char|word|sentence|paragraph|passage)\b/
REL.3: /==|!=|<=|>=|<|>|(?:contains|startswith|endswith)\b/
CASE.3: /case-sensitive\b/
PROFILE_NAME: /[A-Za-z0-9_.\-]+/
NAME: /[a-z_][a-z0-9_]*/
STRING: /'(?:[^'\\\n]|\\.)*'/ | /"(?:[^"\\\n]|\\.)*"/
SIGNED_INT: /[+-]?\d+/

%ignore /[ \t\r\n]+/
"""

_DESCRIBE = {
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "COLON": "':'", "LSQB": "'['", "RSQB": "']'",
    "STRING": "a quoted string", "SIGNED_INT": "a whole number", "LEVEL": "a level (char, word, sentence, "
    "paragraph, passage)", "REL": "a relation (== != < > <= >= contains startswith endswith)",
    "NAME": "a constraint name such as count", "QUANTIFIER": "all/any/at_least/at_most/exactly",
    "_AND": "'and'", "_OR": "'or'", "_NOT": "'not'", "CASE": "'case-sensitive'", "TEXT": "'text'",
    "UNIT": "'unit'", "POS": "'pos'", "PROFILE_NAME": "a profile name", "$END": "the end of the spec",
}


MAX_NESTING = 100
"""How deep a spec may nest (parentheses, not, for-eachs, pos inside pos); deeper is a syntax error."""


class ConstraintSyntaxError(InputError):
    """A spec that does not parse; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, spec: str, line: int, column: int) -> None:
        self.spec, self.line, self.column, self.reason = spec, line, column, message
        super().__init__(f"line {line}, column {column}: {message}")


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def parse(spec: str) -> Constraint:
    """Parse the textual form into a Constraint.

    Example:
        >>> str(parse("sentence: count(text, word, sentence) == 10 and pos(text, word, 3) == 'soft'"))
        "sentence: count(text, word, sentence) == 10 and pos(text, word, 3) == 'soft'"
    """
    if not isinstance(spec, str):
        raise TypeError(f"parse() needs a str, got {type(spec).__name__}")
    if len(spec) > 1_000_000:
        raise ConstraintSyntaxError("spec is longer than 1,000,000 characters", spec[:80], 1, 1)
    try:
        tree = _parser().parse(spec)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, spec) from None
    except RecursionError:
        raise ConstraintSyntaxError(f"nested more than {MAX_NESTING} deep", spec[:80], 1, 1) from None
    builder = _Builder(spec)
    too_deep = _deeper_than(tree, MAX_NESTING + 10)  # + the levels of a base constraint under the nesting
    if too_deep is not None:
        raise builder.fail(f"nested more than {MAX_NESTING} deep", too_deep)
    return builder.start(tree)


def _deeper_than(tree: Tree, limit: int) -> Tree | None:
    """The first node of ``tree`` deeper than ``limit`` (None if there is none), found without recursion: the
    builder, printing and checking recurse once per level, so a spec nested thousands deep is refused here."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return None


def _syntax_error(exc: UnexpectedInput, spec: str) -> ConstraintSyntaxError:
    line, column = getattr(exc, "line", 1), getattr(exc, "column", 1)
    if isinstance(exc, UnexpectedEOF):
        line, column = _end_position(spec)
        seen = "the end of the spec"
    elif isinstance(exc, UnexpectedCharacters):
        seen = repr(spec[exc.pos_in_stream]) if exc.pos_in_stream < len(spec) else "the end"
        exc.expected = _acceptable_after(spec[: exc.pos_in_stream])
    elif isinstance(exc, UnexpectedToken):
        token = exc.token
        seen = "the end of the spec" if token.type == "$END" else repr(str(token))
        if token.type == "$END":
            line, column = _end_position(spec)
    else:
        seen = "unexpected input"
    expected = sorted({_DESCRIBE.get(name, name.lower()) for name in (exc.expected or ()) if name})
    hint = f"; expected {', '.join(expected)}" if expected else ""
    return ConstraintSyntaxError(f"unexpected {seen}{hint}", spec, max(line, 1), max(column, 1))


def _acceptable_after(prefix: str) -> set[str]:
    """The terminals the parser would take after ``prefix`` (the lexer alone knows only every terminal)."""
    try:
        interactive = _parser().parse_interactive(prefix)
        interactive.exhaust_lexer()
        return set(interactive.accepts())
    except UnexpectedInput:
        return set()


def _end_position(spec: str) -> tuple[int, int]:
    lines = spec.split("\n")
    return len(lines), len(lines[-1]) + 1


class _Builder:
    """Turns the parse tree into nodes, turning value errors into errors at the construct's column."""

    def __init__(self, spec: str) -> None:
        self.spec = spec

    def fail(self, message: str, where: Tree | Token) -> ConstraintSyntaxError:
        line = getattr(where, "line", None) or getattr(getattr(where, "meta", None), "line", 1)
        column = getattr(where, "column", None) or getattr(getattr(where, "meta", None), "column", 1)
        return ConstraintSyntaxError(message, self.spec, line or 1, column or 1)

    def start(self, tree: Tree) -> Constraint:
        profile, level = "default", None
        body = None
        for child in tree.children:
            if isinstance(child, Tree) and child.data == "profile":
                profile = str(child.children[0])
                self._check_profile(profile, child)
            elif isinstance(child, Tree) and child.data == "level_prefix":
                level = self.level(child.children[0])
            else:
                body = self.expr(child, in_quantifier=False)
        assert body is not None
        return Constraint(body, level, profile)

    def _check_profile(self, name: str, where: Tree) -> None:
        from corral.text import get_profile

        try:
            get_profile(name)
        except RegistryError as exc:
            raise self.fail(str(exc), where) from None

    def level(self, token: Token) -> Level:
        return Level.parse(str(token))

    def expr(self, tree: Tree, in_quantifier: bool) -> Expr:
        kind = tree.data
        try:
            if kind == "or_expr":
                return Or(tuple(self.expr(child, in_quantifier) for child in tree.children))
            if kind == "and_expr":
                return And(tuple(self.expr(child, in_quantifier) for child in tree.children))
            if kind == "negation":
                return Not(self.expr(tree.children[0], in_quantifier))
            if kind == "quantified":
                return self.quantified(tree, in_quantifier)
            if kind == "match":
                selector = self.selector(tree.children[0], in_quantifier)
                rel = Rel(str(tree.children[1]))
                value = self.string(tree.children[2])
                return Match(selector, rel, value, case_sensitive=len(tree.children) > 3)
            if kind in ("compared_call", "bare_call"):
                return self.call(tree, in_quantifier)
        except ValueError as exc:
            if isinstance(exc, ConstraintSyntaxError):
                raise
            raise self.fail(str(exc), tree) from None
        raise self.fail(f"unexpected construct {kind}", tree)

    def quantified(self, tree: Tree, in_quantifier: bool) -> ForEach:
        children = list(tree.children)
        quantifier = Quantifier(str(children.pop(0)))
        k = int(children.pop(0)) if len(children) == 4 else None
        selector = self.selector(children[0], in_quantifier)
        level = self.level(children[1])
        body = self.expr(children[2], in_quantifier=True)
        return ForEach(quantifier, selector, level, body, k)

    def call(self, tree: Tree, in_quantifier: bool) -> Expr:
        call_tree = tree.children[0]
        name_token = call_tree.children[0]
        try:
            kind = get_kind(str(name_token))
        except RegistryError as exc:
            raise self.fail(str(exc), name_token) from None
        if kind.from_call is None:
            raise self.fail(f"{kind.name} has no call form", name_token)
        args = tuple(self.arg(arg, in_quantifier) for arg in call_tree.children[1:])
        rel = value = None
        case_sensitive = False
        if tree.data == "compared_call":
            rel = Rel(str(tree.children[1]))
            raw = tree.children[2]
            value = int(raw) if raw.type == "SIGNED_INT" else self.string(raw)
            case_sensitive = len(tree.children) > 3
        call = Call(str(name_token), args, rel, value, case_sensitive, name_token.column or 1)
        try:
            return kind.from_call(call)
        except PatternTooLarge as exc:  # point at the pattern itself, not at the call
            pattern = next((arg for arg in call_tree.children[1:] if isinstance(arg, Token) and arg.type == "STRING"),
                           name_token)
            raise self.fail(str(exc), pattern) from None

    def arg(self, node: Tree | Token, in_quantifier: bool) -> object:
        if isinstance(node, Tree):
            return self.selector(node, in_quantifier)
        if node.type == "LEVEL":
            return self.level(node)
        if node.type == "STRING":
            return self.string(node)
        return int(node)

    def selector(self, tree: Tree, in_quantifier: bool) -> object:
        if tree.data == "text":
            return TEXT
        if tree.data == "unit":
            if not in_quantifier:
                raise self.fail("'unit' names the unit of an enclosing all()/any()/at_least()/at_most()/"
                                "exactly(); there is none here", tree)
            return UNIT
        _, inner, level, index = tree.children
        try:
            return Pos(self.selector(inner, in_quantifier), self.level(level), int(index))
        except ValueError as exc:
            if isinstance(exc, ConstraintSyntaxError):
                raise
            raise self.fail(str(exc), index) from None

    def string(self, token: Token) -> str:
        value, bad = decode_string(str(token))
        if bad is not None:
            raise ConstraintSyntaxError(f"unknown escape in string {str(token)[:40]}", self.spec,
                                        token.line or 1, (token.column or 1) + bad)
        return value
