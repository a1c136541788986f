"""Terminal expressions in llguidance's Lark dialect, and the separators of the text shape.

A word- or sentence-level constraint compiles to terminals (lexemes): regular expressions built with
concatenation, alternation, repetition, intersection (``&``) and complement (``~``), all of which llguidance
supports inside terminals. Complement and intersection are what make ``not``, ``!=``, ``==`` and
"every word ..." exact rather than approximate. The sentence shape itself (what each profile makes of every
lexical form) is in ``_lexicon.py`` and ``_words.py``; ``docs/grammars.md`` describes it.
"""

from __future__ import annotations

import json
import re

ANY = "/.*/"
WORD = "/[A-Za-z][a-z]*/"
# One to three spaces between sentences (two as typed after a period; three where an editor left one more); a
# paragraph may end with a space and start with one or two, and so may the text; the text may end with a space.
# The profiles strip units and split words and sentences at any run of spaces, so none of these changes a word,
# a sentence or a paragraph (a character count sees them: the text's edges are left bare when one is asked).
SENTENCE_SEPARATOR = "/ {1,3}/"
PARAGRAPH_SEPARATOR = "/ ?\\n\\n {0,2}/"
TEXT_START = "/ {1,2}/?"
TEXT_END = '" "?'

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


def no_final_candidates() -> tuple[str, ...]:
    """Words a sentence splitter might refuse to end a sentence on (each profile is probed with them)."""
    return tuple(_NO_FINAL)
