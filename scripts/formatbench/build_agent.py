"""Build the Agent instances (``data/agent.jsonl.gz``) from TextWorld cooking games, the game type of First
TextWorld Problems, generated offline and seeded.

Each game is made with TextWorld's ``tw-cooking`` challenge (``textworld.challenges.tw_cooking.make``, as
``tw-make tw-cooking`` does) and compiled into a temporary folder. Its walkthrough is played with
``textworld.start``; before each walkthrough command (step k = 0, 1, ...) the state is recorded as one
instance: the objective, the current observation, the last commands with their feedback, the room and the
inventory, the admissible commands, the score, and ``next_scores``: the score after each admissible command,
found by resetting a second environment, replaying the walkthrough's first k commands and executing the
command. ``gold`` is the walkthrough's next command. The games themselves are not shipped: instances carry all
that the checker and the quality metric need, so evaluation does not need TextWorld.

Splits use different games (different seeds) and TextWorld's own food splits: test games draw their food and
preparations from TextWorld's ``test`` split, train games from ``train``, and the few-shot game from ``valid``.
Once the cookbook has been read, its recipe is kept in the instance (``recipe``) and shown in the input: the
input shows only the last 3 commands, and the recipe is the one thing an agent must remember from further back.

Run ``python -m scripts.formatbench`` (needs ``pip install textworld==1.7.0``); building twice gives
identical bytes.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corral.errors import CorralError
from corral.suites.formatbench import normalise  # importing the suite registers the agent checker

TEXTWORLD_VERSION = "1.7.0"
QUESTION = "What do you do next? Answer with one command."
HISTORY = 3  # commands shown before the current observation
SHORT = 160  # characters of a past command's feedback shown in the history
LONG = 1500  # characters of the current observation, room description or inventory kept
FEWSHOT_STEPS = 3


@dataclass(frozen=True)
class GameSpec:
    """One cooking game: Corral's split, the seed, and the tw-cooking skills drawn from the seed."""

    split: str
    index: int
    seed: int
    recipe: int
    take: int
    go: int
    open: bool
    cook: bool
    cut: bool

    @property
    def food_split(self) -> str:
        return {"test": "test", "train": "train", "fewshot": "valid"}[self.split]

    @property
    def name(self) -> str:
        skills = [f"recipe{self.recipe}", f"take{self.take}", f"go{self.go}"]
        skills += [skill for skill in ("open", "cook", "cut") if getattr(self, skill)]
        return f"tw-cooking-{self.food_split}-{'+'.join(skills)}-seed{self.seed}"

    def settings(self) -> dict[str, Any]:
        return {"recipe": self.recipe, "take": self.take, "go": self.go, "open": self.open, "cook": self.cook,
                "cut": self.cut, "drop": False, "recipe_seed": 0, "split": self.food_split}


def game_spec(split: str, index: int, seed: int) -> GameSpec:
    """The game of ``seed``: its skills drawn with ``random.Random(seed)`` (FTWP mixes the same skills)."""
    rng = random.Random(seed)
    recipe = rng.choice([1, 2, 2, 3])
    take = rng.randint(1, recipe)
    go = rng.choice([1, 6, 6, 9])
    return GameSpec(split, index, seed, recipe, take, go, rng.random() < 0.6, rng.random() < 0.6,
                    rng.random() < 0.6)


# TextWorld 1.7.0 cannot make the games of seeds 2009 and 2020 (``tw_cooking.make`` raises ValueError: a food
# with no preparation left), so they are left out.
TEST_SEEDS = tuple(range(1000, 1012))
TRAIN_SEEDS = tuple(seed for seed in range(2000, 2030) if seed not in (2009, 2020))
FEWSHOT_SEED = 3000
GAMES: tuple[GameSpec, ...] = (
    *(game_spec("test", i, seed) for i, seed in enumerate(TEST_SEEDS)),
    *(game_spec("train", i, seed) for i, seed in enumerate(TRAIN_SEEDS)),
    game_spec("fewshot", 0, FEWSHOT_SEED),
)


class TextWorldMissing(CorralError, ModuleNotFoundError):
    """TextWorld is not installed; the message says how to install it."""


def _textworld() -> Any:
    try:
        import textworld
        import textworld.challenges
    except ImportError:
        raise TextWorldMissing(f"building the Agent instances needs TextWorld: pip install "
                               f"textworld=={TEXTWORLD_VERSION}") from None
    return textworld


# ------------------------------------------------------------------------------------------------- text
def _banner(line: str) -> bool:
    """A line of the title's ASCII art: drawing characters and no letter or digit."""
    return re.search(r"[A-Za-z0-9]", line) is None and re.search(r"[$|\\/_]", line) is not None


def clean(text: str | None, objective: str = "") -> str:
    """Game text without the title banner and the objective before it (shown apart), the prompt and status
    line, trailing spaces and runs of blank lines."""
    text = (text or "").replace("\r", "")
    if objective and objective in text:
        text = text[text.index(objective) + len(objective):]
    text = re.sub(r"\n>[^\n]*\s*$", "", "\n" + text.rstrip())  # the prompt, with the status line after it
    text = "\n".join(line.rstrip() for line in text.split("\n") if not _banner(line))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def cut(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, cut at a word boundary and marked ``[...]`` when shortened."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return head.rstrip() + " [...]"


def short(text: str) -> str:
    return cut(" ".join(text.split()), SHORT)


def render_input(row: Mapping[str, Any], choices: Sequence[str] | None = None) -> str:
    """The text shown to the model: objective, recipe once read, recent history, observation, room (when the
    observation does not show it), inventory, optionally the admissible commands, and the question."""
    parts = [f"Objective: {row['objective']}"]
    if row.get("recipe") and row["recipe"] not in row["observation"]:
        parts.append(f"Recipe (from the cookbook, read earlier):\n{row['recipe']}")
    history = list(row.get("history") or [])
    if len(history) > 1:
        parts.append("Recent history:\n" + "\n".join(f"> {h['command']}\n{h['feedback']}" for h in history[:-1]))
    if history:
        parts.append(f"Last command: > {history[-1]['command']}")
    parts.append(f"Observation:\n{row['observation']}")
    description = row.get("description") or ""
    if description and description.split("\n")[0] not in row["observation"]:
        parts.append(f"Location:\n{description}")
    if row.get("inventory"):
        parts.append(f"Inventory:\n{row['inventory']}")
    if choices is not None:
        parts.append("Admissible commands:\n" + "\n".join(f"- {c}" for c in choices))
    parts.append(QUESTION)
    return "\n\n".join(parts)


def _recipe(feedback: str) -> str:
    """The cookbook's ingredients and directions, one item a line, indented under its heading."""
    at = feedback.find("Ingredients:")
    lines = [line.strip() for line in (feedback[at:] if at >= 0 else feedback).split("\n")]
    return "\n".join(line if not line or line.endswith(":") else f"  {line}" for line in lines)


# ------------------------------------------------------------------------------------------------- games
def make_game(spec: GameSpec, work_dir: Path) -> tuple[str, list[str]]:
    """Generate and compile ``spec``'s game under ``work_dir``; its path and walkthrough."""
    textworld = _textworld()
    _, make, _ = textworld.challenges.CHALLENGES["tw-cooking"]
    options = textworld.GameOptions()
    options.seeds = spec.seed
    options.path = str(Path(work_dir) / f"{spec.name}.z8")
    options.file_ext = ".z8"
    options.force_recompile = True
    game = make(settings=spec.settings(), options=options)
    path = textworld.generator.compile_game(game, options)
    return path, [str(command) for command in game.metadata["walkthrough"]]


def play(path: str, walkthrough: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Each state before a walkthrough command: the raw facts, with the score after every admissible command.

    A walkthrough command the game does not accept in its state is skipped (tw-cooking walkthroughs can open
    the fridge twice); ``step`` counts the commands played. The game must be won at the end.
    """
    textworld = _textworld()
    infos = textworld.EnvInfos(admissible_commands=True, score=True, max_score=True, description=True,
                               inventory=True, objective=True, feedback=True, won=True)
    env = textworld.start(path, request_infos=infos)
    probe = textworld.start(path, request_infos=textworld.EnvInfos(score=True))
    try:
        state = env.reset()
        objective = str(state.objective or "")
        feedbacks: list[str] = [clean(state.feedback, objective)]
        played: list[str] = []
        for command in map(normalise, walkthrough):
            admissible = sorted({normalise(c) for c in state.admissible_commands})
            if command not in admissible:
                continue
            next_scores = {}
            for candidate in admissible:
                probe.reset()
                for done in played:
                    probe.step(done)
                after, _, _ = probe.step(candidate)
                next_scores[candidate] = int(after.score)
            yield {"step": len(played), "played": list(played), "objective": objective,
                   "feedbacks": list(feedbacks), "description": clean(state.description),
                   "inventory": clean(state.inventory), "admissible": admissible, "score": int(state.score),
                   "max_score": int(state.max_score), "next_scores": next_scores, "gold": command}
            state, _, _ = env.step(command)
            played.append(command)
            feedbacks.append(clean(state.feedback))
            if int(state.score) != next_scores[command]:
                raise RuntimeError(f"{path}: replaying {command!r} gives another score than playing it")
        if not state.won:
            raise RuntimeError(f"{path}: the walkthrough does not win the game")
    finally:
        env.close()
        probe.close()


def game_rows(spec: GameSpec, work_dir: Path) -> list[dict[str, Any]]:
    """The instances of one game (for the few-shot game, 3 of its states)."""
    path, walkthrough = make_game(spec, work_dir)
    rows = []
    for fact in play(path, walkthrough):
        step, done = fact["step"], fact["played"]
        history = [{"command": c, "feedback": short(f)}
                   for c, f in zip(done[-HISTORY:], fact["feedbacks"][1:][-HISTORY:], strict=True)]
        read = [i for i, c in enumerate(done) if c == "examine cookbook"]
        row = {
            "id": f"agent-{spec.split}-{spec.index:02d}-{step:02d}", "task": "agent", "split": spec.split,
            "gold": fact["gold"], "game": spec.name, "step": step,
            "source": f"TextWorld {TEXTWORLD_VERSION} tw-cooking game {spec.name}, before walkthrough step {step}",
            "objective": fact["objective"],
            "recipe": _recipe(fact["feedbacks"][read[-1] + 1]) if read else None,
            "history": history, "observation": cut(fact["feedbacks"][-1], LONG),
            "description": cut(fact["description"], LONG), "inventory": cut(fact["inventory"], LONG),
            "admissible": fact["admissible"], "score": fact["score"], "max_score": fact["max_score"],
            "next_scores": fact["next_scores"],
        }
        row["input"] = render_input(row)
        row["input_with_choices"] = render_input(row, row["admissible"])
        rows.append(row)
    if spec.split == "fewshot":
        picks = sorted({0, len(rows) // 2, len(rows) - 2})[:FEWSHOT_STEPS]
        rows = [rows[i] for i in picks]
    return rows


def build_agent(work_dir: Path, games: Sequence[GameSpec] = GAMES,
                log: Callable[[str], object] | None = None) -> list[dict[str, Any]]:
    """Every instance of ``games``, their game files made under ``work_dir`` (not kept); ``log`` is told each
    game's name and number of instances."""
    _textworld()
    rows = []
    for spec in games:
        made = game_rows(spec, Path(work_dir))
        if log is not None:
            log(f"{spec.name}: {len(made)} {spec.split} instances")
        rows += made
    return rows


def main(out: Path | None = None) -> Path:
    """Build and write ``out/agent.jsonl.gz`` (default: the package's data folder)."""
    from corral.suites.formatbench import write_instances

    folder = Path(out) if out is not None else Path(__file__).parent / "data"
    with tempfile.TemporaryDirectory(prefix="corral-agent-") as work:
        try:
            rows = build_agent(Path(work), log=lambda line: print(line, file=sys.stderr))
        except TextWorldMissing as exc:
            raise SystemExit(str(exc)) from None
    return write_instances("agent", rows, folder)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="folder to write agent.jsonl.gz to")
    print(main(parser.parse_args().out))
