"""The selected read of MDF measurements (result_table_read_mdf_select) against
the whole read, on every kind of file the MDF tests build (mdf_build.py: MDF 4
unsorted with a DL list of DT and DZ blocks, invalidation bits, a big-endian
channel, a linear conversion; sorted behind HL of a transposed DZ block; value
tables; MDF 3.30 and 3.00 sorted and unsorted with ids before and after;
unfinalized MDF 4 files, one whose last DT block runs to the end of the file)
and on an MDF 4 file the CLI writes; broken files fail the same through both;
and a big measurement read for two channels and for all (test_mdf_select.c
says what each checks). Files go to a temporary directory.
Usage: test_mdf_select.py TEST_MDF_SELECT RTCOSIM BOUNCINGBALL_FMU"""
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_build import Mdf3, int64s, measurement, measurement3, tables, tables3, with_pole  # noqa: E402,F401,E501

check, rtcosim, ball = sys.argv[1:4]


def run(*args):
    r = subprocess.run([check, *args], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    assert r.returncode == 0, (args, r.stdout, r.stderr)


def with_group(value_name, cycles, records):
    """measurement() and one more sorted group appended to its data groups: a
    float64 master t and a float64 value_name, records (bytes) in one DT
    block; the file (an Mdf builder) and that DT block's offset."""
    f = measurement()
    dg = f.block(b"DG", [0, 0, 0, 0], bytes(8))
    g = f.block(b"CG", [0, 0, 0, 0, 0, 0], struct.pack("<QQHHIII", 0, cycles, 0, 0, 0, 16, 0))
    cns = [f.block(b"CN", [0, 0, f.text(b"TX", n), 0, 0, 0, 0, 0],
                   struct.pack("<BBBBIIIIBBH6d", t, 1 if t == 2 else 0, 4, 0, o, 64, 0, 0, 0, 0, 0,
                               0, 0, 0, 0, 0, 0)) for n, t, o in (("t", 2, 0), (value_name, 0, 8))]
    f.link(cns[0], 0, cns[1])
    f.link(g, 1, cns[0])
    f.link(dg, 1, g)
    at = struct.unpack_from("<Q", f.data, 64 + 24)[0]
    while struct.unpack_from("<Q", f.data, at + 24)[0]:
        at = struct.unpack_from("<Q", f.data, at + 24)[0]
    f.link(at, 0, dg)
    dt = f.block(b"DT", [], records)
    f.link(dg, 2, dt)
    return f, dt


def open_ended():
    """A group whose last DT block's length was never written."""
    f, dt = with_group("late", 0, struct.pack("<5d", 0.0, 7.0, 0.5, 8.0, 1.5) + b"cut")
    struct.pack_into("<Q", f.data, dt + 8, 24)  # the length never written
    f.data[:8] = b"UnFinMF "
    struct.pack_into("<H", f.data, 60, 1 | 4)
    return bytes(f.data)


def infinite_time():
    """A group whose last record's time is +inf: read selected with the others
    (a union of times) and streamed, it is a row too (the merge once took
    +inf for a group past its end and lost it)."""
    f, _ = with_group("at_inf", 3, struct.pack("<6d", 0.0, 7.0, 0.5, 8.0, float("inf"), 9.0))
    return bytes(f.data)


with tempfile.TemporaryDirectory() as tmp:
    good = {
        "rig.mf4": bytes(measurement().data),
        "rig.mdf": bytes(measurement3().data),
        "rig300.mdf": bytes(measurement3(300).data),
        "tables.mf4": bytes(tables().data),
        "tables.mdf": bytes(tables3().data),
        "pole.mf4": bytes(with_pole().data),
        "open.mf4": open_ended(),
        "inf.mf4": infinite_time(),
        "int64s.mf4": bytes(int64s().data),  # (streamed with the exact bits)
        "int64s_invalid.mf4": bytes(int64s(inval=1).data),
    }
    g = bytes(measurement().data)
    good["flags.mf4"] = g[:60] + b"\x05\x00" + g[62:]
    paths = []
    for name, data in good.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(data)
        paths.append(p)
    ballf = os.path.join(tmp, "ball.mf4")
    r = subprocess.run([rtcosim, "simulate", ball, "--stop-time", "1", "--output-interval", "0.01",
                        "-o", ballf], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    paths.append(ballf)
    run("same", *paths)

    # broken: the same one line through the read of a channel of the broken group
    cases = {}
    f = measurement()
    dl_at = f.data.index(b"##DL")
    f.link(dl_at, 0, dl_at)  # a DL whose next is itself
    cases["loop.mf4"] = (f.data, "Float64_discrete_input")
    f = measurement()
    f.link(f.data.index(b"##DL"), 1, len(f.data) + 4096)  # a data block out of the file
    cases["outside.mf4"] = (f.data, "Float64_continuous_input")
    f = measurement()
    f.data[f.data.index(b"##DT") + 24] = 9  # the first record's id
    cases["record.mf4"] = (f.data, "Float64_continuous_input")
    f = measurement()
    at = f.data.index(b"##DZ") + 24 + 24 + 2
    f.data[at:at + 4] = b"\xff\xff\xff\xff"
    cases["deflate.mf4"] = (f.data, "Float64_discrete_input")
    f = measurement3()
    cg = f.data.rindex(b"CG\x1a\x00")  # more records than the file holds
    struct.pack_into("<I", f.data, cg + 22, 100000)
    cases["past.mdf"] = (f.data, "Int32_input")
    f = measurement3()
    f.data[f.data.index(b"\x02\x00\x00\x00\x00\x17\x02")] = 9
    cases["record3.mdf"] = (f.data, "Int32_input")
    cases["cut.mf4"] = (g[:len(g) // 2], "Int32_input")
    for name, (data, channel) in cases.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(bytes(data))
        run("broken", p, channel)

    run("big", tmp)
print("ok")
