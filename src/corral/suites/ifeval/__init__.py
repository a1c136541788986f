"""IFEval (Zhou et al. 2023) on Corral: its 25 instruction kinds as data (``KINDS``: check, render, whether a
grammar could enforce it), strict and loose judging with prompt- and instruction-level results, the 540 shipped
prompts, the ``ifeval`` task, and kinds from outside IFEval (``register_kind``, ``load_kind_modules``)."""

from . import _format, _length, _lexical  # noqa: F401  (each registers its kinds)
from ._data import Prompt, PromptError, parse_row, read_prompt_file, read_prompts
from ._grammar import PromptGrammar, compile_prompt
from ._kinds import KINDS, PLUGIN_GROUP, Instruction, InstructionError, Kind, Param, get_kind, register_kind, tick
from ._language import LANGUAGES, identify
from ._modes import MODES, IFEvalResult, evaluate_response, follows, follows_loosely, judge_prompt, loose_variants
from ._plugins import load_kind_modules
from ._task import exactly_enforced, ifeval

__all__ = [
    "KINDS",
    "LANGUAGES",
    "MODES",
    "PLUGIN_GROUP",
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
    "exactly_enforced",
    "follows",
    "follows_loosely",
    "get_kind",
    "identify",
    "ifeval",
    "judge_prompt",
    "load_kind_modules",
    "loose_variants",
    "parse_row",
    "read_prompt_file",
    "read_prompts",
    "register_kind",
    "tick",
]
