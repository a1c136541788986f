"""Each bridge needs its own extra: without the library, importing the bridge is one line naming what to install; and
Corral itself never imports any of the three libraries."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from corral.extras import EXTRAS, MissingExtra

BRIDGES = [("corral.bridges.inspect", "inspect_ai", "inspect"), ("corral.bridges.lm_eval", "lm_eval", "lm-eval"),
           ("corral.bridges.verifiers", "verifiers", "verifiers")]


@pytest.mark.parametrize(("bridge", "library", "extra"), BRIDGES)
def test_a_bridge_without_its_library_names_its_extra(bridge: str, library: str, extra: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert library in EXTRAS[extra]
    monkeypatch.setitem(sys.modules, library, None)  # import LIBRARY now raises ImportError
    monkeypatch.delitem(sys.modules, bridge, raising=False)
    with pytest.raises(MissingExtra) as raised:
        importlib.import_module(bridge)
    message = str(raised.value)
    assert f"pip install 'corral[{extra}]'" in message and "\n" not in message
    monkeypatch.delitem(sys.modules, bridge, raising=False)  # a failed import leaves no half module behind


def test_corral_imports_none_of_the_bridged_libraries() -> None:
    code = ("import sys, corral, corral.bridges, corral.training, corral.evaluation, corral.cli; "
            "print(sorted(m for m in ('inspect_ai', 'lm_eval', 'verifiers', 'trl') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
