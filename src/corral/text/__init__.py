"""Segmentation: the single definition of chars, words, sentences, paragraphs and passages in Corral.

Three profiles ship: ``default`` (what a careful user expects), ``collie-v1`` (the COLLIE reference's rules,
exactly) and ``ifeval-v1`` (IFEval's words and sentences). More can be registered with ``register_profile``.
``Reasoning`` splits a reasoning model's output into its thinking block and the answer after it.
"""

from ._clean import printable, scrub
from ._profiles import Profile, RawUnit, get_profile, register_profile
from ._reasoning import DEFAULT_THINKING_CHARS, KNOWN_BLOCKS, MAX_TAG_CHARS, MAX_THINKING_CHARS, Reasoning, Thought
from ._segmentation import Segmentation, segment
from ._units import Level, Unit


def _register_builtin_profiles() -> None:
    from corral.registry import profiles

    from . import _collie_v1, _default, _ifeval_v1

    for profile in (_default.PROFILE, _collie_v1.PROFILE, _collie_v1.NLTK_PROFILE, _ifeval_v1.PROFILE):
        if profile.name not in profiles:
            register_profile(profile)


_register_builtin_profiles()

__all__ = [
    "DEFAULT_THINKING_CHARS",
    "KNOWN_BLOCKS",
    "MAX_TAG_CHARS",
    "MAX_THINKING_CHARS",
    "Level",
    "Profile",
    "RawUnit",
    "Reasoning",
    "Segmentation",
    "Thought",
    "Unit",
    "get_profile",
    "printable",
    "register_profile",
    "scrub",
    "segment",
]
