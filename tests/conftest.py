"""hypothesis profiles: `default` keeps the suite fast; `deep` is for the nox `fuzz` session."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=1000, deadline=None, suppress_health_check=_LOAD_DEPENDENT)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
