"""Quoted strings in the textual form: how values are written and read back exactly."""

from __future__ import annotations

_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def encode_string(value: str) -> str:
    """Single-quoted, with backslash escapes for quotes, backslashes, control characters and lone surrogates."""
    out = []
    for char in value:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif ord(char) < 0x20 or ord(char) == 0x7F or 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "'" + "".join(out) + "'"


def decode_string(token: str) -> tuple[str, int | None]:
    """The value of a quoted token, and the offset of a bad escape inside it (None when valid)."""
    body = token[1:-1]
    out = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in _UNESCAPES and nxt:
            out.append(_UNESCAPES[nxt])
            i += 2
        elif nxt == "u" and len(body) >= i + 6 and all(c in "0123456789abcdefABCDEF" for c in body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            return "", i + 1
    return "".join(out), None
