"""Rows of the two tasks that need no annotated corpus: FTime (generated from templates) and XDL (procedures).

FTime: test, train and few-shot rows come from ``ftime_instances`` with different seeds (0, 2 and 1), so the
splits are drawn independently and the gold of each is computed from its reference time.

XDL: the 40 Chem-EDU procedures and 60 Chem-RnD procedures (drawn with seed 0 among those of at most 1,500
characters) from ``../shared/data/xdl`` (MIT). There are no gold XDL documents in the source, so test rows have
``gold`` null (the paper reports FFR only for XDL); the two few-shot rows are short procedures with XDL written
for Corral, which pass the strict checker.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from .ftime_data import ftime_instances

FTIME_SPLITS = {"test": (0, 300), "fewshot": (1, 3), "train": (2, 1000)}
XDL_RND_COUNT, XDL_RND_MAX_CHARS = 60, 1500

XDL_SHOTS = (
    ("Pour 50 mL of water into a beaker, add 5 g of table salt and stir for 30 seconds.",
     '<XDL>\n<Synthesis>\n<Hardware>\n<Component id="beaker" type="beaker"/>\n</Hardware>\n<Reagents>\n'
     '<Reagent name="water"/>\n<Reagent name="table salt"/>\n</Reagents>\n<Procedure>\n'
     '<Add vessel="beaker" reagent="water" amount="50 mL"/>\n'
     '<Add vessel="beaker" reagent="table salt" amount="5 g"/>\n<Stir vessel="beaker" time="30 s"/>\n'
     '</Procedure>\n</Synthesis>\n</XDL>'),
    ("Put 20 mL of vinegar in a flask and warm it to 40 °C for 2 minutes. Add 2 g of baking soda, then pour the "
     "mixture into a beaker.",
     '<XDL>\n<Synthesis>\n<Hardware>\n<Component id="flask" type="flask"/>\n'
     '<Component id="beaker" type="beaker"/>\n</Hardware>\n<Reagents>\n<Reagent name="vinegar"/>\n'
     '<Reagent name="baking soda"/>\n</Reagents>\n<Procedure>\n'
     '<Add vessel="flask" reagent="vinegar" amount="20 mL"/>\n'
     '<HeatChill vessel="flask" temp="40 °C" time="2 min"/>\n'
     '<Add vessel="flask" reagent="baking soda" amount="2 g"/>\n'
     '<Transfer from_vessel="flask" to_vessel="beaker"/>\n</Procedure>\n</Synthesis>\n</XDL>'),
)


def ftime_input(row: dict[str, Any]) -> str:
    stamp, weekday = row["reference"].split(":")
    return f"Current time: {stamp} ({weekday})\nInstruction: {row['instruction']}"


def build_ftime() -> list[dict[str, Any]]:
    rows = []
    for split, (seed, count) in FTIME_SPLITS.items():
        for i, made in enumerate(ftime_instances(count, seed)):
            rows.append({"id": f"ftime-{split}-{i:05d}", "task": "ftime", "split": split, "input": ftime_input(made),
                         "gold": made["gold"], "tag": made["tag"], "reference": made["reference"],
                         "instruction": made["instruction"],
                         "source": f"scripts/formatbench/ftime_data.py: ftime_instances(n={count}, seed={seed})[{i}]"})
    return rows


def _procedure(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def build_xdl(shared: Path) -> list[dict[str, Any]]:
    root = shared / "xdl" / "datasets"
    rows = []

    def add(split: str, i: int, text: str, gold: str | None, source: str) -> None:
        rows.append({"id": f"xdl-{split}-{i:05d}", "task": "xdl", "split": split, "input": f"Procedure: {text}",
                     "procedure": text, "gold": gold, "source": source})

    edu = sorted(root.glob("Chem-EDU/exp*.txt"), key=lambda p: int(p.stem[3:]))
    for i, path in enumerate(edu):
        add("test", i, _procedure(path), None, f"xdl/datasets/Chem-EDU/{path.name}")
    rnd = sorted(root.glob("Chem-RnD/exp*.txt"), key=lambda p: int(p.stem[3:]))
    short = [path for path in rnd if len(_procedure(path)) <= XDL_RND_MAX_CHARS]
    for j, path in enumerate(sorted(random.Random(0).sample(short, XDL_RND_COUNT), key=lambda p: int(p.stem[3:]))):
        add("test", len(edu) + j, _procedure(path), None, f"xdl/datasets/Chem-RnD/{path.name}")
    for i, (text, gold) in enumerate(XDL_SHOTS):
        add("fewshot", i, text, gold, "written for Corral")
    return rows
