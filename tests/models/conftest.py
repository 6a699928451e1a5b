import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sim"))

import pytest  # noqa: E402
from simfakes import GENERATORS, make_suite  # noqa: E402

from agentprop.suite import Suite  # noqa: E402


@pytest.fixture(scope="session")
def fake_suite() -> Suite:
    return make_suite()


@pytest.fixture(scope="session")
def fake_generators() -> dict:
    return GENERATORS
