"""Shared fixtures: the build's CLI and FMUs, and a private temporary directory."""
import os
import shutil
import signal
import tempfile

import pytest

# The CLI keeps a signal ignored that it started with ignored (nohup's SIGHUP,
# SIGINT of a job a script started with &), and children inherit an ignored
# one: the tests that signal the CLI give it the defaults whatever started
# pytest (Python's own SIGINT handler is reset on exec).
signal.signal(signal.SIGINT, signal.default_int_handler)
for _signo in (signal.SIGHUP, signal.SIGTERM):
    if signal.getsignal(_signo) == signal.SIG_IGN:
        signal.signal(_signo, signal.SIG_DFL)


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


def instrumented(path):
    """A sanitizer build's binary: its shadow memory makes resident sizes no
    measure, and its library loads only into a process with the runtime
    preloaded (a child Python has none)."""
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


def source(*parts):
    return os.path.join(os.environ["RTCOSIM_SOURCE_DIR"], *parts)


# The connectors of an LS-BUS CAN node's network terminal CAN.
CAN_NODE_CONNECTORS = ('<ssd:Connectors><ssd:Connector name="CAN.Tx_Data" kind="output"/>'
                       '<ssd:Connector name="CAN.Tx_Clock" kind="output"/>'
                       '<ssd:Connector name="CAN.Rx_Data" kind="input"/>'
                       '<ssd:Connector name="CAN.Rx_Clock" kind="input"/></ssd:Connectors>')


def write_ssd(path, components, connectors=""):
    """An SSP 1.0 system of components (name: source), without connections;
    each component's inner text `connectors`."""
    name = os.path.splitext(os.path.basename(path))[0]
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<ssd:SystemStructureDescription version="1.0" '
                f'name="{name}" xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">\n'
                f'<ssd:System name="{name}"><ssd:Elements>\n')
        for comp, src in components.items():
            f.write(f'<ssd:Component name="{comp}" source="{src}">{connectors}</ssd:Component>\n')
        f.write('</ssd:Elements></ssd:System></ssd:SystemStructureDescription>\n')
    return path
