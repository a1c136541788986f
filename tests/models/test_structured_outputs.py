"""Structured outputs per server kind, against local fake servers that validate each request's body as the real
server's documentation gives it (field names and types) and refuse anything else with 400, so a wrong mapping fails
here; and against llama-cpp-python's own server, through the runner (``server`` mark)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from corral.grammars import Grammar, accepts
from corral.models import ModelError, OpenAIModel, Request, Sampling, kind_from_owner, plan_summary, route_grammar

from ._servers import ScriptedServer, completion_reply, error_reply

pytestmark = pytest.mark.server

STANDARD = {"model", "messages", "temperature", "top_p", "max_tokens", "n", "stop", "seed"}

STRICT = {"type": "object", "properties": {"name": {"type": "string"}, "tags": {
    "type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 3}},
    "required": ["name", "tags"], "additionalProperties": False}
LOOSE = {"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]}
ANCHORLESS = {"type": "string", "pattern": "ab+"}

REGEX = Grammar.regex(r"[0-9]{2}-[a-z]+")
CHOICE = Grammar.lark('start: "yes"\n    | "no"')
ONE_LEXEME = Grammar.lark('start: T\nT: /[a-z]{1,8}/ & ~(/.*/ "x" /.*/)')
SEVERAL = Grammar.lark('start: A " " A\nA: /[a-z]+/')


def _problem_vllm(body: dict[str, Any]) -> str:
    """vLLM >= 0.12: ``structured_outputs`` with one of json (object or text), regex, choice (list of text), grammar
    (text); the ``guided_*`` fields were removed in 0.12."""
    if any(key.startswith("guided_") for key in body):
        return "guided_* fields were removed in v0.12.0; use structured_outputs"
    outputs = body.get("structured_outputs")
    if outputs is None:
        return ""
    kinds = {"json": (dict, str), "regex": (str,), "choice": (list,), "grammar": (str,)}
    if not isinstance(outputs, dict) or len(outputs) != 1 or next(iter(outputs)) not in kinds:
        return f"structured_outputs must hold exactly one of {sorted(kinds)}"
    key, value = next(iter(outputs.items()))
    if not isinstance(value, kinds[key]) or (key == "choice" and not all(isinstance(v, str) for v in value)):
        return f"structured_outputs.{key} has the wrong type"
    return ""


def _problem_vllm_legacy(body: dict[str, Any]) -> str:
    """vLLM before 0.12: guided_json, guided_regex, guided_choice, guided_grammar."""
    if "structured_outputs" in body:
        return "unknown field structured_outputs"
    kinds = {"guided_json": (dict, str), "guided_regex": (str,), "guided_choice": (list,), "guided_grammar": (str,)}
    used = [key for key in body if key.startswith("guided_")]
    if len(used) > 1 or any(key not in kinds or not isinstance(body[key], kinds[key]) for key in used):
        return f"bad guided fields {used}"
    return ""


def _problem_sglang(body: dict[str, Any]) -> str:
    """SGLang: one of response_format json_schema {name, schema}, regex (text), ebnf (text, GBNF with a root rule)."""
    given = [key for key in ("response_format", "regex", "ebnf") if key in body]
    if len(given) > 1:
        return "only one constraint parameter (json_schema, regex, or ebnf) can be specified"
    if "response_format" in body:
        form = body["response_format"]
        inner = form.get("json_schema") if isinstance(form, dict) else None
        if form.get("type") != "json_schema" or not isinstance(inner, dict) or not isinstance(inner.get("schema"),
                                                                                               dict):
            return "response_format must be {type: json_schema, json_schema: {name, schema}}"
        if not isinstance(inner.get("name"), str):
            return "json_schema.name is required"
    if "ebnf" in body and (not isinstance(body["ebnf"], str) or not re.search(r"^root ::= ", body["ebnf"], re.M)):
        return "ebnf must be a GBNF text with a root rule"
    if "regex" in body and not isinstance(body["regex"], str):
        return "regex must be text"
    if any(key in body for key in ("grammar", "structured_outputs", "json_schema")):
        return "unknown constraint field"
    return ""


def _problem_openai(body: dict[str, Any]) -> str:
    """OpenAI: response_format {type: json_schema, json_schema: {name, schema, strict}}; in strict mode every object
    has additionalProperties false and all its properties required, and the root is an object."""
    extra = set(body) - STANDARD - {"response_format"}
    if extra:
        return f"Unrecognized request arguments: {sorted(extra)}"
    if "response_format" not in body:
        return ""
    form = body["response_format"]
    inner = form.get("json_schema") or {}
    if form.get("type") != "json_schema" or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", str(inner.get("name", ""))):
        return "response_format.json_schema needs a name of a-z, A-Z, 0-9, _ and -"
    schema = inner.get("schema")
    if inner.get("strict") is not True or not isinstance(schema, dict) or schema.get("type") != "object":
        return "strict schemas must have an object root"
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "properties" in node and (node.get("additionalProperties") is not False
                                         or set(node.get("required", [])) != set(node["properties"])):
                return "Invalid schema: additionalProperties must be false and all properties required"
            stack.extend(v for k, v in node.items() if k in ("properties", "items", "$defs", "anyOf"))
            if "properties" in node:
                stack.extend(node["properties"].values())
        elif isinstance(node, list):
            stack.extend(node)
    return ""


VALIDATORS = {"vllm": _problem_vllm, "vllm-legacy": _problem_vllm_legacy, "sglang": _problem_sglang,
              "openai": _problem_openai}


def _validating(kind: str) -> ScriptedServer:
    server: ScriptedServer

    def answer(n: int) -> tuple:
        problem = VALIDATORS[kind](server.bodies[n])
        return error_reply(400, problem) if problem else completion_reply("ok")

    server = ScriptedServer(answer, owned_by={"openai": "openai", "vllm-legacy": "vllm"}.get(kind, kind))
    return server


CASES = [
    # kind, grammar, enforced via (None: checker-only, nothing sent)
    ("vllm", REGEX, "regex"), ("vllm", CHOICE, "choice"), ("vllm", ONE_LEXEME, "Lark"), ("vllm", SEVERAL, "Lark"),
    ("vllm", Grammar.json_schema(LOOSE), "JSON Schema"),
    ("vllm-legacy", REGEX, "regex"), ("vllm-legacy", CHOICE, "choice"), ("vllm-legacy", SEVERAL, "Lark"),
    ("vllm-legacy", Grammar.json_schema(STRICT), "JSON Schema"),
    ("sglang", REGEX, "regex"), ("sglang", CHOICE, "GBNF"), ("sglang", ONE_LEXEME, "GBNF"), ("sglang", SEVERAL, None),
    ("sglang", Grammar.json_schema(LOOSE), "JSON Schema"),
    ("openai", Grammar.json_schema(STRICT), "JSON Schema"), ("openai", Grammar.json_schema(LOOSE), None),
    ("openai", Grammar.json_schema(ANCHORLESS), None), ("openai", REGEX, None), ("openai", CHOICE, None),
]


@pytest.mark.parametrize(("kind", "grammar", "via"), CASES)
def test_each_kind_gets_what_its_documentation_accepts(kind: str, grammar: Grammar, via: str | None) -> None:
    """The model is built with ``grammar_mode='auto'``: the kind comes from the server's ``owned_by`` (the legacy
    vLLM one is named, as its owner reads the same)."""
    mode = "vllm-legacy" if kind == "vllm-legacy" else "auto"
    with _validating(kind) as server, OpenAIModel("m", base_url=server.url, grammar_mode=mode, max_retries=0) as model:
        route = model.plan_grammar(grammar)
        assert route.server == kind
        assert route.via == (via or "") and route.enforced == (via is not None)
        if via is None:
            with pytest.raises(ModelError, match="cannot enforce this grammar") as caught:
                model.complete([Request.user("hi", Sampling(max_tokens=4), grammar)])
            assert server.hits == 0, "a checker-only grammar reached the server"
            assert "\n" not in str(caught.value) and route.reason in str(caught.value)
        else:
            [[completion]] = model.complete([Request.user("hi", Sampling(max_tokens=4), grammar)])
            assert completion.error is None, completion.error
            assert completion.constrained


def test_sglang_gets_the_exact_gbnf() -> None:
    with _validating("sglang") as server, OpenAIModel("m", base_url=server.url) as model:
        model.complete([Request.user("hi", Sampling(max_tokens=4), ONE_LEXEME)])
    [body] = server.bodies
    assert body["ebnf"].startswith("root ::= [a-wyz] ")


def test_a_wrong_mapping_is_refused_by_the_fake() -> None:
    """The validators are strict enough to catch a mapping to another server's fields."""
    assert _problem_vllm({"guided_regex": "a"})
    assert _problem_vllm_legacy({"structured_outputs": {"regex": "a"}})
    assert _problem_sglang({"grammar": "root ::= [a]"})
    assert _problem_sglang({"regex": "a", "ebnf": "root ::= [a]"})
    assert _problem_openai({"response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": LOOSE, "strict": True}}})
    assert _problem_openai({"regex": "a"})


@pytest.mark.parametrize(("owned_by", "kind"), [("vllm", "vllm"), ("sglang", "sglang"), ("llamacpp", "llamacpp"),
                                                ("me", "llamacpp"), ("openai", "openai"), (None, "openai")])
def test_auto_reads_the_kind_from_owned_by(owned_by: str | None, kind: str) -> None:
    with (ScriptedServer([completion_reply()], owned_by=owned_by) as server,
          OpenAIModel("m", base_url=server.url) as model):
        assert model.server_kind() == kind
    assert kind_from_owner(["x", "SGLang "]) == "sglang"


def test_an_unreachable_server_is_planned_the_openai_way() -> None:
    from ._servers import free_port

    with OpenAIModel("m", base_url=f"http://127.0.0.1:{free_port()}/v1", timeout=2) as model:
        assert model.server_kind() == "openai"


def test_llamacpp_schema_keywords() -> None:
    loose = route_grammar(Grammar.json_schema({"type": "integer", "minimum": 3, "multipleOf": 2}), "llamacpp")
    assert loose.enforced and loose.unenforced == ("minimum", "multipleOf")
    anchored = route_grammar(Grammar.json_schema(ANCHORLESS), "llamacpp")
    assert not anchored.enforced and "anchored" in anchored.reason
    strict = route_grammar(Grammar.json_schema(LOOSE), "openai")
    assert not strict.enforced and "additionalProperties" in strict.reason


def test_the_plan_summary_line() -> None:
    routes = [route_grammar(g, "llamacpp") for g in (REGEX, CHOICE, SEVERAL, SEVERAL,
                                                      Grammar.json_schema({"type": "integer", "minimum": 0}))]
    line = plan_summary("llamacpp", routes, {"no grammar": 1})
    assert line == ("server llamacpp: 3 instances enforced (GBNF 2, JSON Schema 1), 3 checker-only: lark grammar "
                    "with several lexemes (2); no grammar (1); keywords checked after decoding: minimum (1)")


# ------------------------------------------------------------------------------------------- the runner
def _run(task: str, url: str, out: Path, **fields: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from corral.evaluation import EvalSpec, evaluate

    lines: list[str] = []
    spec = EvalSpec(task=task, model="openai:m", base_url=url, decoding="constrained", **fields)
    evaluate(spec, out, on_plan=lines.append)
    config = json.loads((out / "config.json").read_text())
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert lines == [config["grammar_plan"]["summary"]]
    return config, records


def test_runner_plans_before_generating_and_decodes_checker_only_freely(tmp_path: Path) -> None:
    with _validating("sglang") as server:
        config, records = _run("collie", server.url, tmp_path / "run", where={"structure": ["word01", "para03"]},
                               per_group=("structure", 1), sampling={"max_tokens": 8})
    plan = config["grammar_plan"]
    assert plan["server"] == "sglang"
    assert plan["summary"].startswith("server sglang: 1 instance enforced (GBNF 1), 1 checker-only: ")
    by_id = {r["instance"]: r for r in records}
    for instance, entry in plan["instances"].items():
        record = by_id[instance]
        if entry["enforced"]:
            assert record["decoding"] == "constrained" and record["fallback_reason"] is None
        else:
            assert record["decoding"] == "free-fallback"
            assert record["fallback_reason"] == "checker-only on a sglang server: lark grammar with several lexemes"
    assert server.hits == 2 and "ebnf" in server.bodies[0] | server.bodies[1]



def test_a_declared_reasoning_block_is_named_in_the_plan(tmp_path: Path) -> None:
    """The server gets the answer's grammar alone: the plan says the server must keep the block apart."""
    with _validating("sglang") as server:
        config, _ = _run("collie", server.url, tmp_path / "run", where={"structure": ["word01"]},
                               per_group=("structure", 1), sampling={"max_tokens": 8},
                               reasoning={"open": "<think>", "close": "</think>"})
    summary = config["grammar_plan"]["summary"]
    assert summary.startswith("server sglang: 1 instance enforced (GBNF 1); reasoning block <think>...</think>: ")
    assert "reasoning parser" in summary and config["reasoning"]["open"] == "<think>"
    assert "<think>" not in server.bodies[0]["ebnf"]  # the answer's grammar, as the server enforces it

# ------------------------------------------------------------------------------------------- llama-cpp-python
@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory):
    from ._servers import served_smollm2

    yield from served_smollm2(tmp_path_factory, n_ctx=2048)


@pytest.mark.parametrize(("task", "fields"), [
    ("collie", {"where": {"structure": ["word01", "word02", "word03", "para03"]}, "per_group": ("structure", 2)}),
    ("formatbench", {"task_options": {"shots": "0"}, "where": {"task": ["mcq", "ftime", "mtt"]},
                     "per_group": ("task", 2)}),
])
def test_llama_cpp_python_enforces_what_gbnf_can_say(llama: Any, tmp_path: Path, task: str,
                                                     fields: dict[str, Any]) -> None:
    """``auto`` finds llama-cpp-python (owned_by "me"); the instances whose grammar converts exactly are enforced as
    GBNF, and every such output is a text of the grammar by llguidance's own verdict; the rest are checker-only in
    the config and decode freely."""
    from corral.tasks import get_task

    config, records = _run(task, llama.url, tmp_path / task, sampling={"max_tokens": 24}, **fields)
    plan = config["grammar_plan"]
    assert plan["server"] == "llamacpp"
    enforced = {i for i, entry in plan["instances"].items() if entry["enforced"]}
    checker_only = set(plan["instances"]) - enforced
    assert enforced and checker_only
    assert all(plan["instances"][i]["via"] == "GBNF" for i in enforced)
    the_task = get_task(task, **fields.get("task_options", {}))
    instances = {inst.id: inst for inst in the_task.instances() if inst.id in plan["instances"]}
    for record in records:
        if record["instance"] in enforced and record["finish_reason"] == "stop":
            assert accepts(the_task.grammar(instances[record["instance"]]), record["output"]), record["output"]
        if record["instance"] in checker_only:
            assert record["decoding"] == "free-fallback" and "checker-only" in record["fallback_reason"]


def test_llama_cpp_python_enforces_schemas(llama: Any, tmp_path: Path) -> None:
    config, records = _run("concode-gen", llama.url, tmp_path / "concode", task_options={"n": "4"},
                           sampling={"max_tokens": 96})
    plan = config["grammar_plan"]
    assert plan["summary"].startswith("server llamacpp: 4 instances enforced (JSON Schema 4)")
    assert all(r["decoding"] == "constrained" for r in records)
