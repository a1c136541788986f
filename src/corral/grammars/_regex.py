"""Terminal expressions in llguidance's Lark dialect, and the narrow text shape the constraint compiler targets.

A word- or sentence-level constraint compiles to one terminal (a lexeme): a regular expression built with
concatenation, alternation, repetition, intersection (``&``) and complement (``~``), all of which llguidance
supports inside terminals. Complement and intersection are what make ``not``, ``!=``, ``==`` and
"every word ..." exact rather than approximate.

The **shape** is the language every compiled grammar stays inside (documented in docs/grammars.md):

* a word is ASCII letters, lowercase after an optional capital (``[A-Za-z][a-z]*``);
* a sentence is words separated by a space or a comma and a space, starting with a capital and ending with
  ``.``; its last word has at least two letters, ends in lowercase, and is not an abbreviation, month or
  Roman numeral that a sentence splitter would refuse to end on;
* sentences in a paragraph are separated by one space, paragraphs by one blank line (``\\n\\n``).

Inside that shape every unit the checker sees is known exactly: words are the letter runs, sentences end at
the periods, so each base constraint has an *exact* regular expression relative to the shape.
"""

from __future__ import annotations

import json
import re

ANY = "/.*/"
LETTERS = "/[A-Za-z]+/"
NON_LETTER = "/[^A-Za-z]/"
WORD = "/[A-Za-z][a-z]*/"
FIRST_WORD = "/[A-Z][a-z]*/"
WORD_SEPARATOR = "/,? /"
SENTENCE_SEPARATOR = '" "'
PARAGRAPH_SEPARATOR = '"\\n\\n"'

# Words a sentence must not end on: syntok's abbreviations and months, Roman numerals (the default profile's
# splitter would not break after them), lowercased; single letters are excluded by the two-letter rule
# (both Punkt and syntok treat "X." as an initial).
_NO_FINAL = (
    "abb", "abs", "adm", "afmo", "alt", "anl", "ap", "apdo", "approx", "art", "atte", "atto", "aufl", "ave",
    "az", "bd", "bmo", "brig", "bsp", "bspw", "bzgl", "bzw", "ca", "cap", "capt", "cf", "cmdt", "cnel", "co",
    "col", "corp", "de", "dgl", "di", "do", "dr", "dt", "emp", "en", "es", "etc", "evtl", "excl", "exca",
    "excmo", "exsmo", "ff", "fig", "figs", "fr", "gal", "gen", "ggf", "gob", "gral", "gmbh", "hd", "hno",
    "hnos", "inc", "incl", "inkl", "lic", "lit", "ldo", "ltd", "mag", "max", "med", "mi", "min", "mio", "mo",
    "mon", "mos", "mr", "mrd", "mrs", "ms", "mt", "mwst", "nat", "nr", "ntra", "ntro", "pag", "phil", "prof",
    "rer", "resp", "sa", "sat", "sab", "sci", "sen", "so", "sr", "sra", "srta", "st", "sun", "synth", "tab",
    "tel", "thu", "tue", "univ", "urt", "vda", "vie", "vol", "vs", "vta", "wed", "zb", "zit", "zzgl", "lun",
    "mar", "mie", "mié", "jue", "dom", "jan", "jän", "ene", "feb", "febr", "mär", "mzo", "apr", "abr", "abl",
    "may", "jun", "jul", "ago", "agto", "aug", "sep", "sept", "setbre", "set", "oct", "octbre", "okt", "nov",
    "novbre", "dic", "dicbre", "dez", "dec", "ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii", "xiii",
    "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx", "xxi", "xxii", "xxiii", "xxiv", "xxv", "no",
)


NOTHING = "(/a/ & /b/)"
"""The empty language (what an unsatisfiable part compiles to); the builders below simplify around it."""


def lit(text: str) -> str:
    """A string terminal (DEL escaped: llguidance refuses it raw, as JSON leaves it)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def rx(pattern: str) -> str:
    """A regex terminal (Rust ``regex`` syntax)."""
    return "/" + pattern.replace("/", "\\/") + "/"


def seq(*parts: str) -> str:
    if NOTHING in parts:
        return NOTHING
    return "(" + " ".join(p for p in parts if p) + ")"


def alt(*parts: str) -> str:
    parts = tuple(p for p in parts if p != NOTHING) or (NOTHING,)
    return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"


def both(*parts: str) -> str:
    if NOTHING in parts:
        return NOTHING
    parts = tuple(p for p in parts if p != ANY) or (ANY,)
    return parts[0] if len(parts) == 1 else "(" + " & ".join(parts) + ")"


def neg(part: str) -> str:
    if part == NOTHING:
        return ANY
    if part == ANY:
        return NOTHING
    if part.startswith("~"):
        return part[1:]
    return "~" + part if part.startswith("(") else "~(" + part + ")"


def rep(part: str, lo: int, hi: int | None) -> str:
    """``part`` repeated lo..hi times (hi None: unbounded)."""
    if hi is not None and hi < lo:
        return NOTHING
    if hi == lo:
        return "" if lo == 0 else f"({part}){{{lo}}}"
    return f"({part}){{{lo},{'' if hi is None else hi}}}"




def case_pattern(text: str, case_sensitive: bool) -> str:
    """A regex source matching ``text`` exactly, letters in either case unless ``case_sensitive``."""
    out = []
    for char in text:
        if not case_sensitive and char.lower() != char.upper() and len(char.lower()) == len(char.upper()) == 1:
            out.append(f"[{re.escape(char.lower())}{re.escape(char.upper())}]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def ci(text: str, case_sensitive: bool = False) -> str:
    """A terminal for ``text`` in either case (or exactly)."""
    return rx(case_pattern(text, case_sensitive)) if text else '""'


def sentence_shape(no_final: tuple[str, ...] = (), max_words: int = 40) -> str:
    """The sentence language (see the module docstring): at most ``max_words`` words; ``no_final``: words it
    must not end on. Written positively (the last word is its own piece) because the engine checks a
    positive expression much faster than an intersection with ``.*`` patterns."""
    last = rx("[A-Za-z][a-z]*[a-z]")
    single = rx("[A-Z][a-z]+")
    if no_final:
        ban = rx(f"(?i:{'|'.join(sorted(no_final))})")
        last, single = both(last, neg(ban)), both(single, neg(ban))
    many = seq(FIRST_WORD, rep(seq(WORD_SEPARATOR, WORD), 0, max_words - 2), WORD_SEPARATOR, last)
    return seq(alt(single, many) if max_words > 1 else single, '"."')


def every_run(unit: str) -> str:
    """Texts whose every whole letter run is in ``unit`` (positive form: cheaper for the engine than a complement)."""
    one = both(unit, LETTERS)
    return alt(rx("[^A-Za-z]*"), seq(rx("[^A-Za-z]*"), one, rep(seq(rx("[^A-Za-z]+"), one), 0, None), rx("[^A-Za-z]*")))


def no_final_candidates() -> tuple[str, ...]:
    """Words a sentence splitter might refuse to end a sentence on (each profile is probed with them)."""
    return tuple(_NO_FINAL)


def at_least_runs(unit: str, k: int, between: str = ANY) -> str:
    """Texts with at least ``k`` separate occurrences of a whole letter run in ``unit``.

    An occurrence is bounded by the text's edges or by non-letters, so it is a whole word, never part of one.
    """
    if k <= 0:
        return ANY
    one = both(unit, LETTERS)
    middle = rep(seq(NON_LETTER, alt('""', seq(between, NON_LETTER)), one), k - 1, k - 1)
    return seq(alt('""', seq(ANY, NON_LETTER)), one, middle, alt('""', seq(NON_LETTER, ANY)))
