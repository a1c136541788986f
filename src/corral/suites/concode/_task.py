"""ConCodeEval's two tasks on Corral's runner, for every schema form × output form, zero- or few-shot.

``concode-gen`` (Task 1): write a sample that satisfies a schema shown as JSON, YAML, XML, pydantic or English,
in JSON, YAML or XML. Gen Acc is the pass rate; each record also says whether the output was a sample at all
(IS% = 1 − ``parsed``), whether its root had the schema's type (RTV% = 1 − ``root_type_ok``), which keywords it
broke (``violated:KEYWORD``, the census of Table 4) and where they sit in the schema's JSON text
(``locality:begin|middle|end``, thirds of the text, as Figure 1). Constrained decoding compiles the schema into
a grammar for the output form (``corral.grammars.compile_schema``).

``concode-val`` (Task 2): does this sample satisfy this schema, yes or no? For generated schemas each schema gives
one valid sample and one sample mutated to break exactly one keyword (so the set is balanced and every "no" has a
known cause); ``schemas="schemastore"`` uses SchemaStore's real labelled documents instead. Val Acc is the pass
rate; ``val_macro_f1`` the macro F1 over yes/no (Table 6).

Schemas come from ``corral.schema.generate_suite(n, seed)`` (``schemas="concode"``, 602 by default, as the paper)
or the shipped JSONSchemaBench sample (``schemas="jsonschemabench"``, Task 1 only). Prompts follow the paper's
A.1 common prompt and Listing 6's few-shot layout, written for Corral.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from corral.tasks import PromptTemplate, Task, TaskInstance, TaskOption, register_task
from corral.verdicts import Verdict, Violation

SCHEMA_FORMS = ("json", "yaml", "xml", "python", "english")
OUTPUT_FORMS = ("json", "yaml", "xml")
SOURCES = {"concode-gen": ("concode", "jsonschemabench"), "concode-val": ("concode", "schemastore")}
VERSION = "1"
FORM_NAMES = {"json": "JSON", "yaml": "YAML", "xml": "XML", "python": "Python (pydantic)", "english": "English"}
ARTICLE = {"json": "a", "yaml": "a", "xml": "an"}
_LANGUAGE_TAG = {"json": "json", "yaml": "yaml", "xml": "xml", "python": "python", "english": ""}
GEN_MAX_TOKENS = 512
"""A generated schema's sample fits in well under 512 tokens in any form; the paper allowed 1,024."""


# --------------------------------------------------------------------------------------------------- prompts
def schema_block(schema: Any, form: str) -> str:
    from corral.schema import render_schema

    text = render_schema(schema, form).rstrip()  # type: ignore[arg-type]
    return text if form == "english" else f"```{_LANGUAGE_TAG[form]}\n{text}\n```"


def gen_prompt(schema: Any, schema_form: str, output_form: str) -> str:
    out = FORM_NAMES[output_form]
    shown = "described in English" if schema_form == "english" else f"written in {FORM_NAMES[schema_form]}"
    return (f"Write {ARTICLE[output_form]} {out} sample with field values as per the schema given below ({shown}).\n"
            f"{schema_block(schema, schema_form)}\n"
            f"Answer with the {out} sample only, inside ```{output_form} fences.")


def val_prompt(schema: Any, sample: Any, schema_form: str, output_form: str) -> str:
    from corral.schema import render_sample

    out = FORM_NAMES[output_form]
    shown = "described in English" if schema_form == "english" else f"written in {FORM_NAMES[schema_form]}"
    body = render_sample(sample, output_form).rstrip()  # type: ignore[arg-type]
    return (f"Does the {out} sample\n```{output_form}\n{body}\n```\n"
            f"adhere to all the constraints of the schema given below ({shown})?\n"
            f"{schema_block(schema, schema_form)}\n"
            f"Respond with yes or no.")


def fenced(sample: Any, output_form: str) -> str:
    from corral.schema import render_sample

    return f"```{output_form}\n{render_sample(sample, output_form).rstrip()}\n```"  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------- data
@lru_cache(maxsize=4)
def _suite(n: int, seed: int) -> tuple[Any, ...]:
    from corral.schema import generate_suite

    return tuple(generate_suite(n, seed))


def _shots_pool(seed: int) -> tuple[Any, ...]:
    """Few-shot schemas from a suite no test schema comes from (seed + 1): an array root, a scalar root and an
    object root, as the paper picked shots like its most frequent errors (short schemas, array roots)."""
    pool = _suite(60, seed + 1)
    picks: list[Any] = []
    for wanted in ("array", "scalar", "object"):
        for item in pool:
            kind = item.schema.get("type")
            kind = "scalar" if kind not in ("array", "object") else kind
            if kind == wanted and item not in picks:
                picks.append(item)
                break
    return tuple(picks)


def _root_type(schema: Any) -> str:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else "any"


def _gen_instances(source: str, schema_form: str, output_form: str, shots: int, n: int,
                   seed: int) -> Iterator[TaskInstance]:
    context = _gen_context(schema_form, output_form, shots, seed)
    if source == "concode":
        items = [(item.id, item.schema, item.sample) for item in _suite(n, seed)]
    else:
        from corral.schema import jsonschemabench

        items = [(bench.id, bench.schema, None) for bench in jsonschemabench()[:n]]
    for ident, schema, sample in items:
        yield TaskInstance(
            id=ident, prompt=gen_prompt(schema, schema_form, output_form),
            target={"schema": schema, "output_form": output_form},
            groups={"schema_form": schema_form, "output_form": output_form, "root_type": _root_type(schema),
                    "source": source, "enforcement": enforcement_kind(schema, output_form)},
            max_tokens=GEN_MAX_TOKENS, reference=fenced(sample, output_form) if sample is not None else None,
            context=context)


def enforcement_kind(schema: Any, output_form: str) -> str:
    """How constrained decoding treats this schema in this output form: ``exact`` (every keyword is enforced
    while decoding, so a constrained output that fails is a compiler bug), ``after`` (some keyword is only
    checked afterwards) or ``none`` (no grammar can be built). A group, so reports split the rates by it."""
    from corral.grammars import GrammarError, enforcement

    try:
        # concode-gen decodes with compile_schema(..., bounded=True): its enforcement is the bounded grammar's
        return "exact" if enforcement(schema, output_form, bounded=True).sound else "after"  # type: ignore[arg-type]
    except (GrammarError, ValueError, RecursionError):
        return "none"


def _gen_context(schema_form: str, output_form: str, shots: int, seed: int) -> tuple[dict[str, str], ...]:
    if not shots:
        return ()
    out = FORM_NAMES[output_form]
    turns: list[dict[str, str]] = [{"role": "system", "content": (
        f"Your task is to write {ARTICLE[output_form]} {out} sample with field values as per a schema. "
        f"You are given a few examples demonstrating the same.")}]
    for item in _shots_pool(seed)[:shots]:
        turns.append({"role": "user", "content": gen_prompt(item.schema, schema_form, output_form)})
        turns.append({"role": "assistant", "content": fenced(item.sample, output_form)})
    return tuple(turns)


def _val_instances(source: str, schema_form: str, output_form: str, shots: int, n: int,
                   seed: int) -> Iterator[TaskInstance]:
    context = _val_context(schema_form, output_form, shots, seed)
    for ident, schema, sample, valid, detail in _val_items(source, n, seed):
        yield TaskInstance(
            id=ident, prompt=val_prompt(schema, sample, schema_form, output_form),
            target={"valid": valid, **detail},
            groups={"schema_form": schema_form, "output_form": output_form, "gold": "yes" if valid else "no",
                    "source": source, "schema_size": schema_size(schema)},
            max_tokens=8, reference="yes" if valid else "no", context=context)


def schema_size(schema: Any) -> str:
    """small (at most 8,000 characters of compact JSON, about 2,500 tokens), medium (24,000) or large: real
    schemas run to 100,000 characters, past a small model's context, so runs can pick by size (``--where``)."""
    chars = len(json.dumps(schema, separators=(",", ":")))
    return "small" if chars <= 8000 else "medium" if chars <= 24000 else "large"


def _val_items(source: str, n: int, seed: int) -> Iterator[tuple[str, Any, Any, bool, dict[str, Any]]]:
    from corral.schema import mutate

    if source == "schemastore":
        from corral.schema import schemastore, schemastore_documents

        schemas = {entry.name: entry.schema for entry in schemastore()}
        # lazily: labelling a document means validating it, and the first n need only the first n or so (all 3,164
        # took half a minute for a task of 50)
        kept = itertools.islice((doc for doc in schemastore_documents() if doc.excluded is None), n)
        for doc in kept:
            yield (doc.file.removeprefix("src/"), schemas[doc.schema_name], doc.instance, doc.valid,
                   {"schema": doc.schema_name})
        return
    for item in _suite(n, seed):
        yield f"{item.id}-valid", item.schema, item.sample, True, {"schema": item.id}
        broken = mutate(item.schema, item.sample, random.Random(item.seed))
        if broken is not None:
            yield (f"{item.id}-invalid", item.schema, broken.sample, False,
                   {"schema": item.id, "keyword": broken.keyword, "path": broken.instance_path})


def _val_context(schema_form: str, output_form: str, shots: int, seed: int) -> tuple[dict[str, str], ...]:
    """Two shots, one yes and one no, as the paper's few-shot Task 2 (from the shot suite, seed + 1)."""
    if not shots:
        return ()
    from corral.schema import mutate

    turns: list[dict[str, str]] = [{"role": "system", "content": (
        "Your task is to decide whether a sample satisfies every constraint of a schema. Answer yes or no.")}]
    item = _shots_pool(seed)[-1]
    broken = mutate(item.schema, item.sample, random.Random(item.seed))
    examples = [(item.sample, "yes")] + ([(broken.sample, "no")] if broken is not None else [])
    for sample, answer in examples[:shots]:
        turns.append({"role": "user", "content": val_prompt(item.schema, sample, schema_form, output_form)})
        turns.append({"role": "assistant", "content": answer})
    return tuple(turns)


# --------------------------------------------------------------------------------------------------- checks
def _gen_check(instance: TaskInstance, answer: str) -> Verdict[Any]:
    from corral.schema import check_sample

    return check_sample(instance.target["schema"], answer, instance.target["output_form"])


CENSUS_KEYWORDS = frozenset({
    "type", "enum", "const", "required", "additionalProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentRequired", "dependencies", "unevaluatedProperties", "contains", "minContains", "maxContains",
    "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength", "maxLength", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "anyOf", "oneOf", "not",
})  # fmt: skip
"""The keywords a validator names when a value breaks them (applicators such as ``properties`` or ``allOf`` pass
the blame to the keyword inside): the error census counts these."""


def _gen_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    """Rates, as means over the records that carry each key (Table 1, Table 4 and Figure 1 of the paper):

    * ``parsed`` (100 minus IS%), ``root_type_ok`` (100 minus RTV%): every answer;
    * ``violated:K``: a parsed answer to a schema that uses keyword K, 1 if it breaks K (the error census, as a
      rate per keyword);
    * ``locality:B``: an answer that breaks the schema, 1 if a violated constraint sits in that third of the
      schema's text (begin, middle, end).
    """
    from corral.schema import keyword_census

    schema = instance.target["schema"]
    checked = _gen_check(instance, answer).detail
    values = {"parsed": float(checked.parsed), "root_type_ok": float(checked.root_type_ok)}
    if checked.parsed:
        broken = set(checked.keywords)
        for keyword in sorted((set(keyword_census(schema)) & CENSUS_KEYWORDS) | broken):
            values[f"violated:{keyword}"] = float(keyword in broken)
    if checked.schema_violations:
        buckets = {locality(schema, v.schema_path) for v in checked.schema_violations}
        for bucket in ("begin", "middle", "end"):
            values[f"locality:{bucket}"] = float(bucket in buckets)
    return values


def locality(schema: Any, schema_path: str) -> str:
    """Where the violated keyword sits in the schema's JSON text (``json.dumps(indent=2)``): begin, middle or
    end third, found by following the schema path's keys through the text in order."""
    text = json.dumps(schema, indent=2, ensure_ascii=False)
    position = 0
    for part in [p.replace("~1", "/").replace("~0", "~") for p in schema_path.split("/") if p]:
        found = text.find(json.dumps(part, ensure_ascii=False) if not part.isdigit() else part, position)
        if found >= 0:
            position = found
    third = len(text) / 3 or 1
    return ("begin", "middle", "end")[min(2, int(position // third))]


def said_yes_no(answer: str) -> str | None:
    """The model's yes/no: the first word after any quoting or emphasis marks, or None when it is neither."""
    word = answer.strip().lstrip("`*\"' \n").lower()
    return "yes" if word.startswith("yes") else "no" if word.startswith("no") else None


def _val_check(instance: TaskInstance, answer: str) -> Verdict[dict[str, Any]]:
    """A Task 2 verdict: the model's yes/no against the gold label (rule ``answer`` when it is neither)."""
    gold, said = ("yes" if instance.target["valid"] else "no"), said_yes_no(answer)
    if said is None:
        found = [Violation("answer", "Answer yes or no.", expected="yes or no", seen=answer.strip()[:40])]
    elif said != gold:
        found = [Violation("label", "That is not right.", expected=gold, seen=said)]
    else:
        found = []
    return Verdict.of(found, detail={"gold": gold, "said": said})


def _val_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    gold, said = ("yes" if instance.target["valid"] else "no"), said_yes_no(answer)
    values = {"answered": float(said is not None)}
    said = said or "none"
    for label in ("yes", "no"):
        values[f"val_macro_f1@macro_f1:tp_{label}"] = float(gold == label and said == label)
        values[f"val_macro_f1@macro_f1:fp_{label}"] = float(gold != label and said == label)
        values[f"val_macro_f1@macro_f1:fn_{label}"] = float(gold == label and said != label)
    return values


# --------------------------------------------------------------------------------------------------- tasks
def _declared(name: str) -> tuple[TaskOption, ...]:
    return (
        TaskOption("schema_form", str, "json", "how the schema is shown", choices=SCHEMA_FORMS),
        TaskOption("output_form", str, "json", "the sample's form", choices=OUTPUT_FORMS),
        TaskOption("shots", int, 0, "few-shot examples", choices=tuple(range(4 if name == "concode-gen" else 3))),
        TaskOption("schemas", str, "concode", "the schemas: concode (generated, n with seed) or the first n of "
                   + ("the shipped JSONSchemaBench sample" if name == "concode-gen" else "SchemaStore's labelled "
                      "documents"), choices=SOURCES[name]),
        TaskOption("n", int, 602, "how many schemas (at least 1)"),
        TaskOption("seed", int, 0, "the generated suite's seed"),
    )


def _check_n(name: str, n: int) -> None:
    if n < 1:
        raise ValueError(f"{name}: n must be at least 1, got {n}")


@register_task("concode-gen", options=_declared("concode-gen"))
def concode_gen(schema_form: str, output_form: str, shots: int, schemas: str, n: int, seed: int) -> Task:
    """ConCodeEval Task 1: write a sample valid against a schema."""
    _check_n("concode-gen", n)

    def grammar(instance: TaskInstance) -> Any:
        from corral.grammars import NotExpressible, compile_schema
        from corral.schema import SchemaInputError

        try:
            # bounded: a sample cut off by the token budget is no sample
            return compile_schema(instance.target["schema"], output_form, bounded=True)  # type: ignore[arg-type]
        except (SchemaInputError, ValueError) as exc:
            if isinstance(exc, NotExpressible):
                raise
            raise NotExpressible(f"the schema does not compile: {exc}") from None

    return Task(
        name="concode-gen", version=VERSION,
        instances=lambda: _gen_instances(schemas, schema_form, output_form, shots, n, seed),
        check=_gen_check, grammar=grammar, template=PromptTemplate(), extract="raw", quality=_gen_quality,
        description="ConCodeEval Task 1 (Kammakomati et al. 2024): a sample that satisfies a schema",
    )


@register_task("concode-val", options=_declared("concode-val"))
def concode_val(schema_form: str, output_form: str, shots: int, schemas: str, n: int, seed: int) -> Task:
    """ConCodeEval Task 2: is the sample valid against the schema (yes/no)? ``schemas``: concode (a valid and a
    one-keyword-invalid sample per generated schema) or schemastore (the first ``n`` labelled documents)."""
    _check_n("concode-val", n)

    def grammar(instance: TaskInstance) -> Any:
        from corral.grammars import Grammar

        return Grammar.regex("(yes|no)", "yes or no")

    return Task(
        name="concode-val", version=VERSION,
        instances=lambda: _val_instances(schemas, schema_form, output_form, shots, n, seed),
        check=_val_check, grammar=grammar, template=PromptTemplate(), extract="whole", quality=_val_quality,
        description="ConCodeEval Task 2 (Kammakomati et al. 2024): does a sample satisfy a schema, yes or no",
    )
