"""IFEval (Zhou et al. 2023) on Corral: its 25 instruction kinds as data (``KINDS``: check, render, whether a
grammar could enforce it), strict and loose judging with prompt- and instruction-level results, the 540 shipped
prompts, and the ``ifeval`` task."""

from . import _format, _length, _lexical  # noqa: F401  (each registers its kinds)
from ._data import Prompt, PromptError, parse_row, read_prompts
from ._grammar import PromptGrammar, compile_prompt
from ._kinds import KINDS, Instruction, InstructionError, Kind, Param, get_kind
from ._language import LANGUAGES, identify
from ._modes import MODES, IFEvalResult, evaluate_response, follows, follows_loosely, judge_prompt, loose_variants
from ._task import ifeval

__all__ = [
    "KINDS",
    "LANGUAGES",
    "MODES",
    "IFEvalResult",
    "Instruction",
    "InstructionError",
    "Kind",
    "Param",
    "Prompt",
    "PromptError",
    "PromptGrammar",
    "compile_prompt",
    "evaluate_response",
    "follows",
    "follows_loosely",
    "get_kind",
    "identify",
    "ifeval",
    "judge_prompt",
    "loose_variants",
    "parse_row",
    "read_prompts",
]
