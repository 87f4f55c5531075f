"""What the torch tests share (imported by them: a conftest.py here would shadow tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_dynamo():
    """dynamo keeps its compiled code on the code objects, across tests: a torch test's functions
    start uncompiled (``torch._dynamo.reset()`` before and after)."""
    import torch._dynamo

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
