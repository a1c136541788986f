"""MTT: machine translation with terminology (de→en). Each source term that occurs in the source (``src``) must be
translated by its target term (``terms``: a mapping, source term → target term), and the answer must be a
translation: not the terms alone, not the German source with the terms pasted in.

Terms are data: a mapping, or its JSON text. The reference ``eval()``s a Python dict string; Corral never
evaluates data. Matching is on whole words, with the case of a term's first letter free (a term may open the
sentence); the reference wants a case-sensitive substring.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import regex

from corral.verdicts import Violation

from ._core import FormatChecker, InstanceError, reference_first_line

MTT_WORD = regex.compile(r"\p{L}[\p{L}'’-]*")
UNTRANSLATED_SHARE = 0.5  # an answer whose words are mostly the source's own is left in German
MIN_LENGTH_RATIO = 0.5  # English runs about as long as German; under half the words is a fragment, not a translation


def terms_of(instance: Mapping[str, Any]) -> dict[str, str]:
    """The instance's terminology as a dict; a string must be JSON (never evaluated as code)."""
    terms = instance["terms"]
    if isinstance(terms, str):
        try:
            terms = json.loads(terms)
        except json.JSONDecodeError as exc:
            raise InstanceError(f"mtt instance {instance.get('id', '?')}: field 'terms' is not JSON "
                                f"({exc.msg} at column {exc.colno})") from None
    if not isinstance(terms, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in terms.items()):
        raise InstanceError(f"mtt instance {instance.get('id', '?')}: field 'terms' must map source terms to "
                            "target terms (strings)")
    return dict(terms)


def find_term(term: str, text: str) -> regex.Match[str] | None:
    head, rest = regex.escape(term[:1]), regex.escape(term[1:])
    pattern = rf"(?<![\p{{L}}\p{{N}}])(?i:{head}){rest}(?![\p{{L}}\p{{N}}])"
    return regex.search(pattern, text)


def strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    source, terms = str(instance["src"]), terms_of(instance)
    answer = output.strip()
    if not answer:
        return [Violation("translation", "The answer is empty; it must be the English translation.", (0, 0))]
    found = []
    used = [(src, tgt) for src, tgt in sorted(terms.items()) if find_term(src, source)]
    for src, tgt in used:
        if find_term(tgt, output) is None:
            found.append(Violation("terms", f"The source has {src!r}; translate it as {tgt!r}.", None, tgt))
    words = [w.lower() for w in MTT_WORD.findall(answer)]
    target_words = {w.lower() for _, tgt in used for w in MTT_WORD.findall(tgt)}
    rest = [w for w in words if w not in target_words]
    source_words = {w.lower() for w in MTT_WORD.findall(source)} - target_words
    source_length = len(MTT_WORD.findall(source))
    if source_length >= 4 and len(rest) < 2:
        found.append(Violation("translation", "The answer is only the terms; translate the whole sentence.", None))
    elif source_length >= 6 and len(words) < MIN_LENGTH_RATIO * source_length:
        found.append(Violation("translation", f"The answer has {len(words)} words for a source of {source_length}; "
                                              "translate the whole sentence.", None,
                               f">= {round(MIN_LENGTH_RATIO * source_length)} words", len(words)))
    elif rest and sum(w in source_words for w in rest) / len(rest) > UNTRANSLATED_SHARE:
        found.append(Violation("translation", "Most of the answer is the German source; translate it into English.",
                               None))
    return found


def reference(instance: Mapping[str, Any], output: str) -> bool:
    answer = reference_first_line(output)
    return all(tgt in answer for src, tgt in terms_of(instance).items() if src in str(instance["src"]))


CHECKER = FormatChecker(
    "mtt", {"terms": "each source term translated by its target term",
            "translation": "a whole English translation"}, ("src", "terms"), strict, reference,
    "MTT: German to English translation that uses the given terminology")
