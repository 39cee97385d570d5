"""Test package (so that helper modules are not top-level names)."""
