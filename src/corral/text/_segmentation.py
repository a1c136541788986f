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

    __slots__ = ("_cache", "_counts", "counted", "profile", "root", "text")

    def __init__(self, text: str, profile: str | Profile = "default", counted: frozenset[Level] = frozenset()) -> None:
        """``counted``: levels whose units the caller only ever counts (never selects, compares or spans), which
        ``count`` may then count without building them (``Profile.count_of``)."""
        self.text = text
        self.profile = get_profile(profile)
        self.root: RawUnit = (text, 0, len(text))
        self.counted = counted
        self._cache: dict[tuple, list[RawUnit]] = {}
        self._counts: dict[tuple, int] = {}

    def units(self, level: Level, parent: RawUnit | None = None) -> list[RawUnit]:
        """The ``level`` units of ``parent`` (default: the whole text), as (value, start, end)."""
        if parent is None:
            parent = self.root
        key = (level, parent)
        found = self._cache.get(key)
        if found is None:
            value, start, end = parent
            if not start:
                found = self.profile.split(value, level)
            elif self.profile.split_at is not None:
                found = self.profile.split_at(value, level, start)
            else:
                found = [(v, a + start, min(b + start, end)) for v, a, b in self.profile.split(value, level)]
            self._cache[key] = found
        return found

    def unit(self, level: Level, parent: RawUnit, index: int) -> RawUnit | None:
        """``units(level, parent)[index]``, or None when there is no such unit; ``index`` is 0-based and negative
        from the end. Where those units are not split yet, the profile may find the one unit for less
        (``Profile.unit_at``: the last word of a sentence from the end of the sentence alone)."""
        found = self._cache.get((level, parent))
        if found is None:
            unit_at = self.profile.unit_at
            if unit_at is not None:
                unit = unit_at(parent[0], level, index, parent[1])
                if unit is not NotImplemented:
                    return unit
            found = self.units(level, parent)
        if index < 0:
            index += len(found)
            return found[index] if index >= 0 else None
        return found[index] if index < len(found) else None

    def count(self, level: Level, parent: RawUnit | None = None) -> int:
        """How many ``level`` units ``parent`` has; chars are counted without building units."""
        if level is Level.CHAR:
            return len((parent or self.root)[0])
        if level in self.counted and self.profile.count_of is not None:
            key = (level, parent or self.root)
            n = self._counts.get(key)
            if n is None:
                found = self._cache.get(key)
                n = len(found) if found is not None else self.profile.count_of(key[1][0], level)
                if n is NotImplemented:
                    n = len(self.units(level, key[1]))
                self._counts[key] = n
            return n
        return len(self.units(level, parent))


def segment(text: str, level: Level | str, profile: str | Profile = "default") -> list[Unit]:
    """Split ``text`` into units at ``level`` under ``profile``.

    Example:
        >>> [u.text for u in segment("Dr. Smith arrived. He sat down.", "sentence")]
        ['Dr. Smith arrived.', 'He sat down.']
    """
    lvl = level if isinstance(level, Level) else Level.parse(level)
    return [Unit(*unit) for unit in Segmentation(text, profile).units(lvl)]
