"""Shared helpers of the Python tests: a replayable seed and the skip for features the library's
backends do not take yet (strides, conversion, scaling answer XPOSE_ERROR_UNSUPPORTED until the
kernels of the contraction API issue are merged)."""
import os
import random

import pytest

import xpose


def pytest_report_header(config):
    return f"xpose tests: XPOSE_SEED={SEED} (set it to replay)"


SEED = int(os.environ.get("XPOSE_SEED", random.SystemRandom().randrange(1 << 31)))


@pytest.fixture
def rng():
    """A numpy Generator seeded from XPOSE_SEED (printed in the header) and the test's name."""
    import numpy as np
    name = os.environ.get("PYTEST_CURRENT_TEST", "")
    return np.random.default_rng([SEED, sum(name.encode())])


def unsupported_skips(fn, *args, **kwargs):
    """fn(*args, **kwargs), or a skip when the library answers UNSUPPORTED (a feature its
    backends do not take yet); every other failure propagates."""
    try:
        return fn(*args, **kwargs)
    except xpose.Error as e:
        if e.status == xpose.UNSUPPORTED:
            pytest.skip(f"XPOSE_ERROR_UNSUPPORTED (backend kernels not merged yet?): {e}")
        raise
