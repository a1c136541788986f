"""IFEval's reference checker (lm-evaluation-harness 0.4.13, ``lm_eval/tasks/ifeval``) loaded as a test oracle.

Found through the installed package (``importlib.util.find_spec("lm_eval")``, the ``test`` extra installs it) or,
for local runs, under ``/tmp/ifeval-ref`` (``pip install --target /tmp/ifeval-ref --no-deps lm-eval==0.4.13
langdetect==1.0.9 immutabledict``). Its files are loaded by path under stand-in parent packages, so lm_eval's heavy
``__init__`` never runs; its import-time ``nltk.download("punkt_tab")`` is stubbed out (no network in tests).

nltk's trained English Punkt (``punkt_tab``) is data downloaded at run time, absent here and in CI. When it is
absent, ``PUNKT`` says so and the oracle's sentence splitter (used by ``number_sentences`` and, inside
``word_tokenize``, by ``capital_word_frequency``) is nltk's untrained Punkt, which Corral's ``ifeval-v1`` profile
also uses; the generated texts avoid the abbreviations on which the two Punkt models differ.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

LOCAL = Path("/tmp/ifeval-ref")
_PARTS = ("instructions_util", "instructions", "instructions_registry", "utils")


def _folder() -> Path | None:
    spec = importlib.util.find_spec("lm_eval")
    roots = [Path(p) for p in (spec.submodule_search_locations or [])] if spec is not None else []
    roots.append(LOCAL / "lm_eval")
    for root in roots:
        if (root / "tasks" / "ifeval" / "instructions.py").is_file():
            return root / "tasks" / "ifeval"
    return None


def _punkt_tab() -> bool:
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return True
    except LookupError:
        return False


def load() -> dict[str, Any] | None:
    """The reference's modules by name (``instructions``, ``utils``, ...), or None when it is not installed."""
    folder = _folder()
    if folder is None:
        return None
    for name in ("langdetect", "immutabledict"):
        if importlib.util.find_spec(name) is None and (LOCAL / name).is_dir() and str(LOCAL) not in sys.path:
            sys.path.append(str(LOCAL))
    if importlib.util.find_spec("langdetect") is None or importlib.util.find_spec("immutabledict") is None:
        return None
    import nltk

    stand_ins = {}
    for name in ("lm_eval", "lm_eval.tasks", "lm_eval.tasks.ifeval"):
        if name not in sys.modules:
            stand_ins[name] = sys.modules[name] = types.ModuleType(name)
            sys.modules[name].__path__ = []  # type: ignore[attr-defined]
    download, nltk.download = nltk.download, lambda *args, **kwargs: False
    modules = {}
    try:
        for part in _PARTS:
            qualified = f"lm_eval.tasks.ifeval.{part}"
            spec = importlib.util.spec_from_file_location(qualified, folder / f"{part}.py")
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules[qualified] = module
            setattr(sys.modules["lm_eval.tasks.ifeval"], part, module)
            spec.loader.exec_module(module)  # type: ignore[union-attr]
            modules[part] = module
    finally:
        nltk.download = download
        for name in [*stand_ins, *(f"lm_eval.tasks.ifeval.{part}" for part in _PARTS)]:
            sys.modules.pop(name, None)
    if not _punkt_tab():
        _untrained_punkt(modules["instructions_util"])
    import langdetect

    langdetect.DetectorFactory.seed = 0  # langdetect samples at random unless seeded
    return modules


PUNKT = "trained English Punkt (punkt_tab)" if _punkt_tab() else "untrained Punkt (punkt_tab not installed)"


def _untrained_punkt(util: types.ModuleType) -> None:
    import nltk
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    splitter, words = PunktSentenceTokenizer(), NLTKWordTokenizer()
    util._get_sentence_tokenizer = lambda: splitter  # type: ignore[attr-defined]
    shim = types.SimpleNamespace(tokenize=nltk.tokenize, data=nltk.data,
                                 word_tokenize=lambda text: [t for s in splitter.tokenize(text)
                                                             for t in words.tokenize(s)])
    util.nltk = shim  # type: ignore[attr-defined]


def verdicts(modules: dict[str, Any], key: int, prompt: str, ids: list[str], kwargs: list[dict[str, Any]],
             response: str) -> tuple[list[bool], list[bool]]:
    """The reference's (strict, loose) per-instruction results for one response."""
    utils = modules["utils"]
    example = utils.InputExample(key=key, instruction_id_list=ids, prompt=prompt, kwargs=kwargs)
    strict = utils.test_instruction_following_strict(example, response)
    loose = utils.test_instruction_following_loose(example, response)
    return list(strict.follow_instruction_list), list(loose.follow_instruction_list)
