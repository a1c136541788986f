"""The registry of base constraint kinds: how Corral learns a new kind of base constraint.

A kind bundles what every interpreter needs for one node class: its textual name, how to evaluate it on a
segmented text, how to print it, how to say it in an instruction and in feedback. The parser, the checker,
the renderer and the JSON codec look kinds up here and contain no per-kind code, so adding a base constraint
(part of speech, sentiment, a regex) is one registration:

    register_kind(BaseKind(name="regex", node=Regex, evaluate=..., to_text=..., from_call=..., ...))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from corral.registry import base_constraints, lookup


@dataclass(frozen=True)
class Call:
    """A parsed call in the textual form: ``name(args...) [rel value] [case-sensitive]``."""

    name: str
    args: tuple[Any, ...]
    rel: Any  # a Rel, or None
    value: Any
    case_sensitive: bool
    column: int


@dataclass(frozen=True)
class BaseKind:
    """One registered kind of base constraint.

    The registry sits below the node and checker modules (they look kinds up here), so the callables are typed
    loosely; their signatures are:

    Attributes:
        name: the JSON ``kind`` and, for call-style kinds, the function name in the textual form.
        node: the frozen dataclass of its values.
        evaluate: ``evaluate(node, ctx) -> Result`` on a lazily segmented text; must not raise.
        to_text: the node in the textual form (``parse(to_text(n)) == n``).
        from_call: builds the node from a parsed ``Call``; raises ValueError with a message for bad arguments.
            ``None`` for kinds with their own syntax (``match``: ``selector rel 'string'``).
        clause: the node as an instruction clause, given a ``Phrasing`` (see ``_english``).
        failure: one feedback sentence for failed results of this kind (usually one; several when their
            ``merge_key`` agrees, so "3 'v' characters and 4 'i' characters" is said once), given a ``Phrasing``.
        merge_key: a key under which failed siblings may be reported together, or None.
        compile: optional, for speed: ``compile(node)`` gives a function of the context that returns exactly
            ``evaluate(node, ctx)``, with what does not depend on the text worked out once (the checker keeps it
            with the node and calls it for every check of that node).
    """

    name: str
    node: type
    evaluate: Callable[[Any, Any], Any]
    to_text: Callable[[Any], str]
    clause: Callable[[Any, Any], str]
    failure: Callable[[list[Any], Any], str]
    from_call: Callable[[Call], Any] | None = None
    merge_key: Callable[[Any], object] | None = None
    compile: Callable[[Any], Callable[[Any], Any]] | None = None


def register_kind(kind: BaseKind) -> BaseKind:
    """Register ``kind`` by name; its node class is looked up by ``kind_of``."""
    base_constraints.register(kind.name, func=kind)
    _BY_NODE[kind.node] = kind
    _version[0] += 1  # evaluation plans made before are made again
    return kind


_version = [0]


def kinds_version() -> int:
    """A number that changes whenever a kind is registered."""
    return _version[0]


def get_kind(name: str) -> BaseKind:
    return lookup(base_constraints, name, "base constraint")


_BY_NODE: dict[type, BaseKind] = {}


def kind_of(node: object) -> BaseKind | None:
    """The registered kind of a node, or None for compositions (and/or/not/for-each)."""
    return _BY_NODE.get(type(node))
