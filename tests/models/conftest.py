import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sim"))

import pytest
from simfakes import GENERATORS, make_suite

from agentprop.suite import Suite


@pytest.fixture(scope="session")
def fake_suite() -> Suite:
    return make_suite()


@pytest.fixture(scope="session")
def fake_generators() -> dict:
    return GENERATORS
