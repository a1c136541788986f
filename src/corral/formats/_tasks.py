"""Imports every built-in checker so that each registers itself."""

from . import _agent, _ftime, _mtt, _parse, _simple, _tagged, _xdl  # noqa: F401
