"""rtcosim.System against the CLI (`rtcosim run`, bit for bit), against the
oscillator's exact solution, and its real-time statistics against the frame
count a virtual-clock run must have."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rtcosim
from conftest import source

sys.path.insert(0, source("python", "examples"))
import oscillator  # noqa: E402  (the example's exact solution)
from test_simulate import assert_equals_cli_csv

SSD = source("examples", "oscillator", "oscillator.ssd")


@pytest.mark.parametrize("args, kwargs", [
    ([], {}),
    (["--order", "gauss-seidel", "--coupling", "foh", "--correction", "energy", "--step-size",
      "0.002", "--output-interval", "0.01"],
     dict(order="gauss-seidel", coupling="foh", correction="energy", step_size=0.002,
          output_interval=0.01)),
])
def test_run_equals_cli_csv_bit_for_bit(cli, tmpdir_private, args, kwargs):
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "run", SSD, "--stop-time", "1", "--output-file", out] + args,
                   check=True, stdout=subprocess.DEVNULL)
    assert_equals_cli_csv(rtcosim.System(SSD).run(stop_time=1, **kwargs), out)


def test_correction_brings_the_oscillator_to_the_exact_solution():
    """Against exp(A t) z0 (python/examples/oscillator.py): ZOH Jacobi
    coupling at H = 1 ms drifts (energy error), the energy correction stays
    close; a 10x smaller step without correction lies in between."""
    system = rtcosim.System(SSD)
    params = oscillator.read_parameters(source("examples", "oscillator", "case1.ssv"))
    errors = {}
    for correction, step in (("none", 1e-3), ("energy", 1e-3), ("none", 1e-4)):
        r = system.run(stop_time=2, step_size=step, output_interval=0.01, coupling="zoh",
                       order="jacobi", correction=correction)
        assert len(r) == 201 and r["time"][-1] == 2
        exact = oscillator.exact_solution(params, r["time"])
        errors[correction, step] = np.max(np.abs(r["mass1.x"] - exact[:, 0]))
    assert errors["energy", 1e-3] < 0.01 < 0.1 < errors["none", 1e-3]
    assert errors["energy", 1e-3] < errors["none", 1e-4] < errors["none", 1e-3]
    assert system.statistics["steps"] == 20000


def test_output_selection_and_start_values():
    system = rtcosim.System(SSD)
    r = system.run(stop_time=0.1, output=["mass1.x"], start_values={"mass1.x0": 0.25})
    assert r.dtype.names == ("time", "mass1.x")
    assert r["mass1.x"][0] == 0.25


def test_an_fmu_alone_runs_as_a_system_of_one():
    """A .fmu where a system is expected: one component named after its
    modelIdentifier, fmusim's defaults; Dahlquist's explicit Euler at its
    micro step of 1e-4 s gives x = (1 - k 1e-4)^(t / 1e-4) exactly."""
    from conftest import fmu
    r = rtcosim.System(fmu("Dahlquist-fmi3.fmu")).run(stop_time=1, output_interval=0.25,
                                                     start_values={"k": 2})
    assert r.dtype.names == ("time", "Dahlquist.x")
    assert list(r["time"]) == [0, 0.25, 0.5, 0.75, 1]
    euler = (1 - 2e-4) ** (r["time"] / 1e-4)
    assert np.allclose(r["Dahlquist.x"], euler, rtol=1e-12, atol=0)


def test_an_input_file_drives_an_fmu_alone(cli, tmpdir_private):
    """System(fmu).run(input_file=...) equals `rtcosim run FMU --input-file`
    bit for bit (the Picky accumulator across a jump in its input)."""
    from conftest import fmu
    table = os.path.join(tmpdir_private, "in.csv")
    with open(table, "w") as f:
        f.write("time,u\n0,0\n1,10\n1,20\n2,-4\n")
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "run", fmu("Picky-fmi3.fmu"), "--input-file", table, "--stop-time", "2",
                    "--step-size", "0.125", "--output-file", out], check=True,
                   stdout=subprocess.DEVNULL)
    r = rtcosim.System(fmu("Picky-fmi3.fmu")).run(stop_time=2, step_size=0.125,
                                                  input_file=table)
    assert "input.u" in r.dtype.names
    assert_equals_cli_csv(r, out)
    with pytest.raises(rtcosim.Error, match="column 'nope': model 'Picky' has no such variable"):
        with open(table, "w") as f:
            f.write("time,nope\n0,1\n")
        rtcosim.System(fmu("Picky-fmi3.fmu")).run(input_file=table)


def test_a_mat_input_file_drives_an_fmu_alone(tmpdir_private):
    """run(input_file="x.mat"): a Dymola-layout result file (binTrans, written
    by scipy) gives what the same table as CSV gives, for Float, Int32 and
    Boolean inputs."""
    import scipy.io
    from conftest import fmu
    names = ["time", "Float64_continuous_input", "Int32_input", "Boolean_input"]
    points = [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0], [0.0, 3.0, -4.0], [0.0, 1.0, 0.0]]
    width = max(len(n) for n in names)
    padded = [n.ljust(width) for n in names]
    mat = os.path.join(tmpdir_private, "in.mat")
    scipy.io.savemat(mat, {
        "Aclass": np.array(["Atrajectory", "1.1".ljust(11), " " * 11, "binTrans".ljust(11)]),
        "name": np.array(["".join(n[k] for n in padded) for k in range(width)]),
        "dataInfo": np.array([[0, 1, 0, -1], [2, 2, 0, -1], [2, 3, 0, -1], [2, 4, 0, -1]],
                             dtype=np.int32).T,
        "data_1": np.array([[0.0, 1.0]]),
        "data_2": np.array(points)}, format="4")
    table = os.path.join(tmpdir_private, "in.csv")
    with open(table, "w") as f:
        f.write(",".join(names) + "\n" + "".join(
            ",".join(repr(points[c][r]) for c in range(4)) + "\n" for r in range(3)))
    system = rtcosim.System(fmu("Feedthrough-fmi3.fmu"))
    runs = [system.run(stop_time=1, step_size=0.125, input_file=path,
                       output=["Feedthrough.Float64_continuous_output",
                               "Feedthrough.Int32_output", "Feedthrough.Boolean_output"])
            for path in (mat, table)]
    assert runs[0].tolist() == runs[1].tolist()
    # by hand: the row at 1 s shows the inputs at 0.875 s (Jacobi): 1.75 linear, 3 and 1 held
    assert tuple(runs[0][-1])[1:] == (1.75, 3.0, 1.0)


def test_real_time_statistics_on_virtual_clocks():
    r, stats = rtcosim.System(SSD).run_real_time(stop_time=0.2, step_size=1e-3,
                                                 virtual_clock=True, calibrate=False)
    assert stats["frames"] == 200 and stats["overruns"] == 0 and stats["failed"] is False
    assert stats["end_time_s"] == pytest.approx(0.2)
    assert len(r) == 201 and r["time"][-1] == pytest.approx(0.2)


@pytest.mark.parametrize("call, words", [
    (lambda d: rtcosim.System(os.path.join(d, "none.ssd")), ["none.ssd"]),
    (lambda d: rtcosim.System(SSD).run(order="random"), ["order", "random"]),
    (lambda d: rtcosim.System(SSD).run(stop_time=1, output=["mass1.nothing"]), ["mass1.nothing"]),
    (lambda d: rtcosim.System(SSD).run(stop_time=1, output_interval=0.0015),
     ["output_interval", "multiple"]),
    (lambda d: rtcosim.System(SSD).run_real_time(stop_time=0.1, virtual_clock=True,
                                                 overrun="sometimes"), ["overrun", "sometimes"]),
])
def test_system_errors(tmpdir_private, call, words):
    with pytest.raises(rtcosim.Error) as e:
        call(tmpdir_private)
    for w in words:
        assert w in str(e.value)


def _fmu_system(path, components, connections="", master='stepSize="0.5"'):
    """A system file of FMU components {name: file of the build's FMUs},
    connections as (from, connector, to, connector) and rc:Master's
    attributes."""
    from conftest import fmu
    elements = "".join(f'  <ssd:Component name="{n}" source="{fmu(f)}"/>\n'
                       for n, f in components.items())
    links = "".join(f'  <ssd:Connection startElement="{a}" startConnector="{ac}" '
                    f'endElement="{b}" endConnector="{bc}"/>\n' for a, ac, b, bc in connections)
    with open(path, "w") as f:
        f.write(f"""<?xml version="1.0"?>
<ssd:SystemStructureDescription version="1.0" name="t"
 xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
 xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
 xmlns:rc="https://rtcosim.org/SSP1/Master">
 <ssd:System name="s"><ssd:Elements>
{elements} </ssd:Elements>
 <ssd:Connections>
{links} </ssd:Connections>
 <ssd:Annotations><ssc:Annotation type="org.rtcosim.master"><rc:Master {master}/></ssc:Annotation></ssd:Annotations>
 </ssd:System>
</ssd:SystemStructureDescription>
""")
    return path


def test_string_and_binary_connections(tmpdir_private):
    """String and Binary connections through the package: Strings (FMI 1.0)
    Steps_output, "ab" per step, into Feedthrough's (FMI 3.0) String_input;
    Notes' trail (one byte per step, k mod 256) into Feedthrough's
    Binary_input. Gauss-Seidel: each step's output arrives in the same step,
    so row k holds "ab" k times and the bytes 1..k."""
    ssd = _fmu_system(os.path.join(tmpdir_private, "links.ssd"),
                      {"s": "Strings-fmi1.fmu", "n": "Notes-fmi3.fmu", "f": "Feedthrough-fmi3.fmu"},
                      [("s", "Steps_output", "f", "String_input"),
                       ("n", "trail", "f", "Binary_input")],
                      'stepSize="0.5" order="gauss-seidel"')
    result = rtcosim.System(ssd).run(stop_time=2, output=["f.String_output", "f.Binary_output"])
    assert list(result["f.String_output"]) == ["", "ab", "abab", "ababab", "abababab"]
    assert list(result["f.Binary_output"]) == [b"", b"\x01", b"\x01\x02", b"\x01\x02\x03",
                                               b"\x01\x02\x03\x04"]


def test_real_time_results_hold_string_and_binary_outputs(tmpdir_private):
    """The same connections paced (at 20 times real time): the results, which the
    run writes to a CSV that the package reads back with the library's reader,
    give the Strings as str and the Binary values as bytes, as run() does (the
    rows were read as floats in Python before, which a String cell broke)."""
    ssd = _fmu_system(os.path.join(tmpdir_private, "links.ssd"),
                      {"s": "Strings-fmi1.fmu", "n": "Notes-fmi3.fmu", "f": "Feedthrough-fmi3.fmu"},
                      [("s", "Steps_output", "f", "String_input"),
                       ("n", "trail", "f", "Binary_input")],
                      'stepSize="0.5" order="gauss-seidel"')
    result, stats = rtcosim.System(ssd).run_real_time(stop_time=2, rt_factor=20,
                                                      output=["f.String_output",
                                                              "f.Binary_output"])
    assert stats["frames"] == 4 and stats["rows_written"] == 5
    assert list(result["time"]) == [0, 0.5, 1, 1.5, 2]
    assert list(result["f.String_output"]) == ["", "ab", "abab", "ababab", "abababab"]
    assert list(result["f.Binary_output"]) == [b"", b"\x01", b"\x01\x02", b"\x01\x02\x03",
                                               b"\x01\x02\x03\x04"]


def test_run_records_string_and_binary_outputs(cli, tmpdir_private):
    """`rtcosim run` results hold String (quoted) and Binary (hex, as fmusim
    writes it) outputs after the numeric ones, read from the components:
    Feedthrough (FMI 3.0) copies its inputs, given as start values (Binary
    in hex, either case); Strings (FMI 1.0) copies its String input, gains
    "ab" per step in Steps_output and keeps Empty_output empty."""
    ssd = _fmu_system(os.path.join(tmpdir_private, "text.ssd"),
                      {"f": "Feedthrough-fmi3.fmu", "s": "Strings-fmi1.fmu"})
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "run", ssd, "--stop-time", "1", "--start-value", "f.Binary_input", "00FF7f",
                    "--start-value", "s.String_input", 'x"y', "--output-variable", "f.Int32_output",
                    "--output-variable", "f.Binary_output", "--output-variable", "s.String_output",
                    "--output-variable", "s.Empty_output", "--output-variable", "s.Steps_output",
                    "--output-file", out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        text = f.read()
    assert text == ('"time","f.Int32_output","f.Binary_output","s.String_output","s.Empty_output",'
                    '"s.Steps_output"\n'
                    '0,0,00ff7f,"x""y","",""\n'
                    '0.5,0,00ff7f,"x""y","","ab"\n'
                    '1,0,00ff7f,"x""y","","abab"\n')
    # The package: the same columns, Binary as bytes.
    result = rtcosim.System(ssd).run(stop_time=1, start_values={"f.Binary_input": b"\x00\xff\x7f",
                                                                "s.String_input": 'x"y'},
                                     output=["f.Binary_output", "s.Steps_output"])
    assert list(result["f.Binary_output"]) == [b"\x00\xff\x7f"] * 3
    assert list(result["s.Steps_output"]) == ["", "ab", "abab"]


def test_a_measurement_drives_inputs_by_input_columns(tmpdir_private):
    """input_columns={input: channel}: an MDF 4 measurement built byte by byte
    (tests/results/mdf_build.py: its int16 channel sampled at 1/16 s (-3),
    5/16 s (invalid) and 7/16 s (100)) drives the Feedthrough FMU's
    continuous input along the line between its valid samples, in simulate()
    and System.run() alike, as the CLI's --input-column; a channel the file
    lacks is named with the nearest one."""
    from conftest import fmu
    sys.path.insert(0, source("tests", "results"))
    from mdf_build import measurement
    path = os.path.join(tmpdir_private, "rig.mf4")
    with open(path, "wb") as f:
        f.write(measurement().data)
    line = [-3.0] + [-3 + (k - 1) / 6 * 103 for k in range(1, 8)]  # at 0, 1/16, ... 7/16 s
    columns = {"Float64_continuous_input": "Float64_discrete_input"}
    r = rtcosim.simulate(fmu("Feedthrough-fmi3.fmu"), input=path, input_columns=columns,
                         stop_time=0.4375, step_size=0.0625, output=["Float64_continuous_output"])
    # (an output a step behind its input, as the CLI's rows)
    assert np.allclose(r["Float64_continuous_output"], line[:1] + line[:-1], rtol=0, atol=1e-12)
    s = rtcosim.System(fmu("Feedthrough-fmi3.fmu")).run(
        stop_time=0.4375, step_size=0.0625, input_file=path, input_columns=columns)
    assert [n for n in s.dtype.names if n.startswith("input.")] == \
        ["input.Float64_continuous_input"]
    assert np.allclose(s["input.Float64_continuous_input"], line, rtol=0, atol=1e-12)
    with pytest.raises(rtcosim.Error, match="no column 'Float64_discrete_inpt'; did you mean "
                                            "'Float64_discrete_input'"):
        rtcosim.simulate(fmu("Feedthrough-fmi3.fmu"), input=path,
                         input_columns={"Float64_continuous_input": "Float64_discrete_inpt"})
    with pytest.raises(rtcosim.Error, match="input_columns maps the columns of input_file"):
        rtcosim.System(fmu("Feedthrough-fmi3.fmu")).run(input_columns=columns)


def test_run_input_file_gives_64_bit_inputs_exactly(cli, tmpdir_private):
    """`rtcosim run SYSTEM --input-file`: Int64 and UInt64 columns are read
    exactly, as `simulate` reads them (a double rounds 2^53 + 1 to 2^53 and
    has no 2^63 - 1): the Feedthrough FMU's outputs in the results CSV are the
    table's own digits, each row held until the next (Jacobi: the output a
    macro step behind its input), "1e3" taken as 1000; System.run gives the
    same as int64 and uint64. A value outside the type, or no number, is one
    line naming the file, line and column, and the run exits 1."""
    ssd = _fmu_system(os.path.join(tmpdir_private, "wide.ssd"), {"f": "Feedthrough-fmi3.fmu"},
                      master='stepSize="0.5"')
    table = os.path.join(tmpdir_private, "in.csv")
    rows = [("0", "9007199254740993", "18446744073709551615"),
            ("1", "-9223372036854775808", "9007199254740993"),
            ("2", "9223372036854775807", "1e3")]
    with open(table, "w") as f:
        f.write("time,f.Int64_input,f.UInt64_input\n" + "".join(",".join(r) + "\n" for r in rows))
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "run", ssd, "--input-file", table, "--stop-time", "3",
                    "--output-variable", "f.Int64_output", "--output-variable", "f.UInt64_output",
                    "--output-file", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    # at t the input of t - 0.5 (0 at the start), the last row at or before it
    times = [k / 2 for k in range(7)]
    held = [rows[min(int(max(t - 0.5, 0)), 2)] for t in times]
    expected = [(t, int(r[1]), int(float(r[2])) if "e" in r[2] else int(r[2]))
                for t, r in zip(times, held)]
    with open(out) as f:
        lines = f.read().splitlines()
    assert lines[0] == '"time","f.Int64_output","f.UInt64_output"'
    got = [tuple(line.split(",")) for line in lines[1:]]
    assert [(float(t), int(i), int(u)) for t, i, u in got] == expected
    assert got[1][1:] == ("9007199254740993", "18446744073709551615")  # the digits themselves
    assert got[-1][1:] == ("9223372036854775807", "1000")
    # Paced (on a virtual clock: the same paced loop and recorder): the same
    # file, and the final values printed whole.
    paced = subprocess.run([cli, "run", ssd, "--input-file", table, "--stop-time", "3",
                            "--real-time", "--virtual-clock",
                            "--output-variable", "f.Int64_output",
                            "--output-variable", "f.UInt64_output", "--output-file", out],
                           check=True, capture_output=True, text=True)
    with open(out) as f:
        assert f.read().splitlines() == lines
    assert "f.Int64_output                   9223372036854775807\n" in paced.stdout, paced.stdout
    assert "f.UInt64_output                  1000\n" in paced.stdout, paced.stdout
    r = rtcosim.System(ssd).run(stop_time=3, input_file=table,
                                output=["f.Int64_output", "f.UInt64_output"])
    assert r.dtype["f.Int64_output"] == np.int64 and r.dtype["f.UInt64_output"] == np.uint64
    assert [(float(t), int(i), int(u)) for t, i, u in r.tolist()] == expected

    for column, cell in (("f.Int64_input", "9223372036854775808"), ("f.UInt64_input", "-1"),
                         ("f.Int64_input", "abc"), ("f.UInt64_input", "18446744073709551616")):
        with open(table, "w") as f:
            f.write(f"time,{column}\n0,0\n1,{cell}\n")
        p = subprocess.run([cli, "run", ssd, "--input-file", table, "--stop-time", "1",
                            "--output-file", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        assert p.returncode == 1, p.stderr
        errors = [line for line in p.stderr.splitlines() if line.startswith("rtcosim:")]
        assert len(errors) == 1, p.stderr
        assert table + ":3:" in errors[0] and column in errors[0] and cell in errors[0], errors
        with pytest.raises(rtcosim.Error, match=":3: column .*" + column.replace(".", r"\.")):
            rtcosim.System(ssd).run(stop_time=1, input_file=table)


def test_refused_real_time_run_removes_only_its_own_results_file(cli, tmpdir_private):
    """A real-time run that calibration refuses leaves no empty results file,
    but only a regular file is removed: a FIFO (standing in for a device)
    stays, and as root /dev/null itself, which `remove` used to delete (a
    rig running as root with `-o /dev/null` then lost it for every program)."""
    import stat
    args = [cli, "run", source("tests", "rtrun", "springs.ssd"), "--real-time",
            "--rt-factor", "1e6"]  # a 1 ns frame: no machine keeps it

    def refused(out):
        p = subprocess.run(args + ["-o", out], capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and "calibration over 100 frames" in p.stderr, p.stderr

    regular = os.path.join(tmpdir_private, "r.csv")
    refused(regular)
    assert not os.path.exists(regular)
    fifo = os.path.join(tmpdir_private, "pipe.csv")
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    try:
        refused(fifo)
    finally:
        try:
            written, _ = reader.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # (rtcosim never opened it: no reader left behind)
            reader.kill()
            reader.communicate()
            raise
    assert written.startswith(b'"time"')  # the header went through it
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if os.geteuid() != 0:
        return
    try:
        refused("/dev/null")
    finally:
        kept = os.path.exists("/dev/null") and stat.S_ISCHR(os.lstat("/dev/null").st_mode)
        if not kept:  # (the bug: put the device back for the rest of the machine)
            if os.path.lexists("/dev/null"):
                os.remove("/dev/null")
            os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod("/dev/null", 0o666)
    assert kept, "/dev/null was removed"
