"""Shared fixtures: the build's CLI and FMUs, and a private temporary directory."""
import os
import shutil
import tempfile

import pytest


@pytest.fixture
def tmpdir_private():
    path = tempfile.mkdtemp(prefix="rtcosim-pytest-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def cli():
    return os.environ["RTCOSIM_CLI"]


def fmu(name):
    return os.path.join(os.environ["RTCOSIM_FMU_DIR"], name)


def source(*parts):
    return os.path.join(os.environ["RTCOSIM_SOURCE_DIR"], *parts)
