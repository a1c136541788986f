"""A model's chat template, read without loading its weights: what ``reasoning: auto`` learns the delimiters of a
reasoning block from (``corral.text.Reasoning.from_template``).

Why before loading: a run's identity (its config hash, its directory) must be fixed when it is planned, before any
model loads, and the reasoning block is part of what a record means. A GGUF's metadata and vocabulary load in a
tenth of a second (llama.cpp's ``vocab_only``); a transformers checkpoint's tokenizer is read alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ._checkpoint import adapter_base, adapter_dir
from ._load import parse_spec
from ._protocol import ModelError


class ChatTemplate(NamedTuple):
    """A chat template's source and what it renders for a one-turn chat with the generation prompt (the text the
    model's reply continues: a template that opens a reasoning block there ends with its open tag)."""

    source: str
    prompt: str


_PROBE = [{"role": "user", "content": "Hello"}]


def read_chat_template(spec: str) -> ChatTemplate | None:
    """The chat template of model ``spec`` (as ``load_model`` takes it), or None for a backend that renders no
    template of its own (a served model: the server applies it; the scripted model). A ``ModelError`` when the
    model cannot be found or carries no template."""
    backend, name = parse_spec(spec)
    reader = _READERS.get(backend)
    return None if reader is None else reader(name)


def _gguf_template(model: str) -> ChatTemplate:
    from ._bundled import resolve_gguf
    from ._llamacpp import chat_formatter

    path = resolve_gguf(model)
    try:
        import llama_cpp
        from llama_cpp._internals import LlamaModel

        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True  # metadata and vocabulary: no weights, no context
        vocabulary = LlamaModel(path_model=str(path), params=params, verbose=False)
    except (ImportError, ValueError, RuntimeError) as exc:
        raise ModelError(f"could not read the chat template of {path}: {exc}") from None
    try:
        formatter = chat_formatter(vocabulary, path)
        return ChatTemplate(formatter.template, formatter(messages=_PROBE).prompt)  # type: ignore[arg-type]
    finally:
        vocabulary.close()


def _checkpoint_template(model: str) -> ChatTemplate:
    path = Path(model).expanduser()
    if not path.is_dir():  # a bundled name or a GGUF, which transformers reads too: the same template
        return _gguf_template(model)
    adapter = adapter_dir(path)
    if adapter is not None and not (path / "config.json").is_file():
        path = adapter_base(adapter)
    try:
        import transformers

        tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except (ImportError, OSError, ValueError) as exc:
        raise ModelError(f"could not read the tokenizer of {path}: {exc}") from None
    source = getattr(tokenizer, "chat_template", None)
    if not isinstance(source, str) or not source:
        raise ModelError(f"{path} carries no chat template (a single template, as text)")
    return ChatTemplate(source, tokenizer.apply_chat_template(_PROBE, tokenize=False, add_generation_prompt=True))


_READERS: dict[str, Callable[[str], ChatTemplate]] = {"llamacpp": _gguf_template,
                                                      "transformers": _checkpoint_template}
