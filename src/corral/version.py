"""Corral's version, from the installed distribution: it goes into every run's config and ``corral doctor``."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("corral")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
