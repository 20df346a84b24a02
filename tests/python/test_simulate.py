"""rtcosim.simulate and rtcosim.info against independent truth: the CLI's
CSV (bit for bit), the analytic solution of the Dahlquist test equation and
the FMU's own modelDescription.xml."""
import csv
import math
import os
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest

import rtcosim
from conftest import fmu, source


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def assert_equals_cli_csv(result, path):
    """Every cell of the CLI's CSV reads back to the identical bits."""
    header, rows = read_csv(path)
    assert list(result.dtype.names) == header
    assert len(result) == len(rows)
    for k, name in enumerate(header):
        column = result[name]
        for i, row in enumerate(rows):
            text = row[k]
            if column.dtype == np.bool_:
                assert int(column[i]) == int(text), (name, i)
            elif column.dtype.kind in "iu":
                assert int(column[i]) == int(text), (name, i)
            elif column.dtype == object:
                assert '"' + column[i].replace('"', '""') + '"' == text, (name, i)
            else:
                expected = np.array(float(text), dtype=column.dtype)
                assert column[i:i + 1].view(np.uint8).tobytes() == expected.tobytes(), \
                    (name, i, text, column[i])


@pytest.mark.parametrize("name, args, kwargs", [
    ("BouncingBall-fmi3.fmu", ["--stop-time", "3", "--output-interval", "0.01"],
     dict(stop_time=3, output_interval=0.01)),
    ("Dahlquist-fmi2.fmu", ["--stop-time", "2", "--output-interval", "0.1",
                            "--start-value", "k", "2.5"],
     dict(stop_time=2, output_interval=0.1, start_values={"k": 2.5})),
    ("BouncingBall-fmi2.fmu", ["--interface-type", "me", "--stop-time", "2"],
     dict(stop_time=2, fmi_type="ModelExchange")),
    ("Dahlquist-fmi3.fmu", ["--stop-time", "1", "--record-every", "7"],
     dict(stop_time=1, record_every=7)),
])
def test_results_equal_cli_csv_bit_for_bit(cli, tmpdir_private, name, args, kwargs):
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "simulate", fmu(name), "--output-file", out] + args, check=True)
    assert_equals_cli_csv(rtcosim.simulate(fmu(name), **kwargs), out)


def test_inputs_and_types_equal_cli_csv(cli, tmpdir_private):
    """An input array (continuous interpolated, discrete held, Int32, Boolean)
    gives what the CLI gives for the same table as a file."""
    table = np.array([(0.0, 1.0, 10.0, 3, True), (0.5, 2.0, 20.0, -4, False),
                      (1.0, 0.0, 30.0, 7, True)],
                     dtype=[("time", float), ("Float64_continuous_input", float),
                            ("Float64_discrete_input", float), ("Int32_input", np.int32),
                            ("Boolean_input", bool)])
    path = os.path.join(tmpdir_private, "in.csv")
    with open(path, "w") as f:
        f.write(",".join(table.dtype.names) + "\n")
        for row in table:
            f.write(",".join(str(int(v)) if isinstance(v, np.bool_) else repr(v.item())
                             for v in row) + "\n")
    out = os.path.join(tmpdir_private, "out.csv")
    outputs = ["Float64_continuous_output", "Float64_discrete_output", "Int32_output",
               "Boolean_output"]
    subprocess.run([cli, "simulate", fmu("Feedthrough-fmi2.fmu"), "--stop-time", "1",
                    "--output-interval", "0.125", "--input-file", path, "--output-file", out]
                   + sum([["--output-variable", o] for o in outputs], []), check=True)
    result = rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), stop_time=1, output_interval=0.125,
                              input=table, output=outputs)
    assert_equals_cli_csv(result, out)
    assert result["Int32_output"].dtype == np.int32
    assert result["Boolean_output"].dtype == np.bool_
    # Hand-computed: a row shows the inputs of its step's start (fmusim, FMPy):
    # at 0.25 those of 0.125, linear between (0, 1) and (0.5, 2) -> 1.25, discrete held.
    row = result[result["time"] == 0.25][0]
    assert row["Float64_continuous_output"] == 1.25
    assert row["Float64_discrete_output"] == 10.0
    assert row["Int32_output"] == 3 and row["Boolean_output"]


def test_binary_values_are_bytes_in_and_out():
    """Binary (FMI 3.0 Feedthrough): bytes inputs and start values in, bytes
    out, held from the last row at or before t (b"foo" at 0 and 0.25, b""
    at 0.5, the four bytes from 0.75; a row shows the input of its step's
    start, as fmusim and FMPy record), as FMPy gives Binary values; a
    start value in bytes reaches the FMU as the same bytes."""
    table = np.array([(0.0, b"foo"), (0.5, b""), (0.75, bytes([0, 255, 127, 128]))],
                     dtype=[("time", float), ("Binary_input", object)])
    result = rtcosim.simulate(fmu("Feedthrough-fmi3.fmu"), stop_time=1, output_interval=0.25,
                              input=table, output=["Binary_output"])
    assert list(result["Binary_output"]) == [b"foo", b"foo", b"foo", b"",
                                             bytes([0, 255, 127, 128])]
    result = rtcosim.simulate(fmu("Feedthrough-fmi3.fmu"), stop_time=0.25, output_interval=0.25,
                              start_values={"Binary_input": b"\x0a\x0b"}, output=["Binary_output"])
    assert list(result["Binary_output"]) == [b"\x0a\x0b", b"\x0a\x0b"]


def test_int64_inputs_are_exact():
    """Int64 and UInt64 inputs reach the FMU as given: 2**53 + 1 (a double
    rounds it to 2**53), 2**63 - 1 and 2**64 - 1 (FMI 3.0 Feedthrough copies
    them to its outputs; a row shows its step's start input)."""
    table = np.array([(0.0, 2**53 + 1, 2**64 - 1), (1.0, 2**63 - 1, 2**63)],
                     dtype=[("time", float), ("Int64_input", np.int64),
                            ("UInt64_input", np.uint64)])
    result = rtcosim.simulate(fmu("Feedthrough-fmi3.fmu"), stop_time=2, output_interval=1,
                              input=table, output=["Int64_output", "UInt64_output"])
    assert [int(x) for x in result["Int64_output"]] == [2**53 + 1, 2**53 + 1, 2**63 - 1]
    assert [int(x) for x in result["UInt64_output"]] == [2**64 - 1, 2**64 - 1, 2**63]


def test_fmusim_array_files_are_read_as_elements():
    """fmusim's layout of an FMI 3.0 array (one column, its elements in one
    cell): its input file drives StateSpace's u, and its results file of the
    same run reads back as y[1], y[2], y[3] equal to ours within fmusim's 16
    printed digits (files written by fmusim 0.0.39, tests/results/data)."""
    data = source("tests", "results", "data")
    ours = rtcosim.simulate(fmu("StateSpace-fmi3.fmu"), stop_time=1, output_interval=0.1,
                            input=os.path.join(data, "fmusim_statespace_u.csv"))
    theirs = rtcosim.read_result(os.path.join(data, "fmusim_statespace_y.csv"))
    assert list(theirs.dtype.names) == ["time", "y[1]", "y[2]", "y[3]"] == list(ours.dtype.names)
    for name in ("y[1]", "y[2]", "y[3]"):
        assert np.allclose(ours[name], theirs[name], rtol=5e-16, atol=0), name
    assert ours["y[3]"][0] == 2.0  # x1 + x2 + u1 + 2 u2 at t = 0: 1 + 1 + 0 + 0


def test_model_exchange_only_fmu_is_simulated_with_model_exchange():
    """As FMPy: without fmi_type an FMU offering model exchange only runs
    with it; Dahlquist (k = 1) under Euler, one micro step per 0.25 s, is
    0.75^n."""
    result = rtcosim.simulate(fmu("DahlquistMEOnly-fmi3.fmu"), stop_time=1, output_interval=0.25,
                              solver="Euler")
    assert list(result["x"]) == [0.75 ** n for n in range(5)]
    with pytest.raises(rtcosim.Error, match="does not support co-simulation"):
        rtcosim.simulate(fmu("DahlquistMEOnly-fmi3.fmu"), fmi_type="CoSimulation")
    me_only = rtcosim.info(fmu("DahlquistMEOnly-fmi3.fmu"))
    assert me_only["model_name"] == "Dahlquist"
    assert me_only["interfaces"] == ["model exchange"] and me_only["interface"] == "model exchange"


def test_dahlquist_follows_the_exact_solution():
    """x' = -k x, x(0) = 1: x(t) = exp(-k t) (the FMU integrates with Euler
    micro steps of 1e-4 s, so the error is O(1e-4))."""
    result = rtcosim.simulate(fmu("Dahlquist-fmi3.fmu"), stop_time=1, output_interval=0.05,
                              start_values={"k": 2})
    assert result["time"][0] == 0 and result["time"][-1] == 1 and len(result) == 21
    exact = np.exp(-2 * result["time"])
    assert np.max(np.abs(result["x"] - exact)) < 1e-3
    assert np.max(np.abs(result["x"] - exact)) > 0  # an integrator, not the formula


def test_default_experiment_applies():
    result = rtcosim.simulate(fmu("BouncingBall-fmi3.fmu"))
    md = ET.fromstring(zipfile.ZipFile(fmu("BouncingBall-fmi3.fmu")).read("modelDescription.xml"))
    de = md.find("DefaultExperiment")
    assert result["time"][-1] == float(de.get("stopTime"))
    assert result["time"][1] - result["time"][0] == pytest.approx(float(de.get("stepSize")))


def test_info_matches_model_description():
    for name in ("BouncingBall-fmi3.fmu", "Feedthrough-fmi2.fmu"):
        md = ET.fromstring(zipfile.ZipFile(fmu(name)).read("modelDescription.xml"))
        i = rtcosim.info(fmu(name))
        assert i["fmi_version"] == md.get("fmiVersion")
        assert i["model_name"] == md.get("modelName")
        declared = [kind for kind, element in (("co-simulation", "CoSimulation"),
                                               ("model exchange", "ModelExchange"),
                                               ("scheduled execution", "ScheduledExecution"))
                    if md.find(element) is not None]
        assert i["interfaces"] == declared and i["interface"] == "co-simulation"
        # Variables carry a name and a valueReference (ModelStructure entries no name).
        declared = [v.get("name") for v in md.iter()
                    if v.get("valueReference") is not None and v.get("name")]
        assert [v["name"] for v in i["variables"]] == declared
        causalities = {v.get("name"): v.get("causality", "local") for v in md.iter()
                       if v.get("valueReference") is not None and v.get("name")}
        for v in i["variables"]:
            assert v["causality"] == causalities[v["name"]]
        # The archive's own listing: its binaries' folders and the one loaded.
        names = zipfile.ZipFile(fmu(name)).namelist()
        folders = sorted({n.split("/")[1] for n in names
                          if n.startswith("binaries/") and n.count("/") >= 2 and n.split("/")[1]})
        assert i["platforms"] == folders + (["sources"] if any(n.startswith("sources/")
                                                               for n in names) else [])
        assert i["binary"] in names and i["binary"].startswith("binaries/")
        assert i["binary_error"] is None


def _fmu_for_other_platforms(directory):
    """Dahlquist's description with a Windows and a macOS binary and its
    sources, none for Linux (what a user gets from a Windows tool)."""
    path = os.path.join(directory, "Windows.fmu")
    xml = zipfile.ZipFile(fmu("Dahlquist-fmi2.fmu")).read("modelDescription.xml")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("modelDescription.xml", xml)
        z.writestr("binaries/win64/Dahlquist.dll", b"MZ")
        z.writestr("binaries/darwin64/Dahlquist.dylib", b"\xcf\xfa\xed\xfe")
        z.writestr("sources/Dahlquist.c", "int x;\n")
    return path, xml


def test_info_describes_an_fmu_for_other_platforms(cli, tmpdir_private):
    """An FMU without a binary for this platform is described from its XML
    (as FMPy's read_model_description does), with a warning saying why, in
    Python and in the CLI; --strict and simulate refuse it."""
    path, xml = _fmu_for_other_platforms(tmpdir_private)
    md = ET.fromstring(xml)
    with pytest.warns(UserWarning, match="no binary for this platform"):
        i = rtcosim.info(path)
    assert i["model_name"] == md.get("modelName") and i["guid"] == md.get("guid")
    assert [v["name"] for v in i["variables"]] == [
        v.get("name") for v in md.iter("ScalarVariable")]
    assert i["platforms"] == ["darwin64", "win64", "sources"]
    assert i["binary"] is None
    assert "expected binaries/linux64/Dahlquist.so; it holds darwin64, win64, sources" in \
        i["binary_error"]
    out = subprocess.run([cli, "info", path], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "\nplatforms            darwin64, win64, sources\n" in out.stdout
    assert "\nbinary               cannot be used here (see the warning)\n" in out.stdout
    assert "\nx " in out.stdout  # the variable table
    assert out.stderr.count("\n") == 1 and "no binary for this platform" in out.stderr
    strict = subprocess.run([cli, "info", "--strict", path], capture_output=True, text=True)
    assert strict.returncode == 1 and strict.stdout == ""
    assert strict.stderr.startswith("rtcosim: ") and strict.stderr.count("\n") == 1
    run = subprocess.run([cli, "simulate", path, "--output-file", os.path.join(tmpdir_private, "o.csv")],
                         capture_output=True, text=True)
    assert run.returncode == 1 and "no binary for this platform" in run.stderr
    with pytest.raises(rtcosim.Error, match="no binary for this platform"):
        rtcosim.simulate(path)


def _tree(path):
    """Every file under path with its bytes' SHA-256 and mode."""
    import hashlib
    out = {}
    for root, _, files in os.walk(path):
        for name in files:
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, path)] = (hashlib.sha256(f.read()).hexdigest(),
                                                    os.stat(full).st_mode)
    return out


def test_unpacked_fmu_directory_runs_in_place(cli, tmpdir_private):
    """An FMU unpacked into a folder (as FMU builds leave them, as FMPy
    takes them) simulates as its archive does, from the Python API and the
    CLI; the folder is used where it is and left as it was."""
    unpacked = os.path.join(tmpdir_private, "Dahlquist")
    zipfile.ZipFile(fmu("Dahlquist-fmi2.fmu")).extractall(unpacked)
    before = _tree(unpacked)
    archive = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=0.01, output_interval=0.001)
    folder = rtcosim.simulate(unpacked, stop_time=0.01, output_interval=0.001)
    assert np.array_equal(archive["x"], folder["x"]) and np.array_equal(archive["time"], folder["time"])
    out = os.path.join(tmpdir_private, "folder.csv")
    r = subprocess.run([cli, "simulate", unpacked, "--stop-time", "0.01", "--output-interval",
                        "0.001", "-o", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    header, rows = read_csv(out)
    assert header == ["time", "x"] and [float(row[1]) for row in rows] == archive["x"].tolist()
    assert _tree(unpacked) == before
    empty = os.path.join(tmpdir_private, "empty")
    os.mkdir(empty)
    r = subprocess.run([cli, "simulate", empty], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr == (
        f"rtcosim: {empty}: a directory without modelDescription.xml: not an unpacked FMU "
        "(give its .fmu archive or the folder holding modelDescription.xml)\n"), r.stderr


def test_unpacked_once_per_process_fmu_gets_one_instance(cli, tmpdir_private):
    """canBeInstantiatedOnlyOncePerProcess: two instances from the archive
    each get a library of their own; from an unpacked folder, whose library
    one process loads once, the second is refused by name."""
    from conftest import write_ssd
    unpacked = os.path.join(tmpdir_private, "Once")
    zipfile.ZipFile(fmu("DahlquistOnce-fmi2.fmu")).extractall(unpacked)
    archive, folder = (os.path.join(tmpdir_private, n + ".ssd") for n in ("archive", "folder"))
    write_ssd(archive, {"a": fmu("DahlquistOnce-fmi2.fmu"), "b": fmu("DahlquistOnce-fmi2.fmu")})
    write_ssd(folder, {"a": unpacked, "b": unpacked})
    out = os.path.join(tmpdir_private, "out.csv")
    r = subprocess.run([cli, "run", archive, "--stop-time", "0.001", "-q", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([cli, "run", folder, "--stop-time", "0.001", "-q", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.endswith("component 'b': " + unpacked + ": the FMU can be instantiated only "
                             "once per process (canBeInstantiatedOnlyOncePerProcess) and its "
                             "library is loaded already: give the .fmu archive, which rtcosim "
                             "unpacks once per instance\n"), r.stderr


def test_progress_reports_and_cancels():
    seen = []
    rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.001,
                     progress=lambda f, t: seen.append((f, t)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert 50 <= len(seen) <= 101  # about every 1 %, not every step
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.001,
                         progress=lambda f, t: f < 0.5)
    assert e.value.status == "ECANCELED" and "cancelled" in str(e.value)

    def boom(f, t):
        raise KeyError("from the callback")
    with pytest.raises(KeyError):
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, progress=boom)


@pytest.mark.parametrize("call, status, words", [
    (lambda d: rtcosim.simulate(os.path.join(d, "missing.fmu")), "ENOTFOUND", ["missing.fmu"]),
    (lambda d: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), output=["no_such_variable"]),
     None, ["Dahlquist-fmi2.fmu", "no_such_variable"]),
    (lambda d: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), start_values={"k": "fast"}),
     None, ["Dahlquist-fmi2.fmu", "k", "fast"]),
    (lambda d: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), start_time=2, stop_time=1),
     "EINVAL", ["before start time"]),
    (lambda d: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), output_interval=-1),
     "EINVAL", ["output_interval"]),
    (lambda d: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), fmi_type="Hybrid"),
     "EINVAL", ["fmi_type"]),
    (lambda d: rtcosim.simulate(fmu("Faulty-fmi2.fmu"), stop_time=1,
                                       start_values={"fail_mode": 1, "fail_time": 0.5}),
     "ECOMPONENT", ["Faulty-fmi2.fmu", "t = 0.5"]),
    (lambda d: rtcosim.info(os.path.join(d, "missing.fmu")), "ENOTFOUND", ["missing.fmu"]),
])
def test_errors_raise_with_the_library_message(tmpdir_private, call, status, words):
    with pytest.raises(rtcosim.Error) as e:
        call(tmpdir_private)
    if status:
        assert e.value.status == status
    for w in words:
        assert w in str(e.value)
    assert "\n" not in str(e.value)


def test_bad_input_table_names_the_line():
    table = np.array([(0.0, 1.0), (1.0, 2.0), (0.5, 3.0)],
                     dtype=[("time", float), ("Float64_continuous_input", float)])
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), input=table)
    assert "input:4" in str(e.value)


def test_step_finished_ends_the_run_normally_with_the_rows_so_far():
    seen = []

    def until_half(time, recorder):
        seen.append(time)
        return time < 0.5 - 1e-12
    full = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.1)
    part = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.1,
                            step_finished=until_half)
    # called after every step (t = 0.1 .. 0.5), the run ends at 0.5 s with
    # the same rows as the full run up to there
    assert np.allclose(seen, [0.1, 0.2, 0.3, 0.4, 0.5], rtol=0, atol=1e-12)
    assert len(part) == 6 and part["time"][-1] == pytest.approx(0.5)
    assert part.tobytes() == full[:6].tobytes()

    def boom(time, recorder):
        raise ValueError("from step_finished")
    with pytest.raises(ValueError):
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, step_finished=boom)


def test_timeout_ends_the_run_early_with_a_warning():
    messages = []
    # 1e6 steps take far longer than 10 ms on any machine
    part = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1000, output_interval=0.001,
                            timeout=0.01, logger=lambda *m: messages.append(m))
    assert 1 <= len(part) < 1000001
    assert part["time"][-1] < 1000
    assert any(level == "warning" and "timeout of 0.01 s" in text
               for level, _, text in messages), messages
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), timeout=-1)
    assert e.value.status == "EINVAL" and "timeout" in str(e.value)


def test_debug_logging_asks_the_fmu_for_its_messages():
    quiet, loud = [], []
    rtcosim.simulate(fmu("BouncingBall-fmi2.fmu"), stop_time=3,
                     logger=lambda *m: quiet.append(m))
    rtcosim.simulate(fmu("BouncingBall-fmi2.fmu"), stop_time=3, debug_logging=True,
                     logger=lambda *m: loud.append(m))
    # the ball's impacts are logged (FMU category logEvents, status OK: level
    # info, the instance as the category) only when instantiated with loggingOn
    assert not any(text.startswith("logEvents:") for _, _, text in quiet), quiet[:5]
    events = [m for m in loud if m[0] == "info" and m[2].startswith("logEvents: bounce")]
    assert len(events) >= 3 and events[0][1] == "BouncingBall", loud[:5]


def test_a_unit_without_unit_definitions_warns_and_strict_refuses(cli, tmpdir_private):
    """BouncingBall repackaged without its UnitDefinitions (as the project's
    LS-BUS FMUs were built before, which fmusim refused: "Unit "s" of model
    variable "time" is not defined"): a warning per unit naming the variable,
    the run's results unchanged, units included; --strict refuses it with the
    first one."""
    original = fmu("BouncingBall-fmi3.fmu")
    broken = os.path.join(tmpdir_private, "NoUnits.fmu")
    with zipfile.ZipFile(original) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "modelDescription.xml":
                text = data.decode()
                start, end = text.index("<UnitDefinitions>"), text.index("</UnitDefinitions>")
                data = (text[:start] + text[end + len("</UnitDefinitions>"):]).encode()
            dst.writestr(item, data)
    runs = {}
    for name, path in (("original", original), ("broken", broken)):
        out = os.path.join(tmpdir_private, name + ".csv")
        runs[name] = subprocess.run([cli, "simulate", path, "--csv-units", "-o", out],
                                    capture_output=True, text=True)
        assert runs[name].returncode == 0, runs[name].stderr
        with open(out) as f:
            runs[name].csv = f.read()
    assert runs["broken"].csv == runs["original"].csv
    assert "UnitDefinitions" not in runs["original"].stderr
    for var, unit in (("time", "s"), ("h", "m"), ("v", "m/s")):
        line = f"variable '{var}': unit '{unit}' is not defined in UnitDefinitions"
        assert line in runs["broken"].stderr, runs["broken"].stderr
    r = subprocess.run([cli, "simulate", broken, "--strict"], capture_output=True, text=True)
    assert r.returncode == 1, r
    # the first violation is the error, the later ones are logged before it
    last = r.stderr.splitlines()[-1]
    assert last.startswith("rtcosim: ") and last.endswith(
        "variable 'time': unit 's' is not defined in UnitDefinitions (FMI 2.0 section 2.2.2, "
        "FMI 3.0 section 2.4.3)"), r.stderr


def test_a_default_step_finer_than_a_nanosecond_is_said(cli, tmpdir_private):
    """rtcosim keeps time in whole nanoseconds: Dahlquist repackaged with
    DefaultExperiment stepSize 2^-10 s (976562.5 ns, as a 1024 Hz base rate
    gives) runs on 976562 ns (nearest, ties to even), and the warning says so
    instead of a grid that drifts half a nanosecond a step unannounced."""
    fine = os.path.join(tmpdir_private, "Fine.fmu")
    with zipfile.ZipFile(fmu("Dahlquist-fmi3.fmu")) as src, zipfile.ZipFile(fine, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "modelDescription.xml":
                data = data.replace(b'stepSize="0.0001"', b'stepSize="0.0009765625"')
                assert b"0.0009765625" in data
            dst.writestr(item, data)
    out = os.path.join(tmpdir_private, "fine.csv")
    r = subprocess.run([cli, "simulate", fine, "--stop-time", "0.01", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("DefaultExperiment stepSize 0.0009765625 s is not a whole number of nanoseconds: "
            "0.000976562 s taken") in r.stderr, r.stderr
    with open(out) as f:
        times = [row[0] for row in csv.reader(f)][1:4]
    assert times == ["0", "0.000976562", "0.001953124"]
    r = subprocess.run([cli, "simulate", fmu("Dahlquist-fmi3.fmu"), "--stop-time", "0.01",
                        "-o", out], capture_output=True, text=True)
    assert r.returncode == 0 and "nanoseconds" not in r.stderr, r.stderr


def test_apply_default_start_values_sets_what_the_fmu_declares(tmpdir_private, monkeypatch):
    """DecaySource (sources only, built when loaded) with k declared 1.5
    while its code starts with 0.5: x = 2 e^{-0.5 t} by default, 2 e^{-1.5 t}
    with apply_default_start_values (FMPy's keyword), and a start value given
    wins over the declared one."""
    monkeypatch.setenv("RTCOSIM_CACHE_DIR", os.path.join(tmpdir_private, "cache"))
    path = os.path.join(tmpdir_private, "Declared.fmu")
    with zipfile.ZipFile(fmu("DecaySource-fmi3.fmu")) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "modelDescription.xml":
                data = data.replace(b'variability="fixed" start="0.5"',
                                    b'variability="fixed" start="1.5"')
            dst.writestr(item, data)
    for kwargs, k in (({}, 0.5), ({"apply_default_start_values": True}, 1.5),
                      ({"apply_default_start_values": True, "start_values": {"k": 0.25}}, 0.25)):
        r = rtcosim.simulate(path, stop_time=1, output_interval=0.5, **kwargs)
        assert list(r["x"]) == [2 * math.exp(-k * t) for t in (0, 0.5, 1)], kwargs


def test_info_of_a_source_code_fmu_says_the_binary_was_built(tmpdir_private, monkeypatch):
    """DecaySource holds only sources: info builds it, lists "sources" as
    its only platform (as `rtcosim info`) and says the binary was built."""
    monkeypatch.setenv("RTCOSIM_CACHE_DIR", os.path.join(tmpdir_private, "cache"))
    i = rtcosim.info(fmu("DecaySource-fmi2.fmu"))
    assert i["platforms"] == ["sources"]
    assert i["binary"] == "binaries/linux64/DecaySource.so"
    assert i["binary_built_from_sources"] is True and i["binary_error"] is None
    assert rtcosim.info(fmu("Dahlquist-fmi2.fmu"))["binary_built_from_sources"] is False
