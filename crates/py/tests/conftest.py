"""Shared paths for the binding tests: the repository's ../shared folder (scenes, robots)."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[4] / "shared"


@pytest.fixture
def shared() -> Path:
    assert SHARED.is_dir(), f"the tests read {SHARED} (the shared folder beside the repository)"
    return SHARED
