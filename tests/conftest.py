"""hypothesis profiles: `default` keeps the suite fast; `deep` is for the nox `fuzz` session."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Health checks about generation speed and size depend on the machine's load, not on the
# code under test; they are off so that a busy CI machine cannot fail the suite.
_LOAD_DEPENDENT = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=_LOAD_DEPENDENT)
settings.register_profile("deep", max_examples=1000, deadline=None, suppress_health_check=_LOAD_DEPENDENT)
# The coverage session measures the same examples every run, so its figure does not wander.
settings.register_profile(
    "coverage", max_examples=60, deadline=None, suppress_health_check=_LOAD_DEPENDENT, derandomize=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
