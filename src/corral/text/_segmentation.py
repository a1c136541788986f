"""Lazy, shared segmentation of one text: each (unit, level) is split at most once per check."""

from __future__ import annotations

from ._profiles import Profile, RawUnit, get_profile
from ._units import Level, Unit


class Segmentation:
    """The units of one text under one profile, computed on first use and cached.

    A checker builds one Segmentation per text and every sub-constraint asks it for units, so a text is
    split only at the levels some constraint uses, and only once. Units inside a unit (the words of the 2nd
    sentence) are the profile's split of that unit's value, moved to whole-text offsets.
    """

    __slots__ = ("_cache", "profile", "root", "text")

    def __init__(self, text: str, profile: str | Profile = "default") -> None:
        self.text = text
        self.profile = get_profile(profile)
        self.root: RawUnit = (text, 0, len(text))
        self._cache: dict[tuple, list[RawUnit]] = {}

    def units(self, level: Level, parent: RawUnit | None = None) -> list[RawUnit]:
        """The ``level`` units of ``parent`` (default: the whole text), as (value, start, end)."""
        if parent is None:
            parent = self.root
        key = (level, parent)
        found = self._cache.get(key)
        if found is None:
            value, start, end = parent
            found = self.profile.split(value, level)
            if start:
                found = [(v, a + start, min(b + start, end)) for v, a, b in found]
            self._cache[key] = found
        return found

    def count(self, level: Level, parent: RawUnit | None = None) -> int:
        """How many ``level`` units ``parent`` has; chars are counted without building units."""
        if level is Level.CHAR:
            return len((parent or self.root)[0])
        return len(self.units(level, parent))


def segment(text: str, level: Level | str, profile: str | Profile = "default") -> list[Unit]:
    """Split ``text`` into units at ``level`` under ``profile``.

    Example:
        >>> [u.text for u in segment("Dr. Smith arrived. He sat down.", "sentence")]
        ['Dr. Smith arrived.', 'He sat down.']
    """
    lvl = level if isinstance(level, Level) else Level.parse(level)
    return [Unit(*unit) for unit in Segmentation(text, profile).units(lvl)]
