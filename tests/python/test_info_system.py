"""`rtcosim info` of a system whose FMUs hold binaries for other platforms
only (a system made on Windows, inspected here): the execution order comes
from the FMUs' descriptions (ModelStructure), nothing is loaded or
instantiated, and a warning names the component that cannot run here
(--strict: an error). Before, the order said "not available" with the
binary's error."""
import os
import subprocess
import zipfile

from conftest import fmu


def windows_only(src, dst):
    """The FMU with its binaries/x86_64-linux folder renamed x86_64-windows
    (its library a .dll: bytes no loader here would take)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            name = item.filename.replace("x86_64-linux", "x86_64-windows")
            name = name[:-3] + ".dll" if name.endswith(".so") else name
            zout.writestr(name, zin.read(item))


def write_chain(path, fmu_path):
    """c, b, a listed in that order; a feeds b feeds c (Feedthrough's
    Float64_continuous_output depends on its input: strong edges)."""
    comps = "".join(
        f'<ssd:Component name="{n}" source="{fmu_path}"><ssd:Connectors>'
        '<ssd:Connector name="Float64_continuous_input" kind="input"/>'
        '<ssd:Connector name="Float64_continuous_output" kind="output"/>'
        '</ssd:Connectors></ssd:Component>' for n in ("c", "b", "a"))
    conns = "".join(
        f'<ssd:Connection startElement="{s}" startConnector="Float64_continuous_output" '
        f'endElement="{e}" endConnector="Float64_continuous_input"/>'
        for s, e in (("a", "b"), ("b", "c")))
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<ssd:SystemStructureDescription version="1.0" '
                'name="chain" xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">'
                f'<ssd:System name="chain"><ssd:Elements>{comps}</ssd:Elements>'
                f'<ssd:Connections>{conns}</ssd:Connections></ssd:System>'
                '</ssd:SystemStructureDescription>\n')


def order_of(cli, ssd):
    r = subprocess.run([cli, "info", ssd], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("execution order"))
    return lines[at], [line.split(". ", 1)[1] for line in lines[at + 1:at + 4]], r


def test_the_order_of_a_system_of_other_platforms_fmus(cli, tmpdir_private):
    native = os.path.join(tmpdir_private, "native.ssd")
    write_chain(native, fmu("Feedthrough-fmi3.fmu"))
    win = os.path.join(tmpdir_private, "Feedthrough-win.fmu")
    windows_only(fmu("Feedthrough-fmi3.fmu"), win)
    other = os.path.join(tmpdir_private, "win.ssd")
    write_chain(other, win)
    head, order, _ = order_of(cli, native)
    assert order == ["a", "b", "c"], head
    head, order, r = order_of(cli, native)
    assert "cannot run here" not in r.stderr
    head_win, order_win, r = order_of(cli, other)
    assert head_win == head and order_win == order
    # why it cannot run here: a warning per component, naming what it holds
    lines = [line for line in r.stderr.splitlines() if "cannot run here: " in line]
    assert len(lines) == 3, r.stderr
    for name, line in zip("cba", lines):  # (in the file's order)
        assert f"component '{name}'" in line and "it holds x86_64-windows" in line
    strict = subprocess.run([cli, "info", other, "--strict"], capture_output=True, text=True)
    assert strict.returncode == 1
    assert strict.stderr.count("\n") == 1 and "it holds x86_64-windows" in strict.stderr
    # the run itself still refuses the FMU, saying what it holds
    run = subprocess.run([cli, "run", other, "--stop-time", "0.1", "-o",
                          os.path.join(tmpdir_private, "out.csv")], capture_output=True, text=True)
    assert run.returncode != 0
    assert "it holds x86_64-windows" in run.stderr
    assert not os.path.exists(os.path.join(tmpdir_private, "out.csv"))


def test_the_order_of_a_system_without_a_macro_step(cli, tmpdir_private):
    """A system whose file, annotation and components give no macro step (a
    run takes it from the command line) is ordered all the same: the order
    does not depend on the step. Before, "not available"."""
    import re
    import shutil
    from conftest import source
    for f in ("oscillator.ssd", "case1.ssv"):
        shutil.copy(source("examples", "oscillator", f), tmpdir_private)
    ssd = os.path.join(tmpdir_private, "oscillator.ssd")
    with open(ssd) as f:
        text = f.read()
    stripped = re.sub(r"<ssc:Annotations>.*?</ssc:Annotations>", "", text, flags=re.S)
    assert stripped != text and "stepSize" not in stripped
    with open(ssd, "w") as f:
        f.write(stripped)
    head, order, r = order_of(cli, ssd)
    # mass2's force follows its inputs x1 and v1 (direct feedthrough), which
    # mass1's outputs drive: mass1 first
    assert order[:2] == ["mass1", "mass2"], r.stdout
    assert "cannot run here" not in r.stderr
