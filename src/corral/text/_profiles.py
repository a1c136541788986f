"""Segmentation profiles: a named, versioned definition of units and of string matching.

A profile is data: a name, a description, a ``split`` function (a string and a level to units with offsets
relative to that string) and a ``normalize`` function (what string comparisons see). Every part of Corral that
counts or compares units goes through the profile named by the constraint, so there is exactly one definition
of "a word" per profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from corral.registry import lookup, profiles

from ._units import Level

RawUnit = tuple[str, int, int]
"""(value, start, end) with offsets relative to the string that was split; the fast internal form of a Unit."""


@dataclass(frozen=True)
class Profile:
    """A segmentation profile.

    Attributes:
        name: registry name, versioned when behaviour changes (``collie-v1``).
        description: one paragraph for humans (shown by ``corral profiles`` and in signatures).
        split: ``split(text, level)`` returns the units of ``text`` at ``level``; it never raises.
        normalize: ``normalize(value, case_sensitive)`` returns the form used when comparing strings.
        normalize_all: optional ``normalize`` over a list of values, for speed.
        split_at: optional ``split_at(text, level, start)``: ``split(text, level)`` with every offset moved by
            ``start`` (the units of a unit that begins at ``start`` in the whole text), for speed.
        unit_at: optional ``unit_at(text, level, index, start)``: the unit ``split_at(text, level, start)[index]``
            (None when there is no such unit), for a profile that can find one unit for less than splitting the
            whole text; it returns NotImplemented where it cannot.
        count_of: optional ``count_of(text, level)``: ``len(split(text, level))`` for a profile that can count
            units for less than building them; NotImplemented where it cannot.
    """

    name: str
    description: str
    split: Callable[[str, Level], list[RawUnit]]
    normalize: Callable[[str, bool], str]
    normalize_all: Callable[[list[str], bool], list[str]] | None = None
    split_at: Callable[[str, Level, int], list[RawUnit]] | None = None
    unit_at: Callable[[str, Level, int, int], RawUnit | None] | None = None
    count_of: Callable[[str, Level], int] | None = None

    def __repr__(self) -> str:
        return f"Profile({self.name!r})"


def register_profile(profile: Profile) -> Profile:
    """Add ``profile`` to the registry under its name (replacing nothing silently)."""
    if profile.name in profiles:
        raise ValueError(f"profile {profile.name!r} is already registered")
    profiles.register(profile.name, func=profile)
    return profile


def get_profile(name: str | Profile) -> Profile:
    """The profile called ``name`` (a Profile passes through); unknown names list the registered ones.

    Found profiles are remembered: a registry lookup scans entry points, far too slow for once per check.
    """
    if isinstance(name, Profile):
        return name
    found = _FOUND.get(name)
    if found is None:
        found = _FOUND[name] = lookup(profiles, name, "segmentation profile")
    return found


_FOUND: dict[str, Profile] = {}
