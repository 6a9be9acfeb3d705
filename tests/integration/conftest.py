"""Shared pytest fixtures: paths to the built tools and the real AOTI packages.

`package(name)` builds tests/models/ packages on first use (cached across runs
in build/test-models (or $AOTIDBG_MODELS_DIR), keyed by the model file's hash and the torch version).
"""
import os
import sys

import pytest

from aotidbg_testlib import become_subreaper, descendants, leftovers, run  # noqa: F401  (tests import run from here)


@pytest.fixture(scope="module")
def eager_map_names():
    """The module's --eager runs use the names map (--eager-map names: node names above each launch,
    outputs matched by shape), the rule these tests were written for; the compiler's record, the
    default, is tested by test_eager_zoo.py and test_eager_record.py. Use it with pytest.mark.usefixtures
    in pytestmark: it is set before the module's other fixtures and restored after its last test."""
    old = os.environ.get("AOTIDBG_EAGER_MAP")
    os.environ["AOTIDBG_EAGER_MAP"] = "names"
    yield
    if old is None:
        del os.environ["AOTIDBG_EAGER_MAP"]
    else:
        os.environ["AOTIDBG_EAGER_MAP"] = old


@pytest.fixture
def nothing_outlives_the_test(request):
    """No runner, agent, ssh or fake remote end started by a test is still
    there once it ended (orphans included: this process is their subreaper
    while the test runs). Use it with pytest.mark.usefixtures."""
    become_subreaper()
    before = descendants()
    yield
    left = leftovers(before)
    become_subreaper(False)
    assert not left, f"outlived {request.node.name}: {left}"

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("AOTIDBG_BUILD_DIR", os.path.join(ROOT, "build"))
# Packages are shared by the plain and the sanitizer passes: compile once.
MODELS_DIR = os.environ.get("AOTIDBG_MODELS_DIR", os.path.join(ROOT, "build", "test-models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))


def tool(name):
    path = os.path.join(BUILD, name)
    if not os.path.exists(path):
        pytest.fail(f"{path} is not built: run cmake --build {BUILD}")
    return path


@pytest.fixture(scope="session")
def aotidbg():
    return tool("aotidbg")


@pytest.fixture(scope="session")
def runner():
    return tool("aotidbg-runner")


@pytest.fixture(scope="session")
def package():
    import make_models
    models = make_models.registry()
    built = {}

    def get(name):
        if name not in built:
            builder, src_hash = models[name]
            os.makedirs(MODELS_DIR, exist_ok=True)
            built[name] = make_models.build(MODELS_DIR, name, builder, src_hash)
        return built[name]
    return get
