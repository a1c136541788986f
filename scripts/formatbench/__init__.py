"""Rebuild the shipped FormatBench data: ``python -m scripts.formatbench --shared ../shared/data``."""
