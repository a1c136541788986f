"""An LLM judge for AcroW (ReFF A.4): a model rates each acrostic poem, and the rating becomes ``acrow_judge``.

Off by default: ``corral eval formatbench -T judge=openai:NAME -T judge_base_url=URL`` (or any model spec, the
bundled ``smollm2`` included) turns it on. The judge sees the target word and the poem and answers with a
rating from 1 to 10; the quality is the rating divided by 10. A reply without a rating scores nothing (the key is
left out of the record, so the summary's mean is over rated poems only) and is counted as
``acrow_judge_unrated``. The judge decodes greedily, so a run stays reproducible with a local judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JUDGE_PROMPT = (
    "Rate this acrostic poem from 1 (very poor) to 10 (excellent). The first letters of its lines should spell "
    "{target!r}, and the lines should read as a poem: fluent, meaningful and connected. Reply with the rating "
    "only.\n\nPoem:\n{poem}\n\nRating:"
)
_RATING = re.compile(r"\b(10|[1-9])(?:\s*/\s*10)?\b")


def parse_rating(reply: str) -> int | None:
    """The first rating 1-10 in the judge's reply ("7", "Rating: 8/10"), or None."""
    match = _RATING.search(reply)
    return int(match.group(1)) if match else None


@dataclass
class AcrowJudge:
    """A judge model, loaded on first use and reused for every poem of the run."""

    spec: str
    base_url: str | None = None
    max_tokens: int = 8
    _model: Any = field(default=None, repr=False)

    def rate(self, instance: Mapping[str, Any], poem: str) -> dict[str, float]:
        from corral.models import Request, Sampling, load_model

        if not poem.strip():
            return {"acrow_judge": 0.0}
        if self._model is None:
            self._model = load_model(self.spec, **({"base_url": self.base_url} if self.base_url else {}))
        prompt = JUDGE_PROMPT.format(target=str(instance["target"]), poem=poem[:2000])
        [[reply]] = self._model.complete([Request.user(prompt, Sampling(max_tokens=self.max_tokens))])
        rating = parse_rating(reply.text) if reply.finish_reason != "error" else None
        if rating is None:
            return {"acrow_judge_unrated": 1.0}
        return {"acrow_judge": rating / 10, "acrow_judge_unrated": 0.0}

    def close(self) -> None:
        if self._model is not None:
            self._model.close()
            self._model = None
