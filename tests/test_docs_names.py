"""Every Corral name the README and docs mention exists: dotted names (`corral.models.load_model`) and the names
their code samples import (``from corral.grammars import Grammar``)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
DOTTED = re.compile(r"\bcorral(?:\.[A-Za-z_]\w*)+")
IMPORTS = re.compile(r"^\s*from (corral(?:\.\w+)*) import ([\w, ()]+)$", re.MULTILINE)


def _mentions() -> list[tuple[str, str]]:
    found = set()
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        where = str(page.relative_to(REPO))
        found |= {(m.group(0).rstrip("."), where) for m in DOTTED.finditer(text)}
        for m in IMPORTS.finditer(text):
            found |= {(f"{m.group(1)}.{name.strip()}", where) for name in m.group(2).strip("()").split(",")
                      if name.strip()}
    return sorted(found)


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attribute in parts[i:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return False
        return True
    return False


MENTIONS = _mentions()


def test_the_docs_mention_names_at_all() -> None:
    assert len(MENTIONS) >= 20


@pytest.mark.parametrize(("name", "page"), MENTIONS)
def test_every_name_the_docs_mention_exists(name: str, page: str) -> None:
    assert _resolves(name), f"{page} mentions {name}, which does not exist"
