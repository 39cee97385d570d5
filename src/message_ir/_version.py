"""The one place the package's version is written: `pyproject.toml` reads it from here (hatch's
version source), so the distribution's metadata says the same. A constant, so that importing
the package does not import `importlib.metadata` (a third of the command line's start-up)."""

__version__ = "0.1.0"
"""The package's version (the installed distribution's metadata holds the same)."""
