"""Which language a response is in: py3langid (a maintained fork of langid.py, BSD-3-Clause, its model in the
wheel), loaded once on first use.

Why not IFEval's langdetect: langdetect draws random samples unless seeded (two runs can disagree on a short text),
is unmaintained since 2021, and IFEval's own language codes are langid.py's. The two identifiers agree on ordinary
paragraphs and can disagree on a few words, on mixed-language text and between close languages (Hindi, Marathi and
Nepali share a script); ``docs/ifeval.md`` says how the differential test treats that.

A response with no letter at all cannot be identified; IFEval counts the instruction as followed then (langdetect
raises "no features" and IFEval passes), and so does Corral, for the same verdicts.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ._kinds import tick

LANGUAGES = {
    "en": "English", "es": "Spanish", "pt": "Portuguese", "ar": "Arabic", "hi": "Hindi", "fr": "French",
    "ru": "Russian", "de": "German", "ja": "Japanese", "it": "Italian", "bn": "Bengali", "uk": "Ukrainian",
    "th": "Thai", "ur": "Urdu", "ta": "Tamil", "te": "Telugu", "bg": "Bulgarian", "ko": "Korean", "pl": "Polish",
    "he": "Hebrew", "fa": "Persian", "vi": "Vietnamese", "ne": "Nepali", "sw": "Swahili", "kn": "Kannada",
    "mr": "Marathi", "gu": "Gujarati", "pa": "Punjabi", "ml": "Malayalam", "fi": "Finnish",
}
"""ISO 639-1 codes IFEval's language instruction uses, with their English names (for rendering)."""

_NO_FEATURE = -1e38
"""py3langid scores a text none of whose byte n-grams it knows at the lowest float: no evidence at all."""


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE)


def identify(text: str) -> str | None:
    """The ISO 639-1 code of ``text``'s language, ``"unknown"`` when the model finds no evidence, or None when the
    text has no letter to identify (IFEval's "cannot detect")."""
    if not any(char.isalpha() for char in text):
        return None
    tick()
    code, score = _identifier().classify(text)
    return "unknown" if score <= _NO_FEATURE else str(code)


def language_name(code: str) -> str:
    return LANGUAGES.get(code, code)
