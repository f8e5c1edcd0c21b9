"""Shared test settings.

Hypothesis runs derandomized (the same examples on every machine and every
run) and without its example database, so a CI failure reproduces locally and
no run depends on what an earlier one found.  Set HYPOTHESIS_PROFILE=explore
to search with fresh random examples instead.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
