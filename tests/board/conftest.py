"""Every board test runs with the kernels compiled (see ``tests/conftest.py``)."""

import pytest


@pytest.fixture(autouse=True)
def _kernels_ready(compiled_kernels) -> None:
    """Depend on the session warm-up, so that a cold cache is paid for once, before the first test."""
