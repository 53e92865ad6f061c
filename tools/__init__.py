"""Developer tools around the package (not installed with it)."""
