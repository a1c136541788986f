"""``python -m corral.cli``: the same as the ``corral`` command."""

from corral.cli import main

main()
