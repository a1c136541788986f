"""Bridges: Corral's tasks and checkers inside other evaluation and training frameworks.

Each bridge is one module that imports its framework, so ``import corral`` (and this package) imports none of them;
each framework comes with its own extra, and a missing one is a one-line error naming it:

- ``corral.bridges.inspect``: a registered Corral task as an inspect_ai ``Task`` and Corral's checker as an inspect
  ``@scorer`` (``pip install 'corral[inspect]'``; ``inspect eval corral/corral_task -T task=collie``);
- ``corral.bridges.lm_eval``: a Corral task as an lm-evaluation-harness task whose metric is the checker, and a
  ``corral`` lm-eval model that wraps ``corral.models.load_model`` (``pip install 'corral[lm-eval]'``);
- ``corral.bridges.verifiers``: ``load_environment`` for the verifiers library, a single-turn environment over a
  Corral task mix whose rubric is ``corral.training.CheckerReward`` (``pip install 'corral[verifiers]'``).

Every bridge judges an output the one way Corral does (``Task.judge``: the task's answer extraction, the checker
within its budget, the quality metrics), so a verdict read through a bridge is the verdict ``corral eval`` records
for the same output. trl needs no bridge: ``CheckerReward`` is already a trl reward function (docs/bridges/).
"""
