"""What the clamp tasks' prompts share: the paper's instruction, the token estimate the example budget counts in,
the room an output gets, and the check of the few-shot options."""

from __future__ import annotations

__all__ = ["CHARS_PER_TOKEN", "INSTRUCTION", "check_counts", "count_tokens", "max_tokens"]

INSTRUCTION = "Let's translate what a human user says into what a computer might say."
CHARS_PER_TOKEN = 3
"""The prompt budget counts tokens as characters / 3 (an English BPE averages about 4: the estimate errs long)."""


def count_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def max_tokens(gold: str) -> int:
    """Room for the gold output three times over, in estimated tokens: a constrained tree that is cut off is not a
    tree, and a small model nests deeper than the gold (SmolLM2 wrote a VP inside a VP for each of 45 words)."""
    return 3 * count_tokens(gold) + 64


def check_counts(name: str, shots: int, budget: int) -> None:
    if shots < 0 or budget < 0:
        raise ValueError(f"{name}: shots and budget must be at least 0, got {shots} and {budget}")
