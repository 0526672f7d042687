"""Shared pytest fixtures: ``isa`` (every SIMD level this machine has) and ``threads``.

The tests import the installed ``aclnn_emu`` package (``pip install .``), not
python/aclnn_emu from the source tree, which lacks the compiled module.
"""

import pytest

THREAD_COUNTS = (1, 2)


def _available_isas():
    try:
        import aclnn_emu
    except ImportError:  # reported by the tests that import it
        return ["scalar"]
    return aclnn_emu.available_isas()


def pytest_generate_tests(metafunc):
    if "isa" in metafunc.fixturenames:
        metafunc.parametrize("isa", _available_isas(), indirect=True)
    if "threads" in metafunc.fixturenames:
        metafunc.parametrize("threads", THREAD_COUNTS, indirect=True)


@pytest.fixture
def isa(request):
    """Cap the SIMD level to each level from scalar up to the detected one; restores the previous level."""
    import aclnn_emu

    previous = aclnn_emu.get_isa()
    aclnn_emu.set_isa_cap(request.param)
    try:
        yield request.param
    finally:
        aclnn_emu.set_isa_cap(previous)


@pytest.fixture
def threads(request):
    """Run with 1 and with 2 kernel threads; restores the previous count."""
    import aclnn_emu

    previous = aclnn_emu.get_num_threads()
    aclnn_emu.set_num_threads(request.param)
    try:
        yield request.param
    finally:
        aclnn_emu.set_num_threads(previous)


@pytest.fixture
def views():
    """Make DevView tensors (guarded device blocks) that are destroyed after the test."""
    from helpers import DevView, take_msg

    made = []

    def make(values, layout="contig", **kw):
        v = DevView(values, layout, **kw)
        made.append(v)
        return v

    yield make
    for v in made:
        v.close()
    take_msg()
