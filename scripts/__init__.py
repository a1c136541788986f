"""Scripts that build the data Corral ships; run from the repository root, never installed."""
