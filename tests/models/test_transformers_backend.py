"""The transformers backend on the real bundled SmolLM2-135M-Instruct: batching, seeds, grammars, stop strings.

The model is loaded once for the module (about 8 s on 2 cores); every generation is kept short so the file stays
well under a minute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib.util import find_spec

import jsonschema
import pytest

from corral.grammars import Grammar
from corral.models import Completion, ModelError, Request, Sampling, TransformersModel
from corral.registry import backends

# found, not imported: every xdist worker collects this module, and only the one that runs it needs torch (3 s)
pytestmark = [pytest.mark.model, pytest.mark.skipif(find_spec("torch") is None or find_spec("transformers") is None,
                                                    reason="needs torch and transformers")]

PROMPTS = (
    "What is the capital of France?",
    "Name three colours.",
    "Write one sentence about the sea, please, in a calm and quiet tone.",
    "Hi!",
)
PERSON = {
    "type": "object",
    # bounded age: llguidance writes properties in the schema's order, and an open integer after the name can run
    # on to the token budget
    "properties": {"name": {"type": "string", "maxLength": 20},
                   "age": {"type": "integer", "minimum": 0, "maximum": 130}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def model() -> Iterator[TransformersModel]:
    from corral.models import bundled_gguf

    try:
        bundled_gguf()
    except ModelError as exc:
        pytest.skip(f"bundled model unavailable: {exc}")
    loaded = TransformersModel("smollm2")  # with the model present, failing to load it is a failure, not a skip
    yield loaded
    loaded.close()


def _one(model: TransformersModel, prompt: str, sampling: Sampling, grammar: Grammar | None = None) -> Completion:
    [[completion]] = model.complete([Request.user(prompt, sampling, grammar)])
    return completion


def test_registered_under_its_name() -> None:
    assert "transformers" in backends.get_all()


def test_greedy_chat_completion(model: TransformersModel) -> None:
    done = _one(model, PROMPTS[0], Sampling(max_tokens=24))
    assert done.text.strip()
    assert done.prompt_tokens > 0 and done.completion_tokens > 0 and done.seconds > 0
    assert done.finish_reason in ("stop", "length") and done.error is None and not done.constrained
    if done.finish_reason == "stop":
        assert done.completion_tokens < 24
    else:
        assert done.completion_tokens == 24

    cut = _one(model, PROMPTS[0], Sampling(max_tokens=5))
    assert cut.finish_reason == "length" and cut.completion_tokens == 5
    assert done.text.startswith(cut.text)  # greedy: the short run is a prefix of the long one


def test_a_request_gives_the_same_text_alone_and_in_a_batch(model: TransformersModel) -> None:
    greedy = Sampling(max_tokens=20)
    alone = _one(model, PROMPTS[2], greedy)
    batch = model.complete([Request.user(p, greedy) for p in PROMPTS])
    assert [len(r) for r in batch] == [1, 1, 1, 1]
    assert batch[2][0].text == alone.text
    assert batch[2][0].prompt_tokens == alone.prompt_tokens  # padding is not counted as prompt


def test_seeded_sampling_is_reproducible(model: TransformersModel) -> None:
    hot = Sampling(temperature=1.0, top_p=0.95, max_tokens=16, seed=11)
    first = _one(model, PROMPTS[1], hot)
    again = _one(model, PROMPTS[1], hot)
    assert first.text == again.text
    # the same seed gives the same draw whatever shares the batch (a row has its own generator)
    mixed = model.complete([Request.user(PROMPTS[3], Sampling(max_tokens=8)), Request.user(PROMPTS[1], hot)])
    assert mixed[1][0].text == first.text

    [samples] = model.complete([Request.user(PROMPTS[1], Sampling(temperature=1.0, max_tokens=16, seed=5, n=3))])
    assert len(samples) == 3 and all(s.completion_tokens > 0 for s in samples)
    assert len({s.text for s in samples}) > 1  # seeds 5, 6, 7 are different draws


def test_grammars_hold_in_a_batch_with_unconstrained_rows(model: TransformersModel) -> None:
    yes_no = Grammar.regex("(yes|no)")
    sum_line = Grammar.lark('start: "The answer is " NUM "."\nNUM: /[0-9]{1,3}/')
    person = Grammar.json_schema(PERSON)
    requests = [
        Request.user("Is the sky blue? Answer yes or no.", Sampling(max_tokens=5), yes_no),
        Request.user("Say something nice.", Sampling(max_tokens=12)),
        Request.user("What is 2 + 2?", Sampling(max_tokens=12), sum_line),
        Request.user("Describe a person as JSON with a name and an age.", Sampling(max_tokens=48), person),
        Request.user("Describe a person as JSON.", Sampling(temperature=0.7, max_tokens=48, seed=3, n=2), person),
    ]
    out = model.complete(requests)
    assert [len(r) for r in out] == [1, 1, 1, 1, 2]

    [answer], [free], [line], [greedy_person], sampled_people = out
    assert re.fullmatch(r"yes|no", answer.text) and answer.finish_reason == "stop" and answer.constrained
    assert free.text and not free.constrained and free.error is None
    assert re.fullmatch(r"The answer is [0-9]{1,3}\.", line.text) and line.finish_reason == "stop"
    for person_out in (greedy_person, *sampled_people):
        assert person_out.constrained and person_out.error is None
        assert person_out.finish_reason == "stop", person_out.text
        jsonschema.validate(json.loads(person_out.text), PERSON)


def test_a_grammar_that_cannot_compile_fails_its_row_only(model: TransformersModel) -> None:
    broken = Grammar("lark", "start: undefined_rule")  # bypasses Grammar.lark's validation on purpose
    bad, good = model.complete([Request.user("Hi", Sampling(max_tokens=4), broken),
                                Request.user("Hi", Sampling(max_tokens=4))])
    assert bad[0].finish_reason == "error" and bad[0].error and bad[0].constrained
    assert good[0].finish_reason in ("stop", "length") and good[0].error is None


def test_a_repeat_limit_breaks_a_greedy_loop(model: TransformersModel) -> None:
    loopy = Grammar.regex(r"(ire|a|the)( (ire|a|the))*\.")
    prompt = "Repeat after me: the the the the the the the the"
    free = _one(model, prompt, Sampling(max_tokens=24), loopy)
    limited = _one(model, prompt, Sampling(max_tokens=24, repeat_limit=2), loopy)
    assert "the the the" in free.text and "the the the" not in limited.text, (free, limited)
    assert limited.finish_reason == "stop" and limited.text.endswith(".")


def test_stop_strings_truncate_the_text(model: TransformersModel) -> None:
    prompt = "Write one sentence about a red apple."
    full = _one(model, prompt, Sampling(max_tokens=24)).text
    assert len(full) >= 8, full
    stop = full[len(full) // 2: len(full) // 2 + 3]  # whatever greedy writes, cut it in the middle
    cut = _one(model, prompt, Sampling(max_tokens=24, stop=("never appears", stop)))
    assert cut.finish_reason == "stop"
    assert cut.text == full[: full.index(stop)]
