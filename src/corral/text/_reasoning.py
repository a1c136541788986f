"""A reasoning block: the ``<think>…</think>`` a reasoning model writes before its answer, as one small value.

Why here, at the bottom: the checker, the reward, the grammar compiler and the report all need the same answer to
"where does the thinking end", and a private split in each would drift (a constraint checked on the thinking, a
grammar that forbids it). ``Reasoning.split`` is that one answer; the grammars package builds its wrapped grammar
from the same value (``corral.grammars.with_reasoning``), so a text the wrapped grammar accepts splits into the
thinking the grammar left free and the answer it constrained.

The choices, each for a reason:

- **Leading whitespace** before the open tag is skipped (a template or a model often starts the turn with a
  newline); whitespace between the close tag and the answer is not part of the answer (templates write
  ``</think>\\n\\n``), so the answer is stripped of it on the left.
- **Pre-filled blocks** (``prefilled``): many templates end the generation prompt with the open tag (DeepSeek-R1's
  ``<｜Assistant｜><think>\\n``), so the output starts inside the block and has no open tag; the block then runs
  from the first character to the first close tag. ``from_template`` detects it from the rendered prompt.
- **Skipped thinking**: without ``prefilled``, an output that does not begin with the open tag has no block (the
  model answered at once, or thinking was switched off): its whole text is the answer, and the thinking is empty.
  An empty block (``<think></think>answer``) is the same answer with an empty thinking.
- **Never closed**: a block without its close tag, or whose close tag comes after ``max_chars`` characters of
  thinking, has no answer (``Thought.answer`` is None): the output fails with that reason and nothing of the
  thinking is checked.
- The block ends at the **first** close tag: the thinking never contains it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

DEFAULT_THINKING_CHARS = 32_768
"""The thinking a block may hold unless a bound is given: about 8,000 tokens of English, the order of a small
reasoning model's budget for one answer. The bound is in characters so that a grammar can count it."""

MAX_THINKING_CHARS = 1_000_000
"""The largest bound a declaration may ask for (a grammar counting characters that far is still cheap)."""

MAX_TAG_CHARS = 64

KNOWN_BLOCKS: tuple[tuple[str, str], ...] = (
    ("<think>", "</think>"),  # DeepSeek-R1 and its distills, Qwen3, QwQ, Phi-4-reasoning, SmolLM3
    ("<seed:think>", "</seed:think>"),  # Seed-OSS
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("[THINK]", "[/THINK]"),  # Magistral
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("◁think▷", "◁/think▷"),  # Kimi
)
"""Delimiter pairs ``from_template`` recognises in a chat template, tried in this order."""


class Thought(NamedTuple):
    """An output split at its reasoning block: the ``thinking`` (empty when the model skipped it), the ``answer``
    after the block (None when the block never closed within its bound), and whether it ``closed``."""

    thinking: str
    answer: str | None
    closed: bool

    @classmethod
    def served(cls, thinking: str, answer: str, *, cut_off: bool, max_chars: int | None = None) -> Thought:
        """A reply whose server separated the block itself (vLLM's and SGLang's reasoning parsers:
        ``message.reasoning_content``). The block did not close when the reply was cut off before any answer
        (the parser gives everything to the thinking then), nor when the thinking is over ``max_chars``."""
        over = max_chars is not None and len(thinking) > max_chars
        if over or (cut_off and not answer.strip()):
            return cls(thinking, None, False)
        return cls(thinking, answer.lstrip(), True)


@dataclass(frozen=True)
class Reasoning:
    """A declared reasoning block: its ``open`` and ``close`` tags, the most characters of thinking it may hold
    (``max_chars``), and whether the chat template opens it in the prompt (``prefilled``). See the module
    docstring for how an output is split."""

    open: str = "<think>"
    close: str = "</think>"
    max_chars: int = DEFAULT_THINKING_CHARS
    prefilled: bool = False

    def __post_init__(self) -> None:
        for name in ("open", "close"):
            tag = getattr(self, name)
            if not isinstance(tag, str) or not tag.strip() or tag != tag.strip():
                raise ValueError(f"reasoning {name} tag must be non-empty text without surrounding spaces, "
                                 f"got {tag!r}")
            if len(tag) > MAX_TAG_CHARS:
                raise ValueError(f"reasoning {name} tag is {len(tag)} characters; the limit is {MAX_TAG_CHARS}")
        if self.open == self.close:
            raise ValueError(f"reasoning open and close tags must differ, got {self.open!r} twice")
        bound = self.max_chars
        if isinstance(bound, bool) or not isinstance(bound, int) or not 0 <= bound <= MAX_THINKING_CHARS:
            raise ValueError(f"reasoning max_chars must be an integer in 0..{MAX_THINKING_CHARS:,}, got {bound!r}")

    def split(self, text: str) -> Thought:
        """``text`` as thinking and answer (see the module docstring for the rules)."""
        if self.prefilled:
            body = text
        else:
            stripped = text.lstrip()
            if not stripped.startswith(self.open):
                return Thought("", stripped, True)  # no block: the model answered at once
            body = stripped[len(self.open):]
        end = body.find(self.close)
        if end < 0 or end > self.max_chars:
            return Thought(body, None, False)
        return Thought(body[:end], body[end + len(self.close):].lstrip(), True)

    def to_json(self) -> dict[str, Any]:
        return {"open": self.open, "close": self.close, "max_chars": self.max_chars, "prefilled": self.prefilled}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reasoning:
        return cls(**{key: data[key] for key in ("open", "close", "max_chars", "prefilled") if key in data})

    @classmethod
    def from_template(cls, template: str, prompt: str | None = None, *,
                      max_chars: int = DEFAULT_THINKING_CHARS) -> Reasoning | None:
        """The block a chat template writes, or None when it mentions none of ``KNOWN_BLOCKS``: the first pair
        whose close tag the template contains. ``prompt`` is the template rendered for a one-turn chat with the
        generation prompt; when it ends with the open tag (spaces aside), the block is ``prefilled``."""
        for open_, close in KNOWN_BLOCKS:
            if close in template:
                prefilled = prompt is not None and prompt.rstrip().endswith(open_)
                return cls(open_, close, max_chars, prefilled)
        return None
