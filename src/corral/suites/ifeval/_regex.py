"""The two ways a prompt's grammar writes text as a Rust regex: a literal and a character class, both as
``\\x{HEX}`` escapes, valid whatever the character (and free of ``/``, so a Lark lexeme can hold them)."""

from __future__ import annotations


def literal(text: str) -> str:
    """``text`` as a Rust regex that matches it exactly: letters and digits as they are, every other character as
    ``\\x{HEX}`` (always valid, whatever the character)."""
    return "".join(char if char.isascii() and char.isalnum() else f"\\x{{{ord(char):X}}}" for char in text)


def char_class(chars: set[str] | frozenset[str]) -> str:
    """A character class of exactly ``chars``, as ranges of ``\\x{HEX}`` escapes."""
    codes = sorted(ord(char) for char in chars)
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    body = "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
    return f"[{body}]"
