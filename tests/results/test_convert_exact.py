"""`rtcosim convert` keeps 64-bit integers whole and columns without a value
out of the way. Truth, by hand:
- a CSV whose Int64 and UInt64 columns hold 2^53 + 1, -2^63, 2^63 - 1,
  2^64 - 1 and 2^63 (a double keeps 53 bits: 2^53 + 1 would come back as
  2^53, 2^64 - 1 as 18446744073709552000): to a CSV the same digits; to an
  MF4 signed and unsigned 64-bit channels (read back here block by block as
  the format lays them out, mdf_parse.py) holding those integers; back to a
  CSV the same digits. A column of smaller integers stays a double, as before.
- a raster that interpolates gives doubles (a point between two integers is
  none), one that holds (--hold) the integers whole.
- MF4 files built byte by byte (mdf_build.py, the standard's block layout):
  little- and big-endian int64 and a uint64 channel without conversion come
  out whole; an int64 channel whose invalidation bit marks a sample invalid
  cannot be held by an integer type, so the file is read again with that
  channel in doubles (the invalid sample nan, the others whole); a channel
  with a linear conversion is a double.
- a column without a value in any row (an FMU's String output that stayed
  "", an omitted variable) stays empty in a CSV and is left out of an MF4 and
  a MAT file with a word on stderr, not written as a NaN channel.
Usage: test_convert_exact.py RTCOSIM"""
import csv
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_build import INT64S_B, INT64S_I, INT64S_U, int64s  # noqa: E402
from mdf_parse import read_mf4  # noqa: E402

rtcosim = sys.argv[1]

I64, U64 = INT64S_I, INT64S_U  # 2^53 + 1, -2^63, 2^63 - 1; 2^64 - 1, 2^63, 0


def convert(*args, ok=True):
    r = subprocess.run([rtcosim, "convert", *args], capture_output=True, text=True)
    assert (r.returncode == 0) == ok, (args, r.returncode, r.stderr)
    return r


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def column(path, name):
    table = rows(path)
    k = table[0].index(name)
    return [row[k] for row in table[1:]]


def int64_file(path, inval=None, linear=False):
    with open(path, "wb") as out:
        out.write(int64s(inval, linear).data)
    return INT64S_B


with tempfile.TemporaryDirectory() as tmp:
    def at(name):
        return os.path.join(tmp, name)

    # a CSV as `simulate` writes one: a String column quoted, an empty one
    with open(at("in.csv"), "w", newline="") as f:
        f.write('"time","i","u","small","x","s","e"\n'
                f'0,{I64[0]},{U64[0]},1,0.5,"",\n'
                f'0.5,{I64[1]},{U64[1]},2,1.5,"",\n'
                f'1,{I64[2]},{U64[2]},3,2.5,"",\n')
    convert(at("in.csv"), at("out.csv"))
    assert column(at("out.csv"), "i") == [str(v) for v in I64], rows(at("out.csv"))
    assert column(at("out.csv"), "u") == [str(v) for v in U64]
    assert column(at("out.csv"), "small") == ["1", "2", "3"]
    assert column(at("out.csv"), "s") == ["", "", ""]  # kept, empty (not "nan")
    assert column(at("out.csv"), "e") == ["", "", ""]

    r = convert(at("in.csv"), at("out.mf4"))
    assert "left out 2 columns without a value in any row" in r.stderr, r.stderr
    channels, _ = read_mf4(at("out.mf4"))
    by_name = {ch[0]: ch for ch in channels}
    assert list(by_name) == ["time", "i", "u", "small", "x"], list(by_name)
    assert by_name["i"][5] == (2, 64) and by_name["i"][6] == I64, by_name["i"]
    assert by_name["u"][5] == (0, 64) and by_name["u"][6] == U64, by_name["u"]
    assert by_name["small"][5] == (4, 64) and by_name["small"][6] == [1.0, 2.0, 3.0]
    convert(at("out.mf4"), at("back.csv"))
    assert column(at("back.csv"), "i") == [str(v) for v in I64]
    assert column(at("back.csv"), "u") == [str(v) for v in U64]

    # nothing but columns without a number: one line, nothing written
    with open(at("none.csv"), "w") as f:
        f.write('time,s,e\n0,"",\n1,"",\n')
    r = convert(at("none.csv"), at("none.mat"), ok=False)
    assert r.stderr.count("\n") == 1 and "none.csv" in r.stderr and \
        "2 columns without a value" in r.stderr, r.stderr
    assert not os.path.exists(at("none.mat"))

    # a raster: interpolated points are doubles, held ones the integers
    convert(at("in.csv"), at("lin.csv"), "--raster", "0.5")
    assert [float(v) for v in column(at("lin.csv"), "i")] == [float(v) for v in I64]
    assert column(at("lin.csv"), "i")[0] != str(I64[0])  # (2^53 + 1 is no double)
    convert(at("in.csv"), at("hold.csv"), "--raster", "0.25", "--hold")
    assert column(at("hold.csv"), "i") == [str(v) for v in
                                           (I64[0], I64[0], I64[1], I64[1], I64[2])]

    # MF4 files built by hand
    b = int64_file(at("hand.mf4"))
    convert(at("hand.mf4"), at("hand.csv"))
    assert column(at("hand.csv"), "i") == [str(v) for v in I64], rows(at("hand.csv"))
    assert column(at("hand.csv"), "u") == [str(v) for v in U64]
    assert column(at("hand.csv"), "b") == [str(v) for v in b]
    convert(at("hand.mf4"), at("hand2.mf4"), "i", "b", "--from", "0.5")
    channels, _ = read_mf4(at("hand2.mf4"))
    assert [(ch[0], ch[5], ch[6]) for ch in channels[1:]] == [("i", (2, 64), I64[1:]),
                                                               ("b", (2, 64), b[1:])], channels

    int64_file(at("invalid.mf4"), inval=1)
    convert(at("invalid.mf4"), at("invalid.csv"))
    i = column(at("invalid.csv"), "i")
    assert i[1] == "nan" and [float(i[0]), float(i[2])] == [float(I64[0]), float(I64[2])], i
    assert column(at("invalid.csv"), "u") == [str(v) for v in U64]  # the others whole
    assert column(at("invalid.csv"), "b") == [str(v) for v in b]

    int64_file(at("linear.mf4"), linear=True)
    convert(at("linear.mf4"), at("linear.csv"))
    assert [float(v) for v in column(at("linear.csv"), "i")] == [2.0 * v for v in I64]
    assert column(at("linear.csv"), "u") == [str(v) for v in U64]  # (its own: no conversion)
print("convert exact: ok")
