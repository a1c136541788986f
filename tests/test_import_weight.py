"""Importing the command line, the evaluation and the COLLIE suite (every built-in task registered) loads none of
the heavy libraries some other suites use: nltk's trees (which load scikit-learn, pandas and scipy), sqlglot and
bm25s are imported where a tree, a query or a retrieval is first needed. They cost seconds and some 170 MB that a
COLLIE run never uses."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("nltk", "sklearn", "pandas", "scipy", "sqlglot", "bm25s", "torch", "transformers")

PROGRAM = f"""
import json, sys
import corral.cli, corral.evaluation, corral.suites.collie
from corral.registry import names, tasks
names(tasks)  # every built-in task registered
heavy = {HEAVY!r}
before = [name for name in heavy if name in sys.modules]
from corral.metrics import read_tree
from corral.sql import exact_set_match
read_tree("(S (NP (NN it)) (VP (VBZ works)))")
exact_set_match("SELECT a FROM t", "SELECT a FROM t")
print(json.dumps({{"before": before, "after": [name for name in heavy if name in sys.modules]}}))
"""


def test_the_cli_and_a_collie_evaluation_import_no_heavy_library() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["before"] == [], f"imported by corral.cli, corral.evaluation or the suites: {loaded['before']}"
    # the check sees what it looks for: reading a tree and a query loads their libraries then
    assert {"nltk", "sqlglot"} <= set(loaded["after"])
