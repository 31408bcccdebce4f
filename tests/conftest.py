"""Settings shared by the whole suite.

Hypothesis profiles: ``ci`` (set ``HYPOTHESIS_PROFILE=ci``, as ``.ci/run`` does) draws the same
examples on every run (``derandomize``), so a failure in CI is reproducible from the clone; the
default profile draws afresh each run and keeps the failures it finds in ``.hypothesis/``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
