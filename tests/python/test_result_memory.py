"""A long run's results CSV read a line at a time (src/plot/plot_csv.c):
`rtcosim plot` of two variables and `rtcosim info` of a 400 000-row x
20-column file stay far below what reading it whole took (the file, its
cells as text, then as doubles: 320 MB here), read_result of every column
holds the values about once, and read_result with
variables gives exactly the values read_result gives for them, text columns
only when named, and refuses a name the file lacks, naming it."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import rtcosim
from conftest import fmu, instrumented

ROWS, COLUMNS = 400_000, 20


def write_big_csv(path):
    """ROWS rows of time and COLUMNS columns (12-character decimals, a
    block of 1000 rows repeated under increasing times): about 100 MB,
    written in well under a second."""
    rng = np.random.default_rng(7)
    block = rng.uniform(-1000, 1000, size=(1000, COLUMNS))
    tails = [",".join(f"{v:.6f}" for v in row) for row in block]
    with open(path, "w") as f:
        f.write('"time",' + ",".join(f'"x{k}"' for k in range(COLUMNS)) + "\n")
        f.write('"s",' + ",".join('"V"' for _ in range(COLUMNS)) + "\n")  # --csv-units
        f.writelines(f"{i / 1000:.3f},{tails[i % 1000]}\n" for i in range(ROWS))
    return block


def peak_kb(args):
    """The peak resident memory of a child process (kilobytes), run alone
    under a fresh Python so that no other child's peak counts."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", probe] + args, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0] == "0", args
    return int(out[1])


@pytest.fixture(scope="module")
def big():
    directory = tempfile.mkdtemp(prefix="rtcosim-pytest-")
    try:
        path = os.path.join(directory, "big.csv")
        yield path, write_big_csv(path)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_plot_and_info_hold_no_whole_file(big, cli):
    """Measured on this file: read whole, plot and info took 320 MB each (7.7 s
    and 3.7 s); a line at a time 28 MB (plot: time and two columns as
    doubles, and PLplot) and 6 MB (info), 0.5 s each. The bounds leave room
    and fail the whole reader (RTCOSIM_CSV_WHOLE=1)."""
    path, _ = big
    if instrumented(cli):
        pytest.skip("sanitizer build: resident memory is no measure")
    out = os.path.join(os.path.dirname(path), "p.png")
    plot = peak_kb([cli, "plot", path, "x3", "x17", "-o", out])
    info = peak_kb([cli, "info", path])
    assert plot < 80_000, f"plot of 2 variables took {plot} KB"
    assert info < 30_000, f"info took {info} KB"
    assert os.path.getsize(out) > 1000


def test_read_result_with_variables_is_read_result_of_them(big):
    path, block = big
    names = ["x17", "x3"]
    some = rtcosim.read_result(path, variables=names)
    assert some.dtype.names == ("time", "x3", "x17")  # the file's order
    every = rtcosim.read_result(path)
    assert len(some) == len(every) == ROWS
    for name in ("time", "x3", "x17"):
        assert np.array_equal(some[name], every[name])  # bit for bit (no NaN here)
    # and what the file says: the block's 6-decimal texts read back
    assert some["x3"][1234] == float(f"{block[234, 3]:.6f}")
    assert some["time"][ROWS - 1] == (ROWS - 1) / 1000
    assert some.units["x3"] == "V"


def test_read_result_of_every_column_holds_the_values_about_once(big, cli):
    """read_result of all 20 columns: the values are 400 000 x 21 doubles,
    67 MB. Measured over a Python that only imported rtcosim and numpy: 194
    MB more when the reader's columns went through rows of 16-byte cells (the
    columns, then the cells, then the array); 77 MB copied from the columns a
    block at a time, each block given back once copied. Bound: 1.4 x the
    values, which the rows' way fails by far."""
    path, block = big
    if instrumented(cli):
        pytest.skip("sanitizer build: resident memory is no measure")
    values = ROWS * (COLUMNS + 1) * 8
    check = ("import sys, numpy as np, rtcosim\n"
             "r = rtcosim.read_result(sys.argv[1])\n"
             "assert len(r) == %d and r['x19'][%d] == float(sys.argv[2])\n" % (ROWS, ROWS - 1))
    base = peak_kb([sys.executable, "-c", "import numpy, rtcosim"])
    read = peak_kb([sys.executable, "-c", check, path, f"{block[(ROWS - 1) % 1000, 19]:.6f}"])
    assert (read - base) * 1024 < 1.4 * values, f"read_result took {read - base} KB more"


def test_a_long_simulation_is_held_about_once_on_its_way_to_python(cli):
    """simulate of BouncingBall for 1000 s at 1 ms: 1 000 001 rows of time, h, v,
    24 MB as the array. The run keeps its rows as 8-byte times and 16-byte cells
    (40 MB with the growth's spare); copying them out a block at a time from the
    end, each block given back once copied, the peak over a Python that only
    imported rtcosim is 43 MB where it was 72 MB (the cells, the array and a
    column's copy at once). Bound: 2.4 x the array. The values themselves are
    checked against the CLI's CSV elsewhere (test_simulate.py); here the last
    row's time and the rows' count."""
    if instrumented(cli):
        pytest.skip("sanitizer build: resident memory is no measure")
    check = ("import sys, rtcosim\n"
             "r = rtcosim.simulate(sys.argv[1], stop_time=1000, output_interval=1e-3)\n"
             "assert len(r) == 1000001 and r['time'][-1] == 1000 and r['time'][1] == 0.001\n")
    base = peak_kb([sys.executable, "-c", "import numpy, rtcosim"])
    run = peak_kb([sys.executable, "-c", check, fmu("BouncingBall-fmi3.fmu")])
    assert (run - base) * 1024 < 2.4 * 1000001 * 3 * 8, f"simulate took {run - base} KB more"


def test_read_result_refuses_a_name_the_file_lacks(tmpdir_private):
    path = os.path.join(tmpdir_private, "small.csv")
    with open(path, "w") as f:
        f.write("time,a,b\n0,1,2\n1,3,4\n")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.read_result(path, variables=["a", "nope", "zz"])
    assert str(e.value).count(path) == 1
    assert "'nope', 'zz'" in str(e.value) and "'a'" not in str(e.value)
    r = rtcosim.read_result(path, variables=["b", "time"])  # time is always there
    assert r.dtype.names == ("time", "b") and list(r["b"]) == [2, 4]


def test_read_result_adds_text_columns_only_when_named(tmpdir_private):
    path = os.path.join(tmpdir_private, "text.csv")
    with open(path, "w") as f:
        f.write('"time","x","s","t"\n"s","m","",""\n0,0.5,"on","a"\n1,-1.5,"off","b"\n')
    r = rtcosim.read_result(path, variables=["x"])
    assert r.dtype.names == ("time", "x") and list(r["x"]) == [0.5, -1.5]
    r = rtcosim.read_result(path, variables=["t", "x"])
    assert r.dtype.names == ("time", "x", "t")
    assert list(r["t"]) == ["a", "b"] and list(r["x"]) == [0.5, -1.5]
    r = rtcosim.read_result(path)
    assert r.dtype.names == ("time", "x", "s", "t") and list(r["s"]) == ["on", "off"]
