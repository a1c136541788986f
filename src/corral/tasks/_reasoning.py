"""``ReasoningSpec``: how a user declares the reasoning block a model writes before its answer, in an evaluation spec
(``EvalSpec.reasoning``, ``corral eval --reasoning``) or a training config (``TrainConfig.reasoning``).

Why a spec apart from ``corral.text.Reasoning``: the user may leave the delimiters to the model (``auto``: those its
chat template mentions) where the value needs them fixed. ``resolve`` fixes them, once, when a run is planned;
a run stores the resolved spec, so that judging the run again needs no model. docs/reasoning.md has the rules.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from corral.text import DEFAULT_THINKING_CHARS, KNOWN_BLOCKS, MAX_TAG_CHARS, MAX_THINKING_CHARS, Reasoning


class ReasoningSpec(BaseModel):
    """A reasoning block: ``open`` and ``close`` tags (both None: the ones the model's chat template mentions), the
    most characters of thinking (``max_chars``; a block that has not closed by then has no answer), and whether the
    template opens the block in the prompt (``prefilled``; None: as the template's generation prompt shows, else
    no). Written ``auto`` alone, it is all defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    open: str | None = Field(None, min_length=1, max_length=MAX_TAG_CHARS)
    close: str | None = Field(None, min_length=1, max_length=MAX_TAG_CHARS)
    max_chars: int = Field(DEFAULT_THINKING_CHARS, ge=0, le=MAX_THINKING_CHARS)
    prefilled: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _auto(cls, value: Any) -> Any:
        """``auto`` is the spec with every default; ``{kind: auto, max_chars: N}`` (what ``--set reasoning=auto
        --set reasoning.max_chars=N`` writes) is the same with that bound."""
        if value == "auto":
            return {}
        if isinstance(value, dict) and value.get("kind") == "auto":
            return {key: item for key, item in value.items() if key != "kind"}
        return value

    @model_validator(mode="after")
    def _pair(self) -> ReasoningSpec:
        if (self.open is None) != (self.close is None):
            raise ValueError("give both reasoning tags (open and close), or neither to take them from the chat "
                             "template")
        if self.open is not None and self.close is not None:
            Reasoning(self.open, self.close, self.max_chars)  # the value's own checks: distinct, no edge spaces
        return self

    @property
    def resolved(self) -> bool:
        return self.open is not None and self.prefilled is not None

    def block(self) -> Reasoning:
        """The block this resolved spec declares (``resolve`` first when the tags are left to the template)."""
        if self.open is None or self.close is None:
            raise ValueError("this reasoning spec takes its tags from the chat template: resolve it for a model")
        return Reasoning(self.open, self.close, self.max_chars, bool(self.prefilled))

    def resolve(self, model: str) -> ReasoningSpec:
        """This spec with the tags and ``prefilled`` fixed for model ``model`` (a ``load_model`` spec): given tags
        stay; missing ones come from the model's chat template (read without loading the weights). A model whose
        backend renders no template of its own (a served model: its server parses the block; the scripted model)
        gets ``<think>``/``</think>``, not pre-filled. A ``ValueError`` when the template mentions no known block."""
        if self.resolved:
            return self
        from corral.models import read_chat_template

        template = read_chat_template(model)
        if template is None:
            first_open, first_close = KNOWN_BLOCKS[0]
            return self.model_copy(update={"open": self.open or first_open, "close": self.close or first_close,
                                           "prefilled": bool(self.prefilled)})
        if self.open is not None:
            prefilled = self.prefilled
            if prefilled is None:
                prefilled = template.prompt.rstrip().endswith(self.open)
            return self.model_copy(update={"prefilled": prefilled})
        found = Reasoning.from_template(template.source, template.prompt, max_chars=self.max_chars)
        if found is None:
            known = ", ".join(f"{open_}…{close}" for open_, close in KNOWN_BLOCKS)
            raise ValueError(f"the chat template of {model} mentions no reasoning block ({known}): give the tags, "
                             f"e.g. --reasoning '<think>,</think>'")
        prefilled = found.prefilled if self.prefilled is None else self.prefilled
        return self.model_copy(update={"open": found.open, "close": found.close, "prefilled": prefilled})
