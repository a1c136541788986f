"""The inspect_ai bridge end to end: inspect's own eval loop and OpenAI-compatible provider against llama-cpp-python's
server on the bundled model, Corral's scorer, and the log read back with inspect's reader (what ``inspect view``
shows). Outputs and verdicts are held against Corral's own run of the same instances."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

import inspect_ai
from inspect_ai._util.registry import registry_info, registry_lookup
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import CORRECT, INCORRECT

from corral.bridges.inspect import INSTANCE_KEY, corral_checker, corral_task
from corral.tasks import get_task, select

from ..models._servers import LlamaServer, ScriptedServer, completion_reply
from .conftest import COLLIE, FORMATBENCH, MAX_TOKENS, PLAIN_GREEDY, Reference

pytestmark = [pytest.mark.model, pytest.mark.server]

MODEL = "openai-api/llamacpp/smollm2"
"""inspect's generic OpenAI-compatible provider: ``openai-api/<service>/<model>``, its URL and key read from
``<SERVICE>_BASE_URL`` and ``<SERVICE>_API_KEY`` (inspect_ai/model/_providers/openai_compatible.py)."""


@pytest.fixture
def served(llama: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LLAMACPP_BASE_URL", llama.url)
    monkeypatch.setenv("LLAMACPP_API_KEY", "none")  # the server checks no key; inspect insists on one
    return MODEL


def test_inspect_eval_of_corral_tasks_matches_corral_run(served: str, reference: dict[str, Reference],
                                                         tmp_path: Path) -> None:
    tasks = [corral_task(task=s.task, where=s.where, limit=s.limit, max_tokens=MAX_TOKENS, extra_body=PLAIN_GREEDY,
                         **s.options) for s in (COLLIE, FORMATBENCH)]
    logs = inspect_ai.eval(tasks, model=served, temperature=0.0, log_dir=str(tmp_path), display="none",
                           max_connections=1)
    assert [log.status for log in logs] == ["success", "success"]
    for log, selection in zip(logs, (COLLIE, FORMATBENCH), strict=True):
        read = read_eval_log(log.location)  # the file inspect wrote, through inspect's own reader
        ref = reference[selection.key]
        assert read.eval.task == selection.task and read.samples is not None
        assert sorted(str(s.id) for s in read.samples) == sorted(ref.outputs)
        for s in read.samples:
            instance = s.metadata[INSTANCE_KEY]
            assert s.output.completion == ref.outputs[instance]  # the served model wrote what the runner's did
            score = s.scores["corral_checker"]
            assert score.value == (CORRECT if ref.passed[instance] else INCORRECT)
            assert score.metadata is not None and score.metadata["score"] == pytest.approx(ref.scores[instance])
            assert score.explanation and (score.explanation == "passed") == ref.passed[instance]
            if not ref.passed[instance]:
                assert score.explanation.startswith(score.metadata["violations"][0]["message"][:40])
        if selection is FORMATBENCH:  # the task's quality metric travels in the score's metadata
            assert all("mcq_accuracy" in s.scores["corral_checker"].metadata["quality"] for s in read.samples)
        [scores] = read.results.scores if read.results else []
        assert scores.metrics["accuracy"].value == pytest.approx(ref.pass_rate)


def test_a_json_schema_task_sends_its_schema_in_the_field_asked_for(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    """concode-gen's string instance, through inspect's provider to a scripted HTTP server that records each request:
    ``structured="llamacpp"`` sends the grammar's schema as llama-cpp-python's ``response_format`` (type
    json_object), ``structured="response_schema"`` as inspect's ResponseSchema (OpenAI's type json_schema), and the
    reply is judged by Corral's checker either way."""
    built = get_task("concode-gen", n=2)
    [instance] = select(built, {"root_type": ["string"]}, limit=1)
    schema = built.grammar(instance).schema
    with ScriptedServer([completion_reply('"hello there"')]) as server:
        monkeypatch.setenv("LLAMACPP_BASE_URL", server.url)
        monkeypatch.setenv("LLAMACPP_API_KEY", "none")
        tasks = [corral_task(task="concode-gen", n=2, where={"root_type": ["string"]}, limit=1, structured=mode,
                             extra_body=PLAIN_GREEDY) for mode in ("llamacpp", "response_schema")]
        logs = inspect_ai.eval(tasks, model=MODEL, log_dir=str(tmp_path), display="none", max_connections=1)
    formats = {body["response_format"]["type"]: body for body in server.bodies}
    assert formats.keys() == {"json_object", "json_schema"} and server.hits == 2
    assert formats["json_object"]["response_format"]["schema"] == schema
    assert formats["json_object"]["repeat_penalty"] == 1.0  # the task's extra_body goes along with the grammar
    assert formats["json_schema"]["response_format"]["json_schema"]["schema"]["type"] == "string"
    assert formats["json_object"]["max_tokens"] == instance.max_tokens
    for log in logs:
        [sample] = read_eval_log(log.location).samples or []
        assert sample.scores["corral_checker"].value == CORRECT


def test_the_scorer_is_corrals_judgement_on_the_text() -> None:
    """The scorer alone, on texts: a COLLIE reference passes its own constraint, an empty answer fails with the
    checker's message as the explanation (no model: inspect's scorer protocol called directly)."""
    import asyncio

    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    task = get_task("collie")
    [instance] = select(task, {"structure": ["sent01"]}, limit=1)
    score = corral_checker("collie", value="score")

    def judged(text: str):
        state = TaskState(model="none/none", sample_id=instance.id, epoch=1, input="", messages=[],
                          output=ModelOutput.from_content("none/none", text), metadata={INSTANCE_KEY: instance.id})
        return asyncio.run(score(state, Target("")))

    good, bad = judged(instance.reference or ""), judged("")
    assert good.value == 1.0 and good.explanation == "passed"
    expected = task.judge(instance, "").verdict
    assert bad.value == pytest.approx(expected.score) and not bad.metadata["passed"]
    assert bad.explanation == "; ".join(v.message for v in expected.violations)


def test_the_entry_point_names_the_module_that_registers_the_task() -> None:
    """``inspect eval corral/corral_task`` loads the ``inspect_ai`` entry point named ``corral``: it must name the
    module that defines the task and the scorer."""
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["inspect_ai"]["corral"]
    assert target == corral_task.__module__ == corral_checker.__module__
    assert registry_lookup("task", registry_info(corral_task).name) is not None
